import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { ident, sqlString } from '../../duck/index.js';
import { M as TM } from '../training/messages.js';
import { tsReport } from './schemas.js';
import { reportAt } from './in-force.js';
import { downsample, evaluatedRows, SPLIT_CODES } from './scores.js';
import { modeOf } from './detectors.js';
import { bucketSql } from './settings.js';
import type { TsDeps } from './base.js';

// What the report and threshold pages read of a trained detector's scores: report, series, contributions, signals.

export async function report(d: TsDeps, auth: AuthContext, projectId: string, key: string, lang: Lang = 'en') {
  const { savedThresholds, trainedThreshold, view, doneModel, loadScores } = d;
  const { p, m, dir, cfg } = await doneModel(auth, projectId, key);
  const file = path.join(dir, 'report.json');
  if (!fs.existsSync(file)) throw new AppError(404, TM.reportMissing);
  const v = await view(auth, p, lang);
  let report = storedJson('time-series report', tsReport, await fs.promises.readFile(file, 'utf8'));
  // every figure at the threshold in force (saved, else trained), not only training's (issue 33)
  const inForce = (await savedThresholds(auth.orgId, p.id)).get(m.model_key) ?? trainedThreshold(m);
  if (inForce !== null && Number.isFinite(inForce)) report = reportAt(report, await loadScores(dir, cfg), inForce, cfg.features, modeOf(p.project_type) === 'supervised');
  // each labelled event by the time-column values of its first and last row (the engine counts rows of the evaluated part)
  const perEvent = report?.metrics?.event?.per_event as { start: number; end: number; start_time?: unknown; end_time?: unknown }[] | undefined;
  if (perEvent?.length) {
    const s = await loadScores(dir, cfg);
    const rows = evaluatedRows(s);
    for (const e of perEvent) {
      e.start_time = s.time[rows[e.start]] ?? null;
      e.end_time = s.time[rows[e.end]] ?? null;
    }
  }
  return { project: v, model: v.models.find((x) => x.model_key === m.model_key)!, report };
}

/** The score over [start, end] downsampled (min/max per bucket), with the labelled events as spans. */
export async function series(d: TsDeps, auth: AuthContext, projectId: string, key: string, q: { start?: number; end?: number; points: number }) {
  const { doneModel, loadScores } = d;
  const { dir, cfg } = await doneModel(auth, projectId, key);
  const s = await loadScores(dir, cfg);
  const start = Math.min(q.start ?? 0, Math.max(0, s.n - 1));
  const end = Math.min(q.end ?? s.n - 1, s.n - 1);
  const points = downsample(s.score, start, end, q.points);
  const events: [number, number][] = [];
  let open = -1;
  for (let i = 0; i <= s.n; i++) {
    const y = i < s.n && s.label[i] === 1;
    if (y && open < 0) open = i;
    if (!y && open >= 0) {
      events.push([open, i - 1]);
      open = -1;
    }
  }
  const parts: { part: string; start: number; end: number }[] = [];
  for (let i = 0; i < s.n; i++) {
    const part = SPLIT_CODES[s.split[i]];
    if (!parts.length || parts[parts.length - 1].part !== part) parts.push({ part, start: i, end: i });
    else parts[parts.length - 1].end = i;
  }
  return { rows: s.n, start, end, points, times: points.map(([i]) => s.time[i] ?? null), events: events.slice(0, 2000), parts };
}

/** Mean contribution of each signal over rows [start, end] (an alarm span), largest first. */
export async function contributions(d: TsDeps, auth: AuthContext, projectId: string, key: string, start: number, end: number) {
  const { doneModel, loadScores } = d;
  const { dir, cfg } = await doneModel(auth, projectId, key);
  const s = await loadScores(dir, cfg);
  if (!s.contrib.length) return { available: false, start, end, items: [] };
  const a = Math.max(0, start);
  const b = Math.min(s.n - 1, end);
  const items = cfg.features.map((signal, j) => {
    let sum = 0, n = 0;
    for (let i = a; i <= b; i++) {
      const v = s.contrib[j][i];
      if (!Number.isNaN(v)) {
        sum += v;
        n++;
      }
    }
    return { signal, value: n ? sum / n : 0 };
  });
  items.sort((x, y) => Math.abs(y.value) - Math.abs(x.value));
  return { available: true, start: a, end: b, items: items.slice(0, 20) };
}

/** Raw signals in time order over positions [start, end], downsampled, beside the score. */
export async function signals(d: TsDeps, auth: AuthContext, projectId: string, key: string, q: { columns?: string; start?: number; end?: number; points: number }) {
  const { datasets, query, doneModel } = d;
  const { p, cfg } = await doneModel(auth, projectId, key);
  const dataset = await datasets.getRow(auth, p.dataset_id);
  const wanted = (q.columns ? q.columns.split(',') : cfg.features.slice(0, 4)).filter((c) => cfg.features.includes(c)).slice(0, 8);
  if (!wanted.length) return { columns: [], series: {} };
  const file = `read_parquet(${sqlString(datasets.parquetPath(dataset))})`;
  const start = q.start ?? 0;
  const rowsOf = async () =>
    cfg.resample ? Number((await query(`SELECT count(DISTINCT ${bucketSql(cfg.resample, ident(cfg.time_column))}) AS n FROM ${file}`))[0].n) : Number(dataset.row_count);
  const end = q.end ?? (await rowsOf()) - 1;
  const len = end - start + 1;
  const nb = Math.max(1, Math.min(q.points, len));
  const sel = wanted.map((c, i) => `min(${ident(c)}) AS lo${i}, max(${ident(c)}) AS hi${i}`).join(', ');
  const rows = await query(`
    WITH d AS (${
      cfg.resample
        ? // the model's rows are periods: the signals averaged per period, as the engine resampled them
          `SELECT row_number() OVER (ORDER BY b) - 1 AS pos, * EXCLUDE (b) FROM (SELECT ${bucketSql(cfg.resample, ident(cfg.time_column))} AS b, ${wanted.map((c) => `avg(${ident(c)}) AS ${ident(c)}`).join(', ')} FROM ${file} GROUP BY b)`
        : `SELECT row_number() OVER (ORDER BY ${ident(cfg.time_column)}) - 1 AS pos, ${wanted.map(ident).join(', ')} FROM ${file}`
    })
    SELECT min(pos) AS pos, ${sel} FROM d WHERE pos BETWEEN ${start} AND ${end}
    GROUP BY floor((pos - ${start}) * ${nb} / ${len}) ORDER BY 1`);
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const series: Record<string, [number, number | null, number | null][]> = {};
  wanted.forEach((c, i) => {
    series[c] = rows.map((r) => [Number(r.pos), num(r[`lo${i}`]), num(r[`hi${i}`])]);
  });
  return { columns: wanted, series };
}
