import type { ChildProcess } from 'node:child_process';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { BackendListener, BackendStatus, JobBackend } from './backend.js';
import { eachLine, engineLogRecord, respawnDelayMs, spawnEngine, stopProcess, type EngineEvent, type LogFn, type QueuedJob } from './engine.js';

/** The key a Python bull worker polls to learn that its running job was cancelled. */
export const cancelKey = (id: string) => `mitate:cancel:${id}`;
const CANCEL_TTL_S = 24 * 3600;
const KEEP_FINISHED = { age: 7 * 24 * 3600, count: 10_000 };

export interface RecoverRow extends QueuedJob {
  state: 'queued' | 'running';
}

/**
 * Scale-out mode: jobs go to a BullMQ queue on Redis, and Python workers on any host (the official `bullmq`
 * package, engine/mitate_engine/bull_worker.py) take them. This server may also run some of those workers.
 */
export class BullBackend implements JobBackend {
  readonly mode = 'bullmq' as const;
  private connection!: Redis;
  private eventsConnection!: Redis;
  private queue!: Queue;
  private events!: QueueEvents;
  private procs = new Set<ChildProcess>();
  private running = false;
  private crashStreak = 0;
  private respawnTimer: NodeJS.Timeout | null = null;

  constructor(
    private config: Config,
    private listener: BackendListener & { cancelled(id: string): void },
    private log: LogFn,
    /** Python bull workers this server starts beside itself (0: workers run elsewhere). */
    private localWorkers: number,
  ) {}

  async start(): Promise<void> {
    const url = this.config.redisUrl!;
    this.connection = new Redis(url, { maxRetriesPerRequest: null });
    this.eventsConnection = new Redis(url, { maxRetriesPerRequest: null });
    this.connection.on('error', (err) => this.log('error', `redis: ${err.message}`));
    this.eventsConnection.on('error', (err) => this.log('error', `redis (events): ${err.message}`));
    this.queue = new Queue(this.config.queueName, { connection: this.connection });
    this.events = new QueueEvents(this.config.queueName, { connection: this.eventsConnection });
    this.events.on('active', ({ jobId }) => void this.onActive(jobId));
    this.events.on('progress', ({ jobId, data }) => this.onProgress(jobId, data));
    this.events.on('completed', ({ jobId, returnvalue }) => this.listener.succeeded(jobId, returnvalue ?? {}));
    this.events.on('failed', ({ jobId, failedReason }) => this.onFailed(jobId, failedReason));
    this.events.on('error', (err) => this.log('error', `queue events: ${err.message}`));
    await Promise.all([this.queue.waitUntilReady(), this.events.waitUntilReady()]);
    this.running = true;
    this.fill();
  }

  async close(): Promise<void> {
    this.running = false;
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    await Promise.all([...this.procs].map((p) => stopProcess(p, 5000)));
    await this.events?.close().catch(() => {});
    await this.queue?.close().catch(() => {});
    this.eventsConnection?.disconnect();
    this.connection?.disconnect();
  }

  async enqueue(job: QueuedJob): Promise<void> {
    if (!this.queue) throw new Error('the job queue is not started');
    await this.queue.add(
      job.kind,
      // data_dir: the server's data folder, which a worker on another host maps onto its own (object storage).
      // request_id and trace: the worker's log lines and span carry the request that created the job.
      { kind: job.kind, spec: job.spec, data_dir: this.config.dataDir, request_id: job.request_id ?? null, trace: job.trace ?? null },
      { jobId: job.id, attempts: 1, removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FINISHED },
    );
  }

  async withdraw(id: string): Promise<boolean> {
    if (!this.queue) return false;
    const job = await this.queue.getJob(id);
    if (!job) return false;
    const state = await job.getState();
    if (!['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children'].includes(state)) return false;
    try {
      await job.remove();
      return true;
    } catch {
      return false; // a worker took it between our look and the removal: it runs to its end
    }
  }

  async cancel(id: string): Promise<void> {
    if (!this.queue) return;
    const job = await this.queue.getJob(id);
    if (!job) return;
    const state = await job.getState();
    if (state === 'completed' || state === 'failed') return;
    if (state !== 'active') {
      try {
        await job.remove();
        return;
      } catch {
        // taken by a worker between our look and the removal: fall through to the cancel flag
      }
    }
    await this.connection.set(cancelKey(id), '1', 'EX', CANCEL_TTL_S);
  }

