import crypto from 'node:crypto';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import accountApi from './account-api.js';
import { hoistGuards, requireAuth } from './auth/guard.js';
import { loadSecret } from './auth/tokens.js';
import { type Config, loadConfig } from './config.js';
import type { AppContext } from './context.js';
import { migrate, openDb } from './db/index.js';
import { openDuck } from './duck/index.js';
import datasetRoutes from './features/datasets/routes.js';
// The OpenAPI document lists shared answer schemas in the order their modules load: the training area's load here,
// where the dataset routes used to pull them in, so that web/src/api/schema.d.ts keeps its order.
import './features/training/responses.js';
import { sweepOrphanDatasets } from './features/datasets/sweep.js';
import filesRoutes from './features/downloads/routes.js';
import operationsRoutes from './features/operations/routes.js';
import columnStatisticsRoutes from './features/column-statistics/routes.js';
import statisticalAnalysisRoutes from './features/statistical-analysis/routes.js';
import usersRoutes from './features/me/routes.js';
import visualizationRoutes from './features/visualization/routes.js';
import preprocessingRoutes from './features/preprocessing/routes.js';
import trainingRoutes from './features/training/routes.js';
import predictionRoutes from './features/prediction/routes.js';
import { installErrorHandler, installNotFound, JSON_BODY_LIMIT_MB, MAX_PARAM_LENGTH, onClientError, onFrameworkError, validatorCompiler } from './http/errors.js';
import { requestSerializer } from './http/redact.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { installEngineErrorLocalization } from './i18n/engine-errors.js';
import { langOf } from './i18n/messages.js';
import { registerCompression, registerWebApp } from './http/web-app.js';
import optimalDesignRoutes from './features/optimal-design/routes.js';
import optimizationRoutes from './features/optimization/routes.js';
import imageRoutes from './features/images/routes.js';
import { imageProjectView, imageRegisterBody } from './features/images/schemas.js';
import timeSeriesRoutes from './features/timeseries/routes.js';
import platformRoutes from './features/platform/routes.js';
import billingRoutes from './features/billing/routes.js';
import installationRoutes from './features/installation/routes.js';
import { openApiTransform, openApiTransformObject } from './http/openapi.js';
import { responseSerializer } from './http/responses.js';
import { JobService } from './jobs/service.js';
import { Mailer } from './mail/mailer.js';
import auditRoutes, { installAudit } from './features/audit/routes.js';
import { installMetrics } from './features/audit/metrics.js';
import { LocalStorage } from './storage/local.js';
import { S3Storage } from './storage/s3.js';
import { installRequestScope } from './http/request-scope.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { buildServices } from './services.js';

export interface BuildOptions {
  config?: Partial<Config>;
  logger?: boolean;
  /** Where the log goes when `logger` is on (tests read it); stdout by default. */
  logStream?: { write(line: string): void };
  pgSchema?: string;
  /** Tests that never run a job can skip starting the worker pool. */
  startJobs?: boolean;
  /** Refuse an answer that loses a key its response schema does not declare (default: under vitest or MITATE_STRICT_RESPONSES=1). */
  strictResponses?: boolean;
  /** Tests: record traces with this exporter (each span exported at its end) instead of OTLP. */
  traceExporter?: SpanExporter;
}

