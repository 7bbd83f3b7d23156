import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { type Lang, langOf } from '../../i18n/messages.js';
import { Catalogue, ModelReport, ProjectConfigView, TrainingModel, TrainingProject, TrainingProjectPage } from './responses.js';
import { genericRegisterBody, listQuery, registerBody, reportBody, trainBody, updateBody } from './schemas.js';
import { PROJECT_TYPES, type ProjectType, TYPES } from './types.js';

const tags = ['training'];

const attachment = (reply: FastifyReply, name: string, type: string) =>
  reply.header('content-type', type).header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]+/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`);


type ImageRegister = Parameters<FastifyInstance['services']['images']['register']>[2];

/** Image projects (analysis, classification) are registered on the same path; their request and answer schemas are
 * the images area's, handed in at start-up (app.ts), so that training does not depend on images. */
export interface TrainingRoutesOptions {
  imageProjects: { body: z.ZodType<ImageRegister, unknown>; view: z.ZodType };
}

/** SPEC §7 'Project', 'Statistics and regression', 'Soft sensor, dimensional compression, discriminant analysis, clustering'. */
export default async function trainingRoutes(app: FastifyInstance, { imageProjects }: TrainingRoutesOptions) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { training: svc, images } = app.services;

  // ---- catalogue and generic project calls --------------------------------------------------------------

  r.get('/training/catalogue', { schema: { tags, summary: 'Algorithms of each tabular training type with their hyper-parameters and defaults; names, labels and help in the caller’s language', response: replies({ 200: Catalogue }) } }, async (req) => {
    const lang = langOf(req.headers['accept-language']);
    return ok({ types: PROJECT_TYPES.map((t) => ({ type: t, prefix: TYPES[t].prefix, supervised: TYPES[t].supervised, algorithms: svc.algorithms(t, lang) })) });
  });

  r.post(
    '/project/register/:dataset_id',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: 'Register a training project: a tabular type, or analysis / classification on an image dataset',
        params: z.object({ dataset_id: z.string().max(64) }),
        body: z.union([genericRegisterBody, imageProjects.body]),
        // An image project answers with its own shape.
        response: replies({ 200: z.union([TrainingProject, imageProjects.view]) }),
      },
    },
    async (req) => {
      const b = req.body;
      // The project row's training state is text in the database, always one of the schema's states.
      if (b.project_type === 'analysis' || b.project_type === 'classification') return ok(await images.register(req.auth, req.params.dataset_id, b as ImageRegister));
      return ok(await svc.register(req.auth, b.project_type, req.params.dataset_id, b as z.infer<typeof genericRegisterBody>));
    },
  );
  r.get('/projects', { schema: { tags, summary: 'Every training project of the organisation', response: replies({ 200: z.array(TrainingProject) }) } }, async (req) =>
    ok((await svc.list(req.auth, { query: '', page: 1, page_size: 1000 })).items),
  );
  r.get('/project/list/', { schema: { tags, summary: 'Training projects, searched and paged', querystring: listQuery, response: replies({ 200: TrainingProjectPage }) } }, async (req) => ok(await svc.list(req.auth, req.query)));
  r.get('/project/:id', { schema: { tags, summary: 'One training project with its models', params: z.object({ id: z.string().max(64) }), response: replies({ 200: TrainingProject }) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id))),
  );
  r.put(
    '/project/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Rename a project, or change its settings and models while it is not training', params: z.object({ id: z.string().max(64) }), body: updateBody, response: replies({ 200: TrainingProject }) } },
    async (req) => ok(await svc.update(req.auth, req.params.id, req.body)),
  );
  r.get('/training/project/:id/models', { schema: { tags, summary: 'The models of a project', params: z.object({ id: z.string().max(64) }), response: replies({ 200: z.array(TrainingModel) }) } }, async (req) =>
    ok((await svc.view(req.auth, await svc.getProject(req.auth, req.params.id))).models),
  );

  // SPEC: regression trains with POST train/model/{project_id} and polls GET train/result/{id}; these serve every type.
  r.post(
    '/train/model/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Train the models of a project (a job; poll train/result)', params: z.object({ id: z.string().max(64) }), body: trainBody, response: replies({ 200: TrainingProject }) } },
    async (req) => ok(await svc.train(req.auth, req.params.id, req.body?.model_keys, langOf(req.headers['accept-language']))),
  );
  r.get('/train/result/:id', { schema: { tags, summary: 'Training state, progress and model results of a project', params: z.object({ id: z.string().max(64) }), response: replies({ 200: TrainingProject }) } }, async (req) =>
    ok(await svc.view(req.auth, await svc.getProject(req.auth, req.params.id))),
  );

  // ---- the same pattern under each type's prefix ---------------------------------------------------------

  for (const type of PROJECT_TYPES) typeRoutes(app, type);
}

/** One training type's calls under its prefix (SPEC §7 repeats the pattern for each). */
function typeRoutes(app: FastifyInstance, type: ProjectType) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { training: svc } = app.services;
  const { prefix } = TYPES[type];
  const t = [`training: ${type}`];
  const pid = z.object({ id: z.string().max(64) });
  const get = (auth: Parameters<typeof svc.getProject>[0], id: string) => svc.getProject(auth, id, type as ProjectType);

  r.post(
    `/${prefix}/register/:id`,
    { preHandler: requireWriter, schema: { tags: t, summary: `Register a ${TYPES[type].label.en} project on a dataset`, params: pid, body: registerBody, response: replies({ 200: TrainingProject }) } },
    async (req) => ok(await svc.register(req.auth, type, req.params.id, req.body)),
  );
  r.get(`/${prefix}/project/:id`, { schema: { tags: t, summary: 'The project with its models', params: pid, response: replies({ 200: TrainingProject }) } }, async (req) =>
    ok(await svc.view(req.auth, await get(req.auth, req.params.id))),
  );
  r.get(`/${prefix}/project/:id/config`, { schema: { tags: t, summary: 'Settings of the project and the algorithms with their defaults', params: pid, response: replies({ 200: ProjectConfigView }) } }, async (req) => {
    const v = await svc.view(req.auth, await get(req.auth, req.params.id));
    return ok({ project: v, algorithms: svc.algorithms(type, langOf(req.headers['accept-language'])) });
  });
  const list = async (auth: Parameters<typeof svc.getProject>[0], q: string, query: { page?: number; page_size?: number }) =>
    ok(await svc.list(auth, { query: q === '*' || q === '-' ? '' : q, project_type: type, page: query.page ?? 1, page_size: query.page_size ?? 100 }));
  const pageQuery = z.object({ page: z.coerce.number().int().min(1).optional(), page_size: z.coerce.number().int().min(1).max(200).optional() });
  r.get(`/${prefix}/project/list/:q`, { schema: { tags: t, summary: 'Projects of this type whose name or dataset matches q (* for all)', params: z.object({ q: z.string().max(200) }), querystring: pageQuery, response: replies({ 200: TrainingProjectPage }) } }, async (req) =>
    list(req.auth, req.params.q, req.query),
  );
  r.get(`/${prefix}/project/list/`, { schema: { tags: t, summary: 'Every project of this type', querystring: pageQuery, response: replies({ 200: TrainingProjectPage }) } }, async (req) => list(req.auth, '', req.query));
  if (type !== 'regression') {
    r.post(`/${prefix}/train/model/:id`, { preHandler: requireWriter, schema: { tags: t, summary: 'Train the models (a job)', params: pid, body: trainBody, response: replies({ 200: TrainingProject }) } }, async (req) => {
      await get(req.auth, req.params.id);
      return ok(await svc.train(req.auth, req.params.id, req.body?.model_keys, langOf(req.headers['accept-language'])));
    });
    r.get(`/${prefix}/train/result/:id`, { schema: { tags: t, summary: 'Training state, progress and model results', params: pid, response: replies({ 200: TrainingProject }) } }, async (req) =>
      ok(await svc.view(req.auth, await get(req.auth, req.params.id))),
    );
  }
  r.post(`/${prefix}/report/:id`, { schema: { tags: t, summary: "A model's report: metrics, charts, importances, CV folds, hyper-parameters", params: pid, body: reportBody, response: replies({ 200: ModelReport }) } }, async (req) => {
    await get(req.auth, req.params.id);
    return ok(await svc.report(req.auth, req.params.id, req.body.model_key, langOf(req.headers['accept-language'])));
  });
  // The report as a file (report-file.ts) in the asked language, else the caller's.
  const reportFile = (format: 'html' | 'pdf') => async (req: FastifyRequest<{ Params: { id: string; model_key: string }; Querystring: { lang?: Lang } }>, reply: FastifyReply) => {
    const f = await svc.reportFile(req.auth, req.params.id, req.params.model_key, req.query.lang ?? langOf(req.headers['accept-language']), format, type);
    return attachment(reply, f.name, f.type).send(f.body);
  };
  const reportParams = z.object({ id: z.string().max(64), model_key: z.string().max(100) });
  const reportQuery = z.object({ lang: z.enum(['en', 'ja']).optional().describe('Language of the file (default: Accept-Language)') });
  r.get(
    `/${prefix}/report/download/:id/:model_key`,
    {
      schema: {
        tags: t,
        summary: "A model's report as one self-contained HTML file (the PDF's content: leaderboard, what chose the best model, metrics, charts as inline SVG, importances, settings), in the caller's language",
        params: reportParams,
        querystring: reportQuery,
        response: fileReplies('text/html', 'The report'),
      },
    },
    reportFile('html'),
  );
  r.get(
    `/${prefix}/report/pdf/:id/:model_key`,
    {
      schema: {
        tags: t,
        summary: "A model's report as a PDF: leaderboard (test and validation columns, what chose the best model), metrics, charts, importances and settings, in the caller's language",
        params: reportParams,
        querystring: reportQuery,
        response: fileReplies('application/pdf', 'The report'),
      },
    },
    reportFile('pdf'),
  );
  r.get(
    `/${prefix}/model/download/:project/:name/:index`,
    {
      schema: {
        tags: t,
        summary: 'A self-contained trained model as a zip: model.joblib (condition, time features and fitted pipeline in one object), manifest.json with the two lines that predict raw rows, requirements.txt and the engine code it needs',
        params: z.object({ project: z.string().max(64), name: z.string().max(64), index: z.coerce.number().int().min(1) }),
        response: fileReplies('application/zip', 'model.joblib and manifest.json'),
      },
    },
    async (req, reply) => {
      const f = await svc.modelZip(req.auth, req.params.project, req.params.name, req.params.index, type as ProjectType);
      return attachment(reply, f.name, 'application/zip').send(fs.createReadStream(f.file));
    },
  );
  r.delete(`/${prefix}/project/delete/:id`, { preHandler: requireWriter, schema: { tags: t, summary: 'Delete the project, its models and files', params: pid, response: replies({ 200: IdView }) } }, async (req) =>
    ok(await svc.remove(req.auth, req.params.id, type)),
  );
}
