import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requirePlatformAdmin, requireWriter } from '../../auth/guard.js';
import { ok } from '../../http/errors.js';
import { fileReplies, replies } from '../../http/responses.js';
import { langOf } from '../../i18n/messages.js';
import { invoicePdf } from './pdf.js';
import {
  ClockView,
  clockBody,
  decisionBody,
  idParams,
  InvoiceDetail,
  InvoicePage,
  Invoice,
  listQuery,
  pdfQuery,
  PaymentInfo,
  PendingPayments,
  ProjectLock,
  SweepResult,
  Topup,
  topupBody,
  Wallet,
} from './schemas.js';

const tags = ['invoices and payments'];

/**
 * Invoices of the hosted model APIs (SPEC §1, §2 'Other', §3 'Invoice', 'Bank account', §4), payment by bank transfer or
 * wallet, the platform administrators' confirmation, and the sweep (on start-up, then hourly) that generates
 * invoices and locks the projects of overdue ones.
 */
export default async function billingRoutes(app: FastifyInstance) {
  const svc = app.services.billing;
  const r = app.withTypeProvider<ZodTypeProvider>();

  let timer: NodeJS.Timeout | undefined;
  const run = () =>
    svc.scheduledSweep().then(
      (s) => s.ran && (s.generated || s.overdue) && app.ctx.log.info(`billing sweep: ${s.generated} invoices generated, ${s.overdue} overdue`),
      (e) => app.ctx.log.error(`billing sweep failed: ${(e as Error).message}`),
    );
  app.addHook('onReady', async () => {
    if (!app.ctx.config.billingSweep) return;
    await run();
    timer = setInterval(() => void run(), svc.settings.sweepMinutes * 60_000);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));

  r.get('/billing/invoices', { schema: { tags, summary: 'Invoices of the organisation, filtered by state', querystring: listQuery, response: replies({ 200: InvoicePage }) } }, async (req) =>
    ok(await svc.list(req.auth.orgId, req.query)),
  );
  r.get('/billing/invoices/:id', { schema: { tags, summary: 'One invoice with its line items and history', params: idParams, response: replies({ 200: InvoiceDetail }) } }, async (req) =>
    ok(await svc.detail(req.auth.orgId, req.params.id)),
  );
  r.get(
    '/billing/invoices/:id/pdf',
    { schema: { tags, summary: 'The invoice as a PDF (the same data as the page; lang en or ja, else Accept-Language)', params: idParams, querystring: pdfQuery, response: fileReplies('application/pdf', 'The invoice PDF') } },
    async (req, reply) => {
      const inv = await svc.detail(req.auth.orgId, req.params.id);
      const lang = req.query.lang ?? langOf(req.headers['accept-language']);
      const pdf = await invoicePdf(inv, await svc.bankAccount(), lang);
      reply.header('content-type', 'application/pdf');
      reply.header('content-disposition', `attachment; filename="${inv.number}.pdf"`);
      return reply.send(pdf);
    },
  );
  r.get('/billing/payment-info', { schema: { tags, summary: 'Transfer reference, platform bank account, wallet balance and identity state', response: replies({ 200: PaymentInfo }) } }, async (req) =>
    ok(await svc.paymentInfo(req.auth.orgId)),
  );
  r.post(
    '/billing/invoices/:id/transfer-completed',
    { preHandler: requireWriter, schema: { tags, summary: "Bank transfer: 'transfer completed' (→ pending confirmation)", params: idParams, response: replies({ 200: Invoice }) } },
    async (req) => ok(await svc.transferCompleted(req.auth, req.params.id)),
  );
  r.post('/billing/invoices/:id/pay-wallet', { preHandler: requireWriter, schema: { tags, summary: 'Pay from the wallet at once (→ cleared)', params: idParams, response: replies({ 200: Invoice }) } }, async (req) =>
    ok(await svc.payByWallet(req.auth, req.params.id)),
  );
  r.get('/billing/wallet', { schema: { tags, summary: 'Wallet balance, top-ups and movements', response: replies({ 200: Wallet }) } }, async (req) => ok(await svc.walletView(req.auth.orgId)));
  r.post('/billing/wallet/topups', { preHandler: requireWriter, schema: { tags, summary: 'Top up by bank transfer (→ pending confirmation)', body: topupBody, response: replies({ 201: Topup }) } }, async (req, reply) =>
    reply.code(201).send(ok(await svc.reportTopup(req.auth, req.body.amount))),
  );
  r.get('/billing/projects/:id/lock', { schema: { tags, summary: 'Whether a platform project is locked for an unpaid invoice', params: idParams, response: replies({ 200: ProjectLock }) } }, async (req) =>
    ok(await svc.lockOf(req.auth.orgId, req.params.id)),
  );

  // ---- platform administrators (MITATE_PLATFORM_ADMINS), across organisations by design --------------------
  r.get('/billing/admin/pending', { preHandler: requirePlatformAdmin, schema: { tags, summary: 'Transfers waiting for confirmation', response: replies({ 200: PendingPayments }) } }, async () => ok(await svc.pending()));
  r.post(
    '/billing/admin/invoices/:id/decision',
    { preHandler: requirePlatformAdmin, schema: { tags, summary: 'Confirm the transfer (→ cleared, project unlocked) or return it', params: idParams, body: decisionBody, response: replies({ 200: Invoice }) } },
    async (req) => ok(await svc.decideInvoice(req.auth.userId, req.params.id, req.body.decision)),
  );
  r.post(
    '/billing/admin/topups/:id/decision',
    { preHandler: requirePlatformAdmin, schema: { tags, summary: 'Confirm a wallet top-up (→ wallet credited) or return it', params: idParams, body: decisionBody, response: replies({ 200: Topup }) } },
    async (req) => ok(await svc.decideTopup(req.auth.userId, req.params.id, req.body.decision)),
  );
  // End-to-end tests move the billing clock of a running server; only with MITATE_TEST_CLOCK=1 (never in production).
  if (app.ctx.config.testClock) {
    r.post(
      '/billing/admin/test-clock',
      { preHandler: requirePlatformAdmin, schema: { tags, summary: 'Tests only: move the billing clock forward', body: clockBody, response: replies({ 200: ClockView }) } },
      async (req) => {
        svc.clock.advance(req.body.advance_hours * 3600_000);
        return ok({ now: svc.clock.now().toISOString() });
      },
    );
  }
  r.post('/billing/admin/sweep', { preHandler: requirePlatformAdmin, schema: { tags, summary: 'Run the billing sweep now (generate invoices, mark overdue)', response: replies({ 200: SweepResult }) } }, async () =>
    ok(await svc.sweep()),
  );
}
