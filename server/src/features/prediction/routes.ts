import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../../auth/guard.js';
import { requireWriter } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError, ok } from '../../http/errors.js';
import { ident, jsonNumber, sqlString } from '../datasets/ingest.js';
import { type CellValue, makeDatasetService } from '../datasets/service.js';
import { makeTrainingService } from '../training/service.js';
import { downsample } from '../timeseries/scores.js';
import { rangeQuery, TS_TYPES } from '../timeseries/schemas.js';
import { isTsType, makeTimeSeriesService } from '../timeseries/service.js';
import { type ProjectType, TYPES } from '../training/types.js';
import type { PredictionTable } from './db.js';
import './db.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { langOf, type Lang } from '../../i18n/messages.js';
import { IMAGE_TYPES } from '../images/schemas.js';
import { imageSummaryIn } from '../images/skipped.js';
import { M } from './messages.js';
import { Prediction, PredictionPage, PredictionProgress, PredictionRows, type PredictionView } from './responses.js';

const executeBody = z.object({ dataset_id: z.string().max(64), name: z.string().trim().max(200).optional() });
const predictBody = executeBody.extend({ model_key: z.string().max(100) });
const idParams = z.object({ id: z.string().max(64) });
const rowsQuery = z.object({ page: z.coerce.number().int().min(1).default(1), page_size: z.coerce.number().int().min(1).max(1000).default(50) });
const listQuery = z.object({ query: z.string().max(200).optional(), page: z.coerce.number().int().min(1).default(1), page_size: z.coerce.number().int().min(1).max(200).default(50) });

interface Manifest {
  project_type: string;
  features: string[];
  model_columns: Record<string, string>;
  categories: Record<string, string[]>;
  outputs: string[];
  time_column?: string;
}

const tags = ['prediction'];

