import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { engineErrorMessage, engineErrorText, isEngineCode } from '../../i18n/engine-errors.js';
import type { Lang } from '../../i18n/messages.js';
import { ident, queryRows, sqlString, withConnection } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import type { TrainingModelTable, TrainingProjectTable } from '../training/db.js';
import { M as TM } from '../training/messages.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import './db.js';
import { M } from './messages.js';
import type { DriftSuggestBody, DriftSuggestion, RegisterBody, TsModelMetrics, TsParams, TsReport } from './schemas.js';
import { WINDOW_STATS } from './schemas.js';
import { anomalousSql, defaultNormalRows, heldBackSplit, MIN_NORMAL_ROWS, type NormalSource, normalTime, rowsToFit } from './normal.js';
import { reportAt } from './in-force.js';
import { downsample, evaluatedRows, type Scores, SPLIT_CODES, thresholdForFar, thresholdStats } from './scores.js';
import { tsadDriftSuggestJob, tsadTrainJob } from './jobs.js';
import { bestDetector, detectorName, isTsType, modeOf, said, tsCatalogue } from './detectors.js';
import { bucketSql, RESAMPLE, SPAN, type TsConfig, warmupOf } from './settings.js';
// what other areas import from here (moved beside it, issue 32)
export { isTsType } from './detectors.js';

const now = () => new Date().toISOString();
const MAX_CACHED = 6;
/** The engine's tsad/drift.py MIN_ROWS: a shorter period cannot tell a slow trend from noise. */
const DRIFT_MIN_ROWS = 30;
const DRIFT_TIMEOUT_MS = Number(process.env.MITATE_PREVIEW_TIMEOUT_MS) || 120_000;

/** The threshold the model was trained with (its metrics), before any saved one. */
const trainedThreshold = (m: TrainingModelTable): number | null => {
  const v = m.metrics_json ? (JSON.parse(m.metrics_json) as { threshold?: number }).threshold : undefined;
  return typeof v === 'number' ? v : null;
};

