import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { ident, jsonNumber, readParquet, sqlString, withConnection } from '../../duck/index.js';
import { AppError } from '../../http/errors.js';
import type { CellValue, DatasetService } from '../datasets/service.js';
import { labelledMetrics } from '../timeseries/in-force.js';
import { downsample } from '../timeseries/scores.js';
import { TS_TYPES } from '../timeseries/schemas.js';
import { isTsType, type TimeSeriesService } from '../timeseries/service.js';
import type { RunService } from '../training/runs.js';
import type { TrainingService } from '../training/service.js';
import { type ProjectType, TYPES } from '../training/types.js';
import type { PredictionTable } from './db.js';
import { type Lang } from '../../i18n/messages.js';
import { IMAGE_TYPES } from '../images/schemas.js';
import { imageSummaryIn } from '../images/skipped.js';
import { imagePredictJob } from '../images/jobs.js';
import type { SpecOf } from '../../jobs/kind.js';
import { predictJob } from './jobs.js';
import { M } from './messages.js';
import { predictionRepo as repo } from './repo.js';
import type { PredictionView } from './responses.js';

interface Manifest {
  project_type: string;
  features: string[];
  model_columns: Record<string, string>;
  categories: Record<string, string[]>;
  outputs: string[];
  time_column?: string;
}

type Time = string | number | null;

