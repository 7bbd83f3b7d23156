import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireWriter } from '../../auth/guard.js';
import { AppError, ok, parseField } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { errors } from './messages.js';
import { experimentBody, idParams, listQuery, registerSettings, responses, roundQuery, roundSettings, stateQuery } from './schemas.js';
import { fileReplies } from '../../http/responses.js';
import { renameBody } from '../training/schemas.js';

const tags = ['optimal design'];
const MAX_FILE = 5 * 1024 * 1024;

/** Multipart: the JSON field `settings` and CSV files by field name. */
async function readMultipart(req: FastifyRequest): Promise<{ settings: unknown; files: Record<string, string> }> {
  let settings: unknown = undefined;
  const files: Record<string, string> = {};
  for await (const part of req.parts({ limits: { fileSize: MAX_FILE, files: 3, fields: 5 } })) {
    if (part.type === 'field') {
      if (part.fieldname === 'settings') {
        try {
          settings = JSON.parse(String(part.value ?? ''));
        } catch {
          throw new AppError(422, errors.settings_invalid, {}, 'settings');
        }
      }
      continue;
    }
    if (!/\.(csv|txt)$/i.test(part.filename || '')) {
      part.file.resume();
      throw new AppError(422, errors.file_not_csv, {}, part.fieldname);
    }
    const buf = await part.toBuffer();
    if (part.file.truncated) throw new AppError(413, 'file_too_large', { size: '5 MB' });
    files[part.fieldname] = buf.toString('utf8');
  }
  return { settings, files };
}

function sendCsv(reply: FastifyReply, f: { body: string; fileName: string }) {
  reply.header('content-type', 'text/csv; charset=utf-8');
  reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(f.fileName)}`);
  return reply.send('\uFEFF' + f.body);
}

/** SPEC §7 'Optimal design': projects whose rounds are designed by the engine, closing the loop with results. */
export default async function optimalDesignRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const service = app.services.design;
  const lang = (req: { headers: Record<string, unknown> }) => langOf(req.headers['accept-language'] as string | undefined);

  r.post(
    '/optimal/register',
    {
      preHandler: requireWriter,
      schema: {
        tags, consumes: ['multipart/form-data'], response: { 201: responses.project },
        summary: 'Create a project and design its first round. Multipart: `settings` (JSON: name, variables, constraints, mixture_total, model, responses, algorithm, n_runs, parameters, exclude_tolerance, existing_project_ids, bo), optional CSV files `exclude_file` and `runs_file`. Bad input answers 422 and stores nothing.',
      },
    },
    async (req, reply) => {
      const { settings, files } = await readMultipart(req);
      const body = parseField(registerSettings, settings ?? {}, 'settings');
      return reply.code(201).send(ok(await service.register(req.auth, body, { exclude: files.exclude_file, runs: files.runs_file }, lang(req))));
    },
  );

  r.get(
    '/optimal/projects',
    { schema: { tags, summary: 'One page of projects, newest first, filtered by text and state', querystring: listQuery, response: { 200: responses.list } } },
    async (req) => ok(await service.list(req.auth, { ...req.query, state: req.query.state || undefined })),
  );

  r.get(
    '/optimal/projects/list',
    { schema: { tags, summary: 'Every project of a state, with the count of each state', querystring: stateQuery, response: { 200: responses.all } } },
    async (req) => ok(await service.all(req.auth, req.query.state || undefined)),
  );

  r.get(
    '/optimal/project/:id',
    { schema: { tags, summary: 'A project: settings and every round with its design, figures and measured results', params: idParams, response: { 200: responses.project } } },
    async (req) => ok(await service.get(req.auth, req.params.id, lang(req))),
  );

  r.put(
    '/optimal/project/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Rename the project (in any state)', params: idParams, body: renameBody, response: { 200: responses.project } } },
    async (req) => ok(await service.rename(req.auth, req.params.id, req.body.name, lang(req))),
  );

  r.post(
    '/optimal/round/:id',
    {
      preHandler: requireWriter,
      schema: {
        tags, params: idParams, consumes: ['multipart/form-data'], response: { 201: responses.project },
        summary: 'Close the loop: optional CSV `file` with the measured results of the newest round (the experiment sheet filled in), and `settings` (JSON: algorithm, n_runs, bo) of the next round',
      },
    },
    async (req, reply) => {
      const { settings, files } = await readMultipart(req);
      const body = parseField(roundSettings, settings ?? {}, 'settings');
      return reply.code(201).send(ok(await service.nextRound(req.auth, req.params.id, body, files.file, lang(req))));
    },
  );

  r.post(
    '/optimal/evaluate/:id',
    {
      preHandler: requireWriter,
      schema: { tags, params: idParams, consumes: ['multipart/form-data'], response: { 200: responses.evaluation }, summary: "Compare a user's design (CSV `file`, one row per run) with the project's newest design on D-, A-, G- and I-efficiency" },
    },
    async (req, reply) => {
      const { files } = await readMultipart(req);
      if (!files.file) throw new AppError(422, errors.file_not_csv, {}, 'file');
      return reply.send(ok(await service.evaluate(req.auth, req.params.id, files.file, lang(req))));
    },
  );

  r.post(
    '/optimal/experiment/download',
    { schema: { tags, body: experimentBody, summary: 'The experiment sheet (CSV): the runs of a round in order with an empty column per result, to fill in and upload', response: fileReplies('text/csv', 'The experiment sheet') } },
    async (req, reply) => sendCsv(reply, await service.experimentSheet(req.auth, req.body.project_id, req.body.round)),
  );

  r.get(
    '/optimal/result/:id',
    { schema: { tags, summary: 'State, progress and design of a round (default: the newest)', params: idParams, querystring: roundQuery, response: { 200: responses.result } } },
    async (req) => ok(await service.result(req.auth, req.params.id, req.query.round, lang(req))),
  );

  r.get(
    '/optimal/eval/result/:id',
    { schema: { tags, summary: "The evaluation of the user's design beside ours", params: idParams, response: { 200: responses.evaluation } } },
    async (req) => ok(await service.evalResult(req.auth, req.params.id, lang(req))),
  );

  r.delete(
    '/optimal/project/delete/:id',
    { preHandler: requireWriter, schema: { tags, summary: 'Delete a project and its rounds (a running round is cancelled)', params: idParams, response: { 200: responses.deleted } } },
    async (req) => ok(await service.remove(req.auth, req.params.id)),
  );

  r.get(
    '/optimal/result/download/:id',
    { schema: { tags, summary: 'Every round of the project as CSV: runs, measured results, BO predictions', params: idParams, response: fileReplies('text/csv', 'Every round as CSV') } },
    async (req, reply) => sendCsv(reply, await service.resultCsv(req.auth, req.params.id)),
  );
}
