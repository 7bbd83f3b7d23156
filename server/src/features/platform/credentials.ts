import crypto from 'node:crypto';
import type { AuthContext } from '../../auth/guard.js';
import { sha256 } from '../../auth/tokens.js';
import type { Db } from '../../db/index.js';
import { AppError } from '../../http/errors.js';
import type { PlatformCredentialTable, PlatformProjectTable } from './db.js';
import { M } from './messages.js';
import { platformRepo } from './repo.js';

/** What the API keys need of the platform service: the database and the caller's project (404 otherwise). */
export interface CredentialDeps {
  db: Db;
  get: (auth: Pick<AuthContext, 'orgId'>, id: string) => Promise<PlatformProjectTable>;
}

const now = () => new Date().toISOString();

/** A fresh API key: its kind in the text, 32 random bytes; only its SHA-256 is stored. */
export function newApiKey(kind: 'production' | 'sandbox'): { secret: string; prefix: string; hash: string } {
  const secret = `mk_${kind === 'sandbox' ? 'test' : 'live'}_${crypto.randomBytes(32).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, 16), hash: sha256(secret) };
}

export function credentialView(c: PlatformCredentialTable, secret?: string) {
  return { id: c.id, name: c.name, kind: c.kind, prefix: c.prefix, created_at: c.created_at, last_used_at: c.last_used_at, revoked_at: c.revoked_at, ...(secret ? { secret } : {}) };
}

export async function credentials({ db, get }: CredentialDeps, auth: AuthContext, projectId: string) {
  await get(auth, projectId);
  return platformRepo.credentials(db, auth.orgId, projectId);
}

/** The secret is in this answer only; afterwards the prefix is all anyone sees. */
export async function createCredential({ db, get }: CredentialDeps, auth: AuthContext, projectId: string, name: string, kind: 'production' | 'sandbox') {
  const p = await get(auth, projectId);
  if (p.status === 'under_review') throw new AppError(409, M.underReviewNoCredentials);
  if (!['approved', 'running', 'stopped'].includes(p.status)) throw new AppError(409, M.notApprovedNoCredentials);
  const k = newApiKey(kind);
  const row: PlatformCredentialTable = {
    id: crypto.randomUUID(),
    organisation_id: auth.orgId,
    project_id: p.id,
    name,
    kind,
    prefix: k.prefix,
    key_hash: k.hash,
    created_by: auth.userId,
    created_at: now(),
    last_used_at: null,
    revoked_at: null,
  };
  await platformRepo.insertCredential(db, row);
  return { row, secret: k.secret };
}

export async function revokeCredential({ db, get }: CredentialDeps, auth: AuthContext, projectId: string, credentialId: string) {
  await get(auth, projectId);
  const c = await platformRepo.credential(db, auth.orgId, projectId, credentialId);
  if (!c) throw new AppError(404, M.credentialNotFound);
  if (!c.revoked_at) await platformRepo.revokeCredential(db, c.id, now());
  return platformRepo.credentialById(db, c.id);
}
