import crypto from 'node:crypto';
import type { Db } from '../../db/index.js';
import './db.js';
import { clientOf } from './useragent.js';

interface Cell {
  organisation_id: string;
  project_id: string;
  hour: string;
  path: string;
  status: number;
  device: string;
  browser: string;
  os: string;
  count: number;
  total_ms: number;
}

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
  private cells = new Map<string, Cell>();
  private used = new Map<string, number>(); // credential id -> last used time (ms)
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
      this.cells.set(k, { organisation_id: r.orgId, project_id: r.projectId, hour, path: r.path, status: r.status, ...clientOf(ua), count: 1, total_ms: r.ms });
    }
    if (r.credentialId) this.used.set(r.credentialId, now);
  }

  /** Writes what was gathered; concurrent calls run one after another. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write()).catch((e) => this.onError(e as Error));
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (!this.cells.size && !this.used.size) return;
    // cells of different User-Agents of the same client kind are one row
    const merged = new Map<string, Cell>();
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
    await this.db.transaction().execute(async (tx) => {
      const live = new Set(
        cells.length ? (await tx.selectFrom('platform_projects').select('id').where('id', 'in', [...new Set(cells.map((c) => c.project_id))]).execute()).map((p) => p.id) : [],
      );
      const rows = cells.filter((c) => live.has(c.project_id)).map((c) => ({ id: crypto.randomUUID(), ...c }));
      for (let i = 0; i < rows.length; i += 200) await tx.insertInto('platform_request_stats').values(rows.slice(i, i + 200)).execute();
      for (const [id, at] of used) await tx.updateTable('platform_credentials').set({ last_used_at: new Date(at).toISOString() }).where('id', '=', id).execute();
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

export interface StatsView {
  total: number;
  errors: number;
  average_ms: number | null;
  paths: { path: string; count: number; average_ms: number }[];
  devices: { name: string; count: number; ratio: number }[];
  browsers: { name: string; count: number; ratio: number }[];
  os: { name: string; count: number; ratio: number }[];
  series: { time: string; count: number; average_ms: number; errors: number }[];
  bucket: 'hour' | 'day';
}

/** Statistics of one project since `from` (ISO hour), bucketed by hour or day. */
export async function readStats(db: Db, orgId: string, projectId: string, from: string, bucket: 'hour' | 'day'): Promise<StatsView> {
  const rows = await db
    .selectFrom('platform_request_stats')
    .select(['hour', 'path', 'status', 'device', 'browser', 'os', 'count', 'total_ms'])
    .where('organisation_id', '=', orgId)
    .where('project_id', '=', projectId)
    .where('hour', '>=', from)
    .execute();
  const total = rows.reduce((s, r) => s + Number(r.count), 0);
  const sumMs = rows.reduce((s, r) => s + Number(r.total_ms), 0);
  const group = (key: (r: (typeof rows)[number]) => string) => {
    const m = new Map<string, { count: number; ms: number; errors: number }>();
    for (const r of rows) {
      const k = key(r);
      const g = m.get(k) ?? { count: 0, ms: 0, errors: 0 };
      g.count += Number(r.count);
      g.ms += Number(r.total_ms);
      if (r.status >= 400) g.errors += Number(r.count);
      m.set(k, g);
    }
    return m;
  };
  const ratios = (key: (r: (typeof rows)[number]) => string) =>
    [...group(key).entries()].map(([name, g]) => ({ name, count: g.count, ratio: total ? g.count / total : 0 })).sort((a, b) => b.count - a.count);
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    total,
    errors: rows.filter((r) => r.status >= 400).reduce((s, r) => s + Number(r.count), 0),
    average_ms: total ? round(sumMs / total) : null,
    paths: [...group((r) => r.path).entries()].map(([path, g]) => ({ path, count: g.count, average_ms: round(g.ms / g.count) })),
    devices: ratios((r) => r.device),
    browsers: ratios((r) => r.browser),
    os: ratios((r) => r.os),
    series: [...group((r) => (bucket === 'day' ? r.hour.slice(0, 10) : r.hour)).entries()]
      .map(([time, g]) => ({ time: bucket === 'day' ? time : `${time}:00`, count: g.count, average_ms: round(g.ms / g.count), errors: g.errors }))
      .sort((a, b) => a.time.localeCompare(b.time)),
    bucket,
  };
}

export function statsCsv(v: StatsView): string {
  const lines = ['section,name,count,average_ms,ratio,errors'];
  const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  for (const p of v.paths) lines.push(`path,${q(p.path)},${p.count},${p.average_ms},,`);
  for (const [section, list] of [['device', v.devices], ['browser', v.browsers], ['os', v.os]] as const)
    for (const x of list) lines.push(`${section},${q(x.name)},${x.count},,${x.ratio.toFixed(4)},`);
  for (const s of v.series) lines.push(`${v.bucket},${s.time},${s.count},${s.average_ms},,${s.errors}`);
  return lines.join('\n') + '\n';
}
