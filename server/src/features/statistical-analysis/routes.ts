import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { datasetParams, downloadBody, idParams, listQuery, registerBody, resultDownloadQuery, runBody, stateQuery, valuesQuery } from './schemas.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { ColumnValues, Evaluation, RunState, StatisticalProject, StatisticalProjectPage, StatisticalProjectsByState } from './responses.js';

const tags = ['statistical analysis'];

function sendFile(reply: FastifyReply, f: { body: string; type: string; fileName: string }) {
  reply.header('content-type', f.type);
  reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.fileName)}`);
  return reply.send(f.body);
}

/** SPEC §7 'Statistical analysis': statistical projects whose test runs as an engine job. */
export default async function statisticalAnalysisRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const service = app.services.statisticalAnalysis;
  const lang = (req: { headers: Record<string, unknown> }) => langOf(req.headers['accept-language'] as string | undefined);

  r.post(
    '/statistical/analysis/register/:dataset_id',
    { preHandler: requireWriter, schema: { tags, summary: 'Create a statistical project on a dataset (and run its test unless run=false)', params: datasetParams, body: registerBody, response: replies({ 201: StatisticalProject }) } },
    async (req, reply) => reply.code(201).send(ok(await service.register(req.auth, req.params.dataset_id, req.body, lang(req)))),
  );

  r.get(
    '/statistical/analysis/projects',
    { schema: { tags, summary: 'One page of projects, newest first, filtered by state and text', querystring: listQuery, response: replies({ 200: StatisticalProjectPage }) } },
    async (req) => ok(await service.list(req.auth, { ...req.query, state: req.query.state || undefined }, lang(req))),
  );

  r.get(
    '/statistical/analysis/projects/list',
    { schema: { tags, summary: 'Every project of a state (no results), with the count of each state', querystring: stateQuery, response: replies({ 200: StatisticalProjectsByState }) } },
    async (req) => ok(await service.all(req.auth, req.query.state || undefined)),
  );

  r.get(
    '/statistical/analysis/project/:id',
    { schema: { tags, summary: 'A project with its settings, state and result summary', params: idParams, response: replies({ 200: StatisticalProject }) } },
    async (req) => ok(await service.get(req.auth, req.params.id, lang(req))),
  );

  r.post(
    '/statistical/analysis/train/model/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Run the test (again); the body may change settings first', params: idParams, body: runBody, response: replies({ 200: StatisticalProject }) } },
    async (req) => ok(await service.run(req.auth, req.params.id, req.body ?? undefined, lang(req))),
  );

  r.post(
    '/statistical/analysis/download',
    { schema: { tags, summary: 'CSV with one row per project (ids empty: every project)', body: downloadBody, response: fileReplies('text/csv', 'One row per project') } },
    async (req, reply) => sendFile(reply, { body: await service.summary(req.auth, req.body.ids, lang(req)), type: 'text/csv; charset=utf-8', fileName: 'statistical_analysis.csv' }),
  );

  r.get(
    '/statistical/analysis/train/result/:id',
    { schema: { tags, summary: 'State and progress of the run, its reason when failed, and the full result when done', params: idParams, response: replies({ 200: RunState }) } },
    async (req) => ok(await service.trainResult(req.auth, req.params.id, lang(req))),
  );

  r.get(
    '/statistical/analysis/eval/result/:id',
    { schema: { tags, summary: 'The decision at the significance level in words (en, ja), effect size magnitude and warnings', params: idParams, response: replies({ 200: Evaluation }) } },
    async (req) => ok(await service.evalResult(req.auth, req.params.id)),
  );

  r.delete(
    '/statistical/analysis/project/delete/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Delete a project (a running test is cancelled)', params: idParams, response: replies({ 200: IdView }) } },
    async (req) => ok(await service.remove(req.auth, req.params.id)),
  );

  r.get(
    '/statistical/analysis/result/download/:id',
    { schema: { tags, summary: 'The result as CSV, or as a self-contained HTML report (format=html)', params: idParams, querystring: resultDownloadQuery, response: { ...fileReplies('text/csv', 'The result as CSV'), 200: { description: 'The result as CSV or HTML', content: { 'text/csv': fileReplies('text/csv', '')[200].content['text/csv'], 'text/html': fileReplies('text/html', '')[200].content['text/html'] } } } } },
    async (req, reply) => sendFile(reply, await service.resultFile(req.auth, req.params.id, req.query.format, req.query.lang ?? lang(req))),
  );

  r.get(
    '/statistical/analysis/values/:dataset_id',
    { schema: { tags, summary: 'Distinct values of a column with counts (to choose the groups of a category)', params: datasetParams, querystring: valuesQuery, response: replies({ 200: ColumnValues }) } },
    async (req) => ok(await service.values(req.auth, req.params.dataset_id, req.query.column)),
  );
}
