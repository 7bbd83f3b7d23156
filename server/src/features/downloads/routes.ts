import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fileReplies } from '../../http/responses.js';

const binary = fileReplies('application/octet-stream', '')[200].content['application/octet-stream'];

const body = z.object({ paths: z.array(z.string().min(1).max(500)).min(1).max(200) });

/** SPEC §7 Common: POST download/file, a list of paths → one file, or a zip of them. */
export default async function filesRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { downloads } = app.services;
  r.post('/download/file', { schema: { tags: ['files'], body, response: { ...fileReplies('application/octet-stream', 'One file as stored, or a zip of several'), 200: { description: 'One file as stored (CSV or other), or a zip of several', content: { 'text/csv': binary, 'application/octet-stream': binary, 'application/zip': binary } } } } }, async (req, reply) => {
    const file = downloads.download(req.auth.orgId, req.body.paths);
    reply.header('content-type', file.type);
    reply.header('content-disposition', file.disposition);
    return reply.send(file.stream);
  });
}
