import type { ChildProcess } from 'node:child_process';
import type { Config } from '../config.js';
import type { BackendListener, BackendStatus, JobBackend } from './backend.js';
import { eachLine, engineLogRecord, respawnDelayMs, spawnEngine, stopProcess, type EngineEvent, type LogFn, type QueuedJob } from './engine.js';

type WorkerState = 'starting' | 'idle' | 'busy' | 'gone';

/** One persistent `python -m mitate_engine.worker` process; it runs one job at a time. */
class EngineProcess {
  state: WorkerState = 'starting';
  job: QueuedJob | null = null;
  /** Set when we end the process on purpose, so its exit is not taken for a crash. */
  retiring = false;
  readonly spawnedAt = Date.now();

  constructor(readonly proc: ChildProcess) {}

  get pid(): number | undefined {
    return this.proc.pid;
  }

  assign(job: QueuedJob): void {
    this.job = job;
    this.state = 'busy';
    const { id, kind, spec, request_id, trace, attempt } = job;
    this.proc.stdin?.write(JSON.stringify({ id, kind, spec, request_id, trace, attempt }) + '\n');
  }
}

/**
 * The embedded default: `config.workers` Python processes fed from an in-memory FIFO queue over stdio.
 * Cancel of a running job kills its process (SIGKILL) and starts a fresh one.
 */
export class LocalPool implements JobBackend {
  readonly mode = 'local' as const;
  private queue: QueuedJob[] = [];
  private workers = new Set<EngineProcess>();
  private running = false;
  private crashStreak = 0;
  private respawnTimer: NodeJS.Timeout | null = null;

  constructor(
    private config: Config,
    private listener: BackendListener,
    private log: LogFn,
  ) {}

  async start(): Promise<void> {
    await this.startWorkers();
  }

  async close(): Promise<void> {
    await this.stopWorkers();
  }

  async enqueue(job: QueuedJob): Promise<void> {
    if (this.queue.some((j) => j.id === job.id) || [...this.workers].some((w) => w.job?.id === job.id)) return;
    this.queue.push(job);
    this.dispatch();
  }

  async withdraw(id: string): Promise<boolean> {
    const at = this.queue.findIndex((j) => j.id === id);
    if (at < 0) return false;
    this.queue.splice(at, 1);
    return true;
  }

  async cancel(id: string): Promise<void> {
    const at = this.queue.findIndex((j) => j.id === id);
    if (at >= 0) {
      this.queue.splice(at, 1);
      return;
    }
    const worker = [...this.workers].find((w) => w.job?.id === id);
    if (!worker) return;
    // A task may be deep inside native code; only killing the process stops it at once.
    worker.retiring = true;
    worker.job = null;
    worker.proc.kill('SIGKILL');
  }

  async status(): Promise<BackendStatus> {
    const live = [...this.workers].filter((w) => w.state !== 'gone' && !(w.retiring && !this.running));
    const busy = live.filter((w) => w.state === 'busy').length;
    return { running: this.running, workers: live.length, busy, queued: this.queue.length, active: busy };
  }

  async startWorkers(): Promise<void> {
    this.running = true;
    this.crashStreak = 0;
    this.fill();
  }

  /** Ends every process; waiting jobs stay queued and a running job goes back to the head of the queue. */
  async stopWorkers(): Promise<void> {
    this.running = false;
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    this.respawnTimer = null;
    const stopping: Promise<void>[] = [];
    const handedBack: QueuedJob[] = [];
    for (const w of this.workers) {
      w.retiring = true;
      if (w.job) {
        handedBack.push({ ...w.job, attempt: (w.job.attempt ?? 1) + 1 });
        this.listener.requeued(w.job.id);
        w.job = null;
        stopping.push(stopProcess(w.proc, 0, 'SIGKILL'));
      } else {
        w.proc.stdin?.end(); // end of input ends an idle worker cleanly
        stopping.push(stopProcess(w.proc, 3000));
      }
    }
    this.queue.unshift(...handedBack);
    await Promise.all(stopping);
  }

