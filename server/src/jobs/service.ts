import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { AppError } from '../http/errors.js';
import { currentRequest, traceOf } from '../http/request-scope.js';
import { localize } from '../i18n/messages.js';
import type { LocalStorage } from '../storage/local.js';
import type { BackendListener, JobBackend } from './backend.js';
import { BullBackend } from './bullmq.js';
import type { EngineEvent, LogFn } from './engine.js';
import type { z } from 'zod';
import type { AnyJobKind, JobKind, SpecOf } from './kind.js';
import { LocalPool } from './local-pool.js';
import { ACTIVE_STATES, JobRepo, TERMINAL_STATES, type JobPatch, type JobRow } from './repo.js';
import { type JobView, outputGraceMs, parseSpec, queued, toView, trimLog, uuidv7 } from './rows.js';

export type { EngineEvent } from './engine.js';
export { outputGraceMs, uuidv7, type JobView } from './rows.js';


export interface ServiceStatus {
  mode: 'local' | 'bullmq';
  running: boolean;
  workers: number;
  busy: number;
  queued: number;
  active: number;
}

/** One organisation's view of compute: its own share of the pool, and the pool's capacity. */
export interface OrgServiceStatus {
  mode: 'local' | 'bullmq';
  /** Its jobs run: the pool runs and the organisation has not paused its share. */
  running: boolean;
  /** The organisation paused its own share (its queued jobs are held). */
  paused: boolean;
  /** The shared pool runs (platform administrators start and stop it). */
  pool_running: boolean;
  workers: number;
  /** The organisation's own jobs only. */
  queued: number;
  active: number;
}

export type FinishedHandler<R = unknown> = (job: JobView<R>, orgId: string) => Promise<void>;
/** Task-specific events (epoch, metrics ...) as they stream, for areas that keep curves of their own. */
export type EventHandler = (job: { id: string; orgId: string; kind: string }, event: EngineEvent) => Promise<void> | void;

/** Progress and log writes of one job are coalesced to at most one per this many ms. */
export const FLUSH_MS = 300;
const RECONCILE_MS = 30_000;
const SWEEP_MS = 3600_000;

interface LiveJob {
  chain: Promise<void>;
  timer: NodeJS.Timeout | null;
  lastFlush: number;
  progress?: number;
  message?: string;
  lines: string[];
  log?: string; // the stored log, loaded on first append
  orgId?: string;
  kind?: string;
}

const now = () => new Date().toISOString();

/** A job to start: its declared kind (jobs/kind.ts) and a spec of that kind's shape. */
export interface NewJob<J extends AnyJobKind> {
  orgId: string;
  userId: string | null;
  kind: J;
  spec: SpecOf<J>;
  subjectType?: string;
  subjectId?: string;
  /** Links the caller's rows to the job before it can start, so even an instant failure finds them. */
  beforeEnqueue?: (job: JobView) => Promise<void>;
}

/**
 * Compute jobs: the `jobs` table is the one source of truth for state, progress and log; a backend (local
 * Python pool, or BullMQ on Redis when REDIS_URL is set) runs them and reports back through a listener.
 */
export class JobService {
  private readonly repo: JobRepo;
  private readonly backend: JobBackend;
  private readonly config: Config;
  private readonly log: LogFn;
  private readonly finishedHandlers = new Map<string, FinishedHandler[]>();
  private readonly eventHandlers = new Map<string, EventHandler[]>();
  private readonly live = new Map<string, LiveJob>();
  private readonly finishing = new Map<string, Promise<void>>();
  private readonly waiters = new Map<string, Set<(job: JobView) => void>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private reconcileTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private started = false;
  private readonly storage: LocalStorage | undefined;

