import type { Db } from '../../db/index.js';
import './db.js';
import type { OidcLoginTable } from './db.js';

/** Every statement on oidc_logins (sign-ins through the directory in progress) and oidc_directories. Neither is tenant-scoped: a sign-in has no organisation until it ends. */

export const insertLogin = async (q: Db, row: OidcLoginTable) => {
  await q.insertInto('oidc_logins').values(row).execute();
};

export const pruneLogins = async (q: Db, before: string) => {
  await q.deleteFrom('oidc_logins').where('created_at', '<', before).execute();
};

export const loginByState = (q: Db, state: string) => q.selectFrom('oidc_logins').selectAll().where('state', '=', state).executeTakeFirst();

export const loginByHandover = (q: Db, hash: string) => q.selectFrom('oidc_logins').selectAll().where('handover_hash', '=', hash).executeTakeFirst();

export const setHandover = async (q: Db, id: string, h: { handover_hash: string; user_id: string; id_token: string | null; created_at: string }) => {
  await q.updateTable('oidc_logins').set(h).where('id', '=', id).execute();
};

/** Marks the hand-over used; false when a concurrent exchange won. */
export async function useLogin(q: Db, id: string, at: string): Promise<boolean> {
  const res = await q.updateTable('oidc_logins').set({ used_at: at }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export const directory = (q: Db, key: string) => q.selectFrom('oidc_directories').selectAll().where('key', '=', key).executeTakeFirst();

export const insertDirectory = async (q: Db, row: { key: string; organisation_id: string; created_at: string }) => {
  await q.insertInto('oidc_directories').values(row).execute();
};
