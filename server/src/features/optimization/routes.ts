import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { M } from './messages.js';
import { downloadBody, evaluateBody, featureSetting, featuresBody, idParams, listQuery, predictionBody, registerBody, responses } from './schemas.js';
import { fileReplies } from '../../http/responses.js';
import { renameBody } from '../training/schemas.js';

const tags = ['optimization'];

/** SPEC §7 'Optimization': projects over trained models whose searches run as engine jobs, one per algorithm. */
export default async function optimizationRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const service = app.services.optimization;
  const lang = (req: { headers: Record<string, unknown> }) => langOf(req.headers['accept-language'] as string | undefined);

  r.post(
    '/optimization/register/:dataset_id',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Create an optimisation project over trained models of this dataset (checked by the engine first; runs at once unless run=false)', params: z.object({ dataset_id: z.string().max(64) }), body: registerBody, response: responses.project },
    },
    async (req, reply) => reply.code(201).send(ok(await service.register(req.auth, req.params.dataset_id, req.body, lang(req)))),
  );
  r.post(
    '/optimization/preprocess/:project_id',
    { schema: { tags, summary: "The chosen models' inputs and targets with their training ranges (the wizard's features step); project_id: the first model's training project", params: z.object({ project_id: z.string().max(64) }), body: featuresBody, response: responses.features } },
    async (req) => {
      const models = req.body.models.length ? req.body.models : [];
      if (models.length && models[0].project_id !== req.params.project_id) throw new AppError(422, M.sameDataset, {}, 'models');
      return ok(await service.featureInfo(req.auth, models));
    },
  );
  r.post(
    '/optimization/evaluate/:optimizer_id',
    { preHandler: requireWriter, schema: { tags, summary: 'Run the project’s algorithms (or the ones given) again', params: z.object({ optimizer_id: z.string().max(64) }), body: evaluateBody, response: responses.project } },
    async (req) => ok(await service.evaluate(req.auth, req.params.optimizer_id, req.body?.algorithms, lang(req))),
  );
  r.get('/optimization/projects', { schema: { tags, summary: 'Projects, newest first, searched, filtered by state and paged', querystring: listQuery, response: responses.list } }, async (req) =>
    ok(await service.list(req.auth, req.query, lang(req))),
  );
  r.get('/optimization/projects/list', { schema: { tags, summary: 'Projects with the count of each state (query, state, page, page_size)', querystring: listQuery, response: responses.list } }, async (req) =>
    ok(await service.list(req.auth, req.query, lang(req))),
  );
  r.get('/optimization/project/:id', { schema: { tags, summary: 'A project with its settings and the state of each algorithm’s run', params: idParams, response: responses.project } }, async (req) =>
    ok(await service.get(req.auth, req.params.id, lang(req))),
  );
  r.put('/optimization/project/:id', { preHandler: requireWriter, schema: { tags, summary: 'Rename the project (in any state)', params: idParams, body: renameBody, response: responses.project } }, async (req) =>
    ok(await service.rename(req.auth, req.params.id, req.body.name, lang(req))),
  );
  r.delete('/optimization/project/delete/:id', { preHandler: requireWriter, schema: { tags, summary: 'Delete a project, its runs and files', params: idParams, response: responses.deleted } }, async (req) =>
    ok(await service.remove(req.auth, req.params.id)),
  );
  r.get(
    '/optimization/result/:id',
    { schema: { tags, summary: 'A run’s result: ranked conditions, convergence, Pareto front, trials, profiler (id: a run, or a project with ?algorithm=)', params: idParams, querystring: z.object({ algorithm: z.string().max(20).optional() }), response: responses.result } },
    async (req) => ok(await service.result(req.auth, req.params.id, req.query.algorithm, lang(req))),
  );
  r.post(
    '/optimization/prediction/:project_id',
    { preHandler: requireWriter, schema: { tags, summary: 'Predict the targets for given conditions with the project’s models (a job)', params: z.object({ project_id: z.string().max(64) }), body: predictionBody, response: responses.task } },
    async (req) => ok(await service.predict(req.auth, req.params.project_id, req.body.conditions)),
  );
  r.post('/optimization/prediction/result/:task_id', { schema: { tags, summary: 'State and result of a condition prediction', params: z.object({ task_id: z.string().max(64) }), response: responses.task } }, async (req) =>
    ok(await service.predictionResult(req.auth, req.params.task_id, lang(req))),
  );
  r.get('/optimization/prediction/:id', { schema: { tags, summary: 'State and result of a condition prediction', params: idParams, response: responses.task } }, async (req) =>
    ok(await service.predictionResult(req.auth, req.params.id, lang(req))),
  );
  r.post(
    '/opt/feature/download/:dataset_id',
    { schema: { tags, summary: 'CSV: a run’s ranked conditions (run_id), or the dataset’s columns as a feature-settings template', params: z.object({ dataset_id: z.string().max(64) }), body: downloadBody, response: fileReplies('text/csv', 'Ranked conditions, or a feature-settings template') } },
    async (req, reply) => {
      const f = await service.resultCsv(req.auth, req.params.dataset_id, req.body?.run_id);
      reply.header('content-type', 'text/csv; charset=utf-8');
      reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.fileName)}`);
      return reply.send(f.body);
    },
  );
  r.post(
    '/optimization/csv/upload',
    { schema: { tags, summary: 'Read a feature-settings CSV (name, kind, lower, upper, values, unit) into the wizard’s settings', querystring: z.object({ data_type: z.string().max(50).optional(), training_type: z.string().max(50).optional() }), response: responses.csvFeatures } },
    async (req) => {
      const file = await req.file();
      const text = file ? (await file.toBuffer()).toString('utf8') : '';
      return ok({ features: parseFeatureCsv(text) });
    },
  );
}

/** A feature-settings CSV (as opt/feature/download writes it) back into settings; values are separated by ';'. */
export function parseFeatureCsv(text: string) {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/).filter((l) => l.trim());
  const split = (l: string) => [...l.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)].map((m) => m[1].replace(/^"|"$/g, '').replace(/""/g, '"')).slice(0, -1);
  const head = split(lines[0] ?? '').map((h) => h.trim().toLowerCase());
  const at = (k: string) => head.indexOf(k);
  if (at('name') < 0 || at('kind') < 0 || at('lower') < 0 || at('upper') < 0) throw new AppError(422, M.csvColumns, {}, 'file');
  const numOrNull = (s: string | undefined) => (s === undefined || s.trim() === '' ? null : Number(s));
  return lines.slice(1).map((l, i) => {
    const c = split(l);
    const row = i + 1;
    if (!(c[at('name')] ?? '').trim()) throw new AppError(422, M.csvRowName, { row }, 'file');
    for (const column of ['lower', 'upper']) {
      const v = (c[at(column)] ?? '').trim();
      if (v !== '' && !Number.isFinite(Number(v))) throw new AppError(422, M.csvRowNumber, { row, column, value: v.slice(0, 50) }, 'file');
    }
    const kind = (c[at('kind')] || 'range').trim() as 'range' | 'discrete' | 'fixed';
    const values = at('values') >= 0 && c[at('values')] ? c[at('values')].split(';').map((v) => v.trim()).filter(Boolean) : undefined;
    const parsed = featureSetting.safeParse({
      name: c[at('name')],
      kind: ['range', 'discrete', 'fixed'].includes(kind) ? kind : 'range',
      lower: numOrNull(c[at('lower')]),
      upper: numOrNull(c[at('upper')]),
      values,
      value: kind === 'fixed' ? (numOrNull(c[at('lower')]) ?? c[at('lower')]) : undefined,
      unit: at('unit') >= 0 ? (c[at('unit')] ?? '') : '',
    });
    if (!parsed.success) throw new AppError(422, M.csvRowValue, { row, column: String(parsed.error.issues[0]?.path[0] ?? 'name') }, 'file');
    return parsed.data;
  });
}
