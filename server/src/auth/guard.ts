import type { FastifyReply, FastifyRequest } from 'fastify';
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
  const h = req.headers.authorization;
  const query = req.query as Record<string, unknown> | undefined;
  // Downloads opened as plain links carry the token in the query string.
  const token = h?.startsWith('Bearer ') ? h.slice(7) : typeof query?.access_token === 'string' ? query.access_token : undefined;
  if (!token) throw new AppError(401, 'unauthenticated');
  const claims = verifyAccess(req.server.ctx.secret, token);
  if (!claims) throw new AppError(401, 'token_invalid');
  req.auth = { userId: claims.sub, orgId: claims.org, role: claims.role, email: claims.email };
}

/** Viewers read only; every write route is guarded with this. */
export async function requireWriter(req: FastifyRequest): Promise<void> {
  if (req.auth?.role === 'viewer') throw new AppError(403, 'forbidden');
}
