import type { AuthContext } from '../../auth/guard.js';
import { ident, readParquet, withConnection } from '../../duck/index.js';
import { labelledMetrics } from '../timeseries/in-force.js';
import { downsample } from '../timeseries/scores.js';
import type { PredictionDeps } from './views.js';
import { projectConfig } from '../training/stored.js';

type Time = string | number | null;

/**
 * The anomaly score of a time-series prediction over row positions [start, end], min/max per bucket, its alarm
 * spans with the mean contributions of each, labelled by the project's time column.
 */
export async function scoreSeries(d: PredictionDeps, auth: AuthContext, id: string, q: { start?: number; end?: number; points: number }) {
  const { duckdb, runs, getTimeSeries, resultFile, done } = d;
  const p = await getTimeSeries(auth, id);
  const v = await done(auth, p);
  // the rows are labelled by the project's time column (kept in the predictions beside the scores)
  const project = await runs.find(auth.orgId, p.project_id);
  const tcfg = project ? projectConfig(project) : {};
  return withConnection(duckdb, async (conn) => {
    const file = readParquet(resultFile(p, 'predictions.parquet'));
    const names = (await conn.runAndReadAll(`SELECT * FROM ${file} LIMIT 0`)).columnNames();
    const contrib = names.filter((c) => c.startsWith('contribution_'));
    const timeColumn = tcfg.time_column && names.includes(tcfg.time_column) ? tcfg.time_column : null;
    // the project's label column, when the predicted file has it: anomalous as training reads it (text or number)
    const labelColumn = tcfg.target && names.includes(tcfg.target) ? tcfg.target : null;
    const labelSql = labelColumn
      ? `, CASE WHEN ${ident(labelColumn)} IS NULL THEN NULL ELSE lower(trim(CAST(${ident(labelColumn)} AS VARCHAR))) NOT IN ('0', '0.0', 'false', 'normal', 'ok', '') END`
      : '';
    const res = await conn.runAndReadAll(`SELECT anomaly_score, alarm${contrib.map((c) => `, ${ident(c)}`).join('')}${timeColumn ? `, ${ident(timeColumn)}` : ''}${labelSql} FROM ${file}`);
    const cols = res.getColumnsJS() as unknown[][];
    const labels = labelColumn ? (cols.pop() as (boolean | null)[]) : null;
    const rawTimes = timeColumn ? cols[cols.length - 1] : [];
    const timeAt = (i: number): Time => {
      const t = rawTimes[i];
      if (t === null || t === undefined) return null;
      if (t instanceof Date) return t.toISOString().replace('Z', '');
      if (typeof t === 'bigint') return Number(t);
      return typeof t === 'number' || typeof t === 'string' ? t : String(t);
    };
    const score = Float64Array.from(cols[0], (x) => (x === null ? NaN : Number(x)));
    const n = score.length;
    // the visible window, downsampled here as the training report's (one implementation: timeseries/scores.ts)
    const start = Math.min(q.start ?? 0, Math.max(0, n - 1));
    const end = Math.max(start, Math.min(q.end ?? n - 1, n - 1));
    const out = downsample(score, start, end, q.points);
    const alarm = cols[1].map((x) => Number(x) > 0);
    const spans: { start: number; end: number; start_time: Time; end_time: Time; contributions: { signal: string; value: number }[] }[] = [];
    for (let i = 0; i < n && spans.length < 500; i++) {
      if (!alarm[i] || (i > 0 && alarm[i - 1])) continue;
      let e = i;
      while (e + 1 < n && alarm[e + 1]) e++;
      const items = contrib.map((c, j) => {
        let sum = 0;
        for (let k = i; k <= e; k++) sum += Number(cols[2 + j][k] ?? 0);
        return { signal: c.slice('contribution_'.length), value: sum / (e - i + 1) };
      });
      items.sort((x, y) => Math.abs(y.value) - Math.abs(x.value));
      spans.push({ start: i, end: e, start_time: timeAt(i), end_time: timeAt(e), contributions: items.slice(0, 10) });
    }
    return {
      rows: n,
      start,
      end,
      points: out,
      time_column: timeColumn,
      time_kind: tcfg.time_is_datetime ? ('datetime' as const) : ('order' as const),
      times: out.map(([i]) => timeAt(i)),
      start_time: timeAt(start),
      end_time: timeAt(end),
      spans,
      threshold: v.result && 'anomaly' in v.result ? v.result.anomaly.threshold : null,
      labelled: labels
        ? {
            column: labelColumn!,
            ...labelledMetrics(
              alarm,
              labels,
              Array.from(score, (x) => !Number.isNaN(x)),
              tcfg.time_is_datetime ? rawTimes.map((x) => (x instanceof Date ? x.getTime() : typeof x === 'string' ? Date.parse(x.endsWith('Z') ? x : `${x}Z`) : NaN)) : null,
            ),
          }
        : null,
    };
  });
}