  constructor(opts: {
    db: Db;
    config: Config;
    log: LogFn;
    /** BullMQ mode: Python workers this server starts itself (default config.workers; MITATE_WORKERS=0 for none). */
    bullWorkers?: number;
    /** With object storage, a job's outputs are synchronised with the store before its success is applied. */
    storage?: LocalStorage;
  }) {
    this.storage = opts.storage;
    this.repo = new JobRepo(opts.db);
    this.config = opts.config;
    this.log = opts.log;
    const listener = this.listener();
    if (opts.config.redisUrl) {
      const workers = opts.bullWorkers ?? opts.config.workers;
      this.backend = new BullBackend(opts.config, listener, opts.log, workers);
    } else {
      this.backend = new LocalPool(opts.config, listener, opts.log);
    }
  }

  get mode(): 'local' | 'bullmq' {
    return this.backend.mode;
  }

  /** Recovers jobs left by a previous run, then starts the workers (or the Redis connection). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const rows = await this.withoutHeld(await this.repo.unfinished());
    if (this.backend instanceof BullBackend) {
      await this.backend.start(); // listening first, so no event falls between reconcile and listening
      await this.backend.reconcile(rows.map((r) => ({ ...queued(r), state: r.state as 'queued' | 'running' })));
      this.reconcileTimer = setInterval(() => this.track(this.reconcileStale()), RECONCILE_MS);
      this.reconcileTimer.unref();
    } else {
      for (const r of rows) {
        // The process that ran it is gone with the previous server; queued ones simply run now.
        if (r.state === 'running') await this.finish(r.id, 'failed', { error: localize('en', 'job_interrupted') });
        else await this.backend.enqueue(queued(r));
      }
      await this.backend.start();
    }
    if (rows.length) this.log('info', `jobs: recovered ${rows.length} unfinished job(s)`);
    const sweep = () => this.track(this.sweepOutputs().catch((err) => this.log('warn', `jobs: sweep failed: ${(err as Error).message}`)));
    void sweep();
    this.sweepTimer = setInterval(sweep, SWEEP_MS);
    this.sweepTimer.unref();
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    if (this.reconcileTimer) clearInterval(this.reconcileTimer);
    this.reconcileTimer = null;
    await this.backend.close();
    for (const [id, job] of this.live) {
      if (job.timer) clearTimeout(job.timer);
      job.timer = null;
      this.write(id, () => this.flush(id));
    }
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Stores and queues a job of a declared kind; a spec that is not the kind's shape is refused before anything is stored. */
  async create<J extends AnyJobKind>(input: NewJob<J>): Promise<JobView> {
    const checked = input.kind.spec.safeParse(input.spec);
    if (!checked.success) throw new Error(`a ${input.kind.kind} job's spec is not its declared shape: ${checked.error.message}`);
    const kind = input.kind.kind;
    const id = uuidv7();
    const spec: Record<string, unknown> = { ...(input.spec as Record<string, unknown>) };
    if (spec.output_dir === undefined) spec.output_dir = path.join(this.config.dataDir, 'jobs', id);
    // A job started by a request keeps that request's id and trace context: the engine's logs and span carry them.
    const request = currentRequest();
    const trace = traceOf(request);
    const row = {
      id,
      organisation_id: input.orgId,
      kind,
      state: 'queued' as const,
      progress: 0,
      message: '',
      log: '',
      spec_json: JSON.stringify(spec),
      result_json: null,
      error: null,
      subject_type: input.subjectType ?? null,
      subject_id: input.subjectId ?? null,
      created_by: input.userId,
      attempts: 0,
      created_at: now(),
      started_at: null,
      finished_at: null,
      request_id: request?.requestId ?? null,
      trace_json: trace ? JSON.stringify(trace) : null,
    };
    await this.repo.insert(row);
    this.log('info', `job ${id} (${kind}) queued`, { job_id: id, kind, organisation_id: input.orgId, request_id: row.request_id });
    try {
      await input.beforeEnqueue?.(toView({ ...row, seq: 0 }));
      // A paused organisation's job stays queued in the table only; resume hands it to the queue.
      if (!(await this.repo.isPaused(input.orgId))) {
        await this.backend.enqueue({ id, kind, spec, request_id: row.request_id, trace: trace ?? null, attempt: 1 });
        // A pause that landed meanwhile swept the queue before this job reached it: take it back out.
        if (await this.repo.isPaused(input.orgId)) await this.backend.withdraw(id);
      }
    } catch (err) {
      await this.finish(id, 'failed', { error: `The job could not be queued: ${(err as Error).message}` });
      throw err;
    }
    return toView({ ...row, seq: 0 });
  }