  async status(): Promise<BackendStatus> {
    const [counts, workers, paused] = await Promise.all([
      this.queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active'),
      this.workerCount(),
      this.queue.isPaused(),
    ]);
    const queued = (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
    return { running: !paused, workers, busy: counts.active ?? 0, queued, active: counts.active ?? 0 };
  }

  /**
   * Workers connected to the queue. The Python package names its connections `bull:<queue>:w:<name>` where
   * Node's names use the queue name in base64, so Queue.getWorkersCount() alone does not see Python workers.
   */
  private async workerCount(): Promise<number> {
    const nodeWorkers = await this.queue.getWorkersCount();
    try {
      const list = (await this.connection.client('LIST')) as string;
      const pythonPrefix = `bull:${this.config.queueName}:w:`;
      const names = new Set(
        [...list.matchAll(/(?:^| )name=(\S+)/gm)].map((m) => m[1]).filter((n) => n.startsWith(pythonPrefix)),
      );
      return nodeWorkers + names.size; // one name per Python worker, though it holds two connections
    } catch {
      return nodeWorkers; // CLIENT LIST may be refused by a managed Redis
    }
  }

  /** Pauses the queue for every worker on every host; running jobs finish, waiting ones stay. */
  async stopWorkers(): Promise<void> {
    await this.queue.pause();
  }

  async startWorkers(): Promise<void> {
    await this.queue.resume();
    this.fill();
  }

  /** Brings rows that were queued or running up to date with what BullMQ knows of them. */
  async reconcile(rows: RecoverRow[]): Promise<void> {
    for (const row of rows) {
      const job = await this.queue.getJob(row.id);
      if (!job) {
        // A queued row whose job never reached Redis (we stopped between insert and add) is queued again.
        if (row.state === 'queued') await this.enqueue(row);
        else this.listener.interrupted(row.id);
        continue;
      }
      const state = await job.getState();
      if (state === 'completed') this.listener.succeeded(row.id, job.returnvalue ?? {});
      else if (state === 'failed') this.onFailed(row.id, job.failedReason);
      else if (state === 'active') this.listener.started(row.id, job.attemptsStarted || undefined);
      else if (state === 'unknown') this.listener.interrupted(row.id);
    }
  }

  /**
   * A worker took the job. A worker that died mid-job lost its lock and BullMQ handed the job to another once; the
   * job's own count of starts (attemptsStarted) tells the row which attempt runs, so the retry shows attempt 2 and
   * every server hearing the event, in any order, counts it once.
   */
  private async onActive(jobId: string): Promise<void> {
    let attempt: number | undefined;
    try {
      attempt = (await this.queue.getJob(jobId))?.attemptsStarted || undefined;
    } catch (err) {
      this.log('warn', `queue: could not read job ${jobId}: ${(err as Error).message}`);
    }
    this.listener.started(jobId, attempt);
  }

  private onProgress(jobId: string, data: unknown): void {
    if (!data || typeof data !== 'object') return; // a bare number from a foreign producer
    const event = data as EngineEvent;
    if (event.type === 'started') this.listener.started(jobId);
    else this.listener.event(jobId, event);
  }

  private onFailed(jobId: string, reason: string | undefined): void {
    if (reason === 'cancelled') this.listener.cancelled(jobId);
    else this.listener.failed(jobId, reason || 'The job failed.');
  }

  private fill(): void {
    if (!this.running) return;
    for (let i = this.procs.size; i < this.localWorkers; i++) this.spawn();
  }

  private spawn(): void {
    const started = Date.now();
    const proc = spawnEngine(this.config, 'mitate_engine.bull_worker', [
      '--redis', this.config.redisUrl!, '--queue', this.config.queueName, '--concurrency', '1', '--exit-with-parent',
    ]);
    this.procs.add(proc);
    proc.stdin?.end();
    eachLine(proc.stdout!, (line) => {
      if (line.includes('"type":"ready"')) {
        this.crashStreak = 0;
        this.log('info', `bull worker ${proc.pid} ready in ${Date.now() - started} ms`);
      } else this.log('info', `bull worker ${proc.pid}: ${line}`);
    });
    eachLine(proc.stderr!, (line) => {
      const rec = engineLogRecord(line);
      if (rec) this.log(rec.level, rec.msg, rec.fields);
      else this.log('warn', `bull worker ${proc.pid}: ${line}`);
    });
    let gone = false;
    const onGone = (why: string) => {
      if (gone) return;
      gone = true;
      this.procs.delete(proc);
      if (!this.running) return;
      // Its job, if any, is found stalled by BullMQ and run again by another worker.
      this.log('error', `bull worker ${proc.pid} ${why}`);
      const delay = respawnDelayMs(++this.crashStreak);
      if (this.respawnTimer) return;
      this.respawnTimer = setTimeout(() => {
        this.respawnTimer = null;
        this.fill();
      }, delay);
    };
    proc.on('error', (err) => onGone(`could not start: ${err.message}`));
    proc.on('exit', (code, signal) => onGone(`exited (code ${code}, signal ${signal})`));
  }
}
