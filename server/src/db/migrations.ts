import { type Migration, type MigrationProvider, sql } from 'kysely';

/** Migrations live in code, in order; each area may append its own (never edit a landed one). */
const migrations: Record<string, Migration> = {
  '0001_foundation': {
    async up(db) {
      await db.schema
        .createTable('organisations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('first_name', 'text', (c) => c.notNull())
        .addColumn('last_name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('email_verified_at', 'text')
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en-gb'))
        .addColumn('department', 'text')
        .addColumn('office_location', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('refresh_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('family_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('datasets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('training_type', 'text', (c) => c.notNull())
        .addColumn('data_type', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('file_size', 'bigint', (c) => c.notNull())
        .addColumn('encoding', 'text', (c) => c.notNull())
        .addColumn('delimiter', 'text', (c) => c.notNull())
        .addColumn('row_count', 'bigint', (c) => c.notNull())
        .addColumn('column_count', 'integer', (c) => c.notNull())
        .addColumn('schema_json', 'text', (c) => c.notNull())
        .addColumn('stats_json', 'text', (c) => c.notNull())
        .addColumn('datetime_column', 'text')
        .addColumn('preprocessed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('preprocess_history', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('parent_dataset_name', 'text')
        .addColumn('statistics_job_id', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('datasets_org').on('datasets').columns(['organisation_id', 'created_at']).execute();
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('progress', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('log', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('spec_json', 'text', (c) => c.notNull())
        .addColumn('result_json', 'text')
        .addColumn('error', 'text')
        .addColumn('subject_type', 'text')
        .addColumn('subject_id', 'text')
        .addColumn('created_by', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('finished_at', 'text')
        .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('jobs_state').on('jobs').columns(['state']).execute();
      await db.schema.createIndex('jobs_subject').on('jobs').columns(['subject_type', 'subject_id']).execute();
      void sql;
    },
  },
};

export function registerMigration(name: string, m: Migration): void {
  if (migrations[name]) throw new Error(`migration ${name} registered twice`);
  migrations[name] = m;
}

type MigrationUp = Migration['up'];
const parts = new Map<string, Map<string, MigrationUp>>();

/**
 * A part of a landed migration whose tables belong to another area now: that area's db.ts registers it under the
 * migration's name, and the migration runs its parts (runMigrationParts) where their statements used to be, so
 * the migration keeps its name, its place and what it makes.
 */
export function registerMigrationPart(migration: string, part: string, up: MigrationUp): void {
  const own = parts.get(migration) ?? new Map<string, MigrationUp>();
  if (own.has(part)) throw new Error(`migration ${migration}: part ${part} registered twice`);
  parts.set(migration, own.set(part, up));
}

/** Runs the named parts of a migration in this order; a part not registered (its db.ts not loaded) is an error. */
export async function runMigrationParts(migration: string, db: Parameters<MigrationUp>[0], order: string[]): Promise<void> {
  for (const name of order) {
    const up = parts.get(migration)?.get(name);
    if (!up) throw new Error(`migration ${migration}: part ${name} is not registered (load its area's db.ts)`);
    await up(db);
  }
}

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