  async get(orgId: string, id: string): Promise<JobView | undefined> {
    const row = await this.repo.get(orgId, id);
    return row && toView(row);
  }

  /** Figures of every organisation's jobs for the platform's operations page (see JobRepo.operations). */
  operations(since: string) {
    return this.repo.operations(since);
  }

  /** Every organisation's jobs finished since `since` (the /metrics scrape, see JobRepo.finishedSince). */
  finishedSince(since: string) {
    return this.repo.finishedSince(since);
  }

  /** Ids of the queued or running jobs of a subject (a training job's tune helpers, say). */
  activeIdsFor(orgId: string, subjectType: string, subjectId: string): Promise<string[]> {
    return this.repo.activeIdsFor(orgId, subjectType, subjectId);
  }

  async latestFor(orgId: string, subjectType: string, subjectId: string, kind?: string): Promise<JobView | undefined> {
    const row = await this.repo.latestFor(orgId, subjectType, subjectId, kind);
    return row && toView(row);
  }

  async cancel(orgId: string, id: string): Promise<JobView> {
    const row = await this.repo.get(orgId, id);
    if (!row) throw new AppError(404, 'job_not_found');
    if (TERMINAL_STATES.includes(row.state)) throw new AppError(409, 'job_not_cancellable');
    // The row first: whatever the worker still reports after this is ignored by the state guard.
    await this.finish(id, 'cancelled', { error: localize('en', 'job_cancelled') });
    await this.backend.cancel(id);
    const after = await this.repo.get(orgId, id);
    return toView(after!);
  }

  /** Runs `handler` once a job of `kind` is finished (any state), with its result parsed against the kind's declaration. */
  onFinished<K extends string, S extends z.ZodType, R extends z.ZodType>(kind: JobKind<K, S, R>, handler: FinishedHandler<z.output<R>>): void {
    const list = this.finishedHandlers.get(kind.kind) ?? [];
    list.push((job, orgId) => handler({ ...job, result: kind.resultOf(job) }, orgId));
    this.finishedHandlers.set(kind.kind, list);
  }

  onEvent(kind: AnyJobKind, handler: EventHandler): void {
    const list = this.eventHandlers.get(kind.kind) ?? [];
    list.push(handler);
    this.eventHandlers.set(kind.kind, list);
  }

  /**
   * A job a request waits for (previews, suggestions): queued, then awaited up to `timeoutMs`; one that takes longer
   * is cancelled and `onTimeout()` is thrown. Answers the finished job; its folder is the caller's to read and remove.
   */
  async runAndWait<J extends AnyJobKind>(input: NewJob<J>, timeoutMs: number, onTimeout: () => Error): Promise<JobView> {
    const job = await this.create(input);
    try {
      return await this.waitFor(job.id, timeoutMs);
    } catch {
      await this.cancel(input.orgId, job.id).catch(() => undefined);
      throw onTimeout();
    }
  }

  /** Resolves with the job once it is finished and its onFinished handlers have run. */
  waitFor(id: string, timeoutMs = 60_000): Promise<JobView> {
    return new Promise((resolve, reject) => {
      let done = false;
      const settle = (job: JobView | Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.waiters.get(id)?.delete(onDone);
        if (job instanceof Error) reject(job);
        else resolve(job);
      };
      const onDone = (job: JobView) => settle(job);
      const check = async () => {
        const row = await this.repo.getAny(id);
        if (!row) return settle(new Error(`job ${id} does not exist`));
        if (!TERMINAL_STATES.includes(row.state)) return;
        await this.finishing.get(id);
        settle(toView((await this.repo.getAny(id)) ?? row));
      };
      const set = this.waiters.get(id) ?? new Set();
      set.add(onDone);
      this.waiters.set(id, set);
      const timer = setTimeout(() => settle(new Error(`job ${id} did not finish within ${timeoutMs} ms`)), timeoutMs);
      // A job finished by another server (BullMQ mode) is seen by polling.
      const poll = setInterval(() => void check().catch(() => {}), 1000);
      void check().catch((err) => settle(err));
    });
  }

