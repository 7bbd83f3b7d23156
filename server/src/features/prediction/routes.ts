import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { rangeQuery } from '../timeseries/schemas.js';
import { TYPES } from '../training/types.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { Prediction, PredictionPage, PredictionProgress, PredictionRows } from './responses.js';

const executeBody = z.object({ dataset_id: z.string().max(64), name: z.string().trim().max(200).optional() });
const predictBody = executeBody.extend({ model_key: z.string().max(100) });
const idParams = z.object({ id: z.string().max(64) });
const rowsQuery = z.object({ page: z.coerce.number().int().min(1).default(1), page_size: z.coerce.number().int().min(1).max(1000).default(50) });
const listQuery = z.object({ query: z.string().max(200).optional(), page: z.coerce.number().int().min(1).default(1), page_size: z.coerce.number().int().min(1).max(200).default(50) });

const tags = ['prediction'];

/** SPEC §7 'Inference' and each type's prediction calls: a trained model applied to an inference dataset, as a job. */
export default async function predictionRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const svc = app.services.predictions;

  // ---- SPEC §7 Inference ---------------------------------------------------------------------------------

  r.post(
    '/inference/execute/:project_id/:key',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Predict with a trained model (key) on an inference dataset (a job)', params: z.object({ project_id: z.string().max(64), key: z.string().max(100) }), body: executeBody, response: replies({ 200: Prediction }) },
    },
    async (req) => ok(await svc.start(req.auth, req.params.project_id, req.params.key, req.body.dataset_id, req.body.name, undefined, langOf(req.headers['accept-language']))),
  );
  r.get('/inference/list/', { schema: { tags, summary: 'Predictions, searched and paged', querystring: listQuery, response: replies({ 200: PredictionPage }) } }, async (req) =>
    ok(await svc.list(req.auth, req.query.query ?? '', req.query.page, req.query.page_size)),
  );
  r.get('/inference/list/:query', { schema: { tags, summary: 'Predictions whose name, project or dataset matches (* for all)', params: z.object({ query: z.string().max(200) }), querystring: listQuery, response: replies({ 200: PredictionPage }) } }, async (req) =>
    ok(await svc.list(req.auth, req.params.query, req.query.page, req.query.page_size)),
  );
  r.get('/inference/progress/:id', { schema: { tags, summary: 'State and progress of a prediction', params: idParams, response: replies({ 200: PredictionProgress }) } }, async (req) => {
    const v = await svc.get(req.auth, req.params.id);
    return ok({ id: v.id, state: v.state, progress: v.progress, message: v.message, error: v.error });
  });
  r.get('/inference/:id', { schema: { tags, summary: 'One prediction with its state and result summary', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await svc.get(req.auth, req.params.id, undefined, langOf(req.headers['accept-language']))),
  );
  r.get('/inference/:id/rows', { schema: { tags, summary: 'A page of the result table: predictions beside the input rows', params: idParams, querystring: rowsQuery, response: replies({ 200: PredictionRows }) } }, async (req) =>
    ok(await svc.rows(req.auth, req.params.id, req.query.page, req.query.page_size)),
  );
  r.get(
    '/inference/download/:project_id/:key',
    { schema: { tags, summary: 'The result table as CSV (key: the prediction id)', params: z.object({ project_id: z.string().max(64), key: z.string().max(64) }), response: fileReplies('text/csv', 'The predictions beside the input rows') } },
    async (req, reply) => {
      const { file, name } = await svc.csvFile(req.auth, req.params.project_id, req.params.key);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename="predictions.csv"; filename*=UTF-8''${encodeURIComponent(name)}`);
      return reply.send(fs.createReadStream(file));
    },
  );
  r.delete('/inference/delete/:id', { preHandler: requireWriter, schema: { tags, summary: 'Delete a prediction and its result files', params: idParams, response: replies({ 200: IdView }) } }, async (req) =>
    ok(await svc.remove(req.auth, req.params.id)),
  );

  // ---- each type's prediction and prediction/result calls --------------------------------------------------

  r.post(
    '/prediction/:project_id',
    { preHandler: requireWriter, schema: { tags, summary: 'Predict with a model of a project (regression and every type)', params: z.object({ project_id: z.string().max(64) }), body: predictBody, response: replies({ 200: Prediction }) } },
    async (req) => ok(await svc.start(req.auth, req.params.project_id, req.body.model_key, req.body.dataset_id, req.body.name, undefined, langOf(req.headers['accept-language']))),
  );
  r.get('/prediction/:id', { schema: { tags, summary: 'One prediction with its state and result summary', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await svc.get(req.auth, req.params.id, undefined, langOf(req.headers['accept-language']))),
  );
  for (const type of ['dimensional_compression', 'discriminant_analysis', 'clustering', 'soft_sensor'] as const) {
    const { prefix } = TYPES[type];
    r.post(
      `/${prefix}/prediction/:project_id`,
      { preHandler: requireWriter, schema: { tags: [`training: ${type}`], summary: 'Predict with a model of this project (a job)', params: z.object({ project_id: z.string().max(64) }), body: predictBody, response: replies({ 200: Prediction }) } },
      async (req) => ok(await svc.start(req.auth, req.params.project_id, req.body.model_key, req.body.dataset_id, req.body.name, type, langOf(req.headers['accept-language']))),
    );
    r.get(`/${prefix}/prediction/result/:id`, { schema: { tags: [`training: ${type}`], summary: 'State, progress and result summary of a prediction', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
      ok(await svc.get(req.auth, req.params.id, type)),
    );
  }

  // ---- time series (SPEC §7 'Time series') -------------------------------------------------------------------

  const ts = ['time series'];
  r.post(
    '/timeseries/prediction/:id',
    { preHandler: requireWriter, schema: { tags: ts, summary: 'Score an inference dataset with a detector of the project (id = project id; a job); the saved threshold applies', params: idParams, body: predictBody, response: replies({ 200: Prediction }) } },
    async (req) => ok(await svc.start(req.auth, req.params.id, req.body.model_key, req.body.dataset_id, req.body.name, 'time_series', langOf(req.headers['accept-language']))),
  );
  r.get('/timeseries/prediction/result/:id', { schema: { tags: ts, summary: 'State, progress and result summary (alarms) of a time-series prediction', params: idParams, response: replies({ 200: Prediction }) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getTimeSeries(req.auth, req.params.id))),
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
              labelled: z
                .object({
                  column: z.string(),
                  rows: z.number().int().describe('scored rows with a label'),
                  counts: z.object({ tp: z.number().int(), fp: z.number().int(), fn: z.number().int(), tn: z.number().int() }),
                  precision: z.number().nullable(),
                  recall: z.number().nullable(),
                  f1: z.number().nullable(),
                  far: z.number().nullable(),
                  mar: z.number().nullable(),
                  alarms: z.number().int(),
                  alarms_per_day: z.number().nullable(),
                  alarms_per_1000_rows: z.number().nullable(),
                  event: z.object({
                    events: z.number().int(),
                    events_detected: z.number().int(),
                    alarm_spans: z.number().int(),
                    alarm_spans_true: z.number().int(),
                    precision: z.number().nullable(),
                    recall: z.number().nullable(),
                    f1: z.number().nullable(),
                    per_event: z.array(z.object({ start: z.number().int(), end: z.number().int(), detected: z.boolean(), delay_rows: z.number().int().nullable(), delay_seconds: z.number().nullable().optional() })),
                  }),
                })
                .nullable()
                .describe("The predicted file holds the project's label column: the test part's figures against it (over the whole file, not the window shown)"),
            })
            .meta({ id: 'PredictionScoreSeries' }),
        }),
      },
    },
    async (req) => ok(await svc.scoreSeries(req.auth, req.params.id, req.query)),
  );
}