/** SPEC §7 'Inference' and each type's prediction calls: a trained model applied to an inference dataset, as a job. */
export default async function predictionRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, jobs, storage, duckdb } = app.ctx;
  const training = makeTrainingService(app.ctx);
  const datasets = makeDatasetService(app.ctx);
  const timeSeries = makeTimeSeriesService(app.ctx);

  async function getRow(auth: AuthContext, id: string): Promise<PredictionTable> {
    const row = await db.selectFrom('predictions').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
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
      result: state === 'done' ? (IMAGE_TYPES_SET.has(p.project_type) ? imageSummaryIn(job?.result, lang) : (job?.result ?? null)) : null,
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
    const conn = await duckdb.connect();
    try {
      const file = sqlString(datasets.parquetPath(dataset));
      for (const [c, known] of cats) {
        const list = known.length ? known.map(sqlString).join(', ') : "''";
        const res = await conn.runAndReadAll(
          `SELECT CAST(${ident(c)} AS VARCHAR) AS v FROM read_parquet(${file}) WHERE ${ident(c)} IS NOT NULL AND CAST(${ident(c)} AS VARCHAR) NOT IN (${list}) LIMIT 1`,
        );
        const rows = res.getRowObjectsJson() as { v: string }[];
        if (rows.length) throw new AppError(422, M.unseenCategory, { column: c, value: rows[0].v }, 'dataset_id');
      }
    } finally {
      conn.closeSync();
    }
  }

  async function start(auth: AuthContext, projectId: string, modelKey: string, datasetId: string, name?: string, type?: ProjectType | 'time_series') {
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
      kind: 'predict',
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
    await db.insertInto('predictions').values(row).execute();
    return view(auth, row);
  }

  async function list(auth: AuthContext, query: string, page: number, pageSize: number) {
    let q = db.selectFrom('predictions').where('organisation_id', '=', auth.orgId);
    if (query && query !== '*' && query !== '-') {
      const like = `%${query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or(['name', 'project_name', 'dataset_name'].map((c) => eb(eb.fn('lower', [c as 'name']), 'like', like))));
    }
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const rows = await q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(pageSize).offset((page - 1) * pageSize).execute();
    return { items: await Promise.all(rows.map((p) => view(auth, p))), total };
  }

  const resultFile = (p: PredictionTable, name: string) => storage.pathOf(`${p.result_key}/${name}`);

  // ---- SPEC §7 Inference ---------------------------------------------------------------------------------

  r.post(
    '/inference/execute/:project_id/:key',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Predict with a trained model (key) on an inference dataset (a job)', params: z.object({ project_id: z.string().max(64), key: z.string().max(100) }), body: executeBody, response: replies({ 200: Prediction }) },
    },
    async (req) => ok(await start(req.auth, req.params.project_id, req.params.key, req.body.dataset_id, req.body.name)),
  );
  r.get('/inference/list/', { schema: { tags, summary: 'Predictions, searched and paged', querystring: listQuery, response: replies({ 200: PredictionPage }) } }, async (req) =>
    ok(await list(req.auth, req.query.query ?? '', req.query.page, req.query.page_size)),
  );
  r.get('/inference/list/:query', { schema: { tags, summary: 'Predictions whose name, project or dataset matches (* for all)', params: z.object({ query: z.string().max(200) }), querystring: listQuery, response: replies({ 200: PredictionPage }) } }, async (req) =>
    ok(await list(req.auth, req.params.query, req.query.page, req.query.page_size)),
  );
  r.get('/inference/progress/:id', { schema: { tags, summary: 'State and progress of a prediction', params: idParams, response: replies({ 200: PredictionProgress }) } }, async (req) => {
    const v = await view(req.auth, await getRow(req.auth, req.params.id));
    return ok({ id: v.id, state: v.state, progress: v.progress, message: v.message, error: v.error });
  });
  r.get('/inference/:id', { schema: { tags, summary: 'One prediction with its state and result summary', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await view(req.auth, await getRow(req.auth, req.params.id), langOf(req.headers['accept-language']))),
  );
  r.get('/inference/:id/rows', { schema: { tags, summary: 'A page of the result table: predictions beside the input rows', params: idParams, querystring: rowsQuery, response: replies({ 200: PredictionRows }) } }, async (req) => {
    const p = await getRow(req.auth, req.params.id);
    const v = await view(req.auth, p);
    if (v.state !== 'done') throw new AppError(409, M.notDone);
    const conn = await duckdb.connect();
    try {
      const file = sqlString(resultFile(p, 'predictions.parquet'));
      const { page, page_size } = req.query;
      const res = await conn.runAndReadAll(`SELECT * FROM read_parquet(${file}) LIMIT ${page_size} OFFSET ${(page - 1) * page_size}`);
      const columns = res.columnNames();
      const rows = res.getRowsJson().map((vals) => vals.map((x) => (typeof x === 'string' && /^-?\d+$/.test(x) ? (jsonNumber(x) ?? x) : x))) as CellValue[][]; // result tables hold scalars only
      const table = v.result && 'outputs' in v.result ? v.result : null;
      return ok({ columns, outputs: table?.outputs ?? [], rows, total: table?.rows ?? rows.length, page, page_size });
    } finally {
      conn.closeSync();
    }
  });
  r.get(
    '/inference/download/:project_id/:key',
    { schema: { tags, summary: 'The result table as CSV (key: the prediction id)', params: z.object({ project_id: z.string().max(64), key: z.string().max(64) }), response: fileReplies('text/csv', 'The predictions beside the input rows') } },
    async (req, reply) => {
      const p = await getRow(req.auth, req.params.key);
      if (p.project_id !== req.params.project_id) throw new AppError(404, M.notFound);
      const file = resultFile(p, 'predictions.csv');
      if (!fs.existsSync(file)) throw new AppError(409, M.notDone);
      const name = `${p.name}-predictions.csv`;
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="predictions.csv"; filename*=UTF-8''${encodeURIComponent(name)}`);
      return reply.send(fs.createReadStream(file));
    },
  );
  r.delete('/inference/delete/:id', { preHandler: requireWriter, schema: { tags, summary: 'Delete a prediction and its result files', params: idParams, response: replies({ 200: IdView }) } }, async (req) => {
    const p = await getRow(req.auth, req.params.id);
    const job = p.job_id ? await jobs.get(req.auth.orgId, p.job_id) : undefined;
    if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(req.auth.orgId, job.id).catch(() => undefined);
    await db.deleteFrom('predictions').where('organisation_id', '=', req.auth.orgId).where('id', '=', p.id).execute();
    storage.remove(p.result_key);
    return ok({ id: p.id });
  });

  // ---- each type's prediction and prediction/result calls --------------------------------------------------

  r.post(
    '/prediction/:project_id',
    { preHandler: requireWriter, schema: { tags, summary: 'Predict with a model of a project (regression and every type)', params: z.object({ project_id: z.string().max(64) }), body: predictBody, response: replies({ 200: Prediction }) } },
    async (req) => ok(await start(req.auth, req.params.project_id, req.body.model_key, req.body.dataset_id, req.body.name)),
  );
  r.get('/prediction/:id', { schema: { tags, summary: 'One prediction with its state and result summary', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await view(req.auth, await getRow(req.auth, req.params.id), langOf(req.headers['accept-language']))),
  );
  for (const type of ['dimensional_compression', 'discriminant_analysis', 'clustering', 'soft_sensor'] as const) {
    const { prefix } = TYPES[type];
    r.post(
      `/${prefix}/prediction/:project_id`,
      { preHandler: requireWriter, schema: { tags: [`training: ${type}`], summary: 'Predict with a model of this project (a job)', params: z.object({ project_id: z.string().max(64) }), body: predictBody, response: replies({ 200: Prediction }) } },
      async (req) => ok(await start(req.auth, req.params.project_id, req.body.model_key, req.body.dataset_id, req.body.name, type)),
    );
    r.get(`/${prefix}/prediction/result/:id`, { schema: { tags: [`training: ${type}`], summary: 'State, progress and result summary of a prediction', params: idParams, response: replies({ 200: Prediction }) } }, async (req) => {
      const p = await getRow(req.auth, req.params.id);
      if (p.project_type !== type) throw new AppError(404, M.notFound);
      return ok(await view(req.auth, p));
    });
  }

  // ---- time series (SPEC §7 'Time series') -------------------------------------------------------------------

  const ts = ['time series'];
  r.post(
    '/timeseries/prediction/:id',
    { preHandler: requireWriter, schema: { tags: ts, summary: 'Score an inference dataset with a detector of the project (id = project id; a job); the saved threshold applies', params: idParams, body: predictBody, response: replies({ 200: Prediction }) } },
    async (req) => ok(await start(req.auth, req.params.id, req.body.model_key, req.body.dataset_id, req.body.name, 'time_series')),
  );
  async function tsPrediction(auth: AuthContext, id: string) {
    const p = await getRow(auth, id);
    if (!(TS_TYPES as readonly string[]).includes(p.project_type)) throw new AppError(404, M.notFound);
    return p;
  }
  r.get('/timeseries/prediction/result/:id', { schema: { tags: ts, summary: 'State, progress and result summary (alarms) of a time-series prediction', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await view(req.auth, await tsPrediction(req.auth, req.params.id))),
  );
  r.get(
    '/timeseries/prediction/series/:id',
    {
      schema: {
        tags: ts,
        summary:
          'The anomaly score of a prediction over row positions [start, end] (the whole series by default; a zoom asks for its window), min/max per bucket, its alarm spans and the mean contributions of each span',
        params: idParams,
        querystring: rangeQuery.pick({ start: true, end: true, points: true }),
        response: replies({
          200: z
            .object({
              rows: z.number().int(),
              start: z.number().int().describe('first row position shown'),
              end: z.number().int().describe('last row position shown'),
              points: z.array(z.tuple([z.number(), z.number().nullable(), z.number().nullable()])).describe('[row position, min, max] per bucket'),
              time_column: z.string().nullable().describe("the project's time column (null when the predicted table lacks it)"),
              time_kind: z.enum(['datetime', 'order']).describe('datetime: times are ISO date-times (no zone, as stored); order: the whole numbers of a row-order column'),
              times: z.array(z.union([z.string(), z.number(), z.null()])).describe("the time column's value at each point's row position"),
              start_time: z.union([z.string(), z.number(), z.null()]).describe('the time of the first row shown'),
              end_time: z.union([z.string(), z.number(), z.null()]).describe('the time of the last row shown'),
              spans: z.array(
                z.object({
                  start: z.number().int(),
                  end: z.number().int(),
                  start_time: z.union([z.string(), z.number(), z.null()]),
                  end_time: z.union([z.string(), z.number(), z.null()]),
                  contributions: z.array(z.object({ signal: z.string(), value: z.number() })),
                }),
              ),
              threshold: z.number().nullable(),
            })
            .meta({ id: 'PredictionScoreSeries' }),
        }),
      },
    },
    async (req) => {
      const p = await tsPrediction(req.auth, req.params.id);
      const v = await view(req.auth, p);
      if (v.state !== 'done') throw new AppError(409, M.notDone);
      const conn = await duckdb.connect();
      try {
        const file = sqlString(resultFile(p, 'predictions.parquet'));
        const names = (await conn.runAndReadAll(`SELECT * FROM read_parquet(${file}) LIMIT 0`)).columnNames();
        const contrib = names.filter((c) => c.startsWith('contribution_'));
        // the rows are labelled by the project's time column (kept in the predictions beside the scores)
        const cfg = await app.ctx.db.selectFrom('training_projects').select('config_json').where('organisation_id', '=', req.auth.orgId).where('id', '=', p.project_id).executeTakeFirst();
        const tcfg = cfg ? (JSON.parse(cfg.config_json) as { time_column?: string; time_is_datetime?: boolean }) : {};
        const timeColumn = tcfg.time_column && names.includes(tcfg.time_column) ? tcfg.time_column : null;
        const res = await conn.runAndReadAll(`SELECT anomaly_score, alarm${contrib.map((c) => `, ${ident(c)}`).join('')}${timeColumn ? `, ${ident(timeColumn)}` : ''} FROM read_parquet(${file})`);
        const cols = res.getColumnsJS() as unknown[][];
        const rawTimes = timeColumn ? cols[cols.length - 1] : [];
        const timeAt = (i: number): string | number | null => {
          const v = rawTimes[i];
          if (v === null || v === undefined) return null;
          if (v instanceof Date) return v.toISOString().replace('Z', '');
          if (typeof v === 'bigint') return Number(v);
          return typeof v === 'number' || typeof v === 'string' ? v : String(v);
        };
        const score = Float64Array.from(cols[0], (x) => (x === null ? NaN : Number(x)));
        const n = score.length;
        // the visible window, downsampled here as the training report's (one implementation: timeseries/scores.ts)
        const start = Math.min(req.query.start ?? 0, Math.max(0, n - 1));
        const end = Math.max(start, Math.min(req.query.end ?? n - 1, n - 1));
        const out = downsample(score, start, end, req.query.points);
        const alarm = cols[1].map((x) => Number(x) > 0);
        const spans: { start: number; end: number; start_time: string | number | null; end_time: string | number | null; contributions: { signal: string; value: number }[] }[] = [];
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
        return ok({
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
          threshold: v.result && 'anomaly' in v.result ? v.result.anomaly.threshold : null });
      } finally {
        conn.closeSync();
      }
    },
  );
}
