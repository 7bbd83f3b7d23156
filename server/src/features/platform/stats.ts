import type { Db } from '../../db/index.js';
import { platformRepo, type StatCell } from './repo.js';
import { type ClientKind, clientOf } from './useragent.js';

/**
 * Request statistics gathered in memory and written in one batch every `flushMs` (serving never waits on the
 * database). Counts of different servers simply add up: each flush inserts rows that queries sum.
 *
 * `record` runs once per served request, so it allocates as little as it can: the hour is remade only when the
 * hour changes, a request of a known kind (project, hour, path, status, User-Agent) only adds to its cell, and the
 * last use of a key is kept as a number until the flush. The flush writes everything in one transaction (one commit,
 * one WAL sync with SQLite, whose calls block the event loop while they run).
 */
export class StatsRecorder {
  private cells = new Map<string, StatCell>();
  private clients = new Map<string, ClientKind>(); // User-Agent -> device, browser, OS
  private used = new Map<string, number>(); // credential id -> last used time (ms)
  private pending = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private hour = '';
  private hourEnds = 0;

  constructor(
    private db: Db,
    flushMs: number,
    private onError: (e: Error) => void,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  private hourOf(ms: number): string {
    if (ms >= this.hourEnds || ms < this.hourEnds - 3_600_000) {
      this.hour = new Date(ms).toISOString().slice(0, 13);
      this.hourEnds = (Math.floor(ms / 3_600_000) + 1) * 3_600_000;
    }
    return this.hour;
  }

  record(r: { orgId: string; projectId: string; path: string; status: number; ms: number; userAgent?: string; credentialId?: string; at?: Date }): void {
    const now = r.at ? r.at.getTime() : Date.now();
    const hour = r.at ? r.at.toISOString().slice(0, 13) : this.hourOf(now);
    const ua = (r.userAgent ?? '').slice(0, 512);
    const k = `${r.projectId}\u0000${hour}\u0000${r.path}\u0000${r.status}\u0000${ua}`;
    const cell = this.cells.get(k);
    if (cell) {
      cell.count++;
      cell.total_ms += r.ms;
    } else {
      this.cells.set(k, { organisation_id: r.orgId, project_id: r.projectId, hour, path: r.path, status: r.status, ...clientOf(ua, this.clients), count: 1, total_ms: r.ms });
    }
    if (r.credentialId) this.used.set(r.credentialId, now);
  }

  /** A record still being made (its project looked up): the next flush waits for it. */
  track(p: Promise<unknown>): void {
    this.pending.add(p);
    const drop = () => void this.pending.delete(p);
    p.then(drop, drop);
  }

  /** Writes what was gathered; concurrent calls run one after another. */
  flush(): Promise<void> {
    const pending = [...this.pending];
    this.flushing = this.flushing
      .then(() => Promise.allSettled(pending))
      .then(() => this.write())
      .catch((e) => this.onError(e as Error));
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.cells.size && !this.used.size) return;
    // cells of different User-Agents of the same client kind are one row
    const merged = new Map<string, StatCell>();
    for (const c of this.cells.values()) {
      const k = [c.project_id, c.hour, c.path, c.status, c.device, c.browser, c.os].join('\u0000');
      const m = merged.get(k);
      if (m) {
        m.count += c.count;
        m.total_ms += c.total_ms;
      } else merged.set(k, { ...c });
    }
    const cells = [...merged.values()];
    const used = [...this.used.entries()];
    this.cells = new Map();
    this.used = new Map();
    await platformRepo.writeStats(this.db, cells, used);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** Why a serving call was refused, from its status (the one rule for the statistics page and the CSV); null for an
 * answered prediction (2xx), the only kind that counts as a request and is billed. */
export const REFUSAL_REASONS = ['key', 'locked', 'input', 'rate_limit', 'server'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
export function refusalOf(status: number): RefusalReason | null {
  if (status >= 200 && status < 300) return null;
  if (status === 401) return 'key';
  if (status === 402) return 'locked';
  if (status === 429) return 'rate_limit';
  if (status >= 400 && status < 500) return 'input';
  return 'server';
}

export interface StatsView {
  /** Answered predictions (2xx): the requests billed. */
  total: number;
  /** Refused calls, never billed, in all and by reason. */
  refused: number;
  refusals: Record<RefusalReason, number>;
  average_ms: number | null;
  paths: { path: string; count: number; average_ms: number }[];
  devices: { name: string; count: number; ratio: number }[];
  browsers: { name: string; count: number; ratio: number }[];
  os: { name: string; count: number; ratio: number }[];
  series: { time: string; count: number; average_ms: number; refused: number }[];
  bucket: 'hour' | 'day';
}

/** Statistics of one project's rows (platformRepo.statRows), bucketed by hour or day. Counts, times and client kinds
 * are of answered predictions; refusals are counted apart, by reason. */
export function statsOf(all: Awaited<ReturnType<typeof platformRepo.statRows>>, bucket: 'hour' | 'day'): StatsView {
  const rows = all.filter((r) => refusalOf(r.status) === null);
  const refusals = Object.fromEntries(REFUSAL_REASONS.map((k) => [k, 0])) as Record<RefusalReason, number>;
  for (const r of all) {
    const why = refusalOf(r.status);
    if (why) refusals[why] += Number(r.count);
  }
  const total = rows.reduce((s, r) => s + Number(r.count), 0);
  const sumMs = rows.reduce((s, r) => s + Number(r.total_ms), 0);
  const group = (key: (r: (typeof rows)[number]) => string) => {
    const m = new Map<string, { count: number; ms: number }>();
    for (const r of rows) {
      const k = key(r);
      const g = m.get(k) ?? { count: 0, ms: 0 };
      g.count += Number(r.count);
      g.ms += Number(r.total_ms);
      m.set(k, g);
    }
    return m;
  };
  const ratios = (key: (r: (typeof rows)[number]) => string) =>
    [...group(key).entries()].map(([name, g]) => ({ name, count: g.count, ratio: total ? g.count / total : 0 })).sort((a, b) => b.count - a.count);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const timeOf = (hour: string) => (bucket === 'day' ? hour.slice(0, 10) : `${hour}:00`);
  const series = new Map<string, { time: string; count: number; ms: number; refused: number }>();
  for (const r of all) {
    const time = timeOf(r.hour);
    const s = series.get(time) ?? { time, count: 0, ms: 0, refused: 0 };
    if (refusalOf(r.status)) s.refused += Number(r.count);
    else {
      s.count += Number(r.count);
      s.ms += Number(r.total_ms);
    }
    series.set(time, s);
  }
  return {
    total,
    refused: Object.values(refusals).reduce((a, b) => a + b, 0),
    refusals,
    average_ms: total ? round(sumMs / total) : null,
    paths: [...group((r) => r.path).entries()].map(([path, g]) => ({ path, count: g.count, average_ms: round(g.ms / g.count) })),
    devices: ratios((r) => r.device),
    browsers: ratios((r) => r.browser),
    os: ratios((r) => r.os),
    series: [...series.values()].map((s) => ({ time: s.time, count: s.count, average_ms: s.count ? round(s.ms / s.count) : 0, refused: s.refused })).sort((a, b) => a.time.localeCompare(b.time)),
    bucket,
  };
}

export function statsCsv(v: StatsView): string {
  const lines = ['section,name,count,average_ms,ratio,refused'];
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  for (const p of v.paths) lines.push(`path,${q(p.path)},${p.count},${p.average_ms},,`);
  for (const [section, list] of [['device', v.devices], ['browser', v.browsers], ['os', v.os]] as const)
    for (const x of list) lines.push(`${section},${q(x.name)},${x.count},,${x.ratio.toFixed(4)},`);
  for (const s of v.series) lines.push(`${v.bucket},${s.time},${s.count},${s.average_ms},,${s.refused}`);
  for (const k of REFUSAL_REASONS) lines.push(`refused,${k},${v.refusals[k]},,,`);
  return lines.join('\n') + '\n';
}
