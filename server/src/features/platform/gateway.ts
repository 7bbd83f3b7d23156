import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { sha256 } from '../../auth/tokens.js';
import type { AppContext } from '../../context.js';
import { storedJson } from '../../db/stored.js';
import { AppError } from '../../http/errors.js';
import { securityHeaders } from '../../http/security-headers.js';
import { engineErrorMessage } from '../../i18n/engine-errors.js';
import type { LocalText } from '../../i18n/messages.js';
import { lockCheck } from '../billing/gate.js';
import type { PlatformCredentialTable, PlatformProjectTable } from './db.js';
import { hostedManifest, settingsVersion } from './stored.js';
import { M } from './messages.js';
import { agrees, PlanEvaluator } from './plan.js';
import { platformRepo } from './repo.js';
import { serveReplies } from './schemas.js';
import { sameHash } from './service.js';
import { type ServeInput, type ServeResult, ServingPool } from './serving.js';
import { clip, numericColumns, readNumbers } from './inputs.js';
import { TokenBuckets } from './limits.js';
import { StatsRecorder } from './stats.js';
import { tsServeAnswer } from './timeseries-schemas.js';
import { isTsModel, makeTsServing } from './timeseries-serving.js';
import { IMAGE_SERVING_DOC, isImageModel, makeImageServing, serveBodies, serveQuery } from './image-serving.js';
import type { RunService } from '../training/runs.js';
import type { DriftSampler } from './drift/sampler.js';

/** A request the engine refused (missing column, wrong type, unseen category, bad body): the engine catalogue's text
 * in the caller's language, the column in loc, and the catalogue code as the error type clients can rely on. */
class EngineInputError extends AppError {
  constructor(
    r: { error: string; code?: string | null; params?: Record<string, unknown>; column: string | null },
    private engineCode = r.code ?? 'engine_error',
  ) {
    // A value the caller sent comes back cut (a 5 MiB string in a numeric column is quoted by its first 80 characters).
    const params = r.params && Object.fromEntries(Object.entries(r.params).map(([k, v]) => [k, typeof v === 'string' ? clip(v) : v]));
    const text = r.code ? engineErrorMessage({ code: r.code, params, message: clip(r.error, 300) }) : { en: clip(r.error, 300), ja: clip(r.error, 300) };
    super(422, text, {}, r.column === null ? 'body' : clip(r.column));
  }

  override get code(): string {
    return this.engineCode;
  }
}

/** A serving process's refusal as the API answers it: 422 with the catalogue code, 503 when busy, else a fault. */
function engineRefusal(result: Extract<ServeResult, { error: string }>): Error {
  if (result.status === 422) return new EngineInputError(result);
  if (result.status === 503 || result.status === 504) return new AppError(503, M.servingBusy);
  return new Error(result.error);
}

const FORGET_CHANNEL = 'mitate:platform:forget';
// A token bucket in Redis, so every server counts a sandbox key's calls together (the time is Redis's own).
const BUCKET_SCRIPT = `
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]) or burst, tonumber(b[2]) or now
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return allowed`;

/** Token bucket per sandbox key: `rate` a second, bursts of `burst`; in Redis when given (shared by all servers),
 * in this process otherwise. */
export function makeLimiter(rate: number, burst: number, redis?: Redis) {
  const buckets = new TokenBuckets(rate, burst);
  return async function allow(id: string): Promise<boolean> {
    if (redis) return (await redis.eval(BUCKET_SCRIPT, 1, `mitate:platform:bucket:${id}`, String(rate), String(burst))) === 1;
    return buckets.take(id) === 0;
  };
}

