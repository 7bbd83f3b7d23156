import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { fromConditionCsv, toConditionCsv } from './conditionFile.js';
import { langOf } from '../../i18n/messages.js';
import { M } from './messages.js';
import { previewBody, registerBody, runBody, saveConditionBody, type Step } from './schemas.js';
import { conditionView } from './service.js';
import { filePart } from '../../http/openapi.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { DatasetView } from '../datasets/responses.js';
import { ConditionFile, ConditionView, FittedCondition, LoadedDataset, PreviewView, RunResult, RunStarted } from './responses.js';

const tags = ['preprocessing'];
const datasetParams = z.object({ id: z.string().max(64) });
const idParams = z.object({ id: z.string().max(64) });

/** SPEC §2/§3/§7 pre-processing: conditions (named step lists), previews, runs (temporary datasets) and registration. */
export default async function preprocessingRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const svc = app.services.preprocessing;

  r.post('/load/dataset/:id', { schema: { tags, summary: 'Load a dataset for pre-processing: columns with statistics and the first rows', params: datasetParams, response: replies({ 200: LoadedDataset }) } }, async (req) =>
    ok(await svc.load(req.auth, req.params.id)),
  );

  r.post(
    '/manual/process/dataset/:id',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: 'Preview one step (default the last) after the steps before it: rows removed/changed, affected rows, before/after chart data',
        params: datasetParams,
        body: previewBody,
        response: replies({ 200: PreviewView }),
      },
    },
    async (req) => ok(await svc.preview(req.auth, req.params.id, req.body as { steps: Step[]; index?: number; sample_rows: number })),
  );

  r.post(
    '/preprocess/dataset/:id',
    {
      preHandler: requireWriter,
      schema: {
        tags,
        summary: 'Run a condition (steps, or a saved condition_id) on the dataset; answers the temp_id of the temporary dataset (409 on a duplicate condition_name without confirm_overwrite)',
        params: datasetParams,
        body: runBody,
        response: replies({ 200: RunStarted }),
      },
    },
    async (req) => ok(await svc.run(req.auth, req.params.id, req.body as { steps?: Step[]; condition_id?: string; condition_name?: string; confirm_overwrite: boolean }, langOf(req.headers['accept-language']))),
  );

  r.get('/preprocess/result/:id', { schema: { tags, summary: 'State, progress and summary of a run (id = temp_id)', params: idParams, response: replies({ 200: RunResult }) } }, async (req) =>
    ok(await svc.result(req.auth, req.params.id)),
  );

  r.post(
    '/new_dataset/register/:temp_id',
    {
      preHandler: requireWriter,
      schema: { tags, summary: 'Register a temporary dataset as a new (preprocessed) dataset', params: z.object({ temp_id: z.string().max(64) }), body: registerBody, response: replies({ 201: DatasetView }) },
    },
    async (req, reply) => reply.code(201).send(ok(await svc.register(req.auth, req.params.temp_id, req.body, langOf(req.headers['accept-language'])))),
  );

  r.get('/preprocess/dataset/:id/condition', { schema: { tags, summary: 'The condition with fitted parameters that produced a preprocessed dataset', params: datasetParams, response: replies({ 200: FittedCondition }) } }, async (req) =>
    ok(await svc.conditionOfDataset(req.auth, req.params.id)),
  );

  // ---- named conditions ----------------------------------------------------------------------

  r.get('/preprocess/conditions', { schema: { tags, summary: 'Saved preprocessing conditions of the organisation', response: replies({ 200: z.array(ConditionView) }) } }, async (req) =>
    ok((await svc.conditions.list(req.auth.orgId)).map(conditionView)),
  );

  r.get('/preprocess/conditions/:id', { schema: { tags, params: idParams, response: replies({ 200: ConditionView }) } }, async (req) => ok(conditionView(await svc.getCondition(req.auth, req.params.id))));

  r.post(
    '/preprocess/conditions',
    { preHandler: requireWriter, schema: { tags, summary: 'Save a named condition; 409 when the name exists unless confirm_overwrite is true (SPEC §5)', body: saveConditionBody, response: replies({ 200: ConditionView, 201: ConditionView }) } },
    async (req, reply) => {
      const { condition, created } = await svc.saveCondition(req.auth, req.body as Parameters<typeof svc.saveCondition>[1]);
      return reply.code(created ? 201 : 200).send(ok(conditionView(condition)));
    },
  );

  r.delete('/preprocess/conditions/:id', { preHandler: requireWriter, schema: { tags, params: idParams, response: replies({ 200: IdView }) } }, async (req) =>
    ok(await svc.deleteCondition(req.auth, req.params.id)),
  );

  r.get('/preprocess/conditions/:id/download', { schema: { tags, summary: 'The condition as condition_setting_file.csv (SPEC §9)', params: idParams, response: fileReplies('text/csv', 'condition_setting_file.csv') } }, async (req, reply) => {
    const c = conditionView(await svc.getCondition(req.auth, req.params.id));
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="condition_setting_file.csv"')
      .send(toConditionCsv(c.name, c.steps));
  });

  r.post(
    '/preprocess/conditions/upload',
    { preHandler: requireWriter, schema: { tags, summary: 'Read a condition_setting_file.csv (multipart field "file"); answers its name and steps, saves nothing', consumes: ['multipart/form-data'], multipart: z.object({ file: filePart() }), response: replies({ 200: ConditionFile }) } },
    async (req) => {
      const file = await req.file({ limits: { fileSize: 1024 * 1024, files: 1 } });
      if (!file) throw new AppError(422, M.fileMissing, {}, 'file');
      const buf = await file.toBuffer();
      return ok(fromConditionCsv(buf.toString('utf8'), langOf(req.headers['accept-language'])));
    },
  );
}
