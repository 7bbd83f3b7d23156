import { createStore, useStore } from './store';

/** The modal message dialog of SPEC §2: title 'Message', fields 'Error' and 'Details'. */
export interface Message {
  error: string;
  details?: string | string[];
}

export type Severity = 'success' | 'info' | 'warning' | 'error';

export interface Snack {
  id: number;
  text: string;
  severity: Severity;
  /** names a notice about a state (e.g. 'a run is under way') that the page withdraws when the state ends */
  about?: string;
}

let nextId = 1;
const messages = createStore<(Message & { id: number })[]>([]);
const snacks = createStore<Snack | null>(null);

const sameMessage = (a: Message, b: Message) =>
  a.error === b.error && JSON.stringify(a.details ?? null) === JSON.stringify(b.details ?? null);

/** Queues a message; an identical one already waiting (parallel calls failing alike) is not shown twice. */
export function showMessage(message: Message): void {
  messages.set((queue) => (queue.some((m) => sameMessage(m, message)) ? queue : [...queue, { ...message, id: nextId++ }]));
}

export function closeMessage(): void {
  messages.set((queue) => queue.slice(1));
}

export function showSnackbar(text: string, severity: Severity = 'success', about?: string): void {
  snacks.set({ id: nextId++, text, severity, about });
}

/** Closes the notice shown; with `about`, only a notice shown with that name (one that no longer holds). */
export function closeSnackbar(about?: string): void {
  snacks.set((s) => (about === undefined || s?.about === about ? null : s));
}

export const useCurrentMessage = () => useStore(messages)[0] ?? null;
export const useSnack = () => useStore(snacks);

/** For tests. */
export function resetFeedback(): void {
  messages.set([]);
  snacks.set(null);
}
export const currentMessages = () => messages.get();