interface Resolved {
  project: PlatformProjectTable;
  credentials: PlatformCredentialTable[];
  version: string;
  at: number;
  /** The answer's fixed start, `{"detail":{"response":{"model":…,"version":…,` (see answerOf). */
  head: string;
  /** The statistics path and model of this project, made once rather than per request. */
  path: string;
  model: { key: string; dir: string };
  /** The model's numeric input columns (manifest.json), where a number sent as text is read as that number. */
  numeric: string[];
  /** Secrets already matched to a live key of this project, so a repeated key is not hashed again. It lives and
   * dies with this entry: at most cacheMs, and a revocation (forget) drops it at once. Only matches are kept. */
  known: Map<string, PlatformCredentialTable>;
}

/** The headers of every serving answer: the API's security headers (the same values helmet sends elsewhere, made
 * once here instead of by helmet per request) and the JSON type. */
const SERVE_HEADERS: Record<string, string> = { ...securityHeaders(), 'content-type': 'application/json; charset=utf-8' };

/**
 * The success body `{detail: {response: {model, version, outputs, predictions}}}` written as text by hand: the
 * fixed head is made once per project and only the answer's own arrays go through JSON.stringify, so the route
 * needs neither the generic serialiser nor the preSerialization hooks (which only localise error bodies).
 */
export function answerOf(head: string, result: { outputs: string[]; predictions: Record<string, unknown>[] }): string {
  return `${head}"outputs":${JSON.stringify(result.outputs)},"predictions":${JSON.stringify(result.predictions)}}}}`;
}

function apiKeyOf(req: FastifyRequest): string | undefined {
  const h = req.headers['x-api-key'];
  if (typeof h === 'string' && h) return h.trim();
  const a = req.headers.authorization;
  return a?.startsWith('Bearer ') ? a.slice(7).trim() : undefined;
}

function inputOf(req: FastifyRequest): ServeInput {
  const b = req.body as unknown;
  if (typeof b === 'string') return { csv: b };
  if (Array.isArray(b)) return { rows: b as Record<string, unknown>[] };
  if (b && typeof b === 'object') {
    const rows = (b as { rows?: unknown }).rows;
    if (Array.isArray(rows)) return { rows: rows as Record<string, unknown>[] };
    return { rows: [b as Record<string, unknown>] }; // a single row as an object
  }
  throw new AppError(422, M.badBody, {}, 'body');
}

function refuse(reply: FastifyReply, done: (e?: Error) => void, seconds: number, text: LocalText, rps: number) {
  reply.header('retry-after', String(seconds));
  done(new AppError(429, text, { rps, seconds }));
}

/** The live key of this project the secret is, remembered in the entry (`known`); 401 when it is none. */
function credentialOf(r: Resolved, secret: string): PlatformCredentialTable {
  let credential = r.known.get(secret);
  if (!credential) {
    const hash = sha256(secret);
    // Keys of this project only: another project's or organisation's key is refused like a wrong one.
    credential = r.credentials.find((c) => sameHash(c.key_hash, hash));
    if (!credential) throw new AppError(401, M.apiKeyInvalid);
    if (r.known.size < 256) r.known.set(secret, credential);
  }
  return credential;
}

/**
 * Serving plans per model (the key names a copied, never-changing model): null while asked for or when the model
 * has none (every request then goes to a serving process); a process error asks again a minute later.
 */
function planCache(pool: ServingPool, warn: (message: string) => void) {
  const plans = new Map<string, { ev: PlanEvaluator | null; retryAt: number }>();
  const MAX_PLANS = 64; // a large LightGBM plan is a few MB
  return function planOf(model: { key: string; dir: string }): PlanEvaluator | null {
    const hit = plans.get(model.key);
    if (hit && (hit.ev || Date.now() < hit.retryAt)) {
      plans.delete(model.key); // least recently used first out
      plans.set(model.key, hit);
      return hit.ev;
    }
    if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value!);
    plans.set(model.key, { ev: null, retryAt: Infinity });
    void pool.predict(model, { plan: true }).then((r) => {
      if (!('plan' in r)) return plans.set(model.key, { ev: null, retryAt: Date.now() + 60_000 });
      const ev = r.plan ? PlanEvaluator.from(r.plan) : null;
      const good = !!ev && agrees(ev, r.samples);
      if (r.plan && !good) warn(`hosted APIs: the serving plan of ${model.key} did not reproduce the engine's answers; its requests stay with the serving processes`);
      plans.set(model.key, { ev: good ? ev : null, retryAt: Infinity });
    });
    return null;
  };
}

