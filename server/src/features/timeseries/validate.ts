import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { ident, sqlString } from '../../duck/index.js';
import { datasetSchema } from '../datasets/stored.js';
import { M as TM } from '../training/messages.js';
import { M } from './messages.js';
import type { RegisterBody } from './schemas.js';
import { WINDOW_STATS } from './schemas.js';
import { anomalousSql, defaultNormalRows, heldBackSplit, MIN_NORMAL_ROWS, type NormalSource, normalTime, rowsToFit } from './normal.js';
import { modeOf, said, tsCatalogue } from './detectors.js';
import { RESAMPLE, SPAN, warmupOf } from './settings.js';
import type { TsConfig } from './stored.js';
import type { TsDeps } from './base.js';

// A project's settings checked against its dataset: signals, the normal period, each detector's settings.

/**
 * The normal period offered by default (normal.ts defaultNormalRows): with a label, the rows before the first
 * anomalous one in time order (all rows when none is); else the first half. With the time of its last row, so the
 * wizard can shade it on the signal chart before anything is trained.
 */
export async function normalDefault(d: TsDeps, dataset: DatasetTable, time: string, target: string | null, warm = 0) {
  const { datasets, query } = d;
  const types = new Map(datasetSchema(dataset).map((c) => [c.name, c.type]));
  const file = `read_parquet(${sqlString(datasets.parquetPath(dataset))})`;
  const t = ident(time);
  const [r] = await query(`
    WITH d AS (SELECT ${t} AS t, ${anomalousSql(target, types.get(target ?? ''))} AS y FROM ${file} WHERE ${t} IS NOT NULL)
    SELECT count(*) AS total, (SELECT min(t) FROM d WHERE y) IS NULL AS none,
           (SELECT count(*) FROM d WHERE t < (SELECT min(t) FROM d WHERE y)) AS before FROM d`);
  const total = Number(r.total);
  const { rows, source } = defaultNormalRows(total, target !== null, r.none ? null : Number(r.before), warm);
  const n = Math.min(rows, total);
  const [e] = n > 0 ? await query(`SELECT CAST(${t} AS VARCHAR) AS v, ${t} AS raw FROM ${file} WHERE ${t} IS NOT NULL ORDER BY ${t} LIMIT 1 OFFSET ${n - 1}`) : [];
  const isDatetime = ['datetime', 'date'].includes(types.get(time) ?? '');
  const end = e ? (isDatetime ? String(e.v).slice(0, 19) : Number(e.raw)) : null;
  return { mode: 'rows' as const, rows: n, total, source: source as NormalSource, end };
}

/** The time column (the dataset's date/time column when none is given) and the signals: known, numeric, apart. */
export function checkSignals(d: TsDeps, body: { time_column?: string | null; feature_variables: string[] }, dataset: DatasetTable) {
  const schema = datasetSchema(dataset);
  const types = new Map(schema.map((c) => [c.name, c.type]));
  const time = body.time_column || dataset.datetime_column;
  if (!time) throw new AppError(422, M.noTime, {}, 'time_column');
  const tType = types.get(time);
  if (!tType) throw new AppError(422, TM.unknownColumn, { column: time }, 'time_column');
  const isDatetime = tType === 'datetime' || tType === 'date';
  if (!isDatetime && tType !== 'integer' && tType !== 'float') throw new AppError(422, M.badTime, { column: time }, 'time_column');
  if (!body.feature_variables.length) throw new AppError(422, TM.noFeatures, {}, 'feature_variables');
  for (const c of body.feature_variables) {
    const t = types.get(c);
    if (!t) throw new AppError(422, TM.unknownColumn, { column: c }, 'feature_variables');
    if (c === time) throw new AppError(422, M.timeAsSignal, { column: c }, 'feature_variables');
    if (t !== 'integer' && t !== 'float' && t !== 'boolean') throw new AppError(422, M.notNumeric, { column: c }, 'feature_variables');
  }
  return { time, isDatetime };
}

