import { answer, http } from './typed';

/** Stops a queued or running job (a training run, a preprocessing run): the engine ends it and keeps nothing half-written. */
export const cancelJob = (id: string) => answer(http.POST('/api/jobs/{id}/cancel', { params: { path: { id } } }));