/** A model's numeric columns, read once per model (a published model's folder never changes). */
function numericReader() {
  const numerics = new Map<string, string[]>();
  return async function numericOf(model: { key: string; dir: string }): Promise<string[]> {
    let cols = numerics.get(model.key);
    if (!cols) {
      cols = await fs
        .readFile(path.join(model.dir, 'manifest.json'), 'utf8')
        .then((t) => numericColumns(storedJson('hosted model manifest', hostedManifest, t)))
        .catch(() => []); // no manifest: the serving process decides, as before
      if (numerics.size >= 1024) numerics.clear();
      numerics.set(model.key, cols);
    }
    return cols;
  };
}

/**
 * The revocation channel with REDIS_URL: `pub` publishes this server's changes, `sub` hears the others' and drops
 * their keys (`drop`); `subscribed` resolves once it listens (at once without Redis).
 */
function forgetChannel(ctx: AppContext, drop: (key: string) => void) {
  const redisUrl = ctx.config.redisUrl;
  const pub = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  const sub = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: null }) : undefined;
  for (const r of [pub, sub]) r?.on('error', (e: Error) => ctx.log.warn(`hosted APIs: Redis: ${e.message}`));
  const subscribed =
    sub
      ?.subscribe(FORGET_CHANNEL)
      .then(() => undefined)
      .catch((e: Error) => ctx.log.error(`hosted APIs: no revocation channel: ${e.message}`)) ?? Promise.resolve();
  sub?.on('message', (channel: string, key: string) => {
    if (channel === FORGET_CHANNEL) drop(key);
  });
  return { pub, sub, subscribed };
}

/** The route's options: its log level, headers and OpenAPI description. */
const SERVE_ROUTE: RouteShorthandOptions = {
  // Each call is counted in the request statistics; a line per call in the log would cost more than the
  // prediction at the rates an API serves.
  logLevel: 'warn',
  // helmet builds its headers anew on every request; this route sends the same ones, made once
  helmet: false,
  schema: {
    tags: ['hosted APIs'],
    summary: 'Predict with a hosted model: JSON {"rows": [{...}]} (or one row object) or a CSV body; an image model one image; key in X-API-Key or Authorization: Bearer',
    description:
      'A time-series detector takes rows with its time column and signals: a block {"rows": [...]}, or a stream {"series": "<your id>", "rows": [...]} whose recent rows the server keeps; each row is answered with time, status, anomaly_score, alarm, top_signal and contribution_<signal>, and time_series gives the threshold in force, the alarm rule and the history rows. GET /api/platform/projects/{id}/time-series describes one API (its OpenAPI document included). Answered predictions (2xx) are the requests counted and billed; refusals are counted apart by reason and never billed. Each refusal carries a stable code (see the answers below) and its message in the language of Accept-Language. Limits per client address and per key answer 429 with Retry-After.' +
      IMAGE_SERVING_DOC,
    params: z.object({ key: z.string().max(60) }),
    querystring: serveQuery,
    bodies: serveBodies,
    // a time-series detector answers HostedTimeSeriesPrediction (timeseries-serving.ts)
    response: { ...serveReplies, 200: z.union([serveReplies[200], tsServeAnswer]) },
  },
};

/**
 * POST /serve/{project_key}/predict: the API key is checked against stored hashes, the project must be running,
 * sandbox keys are rate-limited, the prediction comes from a persistent serving process, statistics are buffered.
 */