  /** The whole pool (platform administrators, tests). */
  async status(): Promise<ServiceStatus> {
    return { mode: this.backend.mode, ...(await this.backend.status()) };
  }

  /** Starts the whole pool for every organisation: platform administrators only. */
  async startWorkers(): Promise<ServiceStatus> {
    await this.backend.startWorkers();
    return this.status();
  }

  /** Stops the whole pool for every organisation: platform administrators only. */
  async stopWorkers(): Promise<ServiceStatus> {
    await this.backend.stopWorkers();
    // the hand-back of a running job to the queue is a row update started during the stop: the caller sees it done
    await Promise.allSettled([...this.inflight]);
    return this.status();
  }

  async orgStatus(orgId: string): Promise<OrgServiceStatus> {
    const [pool, paused, counts] = await Promise.all([this.backend.status(), this.repo.isPaused(orgId), this.repo.countsOf(orgId)]);
    return { mode: this.backend.mode, running: pool.running && !paused, paused, pool_running: pool.running, workers: pool.workers, ...counts };
  }

  /**
   * Pauses one organisation's share: its waiting jobs leave the queue (the rows stay 'queued') and new ones
   * are held; its running jobs finish. Other organisations' jobs are not touched.
   */
  async pauseOrg(orgId: string, userId: string | null): Promise<OrgServiceStatus> {
    await this.repo.setPaused(orgId, true, userId);
    for (const row of await this.repo.queuedOf(orgId)) await this.backend.withdraw(row.id);
    return this.orgStatus(orgId);
  }

  /** Resumes one organisation's share: its held jobs go to the queue, oldest first. */
  async resumeOrg(orgId: string, userId: string | null): Promise<OrgServiceStatus> {
    await this.repo.setPaused(orgId, false, userId);
    for (const row of await this.repo.queuedOf(orgId)) await this.backend.enqueue(queued(row));
    return this.orgStatus(orgId);
  }

  /** Leaves out queued rows of paused organisations: they are held, not lost or run. */
  private async withoutHeld(rows: JobRow[]): Promise<JobRow[]> {
    const paused = await this.repo.pausedOrgs();
    return rows.filter((r) => !(r.state === 'queued' && paused.has(r.organisation_id)));
  }

  // ---- what the backend reports ------------------------------------------------------------------

  private listener(): BackendListener & { cancelled(id: string): void } {
    return {
      started: (id, attempt) =>
        this.write(id, async () => {
          const patch = { state: 'running' as const, started_at: now(), progress: 0, message: '', error: null };
          const row = attempt ? await this.repo.startAttempt(id, attempt, patch) : await this.repo.transition(id, ['queued'], patch, true);
          const job = this.liveJob(id);
          if (row) {
            job.orgId = row.organisation_id;
            job.kind = row.kind;
          }
        }),
      event: (id, event) => this.handleEvent(id, event),
      succeeded: (id, result) =>
        void this.track(
          this.syncOutputs(id).then(
            () => this.finish(id, 'succeeded', { result_json: JSON.stringify(result ?? {}), progress: 1, error: null }),
            (err) => this.finish(id, 'failed', { error: `The job's outputs could not be stored: ${(err as Error).message}` }),
          ),
        ),
      failed: (id, error) => void this.finish(id, 'failed', { error }),
      interrupted: (id) => void this.finish(id, 'failed', { error: localize('en', 'job_interrupted') }),
      cancelled: (id) => void this.finish(id, 'cancelled', { error: localize('en', 'job_cancelled') }),
      requeued: (id) =>
        this.write(id, async () => {
          await this.flush(id);
          await this.repo.transition(id, ['running'], { state: 'queued', started_at: null, progress: 0, message: '' });
        }),
    };
  }

