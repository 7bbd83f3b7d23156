import type { Db } from '../../db/index.js';
import './db.js';

/** Every statement on installation_settings (this area owns it). */

export const one = (q: Db, key: string) => q.selectFrom('installation_settings').selectAll().where('key', '=', key).executeTakeFirst();

/** Writes a key, replacing what it held. */
export async function put(q: Db, row: { key: string; value_json: string; updated_at: string; updated_by: string | null }) {
  await q
    .insertInto('installation_settings')
    .values(row)
    .onConflict((oc) => oc.column('key').doUpdateSet({ value_json: row.value_json, updated_at: row.updated_at, updated_by: row.updated_by }))
    .execute();
}

/** Writes a key only when it has no row yet; answers whether this call wrote it (of two at once, one does). */
export async function claim(q: Db, row: { key: string; value_json: string; updated_at: string; updated_by: string | null }): Promise<boolean> {
  const res = await q.insertInto('installation_settings').values(row).onConflict((oc) => oc.column('key').doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function remove(q: Db, key: string) {
  await q.deleteFrom('installation_settings').where('key', '=', key).execute();
}