/** Builds the whole app (no listen): tests use app.inject or a real port. */
export async function buildApp(opts: BuildOptions = {}): Promise<FastifyInstance> {
  // eslint-disable-next-line no-restricted-properties -- the settings are read when the app is built (tests set them per app)
  const config = loadConfig(process.env, opts.config);
  const app = Fastify({
    // Tokens must never reach the log: secret query parameters are redacted from every logged URL.
    logger: opts.logger ? { serializers: { req: requestSerializer }, ...(opts.logStream ? { stream: opts.logStream } : {}) } : false,
    bodyLimit: JSON_BODY_LIMIT_MB * 1024 * 1024,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
    // Per-address sign-in limits rely on req.ip: X-Forwarded-For counts only from configured proxies.
    trustProxy: config.trustProxy as boolean | string, // a hop count is accepted too (proxy-addr), though not in the type
    // A request id from the proxy (X-Request-Id) is kept, so one id follows a request through every log; else a new one.
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!/^[\w.:-]{1,128}$/.test(req.id)) req.id = crypto.randomUUID(); // nothing odd from a client reaches the log
    reply.header('x-request-id', req.id);
  });
  // Traces only when an exporter is configured; the SDK is not even loaded otherwise.
  const tracing = opts.traceExporter || config.otlpEndpoint ? (await import('./telemetry.js')).Tracing.fromConfig(config, opts.traceExporter) : null;
  // The request's id (and trace context) follow every job it creates, into the engine and its log lines.
  installRequestScope(app, (req) => {
    if (!tracing) return { requestId: req.id };
    const trace = tracing.startRequest(req);
    return { requestId: req.id, trace, sampledOut: !trace };
  });
  tracing?.install(app);
  app.setValidatorCompiler(validatorCompiler);
  // Tests and the contract fuzzing run refuse answers that lose a key their schema does not declare.
  app.setSerializerCompiler(responseSerializer(opts.strictResponses ?? config.strictResponses));
  installErrorHandler(app);
  // Role checks run before body validation; the guarded routes are listed for tests and audits.
  const guardedRoutes: { method: string; url: string }[] = [];
  app.decorate('guardedRoutes', guardedRoutes);
  app.addHook('onRoute', (route) => {
    if (hoistGuards(route)) for (const method of [route.method].flat()) guardedRoutes.push({ method, url: route.url });
  });
  installEngineErrorLocalization(app, langOf);

  const { db, dialect, close } = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgSchema: opts.pgSchema });
  await migrate(db, dialect === 'postgres' ? opts.pgSchema : undefined);
  const storage = config.s3 ? new S3Storage(config.dataDir, config.s3, (m) => app.log.warn(m)) : new LocalStorage(config.dataDir);
  if (storage instanceof S3Storage) await storage.open();
  storage.sweepTemporary();
  const duckdb = await openDuck(config.dataDir, config.duckdb);
  const log = {
    info: (m: string) => app.log.info(m),
    warn: (m: string) => app.log.warn(m),
    error: (m: string) => app.log.error(m),
  };
  // Job lines are structured: job_id, kind, pid ... are properties of the JSON record, beside the message.
  const jobs = new JobService({ db, config, log: (level, msg, fields) => (fields ? app.log[level](fields, msg) : app.log[level](msg)), storage });
  const mailer = new Mailer(config.dataDir, config.smtpUrl, undefined, log.info);
  const ctx: AppContext = { config, db, dialect, pgSchema: dialect === 'postgres' ? opts.pgSchema : undefined, storage, jobs, duckdb, mailer, secret: loadSecret(config.dataDir, config.secret), log };
  app.decorate('ctx', ctx);
  app.decorate('services', buildServices(ctx));
  app.decorate('config', config);

  installAudit(app);
  installMetrics(app);
  await installSecurityHeaders(app);
  await registerCompression(app);
  await app.register(multipart, { limits: { fileSize: config.maxUploadMb * 1024 * 1024 } });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Mitate API', version: '0.1.0', description: 'SPEC §7 calls. Success bodies are {detail: {response: ...}}.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: openApiTransform,
    transformObject: openApiTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });

  await app.register(
    async (api) => {
      api.addHook('onRequest', requireAuth);
      await api.register(usersRoutes);
      await api.register(datasetRoutes);
      await api.register(columnStatisticsRoutes);
      await api.register(statisticalAnalysisRoutes);
      await api.register(operationsRoutes);
      await api.register(auditRoutes);
      await api.register(filesRoutes);
      await api.register(visualizationRoutes);
      await api.register(preprocessingRoutes);
      await api.register(trainingRoutes, { imageProjects: { body: imageRegisterBody, view: imageProjectView } });
      await api.register(predictionRoutes);
      await api.register(optimalDesignRoutes);
      await api.register(optimizationRoutes);
      await api.register(imageRoutes);
      await api.register(timeSeriesRoutes);
      await api.register(billingRoutes);
      await api.register(installationRoutes);
    },
    { prefix: '/api' },
  );
  await app.register(accountApi, { prefix: '/account/api' });
  // Hosted model APIs: /api/platform/... (signed in) and /serve/{key}/predict (API key).
  await app.register(platformRoutes);

  // The built web app; every other path gets index.html so the client router decides (and shows Not Found).
  installNotFound(app, await registerWebApp(app, config.webDist));

  if (opts.startJobs !== false) await jobs.start();
  await sweepOrphanDatasets(ctx).catch((err) => app.log.warn(`datasets: sweep failed: ${(err as Error).message}`));
  app.addHook('onClose', async () => {
    await jobs.close();
    await storage.close();
    duckdb.closeSync();
    await close();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    guardedRoutes: { method: string; url: string }[];
  }
}