  /**
   * Removes output folders under <data>/jobs that nobody will read: those of jobs finished more than `graceMs`
   * ago (an unregistered preprocessing run, a preview) and those without a job row (a crash between creating the
   * folder and storing the row) older than that. Folders of queued or running jobs stay.
   */
  async sweepOutputs(graceMs = outputGraceMs(this.config)): Promise<string[]> {
    const root = path.join(this.config.dataDir, 'jobs');
    if (!fs.existsSync(root)) return [];
    const swept: string[] = [];
    const cutoff = Date.now() - graceMs;
    for (const name of fs.readdirSync(root)) {
      const dir = path.join(root, name);
      let mtime: number;
      try {
        mtime = fs.statSync(dir).mtimeMs;
      } catch {
        continue;
      }
      const row = await this.repo.getAny(name);
      if (row && ACTIVE_STATES.includes(row.state)) continue;
      const since = row?.finished_at ? Date.parse(row.finished_at) : mtime;
      if (!(since < cutoff) || mtime >= cutoff) continue;
      fs.rmSync(dir, { recursive: true, force: true });
      await this.storage?.removePath(dir);
      swept.push(name);
    }
    if (swept.length) this.log('info', `jobs: swept ${swept.length} unused output folder(s)`);
    return swept;
  }

  /** Object storage: the output folder of a job that is still active ends in the store and in this host's cache. */
  private async syncOutputs(id: string): Promise<void> {
    if (!this.storage) return;
    const row = await this.repo.getAny(id);
    if (!row || !ACTIVE_STATES.includes(row.state)) return; // finished already: nothing more to apply
    const dir = parseSpec(row).output_dir;
    if (typeof dir !== 'string') return;
    const moved = await this.storage.syncPath(dir);
    if (moved.uploaded || moved.downloaded) this.log('info', `jobs: ${id} outputs: ${moved.uploaded} uploaded, ${moved.downloaded} downloaded`, { job_id: id });
  }

  private handleEvent(id: string, event: EngineEvent): void {
    const job = this.liveJob(id);
    if (event.type === 'progress') {
      const e = event as { progress: number; message?: string };
      if (Number.isFinite(e.progress)) job.progress = Math.min(1, Math.max(0, e.progress));
      if (typeof e.message === 'string' && e.message) job.message = e.message;
    } else if (event.type === 'log') {
      job.lines.push(String((event as { line: unknown }).line));
    } else {
      // Typed events also land in the log, so a failed run still shows how far it got.
      const { type, ...data } = event;
      job.lines.push(`[${type}] ${JSON.stringify(data).slice(0, 2000)}`);
      if (this.eventHandlers.size) this.write(id, () => this.emitEvent(id, event));
    }
    this.scheduleFlush(id);
  }

  private async emitEvent(id: string, event: EngineEvent): Promise<void> {
    const job = this.liveJob(id);
    if (job.kind === undefined || job.orgId === undefined) {
      const row = await this.repo.getAny(id);
      if (!row) return;
      job.kind = row.kind;
      job.orgId = row.organisation_id;
    }
    for (const handler of this.eventHandlers.get(job.kind) ?? []) {
      try {
        await handler({ id, orgId: job.orgId!, kind: job.kind }, event);
      } catch (err) {
        this.log('error', `jobs: ${job.kind} event handler failed for ${id}: ${(err as Error).message}`, { job_id: id, kind: job.kind });
      }
    }
  }

  private scheduleFlush(id: string): void {
    const job = this.liveJob(id);
    if (job.timer) return;
    const delay = Math.max(0, job.lastFlush + FLUSH_MS - Date.now());
    job.timer = setTimeout(() => {
      job.timer = null;
      this.write(id, () => this.flush(id));
    }, delay);
  }