  private fill(): void {
    if (!this.running) return;
    const live = [...this.workers].filter((w) => w.state !== 'gone').length;
    for (let i = live; i < Math.max(1, this.config.workers); i++) this.spawn();
  }

  private spawn(): void {
    const proc = spawnEngine(this.config, 'mitate_engine.worker');
    const worker = new EngineProcess(proc);
    this.workers.add(worker);
    proc.stdin?.on('error', () => {}); // writes to a dead process; its exit is handled below
    eachLine(proc.stdout!, (line) => this.onLine(worker, line));
    eachLine(proc.stderr!, (line) => this.onStderr(worker, line));
    proc.on('error', (err) => {
      this.log('error', `engine worker could not start (${this.config.pythonPath}): ${err.message}`);
      this.onGone(worker, null, null);
    });
    // 'close', not 'exit': by then every stderr line (a dying worker's last words) is in the job log.
    proc.on('close', (code, signal) => this.onGone(worker, code, signal));
  }

  private onLine(worker: EngineProcess, line: string): void {
    let event: EngineEvent & { id?: string | null };
    try {
      event = JSON.parse(line);
    } catch {
      this.log('warn', `engine worker ${worker.pid}: not a protocol line: ${line.slice(0, 200)}`);
      return;
    }
    if (event.type === 'ready') {
      this.log('info', `engine worker ${worker.pid} ready in ${Date.now() - worker.spawnedAt} ms`);
      this.crashStreak = 0;
      if (worker.state === 'starting') worker.state = 'idle';
      this.dispatch();
      return;
    }
    const job = worker.job;
    if (!job || event.id !== job.id) return; // a job cancelled meanwhile, or a stray line
    switch (event.type) {
      case 'started':
        this.listener.started(job.id);
        return;
      case 'result':
        this.finish(worker);
        this.listener.succeeded(job.id, (event as { result: unknown }).result);
        return;
      case 'error': {
        const e = event as { error: string; traceback?: string };
        if (e.traceback) this.listener.event(job.id, { type: 'log', line: e.traceback.trimEnd() });
        this.finish(worker);
        this.listener.failed(job.id, e.error);
        return;
      }
      default: {
        const { id: _id, ...rest } = event;
        this.listener.event(job.id, rest as EngineEvent);
      }
    }
  }

  private onStderr(worker: EngineProcess, line: string): void {
    // The engine's own JSON records go to the server's log as records (not into the user's job log).
    const rec = engineLogRecord(line);
    if (rec) return this.log(rec.level, rec.msg, rec.fields);
    this.log('warn', `engine worker ${worker.pid}: ${line}`, { pid: worker.pid, job_id: worker.job?.id, kind: worker.job?.kind, request_id: worker.job?.request_id });
    if (worker.job) this.listener.event(worker.job.id, { type: 'log', line });
  }

  private finish(worker: EngineProcess): void {
    worker.job = null;
    worker.state = 'idle';
    queueMicrotask(() => this.dispatch());
  }

  private onGone(worker: EngineProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (worker.state === 'gone') return;
    const job = worker.job;
    worker.state = 'gone';
    worker.job = null;
    this.workers.delete(worker);
    if (worker.retiring) {
      this.fill(); // killed on purpose (cancel): a fresh worker at once
      return;
    }
    this.log('error', `engine worker ${worker.pid} exited (code ${code}, signal ${signal})${job ? ` while running job ${job.id}` : ''}`, { pid: worker.pid, job_id: job?.id, kind: job?.kind, request_id: job?.request_id });
    if (job) this.listener.interrupted(job.id);
    this.crashStreak++;
    if (!this.running) return;
    const delay = respawnDelayMs(this.crashStreak);
    if (delay === 0) return this.fill();
    if (this.respawnTimer) return;
    this.log('warn', `engine workers keep exiting; starting again in ${delay} ms`);
    this.respawnTimer = setTimeout(() => {
      this.respawnTimer = null;
      this.fill();
    }, delay);
  }

  private dispatch(): void {
    if (!this.running) return;
    for (const w of this.workers) {
      if (this.queue.length === 0) return;
      if (w.state === 'idle') w.assign(this.queue.shift()!);
    }
  }
}
