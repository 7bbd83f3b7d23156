import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as oidc from 'openid-client';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { newOpaqueToken, sha256 } from '../../auth/tokens.js';
import { AppError, ok } from '../../http/errors.js';
import { langOf, localize } from '../../i18n/messages.js';
import '../account/db.js';
import { M } from '../account/messages.js';
import { makeAccountService } from '../account/service.js';
import { errorReplies, replies } from '../../http/responses.js';
import { Tokens } from '../account/responses.js';

// The 302 redirect has no body to describe (a JSON 'null' schema would claim one); only the errors are listed.
const redirectReplies = errorReplies;

export const oidcEnabled = (config: Config) => !!(config.oidc.issuer && config.oidc.clientId);

const HANDOVER_TTL_MS = 120_000;
const LOGIN_TTL_MS = 15 * 60_000;

/**
 * Single sign-on against the corporate directory (OpenID Connect, authorization code with PKCE), handled
 * by the server: the browser only ever sees a one-time hand-over code, exchanged for our own tokens.
 */
export default async function oidcRoutes(app: FastifyInstance) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { db, config } = app.ctx;
  const account = makeAccountService(app.ctx);
  const base = config.publicUrl.replace(/\/$/, '');
  const redirectUri = `${base}/account/api/oidc/callback`;
  const scopes = process.env.MITATE_OIDC_SCOPES || 'openid email profile';
  let discovered: Promise<oidc.Configuration> | null = null;

  function configuration(): Promise<oidc.Configuration> {
    if (!oidcEnabled(config)) throw new AppError(404, M.ssoDisabled);
    if (!discovered) {
      const issuer = new URL(config.oidc.issuer!);
      discovered = oidc
        .discovery(issuer, config.oidc.clientId!, config.oidc.clientSecret || undefined, undefined, {
          // A directory on plain http is only accepted on loopback (tests, local set-ups).
          execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        })
        .catch((e) => {
          discovered = null;
          throw e;
        });
    }
    return discovered;
  }

  const fail = (reason: string) => `${base}/login?sso_error=${encodeURIComponent(reason)}`;

  r.get('/oidc/login', { schema: { tags: ['oidc'], summary: 'Start single sign-on (redirects to the directory)', querystring: z.object({ return_to: z.string().max(500).optional() }), response: redirectReplies } }, async (req, reply) => {
    const cfg = await configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const returnTo = req.query.return_to && req.query.return_to.startsWith('/') && !req.query.return_to.startsWith('//') ? req.query.return_to : null;
    await db
      .insertInto('oidc_logins')
      .values({ id: crypto.randomUUID(), state, code_verifier: verifier, nonce, return_to: returnTo, handover_hash: null, user_id: null, id_token: null, created_at: new Date().toISOString(), used_at: null })
      .execute();
    await db.deleteFrom('oidc_logins').where('created_at', '<', new Date(Date.now() - 86_400_000).toISOString()).execute();
    const url = oidc.buildAuthorizationUrl(cfg, {
      redirect_uri: redirectUri,
      scope: scopes,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return reply.redirect(url.href);
  });

  r.get('/oidc/callback', { schema: { tags: ['oidc'], summary: 'The directory returns here with the authorization code', response: redirectReplies } }, async (req, reply) => {
    const lang = langOf(req.headers['accept-language']);
    const q = req.query as Record<string, string | undefined>;
    const row = q.state ? await db.selectFrom('oidc_logins').selectAll().where('state', '=', q.state).executeTakeFirst() : undefined;
    if (!row || row.used_at || row.handover_hash || Date.parse(row.created_at) < Date.now() - LOGIN_TTL_MS) {
      return reply.redirect(fail(localize(lang, M.linkInvalid)));
    }
    try {
      const cfg = await configuration();
      const current = new URL(req.url, base);
      const tokens = await oidc.authorizationCodeGrant(cfg, current, { pkceCodeVerifier: row.code_verifier, expectedState: row.state, expectedNonce: row.nonce });
      const claims = tokens.claims() ?? ({} as oidc.IDToken);
      let email = (claims.email as string | undefined) ?? undefined;
      if (!email && tokens.access_token) {
        const info = await oidc.fetchUserInfo(cfg, tokens.access_token, claims.sub);
        email = info.email;
      }
      email = email ?? ((claims.preferred_username as string | undefined)?.includes('@') ? (claims.preferred_username as string) : undefined);
      if (!email) return reply.redirect(fail(localize(lang, M.ssoNoEmail)));
      const user = await mapUser(email.trim().toLowerCase(), claims as Record<string, unknown>);
      const handover = newOpaqueToken();
      await db
        .updateTable('oidc_logins')
        .set({ handover_hash: sha256(handover), user_id: user.id, id_token: tokens.id_token ?? null, created_at: new Date().toISOString() })
        .where('id', '=', row.id)
        .execute();
      const to = new URL(`${base}/login`);
      to.searchParams.set('sso_code', handover);
      if (row.return_to) to.searchParams.set('return_to', row.return_to);
      return reply.redirect(to.href);
    } catch (e) {
      const reason = e instanceof AppError ? localize(lang, e.key, e.params) : localize(lang, M.ssoFailed, { reason: (e as Error).message });
      req.log.warn({ err: e }, 'single sign-on failed');
      return reply.redirect(fail(reason));
    }
  });

  r.post('/oidc/exchange', { schema: { tags: ['oidc'], summary: 'Trade the one-time hand-over code for tokens', body: z.object({ code: z.string().min(1).max(200) }), response: replies({ 200: Tokens.extend({ end_session_url: z.string().nullable() }) }) } }, async (req) => {
    const row = await db.selectFrom('oidc_logins').selectAll().where('handover_hash', '=', sha256(req.body.code)).executeTakeFirst();
    if (!row || row.used_at || !row.user_id || Date.parse(row.created_at) < Date.now() - HANDOVER_TTL_MS) throw new AppError(400, M.linkInvalid);
    const res = await db.updateTable('oidc_logins').set({ used_at: new Date().toISOString() }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new AppError(400, M.linkInvalid);
    const user = await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
    if (user.status !== 'active') throw new AppError(403, M.accountDisabled);
    const tokens = await account.issueTokens(user);
    let end_session_url: string | null = null;
    try {
      const cfg = await configuration();
      if (cfg.serverMetadata().end_session_endpoint) {
        end_session_url = oidc.buildEndSessionUrl(cfg, { post_logout_redirect_uri: `${base}/login`, ...(row.id_token ? { id_token_hint: row.id_token } : {}) }).href;
      }
    } catch {
      /* no sign-out at the directory: our own sign-out still works */
    }
    return ok({ ...tokens, end_session_url });
  });

  /**
   * The directory's e-mail maps to our user; a new person joins the organisation of their directory
   * (single tenant: the one of this issuer; common: the one of their tenant id, else their e-mail domain),
   * and the first person of a directory creates it and becomes its owner.
   */
  async function mapUser(email: string, claims: Record<string, unknown>) {
    const now = new Date().toISOString();
    const existing = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    if (existing) {
      if (existing.status === 'disabled') throw new AppError(403, M.accountDisabled);
      if (existing.status === 'invited' || !existing.email_verified_at) {
        await db.updateTable('users').set({ status: 'active', email_verified_at: existing.email_verified_at ?? now }).where('id', '=', existing.id).execute();
      }
      return existing;
    }
    const domain = email.split('@')[1];
    const key = config.oidc.tenant === 'single' ? `single:${config.oidc.issuer}` : `common:${typeof claims.tid === 'string' ? `tid:${claims.tid}` : `domain:${domain}`}`;
    const first = (claims.given_name as string | undefined) ?? (claims.name as string | undefined)?.split(' ')[0] ?? email.split('@')[0];
    const last = (claims.family_name as string | undefined) ?? (claims.name as string | undefined)?.split(' ').slice(1).join(' ') ?? '';
    const id = crypto.randomUUID();
    await db.transaction().execute(async (trx) => {
      const dir = await trx.selectFrom('oidc_directories').selectAll().where('key', '=', key).executeTakeFirst();
      let orgId = dir?.organisation_id;
      let role: 'owner' | 'member' = 'member';
      if (!orgId) {
        orgId = crypto.randomUUID();
        role = 'owner';
        const orgName = (claims.organization as string | undefined) ?? (claims.org_name as string | undefined) ?? domain;
        await trx.insertInto('organisations').values({ id: orgId, name: orgName, created_at: now }).execute();
        await trx.insertInto('oidc_directories').values({ key, organisation_id: orgId, created_at: now }).execute();
      }
      await trx
        .insertInto('users')
        .values({ id, organisation_id: orgId, email, password_hash: null, first_name: first, last_name: last, role, status: 'active', email_verified_at: now, language: 'en-gb', department: null, office_location: null, created_at: now })
        .execute();
    });
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }
}
