import crypto from 'node:crypto';
import * as oidc from 'openid-client';
import type { AppContext } from '../../context.js';
import type { Config } from '../../config.js';
import { newOpaqueToken, sha256 } from '../../auth/tokens.js';
import { AppError } from '../../http/errors.js';
import { type Lang, localize } from '../../i18n/messages.js';
import type { AccountService } from '../account/service.js';
import * as repo from './repo.js';
import { M as AccountM } from '../account/messages.js';
import { M } from './messages.js';

export const oidcEnabled = (config: Config) => !!(config.oidc.issuer && config.oidc.clientId);

const HANDOVER_TTL_MS = 120_000;
const LOGIN_TTL_MS = 15 * 60_000;

/**
 * Single sign-on against the corporate directory (OpenID Connect, authorization code with PKCE), handled
 * by the server: the browser only ever sees a one-time hand-over code, exchanged for our own tokens.
 */
export function makeOidcService({ db, config }: Pick<AppContext, 'db' | 'config'>, account: AccountService) {
  const base = config.publicUrl.replace(/\/$/, '');
  const redirectUri = `${base}/account/api/oidc/callback`;
  const scopes = config.oidc.scopes;
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

  /**
   * The directory's e-mail maps to our user; a new person joins the organisation of their directory
   * (single tenant: the one of this issuer; common: the one of their tenant id, else their e-mail domain),
   * and the first person of a directory creates it and becomes its owner.
   */
  async function mapUser(email: string, claims: Record<string, unknown>) {
    const now = new Date().toISOString();
    const existing = await account.users.byEmail(email);
    if (existing) {
      if (existing.status === 'disabled') throw new AppError(403, AccountM.accountDisabled);
      if (existing.status === 'invited' || !existing.email_verified_at) await account.users.update(existing.id, { status: 'active', email_verified_at: existing.email_verified_at ?? now });
      return existing;
    }
    const domain = email.split('@')[1];
    const key = config.oidc.tenant === 'single' ? `single:${config.oidc.issuer}` : `common:${typeof claims.tid === 'string' ? `tid:${claims.tid}` : `domain:${domain}`}`;
    const first = (claims.given_name as string | undefined) ?? (claims.name as string | undefined)?.split(' ')[0] ?? email.split('@')[0];
    const last = (claims.family_name as string | undefined) ?? (claims.name as string | undefined)?.split(' ').slice(1).join(' ') ?? '';
    const id = crypto.randomUUID();
    await account.transaction(async (trx, users) => {
      const dir = await repo.directory(trx, key);
      let orgId = dir?.organisation_id;
      let role: 'owner' | 'member' = 'member';
      if (!orgId) {
        role = 'owner';
        orgId = await users.createOrganisation((claims.organization as string | undefined) ?? (claims.org_name as string | undefined) ?? domain, now);
        await repo.insertDirectory(trx, { key, organisation_id: orgId, created_at: now });
      }
      await users.create({ id, organisation_id: orgId, email, password_hash: null, first_name: first, last_name: last, role, status: 'active', email_verified_at: now, language: 'en-gb', department: null, office_location: null, created_at: now });
    });
    const user = await account.users.byId(id);
    if (!user) throw new Error(`user ${id} made by single sign-on is missing`);
    return user;
  }

  return {
    /** Starts a sign-in: the directory's authorization URL (a return path within this site is kept for the end). */
    async start(returnTo: string | undefined) {
      const cfg = await configuration();
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const back = returnTo && returnTo.startsWith('/') && !returnTo.startsWith('//') ? returnTo : null;
      await repo.insertLogin(db, { id: crypto.randomUUID(), state, code_verifier: verifier, nonce, return_to: back, handover_hash: null, user_id: null, id_token: null, created_at: new Date().toISOString(), used_at: null });
      await repo.pruneLogins(db, new Date(Date.now() - 86_400_000).toISOString());
      const url = oidc.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri,
        scope: scopes,
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return url.href;
    },

    /**
     * The directory came back: where to send the browser (the sign-in page with a hand-over code, or with the
     * reason it failed), and the error behind a failure, for the log.
     */
    async callback(requestUrl: string, state: string | undefined, lang: Lang): Promise<{ redirect: string; failure?: unknown }> {
      const row = state ? await repo.loginByState(db, state) : undefined;
      if (!row || row.used_at || row.handover_hash || Date.parse(row.created_at) < Date.now() - LOGIN_TTL_MS) return { redirect: fail(localize(lang, AccountM.linkInvalid)) };
      try {
        const cfg = await configuration();
        const tokens = await oidc.authorizationCodeGrant(cfg, new URL(requestUrl, base), { pkceCodeVerifier: row.code_verifier, expectedState: row.state, expectedNonce: row.nonce });
        const claims = tokens.claims() ?? ({} as oidc.IDToken);
        let email = (claims.email as string | undefined) ?? undefined;
        if (!email && tokens.access_token) {
          const info = await oidc.fetchUserInfo(cfg, tokens.access_token, claims.sub);
          email = info.email;
        }
        email = email ?? ((claims.preferred_username as string | undefined)?.includes('@') ? (claims.preferred_username as string) : undefined);
        if (!email) return { redirect: fail(localize(lang, M.ssoNoEmail)) };
        const user = await mapUser(email.trim().toLowerCase(), claims as Record<string, unknown>);
        const handover = newOpaqueToken();
        await repo.setHandover(db, row.id, { handover_hash: sha256(handover), user_id: user.id, id_token: tokens.id_token ?? null, created_at: new Date().toISOString() });
        const to = new URL(`${base}/login`);
        to.searchParams.set('sso_code', handover);
        if (row.return_to) to.searchParams.set('return_to', row.return_to);
        return { redirect: to.href };
      } catch (e) {
        const reason = e instanceof AppError ? localize(lang, e.key, e.params) : localize(lang, M.ssoFailed, { reason: (e as Error).message });
        return { redirect: fail(reason), failure: e };
      }
    },

    /** Trades the one-time hand-over code for our tokens, with the directory's sign-out URL when it has one. */
    async exchange(code: string) {
      const row = await repo.loginByHandover(db, sha256(code));
      if (!row || row.used_at || !row.user_id || Date.parse(row.created_at) < Date.now() - HANDOVER_TTL_MS) throw new AppError(400, AccountM.linkInvalid);
      if (!(await repo.useLogin(db, row.id, new Date().toISOString()))) throw new AppError(400, AccountM.linkInvalid);
      const user = await account.users.byId(row.user_id);
      if (!user) throw new Error(`user ${row.user_id} of a sign-in is missing`);
      if (user.status !== 'active') throw new AppError(403, AccountM.accountDisabled);
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
      return { ...tokens, end_session_url };
    },
  };
}

export type OidcService = ReturnType<typeof makeOidcService>;
