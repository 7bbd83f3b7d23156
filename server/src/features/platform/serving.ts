import type { ChildProcess } from 'node:child_process';
import type { Config } from '../../config.js';
import { eachLine, spawnEngine, stopProcess, type LogFn } from '../../jobs/engine.js';
import type { ImageAnswer } from './image-serving.js';
import type { PlanSamples } from './plan.js';

/** A prediction request, or {plan: true}: the model's serving plan (plan.ts) with the shared path's sample answers;
 * an image model takes one image as base64 (image-serving.ts). */
export type ServeInput = { rows: Record<string, unknown>[] } | { csv: string } | { plan: true } | { image: string; heatmap: boolean; threshold: number | null };
export type ServeResult =
  | { outputs: string[]; predictions: Record<string, unknown>[] }
  | { plan: unknown; samples: PlanSamples | null }
  | ImageAnswer
  | { error: string; code?: string | null; params?: Record<string, unknown>; column: string | null; status: number };

interface Pending {
  input: ServeInput;
  resolve: (r: ServeResult) => void;
  timer: NodeJS.Timeout;
}
interface ModelQueue {
  key: string;
  dir: string;
  waiting: Pending[];
}
interface ServeProcess {
  proc: ChildProcess;
  ready: boolean;
  batch: { id: number; items: Pending[] } | null;
}

const MAX_BATCH = 64;

/**
 * Persistent Python serving processes (engine/mitate_engine/platform/serve.py) that keep models loaded: a request
 * costs one prediction, never a job. While a process is busy, requests for the same model gather and go as one
 * batch, so under load each process predicts many rows per call instead of queueing them one by one.
 */
export class ServingPool {
  private procs: ServeProcess[] = [];
  private queues = new Map<string, ModelQueue>();
  private order: string[] = []; // model keys with waiting requests, oldest first
  private seq = 0;
  private closed = false;

  constructor(
    private config: Config,
    private size: number,
    private log: LogFn,
    private timeoutMs = 30_000,
    // Waiting for a process: a process that starts loads Python, pandas and scikit-learn, which on a loaded machine
    // takes far longer than a prediction; the prediction's own limit starts when a process takes the request.
    private queueTimeoutMs = 180_000,
  ) {}

  /** Processes start with the first request, so a server that hosts nothing spends nothing. */
  private ensure(): void {
    if (this.closed) return;
    while (this.procs.length < Math.max(1, this.size)) this.spawn();
  }

  private spawn(): void {
    const proc = spawnEngine(this.config, 'mitate_engine.platform.serve');
    const p: ServeProcess = { proc, ready: false, batch: null };
    this.procs.push(p);
    proc.stdin?.on('error', () => {});
    eachLine(proc.stderr!, (line) => this.log('warn', `serving process ${proc.pid}: ${line}`));
    eachLine(proc.stdout!, (line) => this.onLine(p, line));
    proc.on('error', (e) => this.log('error', `serving process could not start: ${e.message}`));
    proc.on('close', (code, signal) => {
      this.procs = this.procs.filter((x) => x !== p);
      if (p.batch) for (const item of p.batch.items) this.settle(item, { error: 'The serving process stopped.', column: null, status: 503 });
      p.batch = null;
      if (!this.closed) {
        this.log('error', `serving process ${proc.pid} exited (code ${code}, signal ${signal}); starting another`);
        setTimeout(() => {
          this.ensure();
          this.dispatch();
        }, 500).unref();
      }
    });
  }

  predict(model: { key: string; dir: string }, input: ServeInput): Promise<ServeResult> {
    if (this.closed) return Promise.resolve({ error: 'The server is stopping.', column: null, status: 503 });
    this.ensure();
    return new Promise((resolve) => {
      const item: Pending = {
        input,
        resolve,
        timer: setTimeout(() => {
          this.drop(model.key, item);
          this.settle(item, { error: 'No serving process was free in time.', column: null, status: 503 });
        }, this.queueTimeoutMs),
      };
      let q = this.queues.get(model.key);
      if (!q) {
        q = { key: model.key, dir: model.dir, waiting: [] };
        this.queues.set(model.key, q);
      }
      if (q.waiting.length === 0) this.order.push(model.key);
      q.waiting.push(item);
      this.dispatch();
    });
  }

  private drop(key: string, item: Pending): void {
    const q = this.queues.get(key);
    if (q) q.waiting = q.waiting.filter((x) => x !== item);
  }

  private settle(item: Pending, r: ServeResult): void {
    clearTimeout(item.timer);
    item.resolve(r);
  }

  private dispatch(): void {
    for (const p of this.procs) {
      if (!p.ready || p.batch) continue;
      let key: string | undefined;
      while ((key = this.order.shift()) !== undefined) {
        const q = this.queues.get(key);
        if (q && q.waiting.length) break;
      }
      if (key === undefined) return;
      const q = this.queues.get(key)!;
      // An image is scored alone whatever comes with it (images.py), so images gain nothing from going together:
      // one per process lets the next free process take the next image instead of it waiting behind this one.
      const items = q.waiting.splice(0, 'image' in q.waiting[0].input ? 1 : MAX_BATCH);
      if (q.waiting.length) this.order.push(key);
      else this.queues.delete(key);
      const id = ++this.seq;
      for (const item of items) {
        clearTimeout(item.timer);
        item.timer = setTimeout(() => this.settle(item, { error: 'The prediction took too long.', column: null, status: 504 }), this.timeoutMs);
      }
      p.batch = { id, items };
      p.proc.stdin?.write(JSON.stringify({ id, model: { key: q.key, dir: q.dir }, requests: items.map((i) => i.input) }) + '\n');
    }
  }

  private onLine(p: ServeProcess, line: string): void {
    let msg: { type?: string; id?: number; results?: ServeResult[]; error?: string };
    try {
      msg = JSON.parse(line);
    } catch {
      this.log('warn', `serving process ${p.proc.pid}: not a protocol line: ${line.slice(0, 200)}`);
      return;
    }
    if (msg.type === 'ready') {
      p.ready = true;
      return this.dispatch();
    }
    const batch = p.batch;
    if (!batch || msg.id !== batch.id) return;
    p.batch = null;
    batch.items.forEach((item, i) => this.settle(item, msg.results?.[i] ?? { error: msg.error ?? 'No answer from the serving process.', column: null, status: 500 }));
    this.dispatch();
  }

  status() {
    return { processes: this.procs.length, ready: this.procs.filter((p) => p.ready).length, busy: this.procs.filter((p) => p.batch).length };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.procs.map((p) => {
        p.proc.stdin?.end();
        return stopProcess(p.proc, 3000);
      }),
    );
  }
}