/** SPEC §7 'Inference' and each type's prediction calls: a trained model applied to an inference dataset, as a job. */
export function makePredictionService(
  ctx: AppContext,
  { datasets, training, timeSeries, runs }: { datasets: DatasetService; training: TrainingService; timeSeries: TimeSeriesService; runs: RunService },
) {
  const { db, jobs, storage, duckdb } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<PredictionTable> {
    const row = await repo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, M.notFound);
    return row;
  }

  const IMAGE_TYPES_SET = new Set<string>(IMAGE_TYPES);
  async function view(auth: AuthContext, p: PredictionTable, lang: Lang = 'en'): Promise<PredictionView> {
    const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
    const state = !job ? 'failed' : job.state === 'succeeded' ? 'done' : job.state === 'failed' || job.state === 'cancelled' ? 'failed' : job.state === 'running' ? 'running' : 'queued';
    return {
      id: p.id,
      name: p.name,
      project_id: p.project_id,
      project_name: p.project_name,
      project_type: p.project_type,
      report_type: TYPES[p.project_type as ProjectType]?.predictionReport ?? (isTsType(p.project_type) ? 'time-series' : p.project_type),
      model_key: p.model_key,
      dataset_id: p.dataset_id,
      test_dataset: p.dataset_name,
      state,
      progress: job?.progress ?? 0,
      message: job?.message ?? '',
      error: job?.error ?? null,
      log: state === 'failed' ? (job?.log ?? '') : '',
      // the summary the project kind's engine task wrote (Prediction declares each); an image prediction's left-out
      // images and ZIP entries say why in the reader's language
      result: state === 'done' && job ? (IMAGE_TYPES_SET.has(p.project_type) ? imageSummaryIn(imagePredictJob.resultOf(job), lang) : predictJob.resultOf(job)) : null,
      created_at: p.created_at,
      finished_at: job?.finished_at ?? null,
    } as PredictionView;
  }

  /** Bad input answers before any job starts, naming the column (missing, not numeric, unseen category). */
  async function checkInput(manifest: Manifest, dataset: DatasetTable) {
    const schema = JSON.parse(dataset.schema_json) as { name: string; type: string }[];
    const cols = new Map(schema.map((c) => [c.name, c.type]));
    if (manifest.time_column && !cols.has(manifest.time_column)) throw new AppError(422, M.missingColumn, { column: manifest.time_column }, 'dataset_id');
    for (const f of manifest.features) {
      if (!cols.has(f)) throw new AppError(422, M.missingColumn, { column: f }, 'dataset_id');
      const kind = manifest.model_columns[f];
      const type = cols.get(f)!;
      if (kind === 'numeric' && !['integer', 'float', 'boolean'].includes(type)) throw new AppError(422, M.notNumeric, { column: f }, 'dataset_id');
    }
    const cats = Object.entries(manifest.categories ?? {}).filter(([c]) => manifest.features.includes(c));
    if (!cats.length) return;
    await withConnection(duckdb, async (conn) => {
      const file = readParquet(datasets.parquetPath(dataset));
      for (const [c, known] of cats) {
        const list = known.length ? known.map(sqlString).join(', ') : "''";
        const res = await conn.runAndReadAll(`SELECT CAST(${ident(c)} AS VARCHAR) AS v FROM ${file} WHERE ${ident(c)} IS NOT NULL AND CAST(${ident(c)} AS VARCHAR) NOT IN (${list}) LIMIT 1`);
        const rows = res.getRowObjectsJson() as { v: string }[];
        if (rows.length) throw new AppError(422, M.unseenCategory, { column: c, value: rows[0].v }, 'dataset_id');
      }
    });
  }

  /** A time-series prediction (any other answers 404). */
  async function getTimeSeries(auth: AuthContext, id: string) {
    const p = await getRow(auth, id);
    if (!(TS_TYPES as readonly string[]).includes(p.project_type)) throw new AppError(404, M.notFound);
    return p;
  }

  const resultFile = (p: PredictionTable, name: string) => storage.pathOf(`${p.result_key}/${name}`);

  /** The prediction, once its job has succeeded. */
  async function done(auth: AuthContext, p: PredictionTable) {
    const v = await view(auth, p);
    if (v.state !== 'done') throw new AppError(409, M.notDone);
    return v;
  }

  return {
    getRow,
    view,
    /** One prediction; `type` (when given) must be its project's type. */
    async get(auth: AuthContext, id: string, type?: string, lang: Lang = 'en') {
      const p = await getRow(auth, id);
      if (type && p.project_type !== type) throw new AppError(404, M.notFound);
      return view(auth, p, lang);
    },
    getTimeSeries,

    async start(auth: AuthContext, projectId: string, modelKey: string, datasetId: string, name?: string, type?: ProjectType | 'time_series') {
      const project = type === 'time_series' ? await timeSeries.getProject(auth, projectId) : await training.getProject(auth, projectId, type);
      const model = await training.getModel(auth, projectId, modelKey);
      const dir = training.runDir(model);
      if (model.state !== 'done' || !dir) throw new AppError(422, M.noModel, {}, 'model_key');
      const dataset = await datasets.getRow(auth, datasetId);
      const manifestFile = path.join(dir, 'manifest.json');
      if (!fs.existsSync(manifestFile)) throw new AppError(409, M.manifestMissing);
      const manifest = JSON.parse(await fs.promises.readFile(manifestFile, 'utf8')) as Manifest;
      // The training dataset's preprocessing condition applies to raw inference data (not to data already preprocessed).
      const condition = dataset.id !== project.dataset_id && !training.conditionPath(auth.orgId, dataset.id) ? training.conditionPath(auth.orgId, project.dataset_id) : null;
      if (!condition) await checkInput(manifest, dataset);
      const id = crypto.randomUUID();
      const resultKey = `org/${auth.orgId}/predictions/${id}`;
      const job = await jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: predictJob,
        subjectType: 'prediction',
        subjectId: id,
        spec: {
          model: path.join(dir, 'model.joblib'),
          parquet: datasets.parquetPath(dataset),
          condition_path: condition,
          output_dir: storage.pathOf(resultKey),
          // an anomaly detector's saved threshold replaces the trained one
          threshold: isTsType(project.project_type) ? ((await timeSeries.savedThresholds(auth.orgId, project.id)).get(model.model_key) ?? null) : null,
        },
      });
      const row: PredictionTable = {
        id,
        organisation_id: auth.orgId,
        name: name || `${project.name} · ${dataset.name}`,
        project_id: project.id,
        project_name: project.name,
        project_type: project.project_type,
        model_key: model.model_key,
        dataset_id: dataset.id,
        dataset_name: dataset.name,
        job_id: job.id,
        result_key: resultKey,
        created_by: auth.userId,
        created_at: new Date().toISOString(),
      };
      await repo.insert(db, row);
      return view(auth, row);
    },

    /** An image prediction, whose input the images area prepared: its row first, then its job (the row names the
     * job before the job is queued, so a fast job finds its prediction). */
    async startImage(auth: AuthContext, p: { id: string; name: string; project_type: string }, modelKey: string, dataset: { id: string; name: string }, id: string, resultKey: string, spec: SpecOf<typeof imagePredictJob>) {
      const row: PredictionTable = {
        id,
        organisation_id: auth.orgId,
        name: `${p.name} / ${dataset.name}`,
        project_id: p.id,
        project_name: p.name,
        project_type: p.project_type,
        model_key: modelKey,
        dataset_id: dataset.id,
        dataset_name: dataset.name,
        job_id: null,
        result_key: resultKey,
        created_by: auth.userId,
        created_at: new Date().toISOString(),
      };
      await repo.insert(db, row);
      return jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: imagePredictJob,
        subjectType: 'prediction',
        subjectId: id,
        spec,
        beforeEnqueue: async (j) => {
          await repo.setJob(db, auth.orgId, id, j.id);
        },
      });
    },
    /** The folder of a prediction's result files, or null when the organisation has no such prediction. */
    async resultDir(orgId: string, id: string): Promise<string | null> {
      const p = await repo.get(db, orgId, id);
      return p ? storage.pathOf(p.result_key) : null;
    },

    async list(auth: AuthContext, query: string, page: number, pageSize: number) {
      const { rows, total } = await repo.list(db, auth.orgId, query, page, pageSize);
      return { items: await Promise.all(rows.map((p) => view(auth, p))), total };
    },

    /** A page of the result table: predictions beside the input rows. */
    async rows(auth: AuthContext, id: string, page: number, pageSize: number) {
      const p = await getRow(auth, id);
      const v = await done(auth, p);
      return withConnection(duckdb, async (conn) => {
        const res = await conn.runAndReadAll(`SELECT * FROM ${readParquet(resultFile(p, 'predictions.parquet'))} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`);
        const columns = res.columnNames();
        const rows = res.getRowsJson().map((vals) => vals.map((x) => (typeof x === 'string' && /^-?\d+$/.test(x) ? (jsonNumber(x) ?? x) : x))) as CellValue[][]; // result tables hold scalars only
        const table = v.result && 'outputs' in v.result ? v.result : null;
        return { columns, outputs: table?.outputs ?? [], rows, total: table?.rows ?? rows.length, page, page_size: pageSize };
      });
    },

    /** The result table as CSV: its file and the name to download it as. */
    async csvFile(auth: AuthContext, projectId: string, id: string) {
      const p = await getRow(auth, id);
      if (p.project_id !== projectId) throw new AppError(404, M.notFound);
      const file = resultFile(p, 'predictions.csv');
      if (!fs.existsSync(file)) throw new AppError(409, M.notDone);
      return { file, name: `${p.name}-predictions.csv` };
    },

    async remove(auth: AuthContext, id: string) {
      const p = await getRow(auth, id);
      const job = p.job_id ? await jobs.get(auth.orgId, p.job_id) : undefined;
      if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(auth.orgId, job.id).catch(() => undefined);
      await repo.delete(db, auth.orgId, p.id);
      storage.remove(p.result_key);
      return { id: p.id };
    },

    /**
     * The anomaly score of a time-series prediction over row positions [start, end], min/max per bucket, its alarm
     * spans with the mean contributions of each, labelled by the project's time column.
     */
    async scoreSeries(auth: AuthContext, id: string, q: { start?: number; end?: number; points: number }) {
      const p = await getTimeSeries(auth, id);
      const v = await done(auth, p);
      // the rows are labelled by the project's time column (kept in the predictions beside the scores)
      const project = await runs.find(auth.orgId, p.project_id);
      const tcfg = project ? (JSON.parse(project.config_json) as { time_column?: string; time_is_datetime?: boolean; target?: string | null }) : {};
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
    },
  };
}
export type { PredictionTable } from './db.js';
