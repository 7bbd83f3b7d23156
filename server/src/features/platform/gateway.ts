import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sha256 } from '../../auth/tokens.js';
import type { AppContext } from '../../context.js';
import { AppError, ok } from '../../http/errors.js';
import type { LocalText } from '../../i18n/messages.js';
import { lockCheck } from '../billing/gate.js';
import { M as P } from '../prediction/messages.js';
import type { PlatformCredentialTable, PlatformProjectTable } from './db.js';
import { M } from './messages.js';
import { sameHash } from './service.js';
import { type ServeInput, type ServeResult, ServingPool } from './serving.js';
import { StatsRecorder } from './stats.js';

/** Settings of the hosted APIs (environment, each with a default). */
export function servingSettings(env: NodeJS.ProcessEnv = process.env) {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
  return {
    workers: num(env.MITATE_SERVE_WORKERS, 2),
    sandboxRps: num(env.MITATE_SANDBOX_RPS, 5),
    statsFlushMs: num(env.MITATE_STATS_FLUSH_MS, 2000),
    cacheMs: num(env.MITATE_SERVE_CACHE_MS, 1000),
  };
}

/** The engine's input check messages in both languages (the column is named in the message and in loc). */
function engineMessage(r: { error: string; column: string | null }): LocalText {
  const column = r.column ?? '';
  const fill = (m: LocalText, extra: Record<string, string> = {}): LocalText => {
    const f = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'column' ? column : (extra[k] ?? `{${k}}`)));
    return { en: f(m.en), ja: f(m.ja) };
  };
  if (/is missing/.test(r.error)) return fill(P.missingColumn);
  if (/must be numeric/.test(r.error)) return fill(P.notNumeric);
  const cat = /category "([^"]*)"/.exec(r.error);
  if (cat) return fill(P.unseenCategory, { value: cat[1] });
  return { en: r.error, ja: r.error };
}

interface Resolved {
  project: PlatformProjectTable;
  credentials: PlatformCredentialTable[];
  at: number;
}

/**
 * POST /serve/{project_key}/predict: the API key is checked against stored hashes, the project must be running,
 * sandbox keys are rate-limited, the prediction comes from a persistent serving process, statistics are buffered.
 */
export function makeGateway(ctx: AppContext) {
  const s = servingSettings();
  const pool = new ServingPool(ctx.config, s.workers, (level, msg) => ctx.log[level](msg));
  const stats = new StatsRecorder(ctx.db, s.statsFlushMs, (e) => ctx.log.error(`request statistics not written: ${e.message}`));
  // A short cache of project and keys per project key, cleared at once by this server's own changes (revoke,
  // stop, delete); other servers see such a change within cacheMs.
  const cache = new Map<string, Resolved>();
  const buckets = new Map<string, { tokens: number; at: number }>();

  async function resolve(key: string): Promise<Resolved | null> {
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < s.cacheMs) return hit;
    const project = await ctx.db.selectFrom('platform_projects').selectAll().where('key', '=', key).executeTakeFirst();
    if (!project) {
      cache.delete(key);
      return null;
    }
    const credentials = await ctx.db.selectFrom('platform_credentials').selectAll().where('project_id', '=', project.id).where('revoked_at', 'is', null).execute();
    const r = { project, credentials, at: Date.now() };
    cache.set(key, r);
    return r;
  }

  /** Token bucket per sandbox key: `sandboxRps` a second, bursts of twice that. */
  function allow(credentialId: string): boolean {
    const now = Date.now();
    const b = buckets.get(credentialId) ?? { tokens: s.sandboxRps * 2, at: now };
    b.tokens = Math.min(s.sandboxRps * 2, b.tokens + ((now - b.at) / 1000) * s.sandboxRps);
    b.at = now;
    if (b.tokens < 1) {
      buckets.set(credentialId, b);
      return false;
    }
    b.tokens -= 1;
    buckets.set(credentialId, b);
    return true;
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

  async function handle(req: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) {
    const started = process.hrtime.bigint();
    const r = await resolve(req.params.key);
    if (!r) throw new AppError(404, M.apiNotFound);
    let credential: PlatformCredentialTable | undefined;
    let status = 500;
    try {
      const secret = apiKeyOf(req);
      if (!secret) throw new AppError(401, M.apiKeyMissing);
      const hash = sha256(secret);
      // Keys of this project only: another project's or organisation's key is refused like a wrong one.
      credential = r.credentials.find((c) => sameHash(c.key_hash, hash));
      if (!credential) throw new AppError(401, M.apiKeyInvalid);
      if (r.project.status === 'stopped' || r.project.status === 'approved') throw new AppError(503, M.apiStopped);
      if (r.project.status !== 'running') throw new AppError(403, M.apiNotApproved);
      await lockCheck(ctx.db, r.project.id); // 402 while an invoice of the project is overdue and unpaid
      if (credential.kind === 'sandbox' && !allow(credential.id)) {
        reply.header('retry-after', '1');
        throw new AppError(429, M.rateLimited, { rps: s.sandboxRps });
      }
      const result: ServeResult = await pool.predict({ key: `${r.project.id}:${r.project.model_dir}`, dir: ctx.storage.pathOf(r.project.model_dir) }, inputOf(req));
      if ('error' in result) {
        if (result.status === 422) throw new AppError(422, engineMessage(result), {}, result.column ?? 'body');
        if (result.status === 503 || result.status === 504) throw new AppError(503, M.servingBusy);
        throw new Error(result.error);
      }
      status = 200;
      return ok({ model: r.project.model_key, version: String((JSON.parse(r.project.settings_json) as { version?: string }).version ?? ''), ...result });
    } catch (e) {
      status = e instanceof AppError ? e.status : 500;
      throw e;
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      stats.record({ orgId: r.project.organisation_id, projectId: r.project.id, path: `/serve/${r.project.key}/predict`, status, ms, userAgent: req.headers['user-agent'], credentialId: credential?.id });
    }
  }

  return {
    pool,
    stats,
    forget(key: string) {
      cache.delete(key);
    },
    register(app: FastifyInstance) {
      app.register(async (serve) => {
        serve.addContentTypeParser(['text/csv', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => done(null, body));
        serve.post<{ Params: { key: string } }>(
          '/serve/:key/predict',
          {
            schema: {
              tags: ['hosted APIs'],
              summary: 'Predict with a hosted model: JSON {"rows": [{...}]} (or one row object) or a CSV body; key in X-API-Key or Authorization: Bearer',
              params: z.object({ key: z.string().max(60) }),
            },
          },
          handle,
        );
      });
    },
    async close() {
      await stats.close();
      await pool.close();
    },
  };
}

export type Gateway = ReturnType<typeof makeGateway>;
