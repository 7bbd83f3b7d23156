import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireWriter } from '../../auth/guard.js';
import { AppError, ok, parseField } from '../../http/errors.js';
import { langOf } from '../../i18n/messages.js';
import { filePart } from '../../http/openapi.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { DataPage, DatasetPage, DatasetView, DatasetWithColumns, imageDatasetView } from './responses.js';
import { idParams, listQuery, previewQuery, registerFields, updateBody } from './schemas.js';
import type { UploadedFile } from './service.js';
import { receiveUpload, type ReceivedUpload } from './stream-ingest.js';

const ALLOWED_EXT = ['.csv', '.tsv', '.txt', '.zip'];

/** SPEC §7 'Dataset' calls. */
export default async function datasetRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { datasets: service, images } = app.services;
  const maxBytes = app.ctx.config.maxUploadMb * 1024 * 1024;

  r.post(
    '/dataset/register',
    { preHandler: requireWriter, schema: { tags: ['dataset'], summary: 'Register a CSV or time-series CSV, or a ZIP of images (multipart: fields, then file)', consumes: ['multipart/form-data'], multipart: registerFields.extend({ file: filePart() }), response: replies({ 201: z.union([imageDatasetView, DatasetView]) }) } },
    async (req, reply) => {
      const tempDir = app.ctx.storage.makeTempDir();
      let received: ReceivedUpload | undefined;
      try {
        const fields: Record<string, string> = {};
        let file: UploadedFile | undefined;
        for await (const part of req.parts({ limits: { fileSize: maxBytes, fields: 20, files: 1 } })) {
          if (part.type === 'field') {
            fields[part.fieldname] = String(part.value ?? '');
            continue;
          }
          const ext = path.extname(part.filename || '').toLowerCase();
          if (part.fieldname !== 'file' || !ALLOWED_EXT.includes(ext)) {
            part.file.resume();
            throw new AppError(422, 'file_not_csv', {}, 'file');
          }
          const dest = path.join(tempDir, `original${ext}`);
          // A large CSV is converted to Parquet while it streams in (issue 17; the service checks the result).
          const length = Number(req.headers['content-length'] ?? 0);
          const convert = ext !== '.zip' ? service.streamConversion(tempDir, length) : null;
          received = await receiveUpload(part.file, dest, convert);
          if (part.file.truncated) throw new AppError(413, 'file_too_large', { size: `${app.ctx.config.maxUploadMb} MB` });
          file = { path: dest, fileName: path.basename(part.filename), size: received.size, streamed: received.streamed, receiveMs: received.receive_ms };
        }
        const fieldsOk = parseField(registerFields, fields);
        if (!file) throw new AppError(422, 'file_missing', {}, 'file');
        // A ZIP is an image dataset (OK/NG analysis, classification, or images to predict); CSVs are tables.
        const dataset =
          path.extname(file.fileName).toLowerCase() === '.zip'
            ? await images.registerZip(req.auth, fieldsOk, file, tempDir, langOf(req.headers['accept-language']))
            : await service.register(req.auth, fieldsOk, file, tempDir, langOf(req.headers['accept-language']));
        return reply.code(201).send(ok(dataset));
      } finally {
        // After a commit the folder has moved; otherwise this removes the half-done upload (its conversion stopped first).
        await received?.abandon();
        fs.rmSync(tempDir, { recursive: true, force: true });
      }
    },
  );

  r.get('/datasets/list/', { schema: { tags: ['dataset'], querystring: listQuery, response: replies({ 200: DatasetPage }) } }, async (req) =>
    ok(await service.list(req.auth, req.query)),
  );

  r.get('/dataset', { schema: { tags: ['dataset'], summary: 'All datasets of the organisation (for pickers)', response: replies({ 200: z.array(DatasetView) }) } }, async (req) =>
    ok(await service.all(req.auth)),
  );

  r.get(
    '/dataset/upload/:id',
    { schema: { tags: ['dataset'], summary: 'One page of the rows', params: idParams, querystring: previewQuery, response: replies({ 200: DataPage }) } },
    async (req) => ok(await service.preview(req.auth, req.params.id, req.query.page, req.query.page_size)),
  );

  r.get(
    '/dataset/download/:id',
    { schema: { tags: ['dataset'], summary: 'The original file as uploaded', params: idParams, response: fileReplies('text/csv', 'The original file') } },
    async (req, reply) => {
      const row = await service.getRow(req.auth, req.params.id);
      const key = service.originalFile(row);
      reply.header('content-type', 'text/csv');
      reply.header('content-length', app.ctx.storage.size(key));
      reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(row.file_name)}`);
      return reply.send(app.ctx.storage.readStream(key));
    },
  );

  r.get(
    '/dataset/:id/:min_schema',
    { schema: { tags: ['dataset'], summary: 'A dataset with its columns (min_schema=true: names and types only)', params: z.object({ id: z.string().max(64), min_schema: z.string().max(10) }), response: replies({ 200: DatasetWithColumns }) } },
    async (req) => ok(await service.get(req.auth, req.params.id, req.params.min_schema === 'true')),
  );

  r.put(
    '/dataset/:id',
    { preHandler: requireWriter, schema: { tags: ['dataset'], params: idParams, body: updateBody, response: replies({ 200: DatasetView }) } },
    async (req) => ok(await service.update(req.auth, req.params.id, req.body)),
  );

  r.delete(
    '/dataset/delete/:id',
    { preHandler: requireWriter, schema: { tags: ['dataset'], params: idParams, response: replies({ 200: IdView }) } },
    async (req) => ok(await service.remove(req.auth, req.params.id)),
  );
}

