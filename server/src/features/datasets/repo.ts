import type { Db } from '../../db/index.js';
import type { DatasetTable } from '../../db/schema.js';

/** Every query takes the organisation: a dataset of another organisation does not exist for the caller. */
export const datasetRepo = {
  insert: (db: Db, row: DatasetTable) => db.insertInto('datasets').values(row).execute(),

  get: (db: Db, orgId: string, id: string) =>
    db.selectFrom('datasets').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),

  async list(
    db: Db,
    orgId: string,
    f: { query: string; data_type?: string; type?: string; training_type?: string; category?: string; sort: string; page: number; page_size: number },
  ) {
    let q = db.selectFrom('datasets').where('organisation_id', '=', orgId);
    if (f.query) {
      const like = `%${f.query.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) =>
        eb.or(
          (['name', 'category', 'comment', 'file_name'] as const).map((c) => eb(eb.fn('lower', [c]), 'like', eb.val(like))),
        ),
      );
    }
    if (f.data_type) q = q.where('data_type', '=', f.data_type);
    if (f.type) q = q.where('type', '=', f.type);
    if (f.training_type) q = q.where('training_type', '=', f.training_type);
    if (f.category) q = q.where('category', '=', f.category);
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    const [col, dir] = f.sort === 'name_asc' ? ['name', 'asc'] : f.sort === 'name_desc' ? ['name', 'desc'] : f.sort === 'created_at_asc' ? ['created_at', 'asc'] : ['created_at', 'desc'];
    const items = await q
      .selectAll()
      .orderBy(col as 'name', dir as 'asc')
      .orderBy('id')
      .limit(f.page_size)
      .offset((f.page - 1) * f.page_size)
      .execute();
    return { items, total };
  },

  /** Which of `ids` have a dataset row. */
  idsIn: (db: Db, orgId: string, ids: string[]) => db.selectFrom('datasets').select('id').where('organisation_id', '=', orgId).where('id', 'in', ids).execute(),

  all: (db: Db, orgId: string) =>
    db.selectFrom('datasets').selectAll().where('organisation_id', '=', orgId).orderBy('created_at', 'desc').execute(),

  update: (db: Db, orgId: string, id: string, patch: Partial<DatasetTable>) =>
    db.updateTable('datasets').set(patch).where('organisation_id', '=', orgId).where('id', '=', id).execute(),

  delete: (db: Db, orgId: string, id: string) =>
    db.deleteFrom('datasets').where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
};
