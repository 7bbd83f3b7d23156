import type { DriftRepo, SampledRow } from './repo.js';

interface Reservoir {
  orgId: string;
  projectId: string;
  seen: number;
  items: SampledRow[];
}

/**
 * Samples the inputs of answered requests for the drift checks, without slowing serving: `offer` keeps references
 * in memory (a uniform reservoir of at most `cap` rows per project and flush period, so a busy API costs the same as
 * a quiet one), and every `flushMs` the rows are written in one transaction, off the request path. Image models
 * offer their served scores instead of rows (`offerScores`).
 */
export class DriftSampler {
  private buf = new Map<string, Reservoir>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private repo: DriftRepo,
    private opts: { sampleCap: number; flushMs: number; keepRows: number; keepDays: number },
    private onError: (e: Error) => void,
    /** Called after each write with the rows written per project (the automatic drift check counts them). */
    private onWritten: (written: Map<string, { orgId: string; rows: number }>) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush(), opts.flushMs);
    this.timer.unref();
  }

  /** The rows of one answered request (JSON rows; CSV bodies are not sampled). */
  offer(orgId: string, projectId: string, rows: readonly unknown[]): void {
    const cap = this.opts.sampleCap;
    if (!cap || !rows.length) return;
    let r = this.buf.get(projectId);
    if (!r) {
      r = { orgId, projectId, seen: 0, items: [] };
      this.buf.set(projectId, r);
    }
    const at = Date.now();
    for (const row of rows) {
      r.seen++;
      if (r.items.length < cap) r.items.push({ orgId, projectId, at, row });
      else {
        // reservoir sampling: the n-th row replaces a kept one with probability cap / n
        const j = Math.floor(Math.random() * r.seen);
        if (j < cap) r.items[j] = { orgId, projectId, at, row };
      }
    }
  }

  /** The served scores of an image model's answered request (compared with its validation OK scores). */
  offerScores(orgId: string, projectId: string, scores: readonly number[]): void {
    this.offer(
      orgId,
      projectId,
      scores.map((score) => ({ score })),
    );
  }

  /** Writes what was gathered; concurrent calls run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write()).catch((e) => this.onError(e as Error));
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.buf.size) return;
    const all = [...this.buf.values()];
    this.buf = new Map();
    const rows = all.flatMap((r) => r.items).sort((a, b) => a.at - b.at);
    const written = await this.repo.insertSamples(rows, this.opts);
    const out = new Map<string, { orgId: string; rows: number }>();
    for (const r of all) if (written.get(r.projectId)) out.set(r.projectId, { orgId: r.orgId, rows: written.get(r.projectId)! });
    if (out.size) this.onWritten(out);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