export function makeTimeSeriesService(ctx: AppContext, { datasets, training, runs }: { datasets: DatasetService; training: TrainingService; runs: RunService }) {
  const { db, duckdb, storage, jobs } = ctx;
  const cache = new Map<string, Scores>(); // run folder -> scores, least recently used first

  const query = (sql: string) => queryRows(duckdb, sql);

  /**
   * The normal period offered by default (normal.ts defaultNormalRows): with a label, the rows before the first
   * anomalous one in time order (all rows when none is); else the first half. With the time of its last row, so the
   * wizard can shade it on the signal chart before anything is trained.
   */
  async function normalDefault(dataset: DatasetTable, time: string, target: string | null, warm = 0) {
    const types = new Map((JSON.parse(dataset.schema_json) as { name: string; type: string }[]).map((c) => [c.name, c.type]));
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
  function checkSignals(body: { time_column?: string | null; feature_variables: string[] }, dataset: DatasetTable) {
    const schema = JSON.parse(dataset.schema_json) as { name: string; type: string }[];
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
  async function validate(body: RegisterBody, dataset: DatasetTable): Promise<TsConfig> {
    const mode = modeOf(body.project_type);
    const schema = JSON.parse(dataset.schema_json) as { name: string; type: string }[];
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
    const { time, isDatetime } = checkSignals(body, dataset);
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
      normal = body.normal ?? { mode: 'rows', rows: (await normalDefault(dataset, time, target, warm)).rows };
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
      // the engine's split (tsad/trainer.py prepare): the training part starts after the warm-up, a fifth of it validates
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
      // the engine's rule (tsad/detectors.py SequenceAutoencoder.fit): its windows lie inside the part it is fitted on
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

  async function getProject(auth: AuthContext, id: string): Promise<TrainingProjectTable> {
    const p = await training.getProject(auth, id);
    if (!isTsType(p.project_type)) throw new AppError(404, TM.projectNotFound);
    return p;
  }

  async function savedThresholds(orgId: string, projectId: string): Promise<Map<string, number>> {
    const rows = await db.selectFrom('model_thresholds').select(['model_key', 'threshold']).where('organisation_id', '=', orgId).where('project_id', '=', projectId).execute();
    return new Map(rows.map((r) => [r.model_key, Number(r.threshold)]));
  }

  /** The project with its models; `lang` is the language of the detectors' names. */
  async function view(auth: AuthContext, p: TrainingProjectTable, lang: Lang = 'en') {
    const base = await training.view(auth, p);
    const cfg = JSON.parse(p.config_json) as TsConfig;
    const saved = await savedThresholds(auth.orgId, p.id);
    const rows = await training.modelsOf(auth.orgId, p.id);
    const models = base.models.map((m) => {
      const row = rows.find((x) => x.model_key === m.model_key)!;
      const trained = trainedThreshold(row);
      return { ...m, params: m.params as TsParams, hyperparameters: m.hyperparameters as TsParams | null, metrics: m.metrics as TsModelMetrics | null, label: detectorName(m.algorithm, lang), trained_threshold: trained, saved_threshold: saved.get(m.model_key) ?? null, threshold: saved.get(m.model_key) ?? trained };
    });
    const { best, basis } = bestDetector(modeOf(p.project_type), models);
    return {
      ...base,
      mode: modeOf(p.project_type),
      time_column: cfg.time_column,
      time_is_datetime: cfg.time_is_datetime,
      normal: cfg.normal,
      resample: cfg.resample ?? null,
      window_stats: cfg.window_stats ?? [...WINDOW_STATS],
      drift_signals: cfg.drift_signals ?? [],
      drift_rows: cfg.drift_rows ?? null,
      notes: cfg.notes,
      models,
      best_model_key: best?.model_key ?? null,
      best_model_basis: basis,
    };
  }

  async function doneModel(auth: AuthContext, projectId: string, key: string) {
    const p = await getProject(auth, projectId);
    const m = await training.getModel(auth, p.id, key);
    const dir = training.runDir(m);
    if (m.state !== 'done' || !dir) throw new AppError(409, TM.modelNotTrained, { model: m.model_key });
    return { p, m, dir, cfg: JSON.parse(p.config_json) as TsConfig };
  }

  async function loadScores(dir: string, cfg: TsConfig): Promise<Scores> {
    const hit = cache.get(dir);
    if (hit) {
      cache.delete(dir);
      cache.set(dir, hit);
      return hit;
    }
    const file = path.join(dir, 'series.parquet');
    if (!fs.existsSync(file)) throw new AppError(404, M.seriesMissing);
    return withConnection(duckdb, async (c) => {
      const res = await c.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)}) ORDER BY pos`);
      const cols = res.getColumnsObjectJS() as Record<string, unknown[]>;
      const n = (cols.pos ?? []).length;
      const f64 = (a: unknown[]) => Float64Array.from(a, (v) => (v === null || v === undefined ? NaN : Number(v)));
      const times = cols.time ?? [];
      const s: Scores = {
        n,
        pos: f64(cols.pos),
        score: f64(cols.score),
        label: Int8Array.from(cols.label as number[], (v) => Number(v ?? -1)),
        split: Uint8Array.from(cols.split as string[], (v) => Math.max(0, SPLIT_CODES.indexOf(v as (typeof SPLIT_CODES)[number]))),
        timeMs: cfg.time_is_datetime ? Float64Array.from(times, (v) => (v instanceof Date ? v.getTime() : Date.parse(String(v)))) : null,
        time: times.map((v) => (v instanceof Date ? v.toISOString().replace('Z', '') : typeof v === 'bigint' ? Number(v) : (v as string | number | null))),
        contrib: Object.keys(cols)
          .filter((k) => /^c_\d+$/.test(k))
          .sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)))
          .map((k) => f64(cols[k])),
      };
      cache.set(dir, s);
      while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
      return s;
    });
  }

  return {
    getProject,
    view,
    validate,
    savedThresholds,

    /**
     * Which chosen signals drift slowly within the period the models learn from (the normal period, or the supervised
     * training part): the engine's rule (tsad/drift.py) as a quick job, its reasons said in `lang`. Nothing is stored.
     */
    /** The normal period the wizard offers on a dataset (see normalDefault), before anything is registered. */
    async normalDefault(auth: AuthContext, datasetId: string, q: { time_column?: string | null; target?: string | null }) {
      const dataset = await datasets.getRow(auth, datasetId);
      const schema = JSON.parse(dataset.schema_json) as { name: string; type: string }[];
      const time = q.time_column || dataset.datetime_column;
      if (!time) throw new AppError(422, M.noTime, {}, 'time_column');
      for (const [field, c] of [['time_column', time], ['target', q.target]] as const) {
        if (c && !schema.some((x) => x.name === c)) throw new AppError(422, TM.unknownColumn, { column: c }, field);
      }
      return normalDefault(dataset, time, q.target || null);
    },

    async suggestDrift(auth: AuthContext, datasetId: string, body: DriftSuggestBody, lang: Lang = 'en'): Promise<DriftSuggestion> {
      const dataset = await datasets.getRow(auth, datasetId);
      const { time, isDatetime } = checkSignals(body, dataset);
      const resample = body.resample ? body.resample.replace(/\s+/g, '') : null;
      if (resample && !RESAMPLE.test(resample)) throw new AppError(422, M.badResample, { rule: resample }, 'resample');
      if (resample && !isDatetime) throw new AppError(422, M.resampleNeedsDatetime, { column: time }, 'resample');
      const mode = modeOf(body.project_type);
      const field = mode === 'supervised' ? 'split_ratio' : 'normal';
      const total = Number(dataset.row_count);
      let normal: TsConfig['normal'] = null;
      let rows: number;
      if (mode === 'supervised') {
        // the engine's split (tsad/trainer.py training_rows): the first split_ratio of the rows less the fifth that validates
        const nTrain = Math.round(total * body.split_ratio);
        rows = nTrain - Math.max(1, Math.round(nTrain * 0.2));
      } else {
        normal = body.normal ?? { mode: 'rows', rows: Math.max(10, Math.floor(total / 2)) };
        if (normal.mode === 'range') {
          if (!isDatetime && !(Number.isFinite(Number(normal.start)) && Number.isFinite(Number(normal.end)))) throw new AppError(422, M.badRange, {}, 'normal');
          normal = { mode: 'range', start: isDatetime ? normalTime(normal.start) : Number(normal.start), end: isDatetime ? normalTime(normal.end) : Number(normal.end) };
          const lit = (v: string | number) => (isDatetime ? `TIMESTAMP ${sqlString(String(v))}` : String(Number(v)));
          const [r] = await query(`SELECT count(*) AS n FROM read_parquet(${sqlString(datasets.parquetPath(dataset))}) WHERE ${ident(time)} BETWEEN ${lit(normal.start)} AND ${lit(normal.end)}`);
          rows = Number(r.n);
        } else rows = Math.min(normal.rows, total);
      }
      // resampling turns rows into periods: the engine counts those and refuses a short period itself
      if (!resample && rows < DRIFT_MIN_ROWS) throw new AppError(422, M.driftPeriodShort, { rows, needed: DRIFT_MIN_ROWS }, field);
      const done = await jobs.runAndWait(
        {
          orgId: auth.orgId,
          userId: auth.userId,
          kind: tsadDriftSuggestJob,
          subjectType: 'dataset',
          subjectId: dataset.id,
          spec: { project_type: body.project_type, parquet: datasets.parquetPath(dataset), time_column: time, features: body.feature_variables, resample, normal, split_ratio: body.split_ratio },
        },
        DRIFT_TIMEOUT_MS,
        () => new AppError(504, M.driftTimeout),
      );
      fs.rmSync(path.join(ctx.config.dataDir, 'jobs', done.id), { recursive: true, force: true });
      if (done.state !== 'succeeded') {
        const coded = done.error?.startsWith('{"code"') ? (JSON.parse(done.error) as { code: string; params?: Record<string, unknown> }) : null;
        if (coded && isEngineCode(coded.code)) throw new AppError(422, engineErrorMessage(coded), {}, field);
        throw new AppError(422, M.driftFailed, { reason: engineErrorText(done.error, lang) ?? done.state }, 'feature_variables');
      }
      // period, rows, drift_signals, drift_rows and defaults as the engine wrote them; each reason in the caller's language
      const { signals, ...r } = tsadDriftSuggestJob.resultOf(done)!;
      return {
        ...r,
        signals: signals.map(({ reason, ...x }) => ({
          signal: x.signal,
          drifts: x.drifts,
          reason: engineErrorText(JSON.stringify(reason), lang) ?? reason.code,
          rows: x.rows,
          move: x.move,
          short_sd: x.short_sd,
          window: x.window,
          step_share: x.step_share,
          crossings: x.crossings,
          rows_per_sd: x.rows_per_sd,
        })),
      };
    },

    async register(auth: AuthContext, datasetId: string, body: RegisterBody, lang: Lang = 'en') {
      const dataset = await datasets.getRow(auth, datasetId);
      const cfg = await validate(body, dataset);
      const project = await runs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        type: body.project_type,
        name: body.name,
        dataset,
        numberOfData: Number(dataset.row_count),
        config: cfg,
        models: body.models,
      });
      return view(auth, project, lang);
    },

    /** One `tsad_train` job for every model; the training area's handlers keep the model rows in step. */
    async train(auth: AuthContext, id: string, modelKeys?: string[], lang: Lang = 'en') {
      const p = await getProject(auth, id);
      if (await runs.activeJob(auth, p)) return view(auth, p, lang);
      const dataset = await datasets.getRow(auth, p.dataset_id);
      const cfg = JSON.parse(p.config_json) as TsConfig;
      let models = await training.modelsOf(auth.orgId, id);
      if (modelKeys?.length) models = models.filter((m) => modelKeys.includes(m.model_key));
      if (!models.length) throw new AppError(422, TM.noModels, {}, 'model_keys');
      const runKey = runs.newRunKey(auth.orgId, id);
      const keys = models.map((m) => m.model_key);
      await runs.start(auth, id, {
        kind: tsadTrainJob,
        runKey,
        modelKeys: keys,
        spec: {
          project_type: p.project_type,
          project_name: p.name,
          parquet: datasets.parquetPath(dataset),
          condition_path: training.conditionPath(auth.orgId, dataset.id),
          time_column: cfg.time_column,
          features: cfg.features,
          target: cfg.target,
          lags: cfg.lags,
          windows: cfg.windows,
          resample: cfg.resample ?? null,
          window_stats: cfg.window_stats ?? [...WINDOW_STATS],
          drift_signals: cfg.drift_signals ?? [],
          drift_rows: cfg.drift_rows ?? null,
          normal: cfg.normal,
          split_ratio: cfg.split_ratio,
          output_dir: storage.pathOf(runKey),
          models: models.map((m) => ({ key: m.model_key, algorithm: m.algorithm, params: JSON.parse(m.params_json) })),
          // the language of the person starting the job: the engine says its progress, log lines and notes in it
          // (detectors and parameters by their catalogue names) and writes the HTML report in both languages
          lang,
        },
        beforeStart: async () => {
          // a new run has new scores: a threshold saved for the old ones no longer means the same
          await db.deleteFrom('model_thresholds').where('organisation_id', '=', auth.orgId).where('project_id', '=', id).where('model_key', 'in', keys).execute();
        },
      });
      return view(auth, await getProject(auth, id), lang);
    },

    async report(auth: AuthContext, projectId: string, key: string, lang: Lang = 'en') {
      const { p, m, dir, cfg } = await doneModel(auth, projectId, key);
      const file = path.join(dir, 'report.json');
      if (!fs.existsSync(file)) throw new AppError(404, TM.reportMissing);
      const v = await view(auth, p, lang);
      let report = JSON.parse(await fs.promises.readFile(file, 'utf8')) as TsReport;
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
    },

    async rename(auth: AuthContext, id: string, name: string, lang: Lang = 'en') {
      await runs.rename(auth.orgId, (await getProject(auth, id)).id, name);
      return view(auth, await getProject(auth, id), lang);
    },

    /** The project, its models, saved thresholds and files. */
    async remove(auth: AuthContext, id: string) {
      const p = await getProject(auth, id);
      return runs.remove(auth, p, () => db.deleteFrom('model_thresholds').where('organisation_id', '=', auth.orgId).where('project_id', '=', p.id).execute());
    },

    async modelFiles(auth: AuthContext, projectId: string, key: string) {
      const { p, m, dir } = await doneModel(auth, projectId, key);
      return { p, m, dir };
    },

    /** Exact metrics at a threshold (given, or from a target false-alarm rate, or the saved/trained one). */
    async threshold(auth: AuthContext, projectId: string, key: string, q: { threshold?: number; target_far?: number }) {
      const started = performance.now();
      const { p, m, dir, cfg } = await doneModel(auth, projectId, key);
      const s = await loadScores(dir, cfg);
      const trained = trainedThreshold(m);
      const saved = (await savedThresholds(auth.orgId, p.id)).get(m.model_key) ?? null;
      let threshold = q.threshold ?? saved ?? trained ?? NaN;
      const supervised = modeOf(p.project_type) === 'supervised';
      if (q.target_far !== undefined) threshold = thresholdForFar(s, q.target_far, supervised);
      if (!Number.isFinite(threshold)) throw new AppError(422, M.badThreshold, {}, 'threshold');
      const stats = thresholdStats(s, threshold, supervised);
      return { threshold, trained_threshold: trained, saved_threshold: saved, ...stats, seconds: (performance.now() - started) / 1000 };
    },

    async saveThreshold(auth: AuthContext, projectId: string, key: string, threshold: number, lang: Lang = 'en') {
      const { p, m } = await doneModel(auth, projectId, key);
      if (!Number.isFinite(threshold)) throw new AppError(422, M.badThreshold, {}, 'threshold');
      const t = now();
      const existing = await db
        .selectFrom('model_thresholds')
        .select('id')
        .where('organisation_id', '=', auth.orgId)
        .where('project_id', '=', p.id)
        .where('model_key', '=', m.model_key)
        .executeTakeFirst();
      if (existing) await db.updateTable('model_thresholds').set({ threshold, updated_by: auth.userId, updated_at: t }).where('id', '=', existing.id).execute();
      else await db.insertInto('model_thresholds').values({ id: crypto.randomUUID(), organisation_id: auth.orgId, project_id: p.id, model_key: m.model_key, threshold, updated_by: auth.userId, updated_at: t }).execute();
      const v = await view(auth, p, lang);
      return v.models.find((x) => x.model_key === m.model_key)!;
    },

    /** The score over [start, end] downsampled (min/max per bucket), with the labelled events as spans. */
    async series(auth: AuthContext, projectId: string, key: string, q: { start?: number; end?: number; points: number }) {
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
    },

    /** Mean contribution of each signal over rows [start, end] (an alarm span), largest first. */
    async contributions(auth: AuthContext, projectId: string, key: string, start: number, end: number) {
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
    },

    /** Raw signals in time order over positions [start, end], downsampled, beside the score. */
    async signals(auth: AuthContext, projectId: string, key: string, q: { columns?: string; start?: number; end?: number; points: number }) {
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
    },
  };
}

export type TimeSeriesService = ReturnType<typeof makeTimeSeriesService>;