/** Every rule on the wizard's fields, checked against the dataset before anything is stored or queued. */
export async function validate(d: TsDeps, body: RegisterBody, dataset: DatasetTable): Promise<TsConfig> {
  const { datasets, query } = d;
  const mode = modeOf(body.project_type);
  const schema = datasetSchema(dataset);
  const types = new Map(schema.map((c) => [c.name, c.type]));
  const cat = tsCatalogue()[mode];
  if (!body.models.length) throw new AppError(422, TM.noModels, {}, 'models');
  for (const m of body.models) {
    const a = cat.find((x) => x.key === m.algorithm);
    if (!a) throw new AppError(422, TM.unknownAlgorithm, { algorithm: m.algorithm }, 'models');
    for (const [k, v] of Object.entries(m.params ?? {})) {
      const p = a.params.find((x) => x.name === k);
      if (!p) throw new AppError(422, M.paramUnknown, { algorithm: said(a.name_key), param: k }, 'models');
      if (v === null || v === '') continue;
      const n = Number(v);
      const values = { algorithm: said(a.name_key), param: said(p.label_key), low: p.low, high: p.high };
      if (!Number.isFinite(n)) throw new AppError(422, M.paramNotNumber, values, 'models');
      if (p.kind === 'int' && !Number.isInteger(n)) throw new AppError(422, M.paramNotWhole, values, 'models');
      if (n < p.low || n > p.high) throw new AppError(422, M.paramRange, values, 'models');
    }
    // the alarm rule "k of the last n rows over the threshold" needs k <= n
    const k = Number(m.params?.alarm_k ?? 1) || 1;
    const n = Number(m.params?.alarm_n ?? 1) || 1;
    if (k > n) throw new AppError(422, M.alarmRule, { algorithm: said(a.name_key), k, n }, 'models');
  }
  const { time, isDatetime } = checkSignals(d, body, dataset);
  const target = body.target_variables[0] ?? null;
  if (mode === 'supervised' && !target) throw new AppError(422, TM.noTarget, {}, 'target_variables');
  if (target && !types.has(target)) throw new AppError(422, TM.unknownColumn, { column: target }, 'target_variables');
  if (target && body.feature_variables.includes(target)) throw new AppError(422, M.labelAsSignal, { column: target }, 'feature_variables');
  const windows = body.windows.map((w) => {
    if (typeof w === 'number') return w;
    if (/^\d+$/.test(w) && Number(w) >= 2) return Number(w);
    const m = SPAN.exec(w);
    if (!m) throw new AppError(422, M.badWindow, { window: w }, 'windows');
    if (!isDatetime) throw new AppError(422, M.spanNeedsDatetime, { window: w }, 'windows');
    return `${m[1]}${m[2] === 'd' ? 'D' : m[2]}`;
  });
  // slowly drifting signals: selected signals, with a change over drift_rows rows (the engine's check_drift)
  const drift = body.feature_variables.filter((c) => body.drift_signals.includes(c));
  const unknownDrift = body.drift_signals.find((c) => !body.feature_variables.includes(c));
  if (unknownDrift !== undefined) throw new AppError(422, M.driftNotSignal, { column: unknownDrift }, 'drift_signals');
  const driftRows = drift.length ? (body.drift_rows ?? null) : null;
  if (drift.length && driftRows === null) throw new AppError(422, M.driftRowsNeeded, {}, 'drift_rows');
  const warm = warmupOf(body.lags, windows, driftRows ?? 0);
  const resample = body.resample ? body.resample.replace(/\s+/g, '') : null;
  if (resample && !RESAMPLE.test(resample)) throw new AppError(422, M.badResample, { rule: resample }, 'resample');
  if (resample && !isDatetime) throw new AppError(422, M.resampleNeedsDatetime, { column: time }, 'resample');

  // one scan of the data: time gaps, duplicates, order, label classes, rows of the normal period
  const file = `read_parquet(${sqlString(datasets.parquetPath(dataset))})`;
  const t = ident(time);
  const lit = (v: string | number) => (isDatetime ? `TIMESTAMP ${sqlString(normalTime(v))}` : String(Number(v)));
  let normal: TsConfig['normal'] = null;
  if (mode === 'unsupervised') {
    normal = body.normal ?? { mode: 'rows', rows: (await normalDefault(d, dataset, time, target, warm)).rows };
    if (normal.mode === 'range') {
      if (!isDatetime && !(Number.isFinite(Number(normal.start)) && Number.isFinite(Number(normal.end)))) throw new AppError(422, M.badRange, {}, 'normal');
      normal = { mode: 'range', start: isDatetime ? normalTime(normal.start) : Number(normal.start), end: isDatetime ? normalTime(normal.end) : Number(normal.end) };
    }
  }
  const anomalous = anomalousSql(target, types.get(target ?? ''));
  const inNormal = normal?.mode === 'range' ? `${t} BETWEEN ${lit(normal.start)} AND ${lit(normal.end)}` : 'false';
  const [r] = await query(`
    WITH d AS (SELECT ${t} AS t, ${anomalous} AS y, ${inNormal} AS n FROM ${file}),
    o AS (SELECT t, lag(t) OVER () AS prev FROM d)
    SELECT (SELECT count(*) FROM d WHERE t IS NULL) AS nulls,
           (SELECT count(*) - count(DISTINCT t) FROM d WHERE t IS NOT NULL) AS dups,
           (SELECT min(CAST(t AS VARCHAR)) FROM (SELECT t FROM d WHERE t IS NOT NULL GROUP BY t HAVING count(*) > 1)) AS first_dup,
           (SELECT count(*) FROM o WHERE t < prev) AS unsorted,
           (SELECT count(DISTINCT y) FROM d WHERE y IS NOT NULL) AS classes,
           (SELECT count(*) FROM d WHERE n) AS normal_rows`);
  if (Number(r.nulls) > 0) throw new AppError(422, M.timeNulls, { column: time, count: Number(r.nulls) }, 'time_column');
  // resampling averages the rows of one period, duplicates included
  if (Number(r.dups) > 0 && !resample) throw new AppError(422, M.duplicateTimes, { column: time, count: Number(r.dups), first: String(r.first_dup) }, 'time_column');
  if (mode === 'supervised' && Number(r.classes) < 2) throw new AppError(422, M.singleClass, { column: target! }, 'target_variables');
  if (mode === 'supervised') {
    // the engine's split (timeseries/trainer.py prepare): the training part starts after the warm-up, a fifth of it validates
    const nTrain = Math.round(Number(dataset.row_count) * body.split_ratio);
    const nVal = Math.max(1, Math.round((nTrain - warm) * 0.2));
    if (nTrain - nVal - warm < 10) throw new AppError(422, M.shortTrain, { count: nTrain - nVal, warm }, 'split_ratio');
  }
  if (normal) {
    const rows = normal.mode === 'rows' ? Math.min(normal.rows, Number(dataset.row_count)) : Number(r.normal_rows);
    // a change over L rows compares row t with row t-L: L must be shorter than the normal period
    if (driftRows !== null && driftRows >= rows) throw new AppError(422, M.driftRowsTooLong, { rows: driftRows, normal: rows }, 'drift_rows');
    // rows mode: the first N rows include the warm-up; range mode: a range after the start loses nothing
    const usable = normal.mode === 'rows' ? rows - warm : rows;
    // fitted on the first part, thresholds set on the held-back last part: both need rows (normal.ts)
    if (usable < MIN_NORMAL_ROWS) throw new AppError(422, M.shortNormal, { count: rows, warm, needed: MIN_NORMAL_ROWS }, 'normal');
    // the engine's rule (timeseries/detectors.py SequenceAutoencoder.fit): its windows lie inside the part it is fitted on
    for (const m of body.models.filter((x) => x.algorithm === 'sequence_autoencoder')) {
      const def = cat.find((x) => x.key === m.algorithm)?.params.find((x) => x.name === 'window')?.default;
      const given = m.params?.window;
      const window = Number(given === null || given === undefined || given === '' ? def : given);
      const fit = heldBackSplit(usable).fit;
      if (fit < window + 10) throw new AppError(422, M.shortSequence, { window, needed: rowsToFit(window + 10), count: usable }, 'normal');
    }
  }
  const notes: string[] = Number(r.unsorted) > 0 ? [`sorted:${time}`] : [];
  return {
    target,
    features: body.feature_variables,
    time_column: time,
    time_is_datetime: isDatetime,
    lags: body.lags,
    windows,
    resample,
    window_stats: body.window_stats?.length ? WINDOW_STATS.filter((x) => body.window_stats!.includes(x)) : [...WINDOW_STATS],
    drift_signals: drift,
    drift_rows: driftRows,
    normal,
    split_ratio: body.split_ratio,
    split_time: null,
    cv_folds: 'default',
    significance_level: 0.05,
    n_trials: 1,
    auto_tune: false,
    balance: mode === 'supervised',
    variance_threshold: 0,
    datetime_column: dataset.datetime_column,
    notes,
  };
}
