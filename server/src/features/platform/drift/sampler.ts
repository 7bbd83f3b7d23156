import { parseCsv } from '../../optimal-design/csv.js';
import type { DriftRepo, SampledRow } from './repo.js';

interface Reservoir {
  orgId: string;
  projectId: string;
  seen: number;
  items: SampledRow[];
  /** CSV bodies kept as sent (a uniform sample of the period's CSV requests), read into rows when written. */
  csv: { seen: number; bodies: { at: number; text: string }[] };
}

/** CSV requests kept per project and flush period, and how much of each body is read (its first rows). */
const CSV_BODIES = 20;
const CSV_READ_CHARS = 256 * 1024;

/** The rows of a CSV body (its first CSV_READ_CHARS characters, cut at a line end); a number is read as a number,
 * as the serving process's CSV reader does, so the rows compare as a JSON client's would (an empty value is missing). */
function csvRows(text: string): Record<string, string | number>[] {
  const cut = text.length > CSV_READ_CHARS ? text.slice(0, text.lastIndexOf('\n', CSV_READ_CHARS) + 1) : text;
  const number = (v: string) => (v !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
  return parseCsv(cut).rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, number(v)])));
}

/**
 * Samples the inputs of answered requests for the drift checks, without slowing serving: `offer` keeps references
 * in memory (a uniform reservoir of at most `cap` rows per project and flush period, so a busy API costs the same as
 * a quiet one), and every `flushMs` the rows are written in one transaction, off the request path. CSV bodies are
 * kept as sent and read then (`offerCsv`); image models offer their served scores instead of rows (`offerScores`).
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

  private reservoir(orgId: string, projectId: string): Reservoir {
    let r = this.buf.get(projectId);
    if (!r) {
      r = { orgId, projectId, seen: 0, items: [], csv: { seen: 0, bodies: [] } };
      this.buf.set(projectId, r);
    }
    return r;
  }

  /** The rows of one answered request (JSON rows). */
  offer(orgId: string, projectId: string, rows: readonly unknown[]): void {
    if (!this.opts.sampleCap || !rows.length) return;
    this.into(this.reservoir(orgId, projectId), rows, Date.now());
  }

  private into(r: Reservoir, rows: readonly unknown[], at: number): void {
    const cap = this.opts.sampleCap;
    for (const row of rows) {
      r.seen++;
      if (r.items.length < cap) r.items.push({ orgId: r.orgId, projectId: r.projectId, at, row });
      else {
        // reservoir sampling: the n-th row replaces a kept one with probability cap / n
        const j = Math.floor(Math.random() * r.seen);
        if (j < cap) r.items[j] = { orgId: r.orgId, projectId: r.projectId, at, row };
      }
    }
  }

  /**
   * The body of one answered CSV request. Reading CSV costs far more than keeping a reference, so only a uniform
   * sample of the period's CSV requests is kept and read when written (off the request path), each body's rows then
   * sampled like JSON rows; of a large body only its first rows are read.
   */
  offerCsv(orgId: string, projectId: string, text: string): void {
    if (!this.opts.sampleCap || !text) return;
    const c = this.reservoir(orgId, projectId).csv;
    const body = { at: Date.now(), text };
    c.seen++;
    if (c.bodies.length < CSV_BODIES) c.bodies.push(body);
    else {
      const j = Math.floor(Math.random() * c.seen);
      if (j < CSV_BODIES) c.bodies[j] = body;
    }
  }

  /** The rows of an answered request as the serving path read it: JSON rows, or a CSV body. */
  offerInput(orgId: string, projectId: string, input: { rows: readonly unknown[] } | { csv: string } | object): void {
    if ('rows' in input) this.offer(orgId, projectId, input.rows);
    else if ('csv' in input) this.offerCsv(orgId, projectId, input.csv);
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
    for (const r of all) for (const b of r.csv.bodies) this.into(r, csvRows(b.text), b.at);
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
