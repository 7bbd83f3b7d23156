import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireRole } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { classify } from './classify.js';
import { AuditPage, AuditQuery } from './schemas.js';

function subjectOf(req: FastifyRequest): string | null {
  const params = (req.params ?? {}) as Record<string, unknown>;
  for (const k of ['id', 'dataset_id', 'project_id', 'member_id', 'credential_id', 'task_id']) {
    if (typeof params[k] === 'string') return (params[k] as string).slice(0, 64);
  }
  return null;
}

/** Records auditable calls after their answer; an audit write that fails is logged, never turned into an error. */
export function installAudit(app: FastifyInstance): void {
  const { audit } = app.services;
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const route = req.routeOptions?.url;
    if (!route) return;
    const action = classify(req.method, route, reply.statusCode);
    if (!action) return;
    try {
      const body = req.body as { email?: unknown } | undefined;
      const bodyEmail = typeof body?.email === 'string' ? body.email.toLowerCase().slice(0, 320) : '';
      await audit.record({ auth: req.auth, bodyEmail, action, method: req.method, route, subjectId: subjectOf(req), status: reply.statusCode, ip: req.ip });
    } catch (err) {
      app.log.error(`audit: could not record ${req.method} ${route}: ${(err as Error).message}`);
    }
  });
}

/** GET /api/audit: the organisation's audit log, for owners and administrators. */
export default async function auditRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { audit } = app.services;
  r.get(
    '/audit',
    { preHandler: requireRole('owner', 'admin'), schema: { tags: ['audit'], summary: "The organisation's audit log, newest first (owners and administrators)", querystring: AuditQuery, response: replies({ 200: AuditPage }) } },
    async (req) => ok(await audit.page(req.auth.orgId, req.query)),
  );
}
