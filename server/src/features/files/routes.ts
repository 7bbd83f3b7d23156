import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import yazl from 'yazl';
import { z } from 'zod';
import { AppError } from '../../http/errors.js';
import { fileReplies } from '../../http/responses.js';

const binary = fileReplies('application/octet-stream', '')[200].content['application/octet-stream'];

const body = z.object({ paths: z.array(z.string().min(1).max(500)).min(1).max(200) });

/** A public path ('datasets/<id>/original.csv') names a file of the caller's organisation only. */
export function orgKey(orgId: string, publicPath: string): string {
  const norm = path.posix.normalize(publicPath).replace(/^\/+/, '');
  if (norm.startsWith('..') || norm.includes('/../') || !/^[\w.-]+(\/[\w.-]+)+$/.test(norm)) {
    throw new AppError(400, 'paths_forbidden', { path: publicPath });
  }
  return `org/${orgId}/${norm}`;
}

/** SPEC §7 Common: POST download/file, a list of paths → one file, or a zip of them. */
export default async function filesRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { storage } = app.ctx;
  r.post('/download/file', { schema: { tags: ['files'], body, response: { ...fileReplies('application/octet-stream', 'One file as stored, or a zip of several'), 200: { description: 'One file as stored (CSV or other), or a zip of several', content: { 'text/csv': binary, 'application/octet-stream': binary, 'application/zip': binary } } } } }, async (req, reply) => {
    const keys = req.body.paths.map((p) => ({ p, key: orgKey(req.auth.orgId, p) }));
    for (const { p, key } of keys) if (!storage.exists(key)) throw new AppError(404, 'file_not_found', { path: p });
    if (keys.length === 1) {
      const name = path.posix.basename(keys[0].p);
      reply.header('content-type', name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream');
      reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
      return reply.send(storage.readStream(keys[0].key));
    }
    const zip = new yazl.ZipFile();
    for (const { p, key } of keys) zip.addFile(storage.pathOf(key), p);
    zip.end();
    reply.header('content-type', 'application/zip');
    reply.header('content-disposition', 'attachment; filename="download.zip"');
    return reply.send(zip.outputStream);
  });
}
