import type { EngineEvent, QueuedJob } from './engine.js';

/** What a queue backend reports; the job service turns each call into a row update. */
export interface BackendListener {
  /** `attempt`: the queue's own count of starts (BullMQ), so a job retried on another worker counts as attempt 2. */
  started(id: string, attempt?: number): void;
  event(id: string, event: EngineEvent): void;
  succeeded(id: string, result: unknown): void;
  failed(id: string, error: string): void;
  /** The worker died or vanished mid-job. */
  interrupted(id: string): void;
  /** A running job was handed back to the queue (workers stopped); it will run again. */
  requeued(id: string): void;
}

export interface BackendStatus {
  running: boolean;
  workers: number;
  busy: number;
  queued: number;
  active: number;
}

/** Where jobs run: the local Python pool (default) or BullMQ on Redis. The jobs table stays the truth. */
export interface JobBackend {
  readonly mode: 'local' | 'bullmq';
  start(): Promise<void>;
  close(): Promise<void>;
  /** Adds a job; a job already waiting or running under the same id is left as it is. */
  enqueue(job: QueuedJob): Promise<void>;
  /** Takes a job that is still waiting out of the queue (its organisation paused); false once a worker has it. */
  withdraw(id: string): Promise<boolean>;
  /** Stops the job wherever it is: dropped from the queue, or its task stopped. */
  cancel(id: string): Promise<void>;
  status(): Promise<BackendStatus>;
  startWorkers(): Promise<void>;
  stopWorkers(): Promise<void>;
}
