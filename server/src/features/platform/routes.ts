import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAuth, requireRole } from '../../auth/guard.js';
import { AppError, ok } from '../../http/errors.js';
import { fileReplies, IdView, replies } from '../../http/responses.js';
import { registerDriftRoutes } from './drift/routes.js';
import { makeGateway } from './gateway.js';
import { M } from './messages.js';
import {
  adminMeView,
  createBody,
  credentialBody,
  credentialView,
  idParams,
  listQuery,
  priceListView,
  projectPage,
  projectView,
  publishableView,
  quoteBody,
  quoteView,
  reviewBody,
  reviewPage,
  statsQuery,
  statsView,
  updateBody,
} from './schemas.js';
import { statsCsv } from './stats.js';
import { tsDescriptionView } from './timeseries-schemas.js';

const tags = ['platform projects'];
const manage = requireRole('owner', 'admin'); // owners and admins publish and manage keys; members see; viewers read

/** Hosted model APIs: platform projects and credentials under /api/platform, serving at /serve/{key}/predict. */
export default async function platformRoutes(app: FastifyInstance) {
  const svc = app.services.platform;
  // a time-series detector's threshold in force: the one saved for the model in its project, else training's
  const gateway = makeGateway(app.ctx, {
    savedThreshold: (p) => app.services.timeSeries.savedThresholds(p.organisation_id, p.model_project_id).then((m) => m.get(p.model_key) ?? null),
    runs: app.services.runs,
    drift: app.services.drift.sampler,
  });
  gateway.register(app);
  app.addHook('onClose', () => gateway.close());
  app.addHook('onClose', () => app.services.drift.close()); // the drift sampler's last rows are written
  const installation = app.services.installation;
  const platformAdmin = async (req: FastifyRequest) => {
    if (!(await installation.isAdmin(req.auth))) throw new AppError(403, M.notPlatformAdmin);
  };
  const fromHour = (days: number) => new Date(Date.now() - days * 86400_000).toISOString().slice(0, 13);

  await app.register(
    async (api) => {
      api.addHook('onRequest', requireAuth);
      const r = api.withTypeProvider<ZodTypeProvider>();
      const projectAnswer = replies({ 200: projectView });

      r.get('/platform/prices', { schema: { tags, summary: 'The price list (MITATE_PLATFORM_PRICES or the embedded default)', response: replies({ 200: priceListView }) } }, async () => ok(svc.prices));
      r.post('/platform/quote', { schema: { tags, summary: 'Subscription and base infrastructure prices of the given settings', body: quoteBody, response: replies({ 200: quoteView }) } }, async (req) => ok(svc.priced(req.body)));
      r.get('/platform/models', { schema: { tags, summary: 'Trained models that can be published', response: replies({ 200: z.array(publishableView) }) } }, async (req) => ok(await svc.publishable(req.auth)));
      r.get('/platform/projects', { schema: { tags, summary: 'Platform projects of the organisation, filtered by status', querystring: listQuery, response: replies({ 200: projectPage }) } }, async (req) => ok(await svc.list(req.auth, req.query)));
      r.post('/platform/projects', { preHandler: manage, schema: { tags, summary: 'A draft API from a trained model', body: createBody, response: replies({ 201: projectView }) } }, async (req, reply) =>
        reply.code(201).send(ok(await svc.create(req.auth, req.body))),
      );
      r.get('/platform/projects/:id', { schema: { tags, summary: 'One platform project', params: idParams, response: projectAnswer } }, async (req) =>
        ok(svc.view(await svc.get(req.auth, req.params.id))),
      );
      r.get('/platform/projects/:id/time-series', { schema: { tags, summary: "A hosted time-series detector's interface: time column, signals, history rows, alarm rule, threshold in force, outputs, examples and its OpenAPI document", params: idParams, response: replies({ 200: tsDescriptionView }) } }, async (req) =>
        ok(await svc.timeSeriesDescription(req.auth, req.params.id)),
      );
      r.put('/platform/projects/:id', { preHandler: manage, schema: { tags, summary: 'Edit a draft or rejected project', params: idParams, body: updateBody, response: projectAnswer } }, async (req) =>
        ok(await svc.update(req.auth, req.params.id, req.body)),
      );
      for (const action of ['submit', 'draft', 'start', 'stop'] as const) {
        r.post(`/platform/projects/:id/${action}`, { preHandler: manage, schema: { tags, summary: `Life cycle: ${action}`, params: idParams, response: projectAnswer } }, async (req) => {
          const v = await svc.move(req.auth, req.params.id, action);
          gateway.forget(v.key);
          return ok(v);
        });
      }
      r.delete('/platform/projects/:id', { preHandler: manage, schema: { tags, summary: 'Delete the project, its keys and statistics', params: idParams, response: replies({ 200: IdView }) } }, async (req) => {
        const res = await svc.remove(req.auth, req.params.id);
        gateway.forget(res.key);
        return ok({ id: res.id });
      });

      r.get('/platform/projects/:id/credentials', { schema: { tags, summary: 'API keys of the project (prefixes only)', params: idParams, response: replies({ 200: z.array(credentialView) }) } }, async (req) => {
        await gateway.stats.flush(); // 'last used' includes the calls still buffered
        return ok((await svc.credentials(req.auth, req.params.id)).map((c) => svc.credentialView(c)));
      });
      r.post(
        '/platform/projects/:id/credentials',
        { preHandler: manage, schema: { tags, summary: 'A new API key; the secret is in this answer only', params: idParams, body: credentialBody, response: replies({ 201: credentialView }) } },
        async (req, reply) => {
          const { row, secret } = await svc.createCredential(req.auth, req.params.id, req.body.name, req.body.kind);
          const p = await svc.get(req.auth, req.params.id);
          gateway.forget(p.key);
          return reply.code(201).send(ok(svc.credentialView(row, secret)));
        },
      );
      r.delete(
        '/platform/projects/:id/credentials/:credential_id',
        { preHandler: manage, schema: { tags, summary: 'Revoke an API key (refused at once)', params: idParams.extend({ credential_id: z.string().max(64) }), response: replies({ 200: credentialView }) } },
        async (req) => {
          const c = await svc.revokeCredential(req.auth, req.params.id, req.params.credential_id);
          gateway.forget((await svc.get(req.auth, req.params.id)).key);
          return ok(svc.credentialView(c));
        },
      );

      registerDriftRoutes(api);
      r.get('/platform/projects/:id/statistics', { schema: { tags, summary: 'Request statistics: per path, device/browser/OS ratios, by hour or day', params: idParams, querystring: statsQuery, response: replies({ 200: statsView }) } }, async (req) => {
        const p = await svc.get(req.auth, req.params.id);
        await gateway.stats.flush();
        return ok(await svc.statistics(req.auth, p, fromHour(req.query.days), req.query.bucket));
      });
      r.get('/platform/projects/:id/statistics/download', { schema: { tags, summary: 'Request statistics as CSV', params: idParams, querystring: statsQuery, response: fileReplies('text/csv', 'Request statistics as CSV') } }, async (req, reply) => {
        const p = await svc.get(req.auth, req.params.id);
        await gateway.stats.flush();
        const csv = statsCsv(await svc.statistics(req.auth, p, fromHour(req.query.days), req.query.bucket));
        reply.header('content-type', 'text/csv; charset=utf-8');
        reply.header('content-disposition', `attachment; filename="request_statistics.csv"; filename*=UTF-8''${encodeURIComponent(`${p.key}-request_statistics.csv`)}`);
        return reply.send(csv);
      });

      // ---- platform administrators (MITATE_PLATFORM_ADMINS), across organisations by design --------------
      r.get(
        '/platform/admin/projects',
        { preHandler: platformAdmin, schema: { tags, summary: 'Projects waiting for review (or any status)', querystring: z.object({ status: listQuery.shape.status.default('under_review') }), response: replies({ 200: reviewPage }) } },
        async (req) => ok(await svc.reviewQueue(req.query.status)),
      );
      r.post('/platform/admin/projects/:id/review', { preHandler: platformAdmin, schema: { tags, summary: 'Approve, or reject with a reason', params: idParams, body: reviewBody, response: projectAnswer } }, async (req) => {
        const v = await svc.review(req.auth.userId, req.params.id, req.body.decision, req.body.reason);
        gateway.forget(v.key);
        return ok(v);
      });
      r.get('/platform/admin/me', { schema: { tags, summary: 'Whether the caller is a platform administrator', response: replies({ 200: adminMeView }) } }, async (req) => {
        const reason = await installation.adminReason(req.auth);
        return ok({ platform_admin: reason !== null, first_account: reason === 'first_account', review_required: await installation.reviewRequired() });
      });
    },
    { prefix: '/api' },
  );
}
