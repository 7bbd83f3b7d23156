import type { JobView } from './service.js';

/** A run's progress and last message as its view shows them: none yet (no job, or one gone) reads 0 and ''. */
export const jobProgress = (job: Pick<JobView, 'progress' | 'message'> | undefined) => ({ progress: job?.progress ?? 0, message: job?.message ?? '' });
