import fs from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { fileReplies, IdView } from '../../http/responses.js';
import { M as TM } from '../training/messages.js';
import { renameBody, trainBody } from '../training/schemas.js';
import { contributionsView, driftSuggestBody, driftSuggestionView, normalDefaultQuery, normalDefaultView, pid, pm, projectView, rangeQuery, registerBody, seriesView, signalsView, thresholdQuery, thresholdView, tsCatalogueView, tsReportView, TS_TYPES, wrap } from './schemas.js';
import { localCatalogue } from './detectors.js';

const tags = ['time series'];

/** SPEC §7 'Time series' (GET timseseries/project/{id} spelt so, with a correctly spelt alias) and POST update/threshold. */
export default async function timeSeriesRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { timeSeries: svc, training } = app.services;

  const attachment = (reply: FastifyReply, name: string, type: string) =>
    reply.header('content-type', type).header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]+/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  const sendFile = (reply: FastifyReply, file: string, name: string, type: string) => {
    if (!fs.existsSync(file)) throw new AppError(404, TM.reportMissing);
    return attachment(reply, name, type).send(fs.createReadStream(file));
  };

  r.get('/timeseries/catalogue', { schema: { tags, summary: 'Detectors of each mode with their hyper-parameters, named in the caller\'s language (one list: engine/mitate_engine/timeseries/catalogue.json with message keys)', response: wrap(tsCatalogueView) } }, async (req) =>
    ok(localCatalogue(langOf(req.headers['accept-language']))),
  );
  r.post(
    '/timeseries/register/:id',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Register a time-series anomaly detection project on a dataset (id = dataset id); every rule is checked first', params: pid, body: registerBody, response: wrap(projectView) },
    },
    async (req) => ok(await svc.register(req.auth, req.params.id, req.body, langOf(req.headers['accept-language']))),
  );
  r.get(
    '/timeseries/normal/default/:id',
    {
      schema: {
        tags,
        summary: 'The normal period the wizard offers on a dataset (id = dataset id), before anything is registered: from the label where there is one (the rows before the first anomaly, or all rows when none is anomalous), else the first half for the person to confirm',
        params: pid,
        querystring: normalDefaultQuery,
        response: wrap(normalDefaultView),
      },
    },
    async (req) => ok(await svc.normalDefault(req.auth, req.params.id, req.query)),
  );
  r.post(
    '/timeseries/drift/suggest/:id',
    {
      schema: {
        tags,
        summary:
          'Which chosen signals drift slowly within the period the models would learn from (id = dataset id; the normal period, or the supervised training part), with a reason each in the caller\'s language and a suggested number of rows of change; a suggestion only: nothing is stored or applied',
        params: pid,
        body: driftSuggestBody,
        response: wrap(driftSuggestionView),
      },
    },
    async (req) => ok(await svc.suggestDrift(req.auth, req.params.id, req.body, langOf(req.headers['accept-language']))),
  );
  const projectSchema = { tags, summary: 'The project with its models, states, metrics and thresholds', params: pid, response: wrap(projectView) };
  r.get('/timseseries/project/:id', { schema: projectSchema }, async (req) => ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id), langOf(req.headers['accept-language']))));
  r.get('/timeseries/project/:id', { schema: { ...projectSchema, summary: 'Correctly spelt alias of GET timseseries/project/{id}' } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id), langOf(req.headers['accept-language']))),
  );
  r.put('/timeseries/project/:id', { preHandler: requireWriter, schema: { tags, summary: 'Rename the project (in any state)', params: pid, body: renameBody, response: wrap(projectView) } }, async (req) =>
    ok(await svc.rename(req.auth, req.params.id, req.body.name, langOf(req.headers['accept-language']))),
  );
  r.get(
    '/timeseries/project/list/',
    { schema: { tags, summary: 'Time-series projects of the organisation', querystring: z.object({ page: z.coerce.number().int().min(1).default(1), page_size: z.coerce.number().int().min(1).max(200).default(100) }), response: wrap(z.object({ items: z.array(projectView), total: z.number() }).meta({ id: 'TsProjectPage' })) } },
    async (req) => {
      const lists = await Promise.all(TS_TYPES.map((t) => training.list(req.auth, { query: '', project_type: t, page: 1, page_size: 1000 })));
      const rows = lists.flatMap((l) => l.items).sort((a, b) => b.created_at.localeCompare(a.created_at));
      const page = rows.slice((req.query.page - 1) * req.query.page_size, req.query.page * req.query.page_size);
      return ok({ items: await Promise.all(page.map(async (p) => svc.view(req.auth, await svc.getProject(req.auth, p.id), langOf(req.headers['accept-language'])))), total: rows.length });
    },
  );
  r.post('/timeseries/train/model/:id', { preHandler: requireWriter, schema: { tags, summary: 'Train the models of the project (a job)', params: pid, body: trainBody, response: wrap(projectView) } }, async (req) =>
    ok(await svc.train(req.auth, req.params.id, req.body?.model_keys, langOf(req.headers['accept-language']))),
  );
  r.get('/timeseries/train/model/:id', { schema: { tags, summary: 'Training state and progress of the project', params: pid, response: wrap(projectView) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id), langOf(req.headers['accept-language']))),
  );
  r.get('/timeseries/train/result/:id', { schema: { tags, summary: 'Training results: every model with its metrics and threshold', params: pid, response: wrap(projectView) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id), langOf(req.headers['accept-language']))),
  );
  r.post(
    '/timeseries/report/:id',
    { schema: { tags, summary: "A model's report: metrics (point-wise, event-level, time to detect), alarms with contributions, score overview", params: pid, body: z.object({ model_key: z.string().max(100) }), response: wrap(tsReportView) } },
    async (req) => ok(await svc.report(req.auth, req.params.id, req.body.model_key, langOf(req.headers['accept-language']))),
  );
  r.get(
    '/timeseries/report/download/:project_id/:model_key',
    { schema: { tags, summary: "A model's report as one self-contained HTML file, in the caller's language (Accept-Language)", params: pm, response: fileReplies('text/html', "The model's report (HTML)") } },
    async (req, reply) => {
      const { name, html } = await svc.reportFile(req.auth, req.params.project_id, req.params.model_key, langOf(req.headers['accept-language']));
      return attachment(reply, name, 'text/html; charset=utf-8').send(html);
    },
  );
  r.get(
    '/timeseries/model/download/:project/:model',
    { schema: { tags, summary: 'A trained detector as a zip: model.joblib and manifest.json (signals, windows, threshold, metrics)', params: z.object({ project: z.string().max(64), model: z.string().max(100) }), response: fileReplies('application/zip', 'The trained detector (zip)') } },
    async (req, reply) => {
      const { file, name } = await svc.modelZip(req.auth, req.params.project, req.params.model);
      return sendFile(reply, file, name, 'application/zip');
    },
  );
  r.delete('/timeseries/project/delete/:id', { preHandler: requireWriter, schema: { tags, summary: 'Delete the project, its models, thresholds and files', params: pid, response: wrap(IdView) } }, async (req) => {
    return ok(await svc.remove(req.auth, req.params.id));
  });

  // ---- threshold ---------------------------------------------------------------------------------------------

  r.get(
    '/timeseries/threshold/:project_id/:model_key',
    { schema: { tags, summary: 'Exact metrics at a threshold (or at the threshold meeting a target false-alarm rate on the normal period): counts, precision, recall, F1, FAR, MAR, alarms, alarm spans', params: pm, querystring: thresholdQuery, response: wrap(thresholdView) } },
    async (req) => ok(await svc.threshold(req.auth, req.params.project_id, req.params.model_key, req.query)),
  );
  // POST update/threshold/{project_id}/{model_key} is one route for image and time-series models: see images/routes.ts.
  r.get(
    '/timeseries/series/:project_id/:model_key',
    { schema: { tags, summary: 'The anomaly score over row positions [start, end], min/max per bucket, with labelled events and the training/test parts', params: pm, querystring: rangeQuery, response: wrap(seriesView) } },
    async (req) => ok(await svc.series(req.auth, req.params.project_id, req.params.model_key, req.query)),
  );
  r.get(
    '/timeseries/signals/:project_id/:model_key',
    { schema: { tags, summary: 'Raw signals (columns, comma separated) in time order over row positions [start, end], min/max per bucket', params: pm, querystring: rangeQuery, response: wrap(signalsView) } },
    async (req) => ok(await svc.signals(req.auth, req.params.project_id, req.params.model_key, req.query)),
  );
  r.get(
    '/timeseries/contributions/:project_id/:model_key',
    { schema: { tags, summary: 'Mean contribution of each signal over rows [start, end] (T²/Q relative to their limits, robust z, TreeSHAP for LightGBM, path contributions for the random forest, coefficient × value)', params: pm, querystring: z.object({ start: z.coerce.number().int().min(0), end: z.coerce.number().int().min(0) }), response: wrap(contributionsView) } },
    async (req) => ok(await svc.contributions(req.auth, req.params.project_id, req.params.model_key, req.query.start, req.query.end)),
  );
}
