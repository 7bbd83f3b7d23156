import crypto from 'node:crypto';
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { UserTable } from '../../db/schema.js';
import type { AccountTokenTable, LoginFailureTable } from './db.js';

/**
 * Every statement on the account area's tables: users, organisations, refresh tokens, one-time links and
 * sign-in failures (sign-in sessions are the auth layer's: auth/repo.ts). Each takes the executor first, so a
 * caller may pass a transaction.
 */

export type UserRow = UserTable;
export type NewUser = Insertable<UserTable>;
export type UserPatch = Updateable<Pick<UserTable, 'first_name' | 'last_name' | 'department' | 'office_location' | 'role' | 'status' | 'language' | 'password_hash' | 'email_verified_at'>>;

/** What a list of members shows of each. */
export const MEMBER_COLUMNS = ['id', 'email', 'first_name', 'last_name', 'role', 'status', 'created_at'] as const;

// ---- users and organisations -------------------------------------------------------------------------------

export const userByEmail = (q: Db, email: string) => q.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

/** By id alone: for flows that start from a token, before the organisation is known. */
export const userById = (q: Db, id: string) => q.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

/** What the auth guard reads of a token's user on every request (auth/repo.ts). */
export const tokenUser = (q: Db, id: string) => q.selectFrom('users').select(['organisation_id', 'role', 'status', 'email']).where('id', '=', id).executeTakeFirst();

export const userInOrganisation = (q: Db, orgId: string, id: string) =>
  q.selectFrom('users').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();

export const members = (q: Db, orgId: string) => q.selectFrom('users').select(MEMBER_COLUMNS).where('organisation_id', '=', orgId).orderBy('created_at').execute();

export const member = (q: Db, orgId: string, id: string) =>
  q.selectFrom('users').select(MEMBER_COLUMNS).where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst();

export const activeOwners = (q: Db, orgId: string) =>
  q.selectFrom('users').select('id').where('organisation_id', '=', orgId).where('role', '=', 'owner').where('status', '=', 'active').execute();

/** The person with their organisation's name. */
export const userWithOrganisation = (q: Db, orgId: string, userId: string) =>
  q
    .selectFrom('users')
    .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
    .select([
      'users.id',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.role',
      'users.status',
      'users.language',
      'users.department',
      'users.office_location',
      'users.password_hash',
      'users.created_at',
      'users.organisation_id',
      'organisations.name as organisation_name',
    ])
    .where('users.id', '=', userId)
    .where('users.organisation_id', '=', orgId)
    .executeTakeFirst();