  /** Writes what has gathered for a running job (progress, message, log lines) in one update. */
  private async flush(id: string): Promise<void> {
    const job = this.live.get(id);
    if (!job) return;
    const patch = await this.takePending(id, job);
    job.lastFlush = Date.now();
    if (!Object.keys(patch).length) return;
    const row = await this.repo.transition(id, ['running'], patch);
    if (!row) this.forget(id); // not running (finished, or never started here): nothing more to write
  }

  private async takePending(id: string, job: LiveJob): Promise<JobPatch> {
    const patch: JobPatch = {};
    if (job.progress !== undefined) patch.progress = job.progress;
    if (job.message !== undefined) patch.message = job.message;
    job.progress = job.message = undefined;
    if (job.lines.length) {
      if (job.log === undefined) job.log = await this.repo.logOf(id);
      job.log = trimLog(job.log + job.lines.join('\n') + '\n');
      job.lines = [];
      patch.log = job.log;
    }
    return patch;
  }

  /** Stores a terminal state (only over queued/running), then runs the kind's handlers and wakes waiters. */
  private finish(id: string, state: 'succeeded' | 'failed' | 'cancelled', patch: JobPatch): Promise<void> {
    const job = this.liveJob(id);
    if (job.timer) clearTimeout(job.timer);
    job.timer = null;
    let stored: JobRow | undefined;
    const written = this.write(id, async () => {
      const pending = await this.takePending(id, job); // a failed job keeps how far it got
      stored = await this.repo.transition(id, ACTIVE_STATES, { ...pending, ...patch, state, finished_at: now() });
      this.forget(id);
    });
    const done = written.then(async () => {
      if (!stored) return;
      const view = toView(stored);
      this.log(state === 'failed' ? 'warn' : 'info', `job ${id} (${stored.kind}) ${state}`, {
        job_id: id,
        kind: stored.kind,
        state,
        organisation_id: stored.organisation_id,
        request_id: stored.request_id,
        attempts: Number(stored.attempts),
        seconds: stored.started_at && stored.finished_at ? (Date.parse(stored.finished_at) - Date.parse(stored.started_at)) / 1000 : null,
      });
      for (const handler of this.finishedHandlers.get(stored.kind) ?? []) {
        try {
          await handler(view, stored.organisation_id);
        } catch (err) {
          this.log('error', `jobs: ${stored.kind} finished handler failed for ${id}: ${(err as Error).message}`, { job_id: id, kind: stored.kind });
        }
      }
      this.finishing.delete(id);
      for (const wake of this.waiters.get(id) ?? []) wake(view);
      this.waiters.delete(id);
    });
    this.finishing.set(id, done);
    return this.track(done);
  }

  // ---- per-job write ordering --------------------------------------------------------------------

  private liveJob(id: string): LiveJob {
    let job = this.live.get(id);
    if (!job) {
      job = { chain: Promise.resolve(), timer: null, lastFlush: 0, lines: [] };
      this.live.set(id, job);
    }
    return job;
  }

  private forget(id: string): void {
    const job = this.live.get(id);
    if (job?.timer) clearTimeout(job.timer);
    this.live.delete(id);
  }

  /** Runs `fn` after every earlier write of the same job, so updates land in the order they happened. */
  private write(id: string, fn: () => Promise<void>): Promise<void> {
    const job = this.liveJob(id);
    const next = job.chain.then(fn).catch((err) => this.log('error', `jobs: could not store an update of ${id}: ${(err as Error).message}`, { job_id: id }));
    job.chain = next;
    return this.track(next);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p)).catch(() => {});
    return p;
  }

  private async reconcileStale(): Promise<void> {
    if (!(this.backend instanceof BullBackend)) return;
    const cutoff = new Date(Date.now() - RECONCILE_MS).toISOString();
    const rows = (await this.withoutHeld(await this.repo.unfinished())).filter((r) => r.created_at < cutoff);
    try {
      await this.backend.reconcile(rows.map((r) => ({ ...queued(r), state: r.state as 'queued' | 'running' })));
    } catch (err) {
      this.log('warn', `jobs: reconcile with the queue failed: ${(err as Error).message}`);
    }
  }
}

