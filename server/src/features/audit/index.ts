import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireRole } from '../../auth/guard.js';
import { registerMigration } from '../../db/migrations.js';
import { ok } from '../../http/errors.js';
import { replies } from '../../http/responses.js';
import { uuidv7 } from '../../jobs/service.js';

/**
 * The audit log: who did what in an organisation. Every successful change made through the API (and every
 * sign-in, failed or not) is one row, written after the answer by an onResponse hook, so no feature has to
 * remember to call it. Owners and administrators read it at GET /api/audit (the web page /audit).
 */
export interface AuditEventTable {
  id: string;
  organisation_id: string;
  user_id: string | null;
  actor_email: string;
  action: string;
  method: string;
  route: string;
  subject_id: string | null;
  status: number;
  ip: string;
  created_at: string;
}

declare module '../../db/schema.js' {
  interface Database {
    audit_events: AuditEventTable;
  }
}

registerMigration('0301_scale_audit_events', {
  async up(db) {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organisation_id', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text')
      .addColumn('actor_email', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text')
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_events_org_time').on('audit_events').columns(['organisation_id', 'created_at']).execute();
  },
});

export const AUDIT_ACTIONS = [
  'sign_up', 'sign_in', 'sign_in_failed', 'sign_out', 'password_reset', 'member_invite', 'member_change', 'member_remove',
  'key_create', 'key_revoke', 'delete', 'payment', 'service', 'create', 'change',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** POST calls that only read (queries with a body, reports, downloads, quotes, progress): not changes. */
const READ_POST = /(\/report\/|\/download|\/visualization\/|\/statistics\/|\/progress\/|\/quote$|\/load\/dataset\/|\/preview|\/result\/|\/auth\/refresh$|\/rows)/;

/** What a call did, from its method and route (null: not an auditable change). */
export function classify(method: string, route: string, status: number): AuditAction | null {
  if (route.startsWith('/serve/')) return null; // hosted-API predictions: counted in the request statistics, not changes
  if (route === '/account/api/auth/login') return status < 400 ? 'sign_in' : status === 401 || status === 403 ? 'sign_in_failed' : null;
  if (status >= 400 || method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null;
  if (method === 'POST' && READ_POST.test(route)) return null;
  if (route === '/account/api/auth/register') return 'sign_up';
  if (route.endsWith('/auth/logout')) return 'sign_out';
  if (route.endsWith('/auth/reset-password') || route.endsWith('/auth/change-password')) return 'password_reset';
  if (route.includes('/credentials')) return method === 'DELETE' ? 'key_revoke' : 'key_create';
  if (/\/members\/:id$/.test(route)) return method === 'DELETE' ? 'member_remove' : 'member_change';
  if (route.endsWith('/members') && method === 'POST') return 'member_invite';
  if (/subscri|payment|checkout|billing/.test(route)) return 'payment';
  if (route.startsWith('/api/services/')) return 'service';
  if (method === 'DELETE' || /\/delete(\/|$)/.test(route)) return 'delete';
  if (/\/register(\/|$)/.test(route) || (method === 'POST' && !/:/.test(route))) return 'create';
  return 'change';
}

const Query = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
  action: z.enum(AUDIT_ACTIONS).optional(),
});
const AuditEvent = z.object({
  id: z.string(),
  created_at: z.string(),
  actor_email: z.string(),
  user_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  method: z.string(),
  route: z.string(),
  subject_id: z.string().nullable(),
  status: z.number(),
  ip: z.string(),
});
const AuditPage = z.object({ total: z.number(), page: z.number(), page_size: z.number(), items: z.array(AuditEvent) });

function subjectOf(req: FastifyRequest): string | null {
  const params = (req.params ?? {}) as Record<string, unknown>;
  for (const k of ['id', 'dataset_id', 'project_id', 'member_id', 'credential_id', 'task_id']) {
    if (typeof params[k] === 'string') return (params[k] as string).slice(0, 64);
  }
  return null;
}

/** Records auditable calls after their answer; an audit write that fails is logged, never turned into an error. */
export function installAudit(app: FastifyInstance): void {
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const route = req.routeOptions?.url;
    if (!route) return;
    const action = classify(req.method, route, reply.statusCode);
    if (!action) return;
    try {
      const { db } = app.ctx;
      let orgId = req.auth?.orgId;
      let userId: string | null = req.auth?.userId ?? null;
      let email = req.auth?.email ?? '';
      if (!orgId) {
        // sign-in and other calls before a token: the account named in the body, when it exists
        const bodyEmail = typeof (req.body as { email?: unknown } | undefined)?.email === 'string' ? String((req.body as { email: string }).email).toLowerCase().slice(0, 320) : '';
        if (!bodyEmail) return;
        const user = await db.selectFrom('users').select(['id', 'organisation_id', 'email']).where('email', '=', bodyEmail).executeTakeFirst();
        if (!user) return;
        orgId = user.organisation_id;
        userId = user.id;
        email = user.email;
      }
      await db
        .insertInto('audit_events')
        .values({
          id: uuidv7(), // time-ordered: the page sorts by it
          organisation_id: orgId,
          user_id: userId,
          actor_email: email,
          action,
          method: req.method,
          route,
          subject_id: subjectOf(req),
          status: reply.statusCode,
          ip: req.ip,
          created_at: new Date().toISOString(),
        })
        .execute();
    } catch (err) {
      app.log.error(`audit: could not record ${req.method} ${route}: ${(err as Error).message}`);
    }
  });
}

export default async function auditRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/audit',
    { preHandler: requireRole('owner', 'admin'), schema: { tags: ['audit'], summary: "The organisation's audit log, newest first (owners and administrators)", querystring: Query, response: replies({ 200: AuditPage }) } },
    async (req) => {
      const { db } = app.ctx;
      let q = db.selectFrom('audit_events').where('organisation_id', '=', req.auth.orgId);
      if (req.query.action) q = q.where('action', '=', req.query.action);
      const { n } = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await q
        .select(['id', 'created_at', 'actor_email', 'user_id', 'action', 'method', 'route', 'subject_id', 'status', 'ip'])
        .orderBy('id', 'desc')
        .limit(req.query.page_size)
        .offset((req.query.page - 1) * req.query.page_size)
        .execute();
      return ok({ total: Number(n), page: req.query.page, page_size: req.query.page_size, items: rows.map((x) => ({ ...x, action: x.action as AuditAction, status: Number(x.status) })) });
    },
  );
}