/** Names and organisations of the given users, across organisations (the platform administrators' review). */
export const peopleAcrossOrganisations = (q: Db, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : q
        .selectFrom('users')
        .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
        .select(['users.id', 'users.email', 'users.first_name', 'users.last_name', 'users.language', 'organisations.name as organisation_name'])
        .where('users.id', 'in', ids)
        .execute();

/** The invited person a link names, with the organisation they are invited to. */
export const invitee = (q: Db, userId: string) =>
  q
    .selectFrom('users')
    .innerJoin('organisations', 'organisations.id', 'users.organisation_id')
    .select(['users.email', 'users.first_name', 'users.last_name', 'users.status', 'organisations.name as organisation_name'])
    .where('users.id', '=', userId)
    .executeTakeFirst();

/** The installation's first account (oldest active person, any organisation): the platform administrator by default. */
export const firstAccount = (q: Db) =>
  q.selectFrom('users').select(['id', 'email']).where('status', '=', 'active').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();

export const insertUser = async (q: Db, row: NewUser) => {
  await q.insertInto('users').values(row).execute();
};

/** Changes a user; with `orgId`, only within that organisation. */
export async function updateUser(q: Db, id: string, patch: UserPatch, orgId?: string) {
  let u = q.updateTable('users').set(patch).where('id', '=', id);
  if (orgId) u = u.where('organisation_id', '=', orgId);
  await u.execute();
}

export const verifyUserEmail = async (q: Db, id: string, at: string) => {
  await q.updateTable('users').set({ email_verified_at: at }).where('id', '=', id).where('email_verified_at', 'is', null).execute();
};

/** Removes a person who was invited and never joined, with the links they were sent. */
export async function deleteInvited(q: Db, orgId: string, id: string) {
  await q.deleteFrom('account_tokens').where('user_id', '=', id).where('organisation_id', '=', orgId).execute();
  await q.deleteFrom('users').where('id', '=', id).where('organisation_id', '=', orgId).where('status', '=', 'invited').execute();
}

export const insertOrganisation = async (q: Db, row: { id: string; name: string; created_at: string }) => {
  await q.insertInto('organisations').values(row).execute();
};

export const organisationName = async (q: Db, orgId: string) => (await q.selectFrom('organisations').select('name').where('id', '=', orgId).executeTakeFirstOrThrow()).name;

/** Names of the given organisations, in one query (admin lists name the organisations of a page's rows). */
export async function organisationNames(q: Db, ids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await q.selectFrom('organisations').select(['id', 'name']).where('id', 'in', unique).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}

export const renameOrganisation = async (q: Db, orgId: string, name: string) => {
  await q.updateTable('organisations').set({ name }).where('id', '=', orgId).execute();
};

// ---- refresh tokens ----------------------------------------------------------------------------------------------

export const insertRefreshToken = async (q: Db, row: { user_id: string; token_hash: string; family_id: string; expires_at: string; created_at: string }) => {
  await q.insertInto('refresh_tokens').values({ id: crypto.randomUUID(), ...row, revoked_at: null }).execute();
};

export const refreshTokenByHash = (q: Db, hash: string) => q.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();

/** Revokes one refresh token; false when it was revoked already (a concurrent use won). */
export async function revokeRefreshToken(q: Db, id: string, at: string): Promise<boolean> {
  const res = await q.updateTable('refresh_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Revokes the refresh tokens of one family (one session). */
export const revokeFamily = async (q: Db, familyId: string, at: string) => {
  await q.updateTable('refresh_tokens').set({ revoked_at: at }).where('family_id', '=', familyId).where('revoked_at', 'is', null).execute();
};

/** Revokes every refresh token of a user. */
export const revokeUserTokens = async (q: Db, userId: string, at: string) => {
  await q.updateTable('refresh_tokens').set({ revoked_at: at }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
};

// ---- one-time links --------------------------------------------------------------------------------------------

type LinkKind = AccountTokenTable['kind'];

export const voidLinks = async (q: Db, userId: string, kind: LinkKind, at: string) => {
  await q.updateTable('account_tokens').set({ used_at: at }).where('user_id', '=', userId).where('kind', '=', kind).where('used_at', 'is', null).execute();
};

export const insertLink = async (q: Db, row: Omit<AccountTokenTable, 'id'>) => {
  await q.insertInto('account_tokens').values({ id: crypto.randomUUID(), ...row }).execute();
};

export const linksSince = (q: Db, userId: string, since: string, limit: number) =>
  q.selectFrom('account_tokens').select('id').where('user_id', '=', userId).where('created_at', '>', since).limit(limit).execute();

export const linkByHash = (q: Db, hash: string, kind: LinkKind) => q.selectFrom('account_tokens').selectAll().where('token_hash', '=', hash).where('kind', '=', kind).executeTakeFirst();

/** Marks a link used; false when it was used already (a concurrent use won). */
export async function useLink(q: Db, id: string, at: string): Promise<boolean> {
  const res = await q.updateTable('account_tokens').set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

// ---- sign-in failures ------------------------------------------------------------------------------------------

type Scope = LoginFailureTable['scope'];

export const failuresSince = (q: Db, scope: Scope, subject: string, since: string) =>
  q.selectFrom('login_failures').select('created_at').where('scope', '=', scope).where('subject', '=', subject).where('created_at', '>', since).orderBy('created_at').execute();

export const insertFailures = async (q: Db, rows: { scope: Scope; subject: string; created_at: string }[]) => {
  await q.insertInto('login_failures').values(rows.map((r) => ({ id: crypto.randomUUID(), ...r }))).execute();
};

export const pruneFailures = async (q: Db, before: string) => {
  await q.deleteFrom('login_failures').where('created_at', '<', before).execute();
};

export const clearFailures = async (q: Db, scope: Scope, subject: string) => {
  await q.deleteFrom('login_failures').where('scope', '=', scope).where('subject', '=', subject).execute();
};