export function makeGateway(
  ctx: AppContext,
  opts: { savedThreshold?: (p: PlatformProjectTable) => Promise<number | null>; runs?: Pick<RunService, 'findModel'>; drift?: Pick<DriftSampler, 'offerInput' | 'offerScores'> } = {},
) {
  const s = ctx.config.serving;
  const pool = new ServingPool(ctx.config, s.workers, (level, msg) => ctx.log[level](msg));
  // time-series detectors: blocks and streams (timeseries-serving.ts), after the same checks as every API
  const ts = makeTsServing({ pool, savedThreshold: opts.savedThreshold ?? (async () => null), refuse: engineRefusal, limits: ctx.config.tsadStream });
  // image OK/NG and classification models (image-serving.ts): one image per request
  const images = opts.runs ? makeImageServing(pool, opts.runs, s.cacheMs, opts.drift) : null;
  const stats = new StatsRecorder(ctx.db, s.statsFlushMs, (e) => ctx.log.error(`request statistics not written: ${e.message}`));
  // A short cache of project and keys per project key, cleared at once by this server's own changes (revoke,
  // stop, delete). With REDIS_URL the change is published and every other server clears it too; without, another
  // server (there is none without Redis) would see it within cacheMs.
  const cache = new Map<string, Resolved>();
  const { pub, sub, subscribed } = forgetChannel(ctx, (key) => cache.delete(key));
  const allow = makeLimiter(s.sandboxRps, s.sandboxRps * 2, pub);
  const planOf = planCache(pool, (m) => ctx.log.warn(m));
  const numericOf = numericReader();

  /** The cached entry while it is fresh (no promise on the hot path). */
  function cached(key: string): Resolved | undefined {
    const hit = cache.get(key);
    return hit && Date.now() - hit.at < s.cacheMs ? hit : undefined;
  }

  async function resolve(key: string): Promise<Resolved | null> {
    const project = await platformRepo.byKey(ctx.db, key);
    if (!project) {
      cache.delete(key);
      return null;
    }
    const credentials = await platformRepo.liveCredentials(ctx.db, project.id);
    const version = settingsVersion(project);
    const head = `{"detail":{"response":{"model":${JSON.stringify(project.model_key)},"version":${JSON.stringify(version)},`;
    const model = { key: `${project.id}:${project.model_dir}`, dir: ctx.storage.pathOf(project.model_dir) };
    const r = { project, credentials, version, at: Date.now(), head, path: `/serve/${project.key}/predict`, model, numeric: await numericOf(model), known: new Map() };
    cache.set(key, r);
    return r;
  }

  // Per client address and per API key, in this server's memory, checked before anything else (no body read, no
  // key hashed, no database): a flood is refused at the cost of a map lookup. With several servers each counts its
  // own calls, so a client spread over N servers may get up to N times the limit.
  const buckets = (rps: number) => (rps > 0 ? new TokenBuckets(rps, Math.max(1, rps * 2)) : null);
  const byAddress = buckets(ctx.config.serveIpRps);
  const byKey = buckets(ctx.config.serveKeyRps);

  function limit(req: FastifyRequest, reply: FastifyReply, done: (e?: Error) => void) {
    reply.headers(SERVE_HEADERS);
    let wait = byAddress?.take(req.ip) ?? 0;
    if (wait) return refuse(reply, done, wait, M.rateLimitedAddress, ctx.config.serveIpRps);
    const secret = byKey && apiKeyOf(req);
    wait = secret ? byKey.take(secret.slice(0, 200)) : 0;
    if (wait) return refuse(reply, done, wait, M.rateLimitedKey, ctx.config.serveKeyRps);
    done();
  }

  /** What a call resolved, for its statistics line (written once the answer is sent, whatever it was). */
  const seen = new WeakMap<FastifyRequest, { r: Resolved | null; credentialId?: string }>();

  /** Every answer of a known API is counted by its status: 2xx are the requests billed, anything else a refusal
   * counted apart (never billed), including those made before the handler (broken JSON, wrong content type, rate). */
  function count(req: FastifyRequest, reply: FastifyReply, done: () => void) {
    const mark = seen.get(req);
    const line = (r: Resolved | null) => {
      if (r) stats.record({ orgId: r.project.organisation_id, projectId: r.project.id, path: r.path, status: reply.statusCode, ms: reply.elapsedTime, userAgent: req.headers['user-agent'], credentialId: mark?.credentialId });
    };
    const key = (req.params as { key?: string }).key ?? '';
    if (mark) line(mark.r); // the handler looked the API up (null: there is none, nobody's statistics)
    else {
      const r = cached(key);
      if (r) line(r);
      // refused before the handler, the API not in the cache: looked up, and the statistics wait for it
      else if (key) stats.track(resolve(key).then(line, () => undefined));
    }
    done();
  }

  async function handle(req: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) {
    const r = cached(req.params.key) ?? (await resolve(req.params.key));
    const mark: { r: Resolved | null; credentialId?: string } = { r };
    seen.set(req, mark); // (no API: looked up once, nothing to count)
    if (!r) throw new AppError(404, M.apiNotFound);
    const secret = apiKeyOf(req);
    if (!secret) throw new AppError(401, M.apiKeyMissing);
    const credential = credentialOf(r, secret);
    mark.credentialId = credential.id;
    if (r.project.status === 'stopped' || r.project.status === 'approved') throw new AppError(503, M.apiStopped);
    if (r.project.status !== 'running') throw new AppError(403, M.apiNotApproved);
    await lockCheck(ctx.db, r.project.id); // 402 while an invoice of the project is overdue and unpaid
    if (credential.kind === 'sandbox' && !(await allow(credential.id))) {
      reply.header('retry-after', '1');
      throw new AppError(429, M.rateLimited, { rps: s.sandboxRps });
    }
    if (isTsModel(r.project.model_type)) return ts.handle(r, req, reply);
    if (images && isImageModel(r.project.model_type)) return images.answer(r, req, reply);
    const model = r.model;
    let input = inputOf(req);
    if ('rows' in input && r.numeric.length) {
      const read = readNumbers(input.rows, r.numeric);
      if ('refused' in read) throw new EngineInputError({ error: 'not a number', code: 'inference_not_numeric', params: read.refused, column: read.refused.column });
      input = { rows: read.rows as Record<string, unknown>[] };
    }
    // JSON rows the model's checked plan takes are answered here; everything else by a serving process
    const t0 = performance.now();
    const ev = s.inProcess ? planOf(model) : null;
    const local = ev && 'rows' in input ? ev.predict(input.rows) : null;
    const result: ServeResult = local ?? (await pool.predict(model, input));
    reply.header('server-timing', `predict;desc="${local ? 'in-process' : 'engine'}";dur=${(performance.now() - t0).toFixed(3)}`);
    if ('plan' in result || 'predicted' in result) throw new Error('a serving plan where a prediction was expected');
    if ('error' in result) throw engineRefusal(result);
    opts.drift?.offerInput(r.project.organisation_id, r.project.id, input); // answered: its rows may be sampled
    return reply.send(answerOf(r.head, result));
  }

  return {
    pool,
    stats,
    ts,
    /** A change of this project (revoke, stop, delete, review): every server's cache drops it now. */
    forget(key: string) {
      const hit = cache.get(key);
      if (hit) ts.forget(hit.project.id); // its streams' kept rows too (on this server)
      cache.delete(key);
      pub?.publish(FORGET_CHANNEL, key).catch((e: Error) => ctx.log.error(`hosted APIs: revocation not published: ${e.message}`));
    },
    /** Resolves once this server listens to other servers' changes (at once without Redis). */
    ready: () => subscribed,
    register(app: FastifyInstance) {
      app.register(async (serve) => {
        serve.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
        serve.addHook('onRequest', limit);
        serve.addHook('onResponse', count);
        serve.post<{ Params: { key: string } }>('/serve/:key/predict', SERVE_ROUTE, handle);
      });
    },
    async close() {
      await stats.close();
      await pool.close();
      await Promise.all([pub, sub].map((r) => r?.quit().catch(() => undefined)));
    },
  };
}
