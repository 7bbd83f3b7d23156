import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { tokenHolder } from './repo.js';
import { AppError } from '../http/errors.js';
import { verifyAccess } from './tokens.js';

export interface AuthContext {
  userId: string;
  orgId: string;
  role: string;
  email: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/** onRequest hook: every /api call needs a valid bearer token; the tenancy context comes from it. */
export async function requireAuth(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
  // The bearer header only: a token in the query string ends up in logs, browser history and Referer headers.
  const h = req.headers.authorization;
  const token = h?.startsWith('Bearer ') ? h.slice(7) : undefined;
  if (!token) throw new AppError(401, 'unauthenticated');
  const claims = verifyAccess(req.server.ctx.secret, token);
  if (!claims) throw new AppError(401, 'token_invalid');
  // The role and status are read now, not from the token, so a role change or disabling applies at once.
  const [user, session] = await tokenHolder(req.server.ctx.db, claims.sub, claims.sid);
  if (!user || user.status !== 'active' || user.organisation_id !== claims.org) throw new AppError(401, 'token_invalid');
  // A token outlives its session only until it expires; an ended session (logout, reset) refuses it now.
  if (!session || session.user_id !== claims.sub || session.ended_at) throw new AppError(401, 'token_invalid');
  req.auth = { userId: claims.sub, orgId: user.organisation_id, role: user.role, email: user.email };
}

type Guard = (req: FastifyRequest) => Promise<void>;
const GUARD = Symbol('guard');

/**
 * Marks a role check. Routes list guards as `preHandler`; hoistGuards runs them before the body is
 * validated, so a caller without the right gets 403 whatever they send, never a 422 about the body.
 */
export function asGuard(fn: Guard): Guard {
  return Object.assign(fn, { [GUARD]: true });
}

/** onRoute hook: moves marked guards from preHandler to the front of preValidation; answers whether there were any. */
export function hoistGuards(route: RouteOptions): boolean {
  const pre = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
  const guards = pre.filter((h) => (h as unknown as Record<symbol, unknown>)[GUARD]);
  if (!guards.length) return false;
  const rest = pre.filter((h) => !guards.includes(h));
  route.preHandler = rest.length ? rest : undefined;
  const validation = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
  route.preValidation = [...(guards as never[]), ...(validation as never[])];
  return true;
}

/** Viewers read only; every write route is guarded with this. */
export const requireWriter = asGuard(async (req: FastifyRequest) => {
  if (!req.auth || req.auth.role === 'viewer') throw new AppError(403, 'forbidden');
});

/** Only the given roles may call the route (e.g. requireRole('owner', 'admin') for member management). */
export function requireRole(...roles: string[]) {
  return asGuard(async function roleGuard(req: FastifyRequest): Promise<void> {
    if (!req.auth || !roles.includes(req.auth.role)) throw new AppError(403, 'forbidden');
  });
}

/**
 * Platform administrators act across organisations, e.g. on the shared worker pool: MITATE_PLATFORM_ADMINS, or with
 * it empty the installation's first account (the installation area decides).
 */
export const requirePlatformAdmin = asGuard(async (req: FastifyRequest) => {
  if (!req.auth || !(await req.server.services.installation.isAdmin(req.auth))) throw new AppError(403, 'platform_admin_only');
});
