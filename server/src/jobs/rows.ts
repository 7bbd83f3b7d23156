import type { Config } from '../config.js';
import crypto from 'node:crypto';
import type { JobState } from '../db/schema.js';
import type { QueuedJob } from './engine.js';
import type { JobRow } from './repo.js';

/** Jobs as rows and as views: what the job service stores, answers and hands back to the queue. */

/** A job as stored; `result` is the engine's JSON until read through its kind (`kind.resultOf(job)`). */
export interface JobView<R = unknown> {
  id: string;
  kind: string;
  state: JobState;
  progress: number;
  message: string;
  log: string;
  error: string | null;
  result: R | null;
  subject_type: string | null;
  subject_id: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** The job log keeps its last ~200 KB; older lines give way. */
const LOG_LIMIT = 200_000;

/** How old an unclaimed output (a job's folder, a committed dataset folder without its row) must be before a sweep
 * removes it: config.jobOutputGraceH hours, 24 by default; long enough that another server mid-write is never hit. */
export function outputGraceMs(config: Pick<Config, 'jobOutputGraceH'>): number {
  return config.jobOutputGraceH * 3600_000;
}

/** A stored job as the queue carries it again (recovery, resume): with its request id and trace context. */
export function queued(row: JobRow): QueuedJob {
  let trace: Record<string, string> | null = null;
  try {
    trace = row.trace_json ? JSON.parse(row.trace_json) : null;
  } catch {
    trace = null;
  }
  return { id: row.id, kind: row.kind, spec: parseSpec(row), request_id: row.request_id ?? null, trace, attempt: Number(row.attempts) + 1 };
}

export function parseSpec(row: JobRow): Record<string, unknown> {
  try {
    return JSON.parse(row.spec_json);
  } catch {
    return {};
  }
}

export function toView(row: JobRow): JobView {
  let result: unknown | null = null;
  if (row.result_json) {
    try {
      result = JSON.parse(row.result_json);
    } catch {
      result = null;
    }
  }
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    progress: Number(row.progress),
    message: row.message,
    log: row.log,
    error: row.error,
    result,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

export function trimLog(log: string): string {
  if (log.length <= LOG_LIMIT) return log;
  const cut = log.indexOf('\n', log.length - LOG_LIMIT);
  return '[earlier lines dropped]\n' + log.slice(cut < 0 ? log.length - LOG_LIMIT : cut + 1);
}

let lastMs = 0;
let counter = 0;
/** UUID version 7: time-ordered, so ids sort by creation even within one millisecond (RFC 9562, method 1). */
export function uuidv7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0;
  }
  const b = crypto.randomBytes(16);
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
