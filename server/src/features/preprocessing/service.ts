import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { type DuckConnection, withConnection } from '../../duck/index.js';
import { copyParquetToCsv } from '../../http/csv.js';
import { testHold } from '../../testhold.js';
import { AppError } from '../../http/errors.js';
import { type ColumnInfo, type IngestResult, parquetStats } from '../datasets/column-stats.js';
import { datasetKey, type DatasetService, toView } from '../datasets/service.js';
import type { PreprocessConditionTable, PreprocessRunTable } from './db.js';
import './db.js'; // the area's tables and migrations
import type { Lang } from '../../i18n/messages.js';
import { M } from './messages.js';
import { leaveOutUnread, type Step } from './schemas.js';
import type { ResultOf } from '../../jobs/kind.js';
import { preprocessJob, preprocessPreviewJob } from './jobs.js';
import { type LoadedDatasetView, type RunResultView, type StepSettings, StepView } from './responses.js';

const now = () => new Date().toISOString();
/** How long a preview may take before the caller is told so (the engine job keeps its own limits). */
export const PREVIEW_TIMEOUT_MS = Number(process.env.MITATE_PREVIEW_TIMEOUT_MS) || 120_000;

/** Where the condition with fitted parameters of a preprocessed dataset is kept (see engine preprocessing/__init__.py). */
/** Up to this many rows the CSV copy of a registered dataset is written before answering; larger ones after. */
const SYNC_CSV_ROWS = 1_000_000;

const writeCsv = (conn: DuckConnection, parquet: string, dest: string) => copyParquetToCsv(conn, parquet, dest);

export const conditionKey = (orgId: string, datasetId: string) => `${datasetKey(orgId, datasetId)}/condition.json`;

/**
 * Steps as stored (a condition's or a run's): read through the lenient StepView, so a row saved before requests were
 * checked against the engine's catalogue still loads, and a key its step does not read is left out, never passed on.
 */
export const storedSteps = (json: string): StepSettings[] =>
  z
    .array(StepView)
    .parse(JSON.parse(json))
    .map((s) => {
      leaveOutUnread(s.process_type, s.method, s.params);
      return s;
    });

export function conditionView(c: PreprocessConditionTable) {
  return {
    id: c.id,
    name: c.name,
    steps: storedSteps(c.steps_json),
    datetime_column: c.datetime_column,
    source_dataset_id: c.source_dataset_id,
    fitted: c.fitted_json ? JSON.parse(c.fitted_json) : null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** What a preprocess job leaves: the new table and, when its rows are the source's in place, which columns changed. */
type RunOutput = ResultOf<typeof preprocessJob>;

/**
 * Statistics of a new dataset whose rows are the source's, in place: the source's figures for the columns the
 * condition left alone (same values), fresh ones for the changed columns only, taken from the engine's figures
 * where it gave them (issue 20). Anything that does not line up is computed over the whole new file.
 */
async function statisticsBesideSource(conn: DuckConnection, run: RunOutput, source: DatasetTable | undefined, parquet: string): Promise<IngestResult> {
  const changed = await parquetStats(conn, parquet, run.changed_columns ?? [], run.column_figures ?? {});
  const fresh = new Map(changed.columns.map((c) => [c.name, c]));
  const inherited = new Map((source ? (JSON.parse(source.stats_json) as ColumnInfo[]) : []).map((c) => [c.name, c]));
  const columns = run.columns.map((c) => fresh.get(c) ?? inherited.get(c));
  if (!source || Number(source.row_count) !== changed.rowCount || columns.some((c) => !c)) return parquetStats(conn, parquet);
  return { rowCount: changed.rowCount, columns: columns as ColumnInfo[] };
}

export function makePreprocessService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  const { db, jobs, storage } = ctx;

  const conditions = {
    list: (orgId: string) => db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).orderBy('updated_at', 'desc').execute(),
    get: (orgId: string, id: string) =>
      db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    byName: (orgId: string, name: string) =>
      db.selectFrom('preprocess_conditions').selectAll().where('organisation_id', '=', orgId).where('name', '=', name).executeTakeFirst(),
  };

  async function getCondition(auth: AuthContext, id: string) {
    const c = await conditions.get(auth.orgId, id);
    if (!c) throw new AppError(404, M.conditionNotFound);
    return c;
  }

  /** Saves a named condition. An existing name answers 409 (SPEC §5) unless confirmOverwrite. */
  async function saveCondition(
    auth: AuthContext,
    b: { name: string; steps: Step[]; datetime_column?: string | null; source_dataset_id?: string | null; confirm_overwrite: boolean },
  ): Promise<{ condition: PreprocessConditionTable; created: boolean }> {
    const existing = await conditions.byName(auth.orgId, b.name);
    if (existing && !b.confirm_overwrite) throw new AppError(409, M.conditionExists, { name: b.name }, 'name');
    const t = now();
    if (existing) {
      const patch = { steps_json: JSON.stringify(b.steps), datetime_column: b.datetime_column ?? null, source_dataset_id: b.source_dataset_id ?? null, fitted_json: null, updated_at: t };
      await db.updateTable('preprocess_conditions').set(patch).where('organisation_id', '=', auth.orgId).where('id', '=', existing.id).execute();
      return { condition: { ...existing, ...patch }, created: false };
    }
    const row: PreprocessConditionTable = {
      id: crypto.randomUUID(),
      organisation_id: auth.orgId,
      name: b.name,
      steps_json: JSON.stringify(b.steps),
      fitted_json: null,
      datetime_column: b.datetime_column ?? null,
      source_dataset_id: b.source_dataset_id ?? null,
      created_by: auth.userId,
      created_at: t,
      updated_at: t,
    };
    try {
      await db.insertInto('preprocess_conditions').values(row).execute();
    } catch (e) {
      // Two saves of one new name at once: the unique index decides, the loser hears 409 like any duplicate.
      if (await conditions.byName(auth.orgId, b.name)) throw new AppError(409, M.conditionExists, { name: b.name }, 'name');
      throw e;
    }
    return { condition: row, created: true };
  }

  /** Writes the CSV of a large registered dataset in the background: a partial file is never visible. */
  async function exportCsv(orgId: string, id: string, key: string) {
    const dest = storage.pathOf(`${key}/original.csv`);
    const part = `${dest}.part`;
    try {
      await withConnection(ctx.duckdb, (conn) => writeCsv(conn, storage.pathOf(`${key}/data.parquet`), part));
      fs.renameSync(part, dest);
      await storage.persist(`${key}/original.csv`);
      await datasets.updateRow(orgId, id, { file_size: fs.statSync(dest).size });
    } catch (e) {
      fs.rmSync(part, { force: true });
      ctx.log.warn(`dataset ${id}: the CSV copy could not be written: ${(e as Error).message}`);
    }
  }

  async function getRun(auth: AuthContext, id: string) {
    const run = await db.selectFrom('preprocess_runs').selectAll().where('organisation_id', '=', auth.orgId).where('id', '=', id).executeTakeFirst();
    if (!run) throw new AppError(404, M.runNotFound);
    return run;
  }

  return {
    conditions,
    getCondition,
    saveCondition,

    async deleteCondition(auth: AuthContext, id: string) {
      await getCondition(auth, id);
      await db.deleteFrom('preprocess_conditions').where('organisation_id', '=', auth.orgId).where('id', '=', id).execute();
      return { id };
    },

    /** POST load/dataset/{id}: what the pre-processing page needs to start: the dataset, its columns and first rows. */
    async load(auth: AuthContext, id: string) {
      const row = await datasets.getRow(auth, id);
      const page = await datasets.preview(auth, id, 1, 50);
      const stats = JSON.parse(row.stats_json) as LoadedDatasetView['columns']; // the statistics computed at upload (as GET dataset/{id})
      return { dataset: toView(row), columns: stats, rows: page.rows, row_count: Number(row.row_count) };
    },

    /** POST manual/process/dataset/{id}: what one step changes, computed by the engine on (a sample of) the data. */
    async preview(auth: AuthContext, id: string, b: { steps: Step[]; index?: number; sample_rows: number }) {
      const row = await datasets.getRow(auth, id);
      const index = b.index ?? b.steps.length - 1;
      if (index >= b.steps.length) throw new AppError(422, M.stepInvalid, { step: index + 1, reason: 'no such step' }, 'index');
      const done = await jobs.runAndWait(
        {
          orgId: auth.orgId,
          userId: auth.userId,
          kind: preprocessPreviewJob,
          subjectType: 'dataset',
          subjectId: row.id,
          spec: { parquet: datasets.parquetPath(row), steps: b.steps, index, datetime_column: row.datetime_column, sample_rows: b.sample_rows },
        },
        PREVIEW_TIMEOUT_MS,
        () => new AppError(504, M.previewTimeout),
      );
      fs.rmSync(path.join(ctx.config.dataDir, 'jobs', done.id), { recursive: true, force: true });
      if (done.state !== 'succeeded') throw new AppError(422, M.previewFailed, { reason: done.error ?? done.state }, 'steps');
      return preprocessPreviewJob.resultOf(done)!; // engine preprocessing.condition.preview_step
    },

    /** POST preprocess/dataset/{id}: runs a condition (steps, or a saved one) as an engine job; its id is the temp_id. */
    async run(auth: AuthContext, id: string, b: { steps?: Step[]; condition_id?: string; condition_name?: string; confirm_overwrite: boolean }, lang: Lang = 'en') {
      const row = await datasets.getRow(auth, id);
      let condition: PreprocessConditionTable | undefined;
      let steps: StepSettings[] | undefined = b.steps;
      if (b.condition_id) {
        condition = await getCondition(auth, b.condition_id);
        steps = steps ?? storedSteps(condition.steps_json);
      } else if (b.condition_name && b.steps) {
        condition = (await saveCondition(auth, { name: b.condition_name, steps: b.steps, datetime_column: row.datetime_column, source_dataset_id: row.id, confirm_overwrite: b.confirm_overwrite })).condition;
      }
      const name = condition?.name ?? b.condition_name ?? `${row.name} (preprocessed)`;
      const job = await jobs.create({
        orgId: auth.orgId,
        userId: auth.userId,
        kind: preprocessJob,
        subjectType: 'dataset',
        subjectId: row.id,
        spec: { parquet: datasets.parquetPath(row), steps, datetime_column: row.datetime_column, name, lang }, // lang: the engine says its progress in it
      });
      const run: PreprocessRunTable = {
        id: job.id,
        organisation_id: auth.orgId,
        source_dataset_id: row.id,
        condition_id: condition?.id ?? null,
        condition_name: name,
        steps_json: JSON.stringify(steps),
        dataset_id: null,
        condition_json: null,
        created_by: auth.userId,
        created_at: now(),
        registered_at: null,
      };
      await db.insertInto('preprocess_runs').values(run).execute();
      return { temp_id: job.id, job_id: job.id, state: job.state, condition_id: condition?.id ?? null, condition_name: name };
    },

    async result(auth: AuthContext, tempId: string): Promise<RunResultView> {
      const run = await getRun(auth, tempId);
      const job = await jobs.get(auth.orgId, tempId);
      const r = job ? preprocessJob.resultOf(job) : null; // engine task preprocess
      return {
        temp_id: run.id,
        source_dataset_id: run.source_dataset_id,
        condition_id: run.condition_id,
        condition_name: run.condition_name,
        steps: storedSteps(run.steps_json),
        state: job?.state ?? 'failed',
        progress: job?.progress ?? 0,
        message: job?.message ?? '',
        error: job?.error ?? null,
        dataset_id: run.dataset_id,
        result: r && job?.state === 'succeeded'
          ? { row_count: r.row_count, column_count: r.column_count, rows_before: r.rows_before, columns_before: r.columns_before, columns: r.columns, datetime_column: r.datetime_column, history: r.history, head: r.head, condition: r.condition, timings: r.timings ?? null }
          : null,
      };
    },

    /**
     * POST new_dataset/register/{temp_id}: the run's output becomes a dataset (preprocessed, parent name, history);
     * the condition with its fitted parameters is stored beside the data (condition.json), on the run row and on
     * the named condition, so the same transformation can be applied unchanged to inference data.
     */
    async register(auth: AuthContext, tempId: string, b: { name: string; comment: string; category?: string; data_type?: string; type?: string; training_type?: string }, lang: Lang = 'en') {
      const run = await getRun(auth, tempId);
      if (run.dataset_id) throw new AppError(409, M.runRegistered);
      const job = await jobs.get(auth.orgId, tempId);
      if (!job || job.state !== 'succeeded') throw new AppError(409, M.runNotReady, { state: job?.state ?? 'unknown' });
      const result = preprocessJob.resultOf(job)!;
      if (!fs.existsSync(result.parquet)) throw new AppError(410, M.runOutputGone);
      const parent = await datasets.find(auth.orgId, run.source_dataset_id);
      const tempDir = storage.makeTempDir();
      const id = crypto.randomUUID();
      const parquet = path.join(tempDir, 'data.parquet');
      try {
        // A second name, not a move: a crash before the row is stored leaves the run's output where it was.
        try {
          fs.linkSync(result.parquet, parquet);
        } catch {
          fs.copyFileSync(result.parquet, parquet); // another file system
        }
        const stats = await withConnection(ctx.duckdb, async (conn) => {
          const figures = result.changed_columns ? await statisticsBesideSource(conn, result, parent, parquet) : await parquetStats(conn, parquet);
          // The "original file" of a preprocessed dataset is its data as CSV, so downloads work alike. Large ones
          // are written after the answer (see exportCsv); small ones before it.
          if (figures.rowCount <= SYNC_CSV_ROWS) await writeCsv(conn, parquet, path.join(tempDir, 'original.csv'));
          return figures;
        });
        const condition = { ...result.condition, dataset_id: id, source_dataset_id: run.source_dataset_id, condition_id: run.condition_id };
        fs.writeFileSync(path.join(tempDir, 'condition.json'), JSON.stringify(condition));
        const t = now();
        const history = [...(parent ? (JSON.parse(parent.preprocess_history) as unknown[]) : []), ...result.history];
        const row: DatasetTable = {
          id,
          organisation_id: auth.orgId,
          name: b.name,
          category: b.category ?? parent?.category ?? '',
          training_type: b.training_type ?? parent?.training_type ?? 'regression',
          data_type: b.data_type ?? parent?.data_type ?? 'training_data',
          type: b.type ?? parent?.type ?? 'supervised',
          comment: b.comment,
          file_name: `${b.name.replace(/[\\/:*?"<>|]/g, '_')}.csv`,
          file_size: fs.existsSync(path.join(tempDir, 'original.csv')) ? fs.statSync(path.join(tempDir, 'original.csv')).size : fs.statSync(parquet).size,
          encoding: 'utf-8',
          delimiter: ',',
          row_count: stats.rowCount,
          column_count: stats.columns.length,
          schema_json: JSON.stringify(stats.columns.map((c) => ({ name: c.name, type: c.type, dtype: c.dtype }))),
          stats_json: JSON.stringify(stats.columns),
          datetime_column: result.datetime_column ?? null,
          preprocessed: 1,
          preprocess_history: JSON.stringify(history),
          parent_dataset_name: parent?.name ?? null,
          statistics_job_id: null,
          created_by: auth.userId,
          created_at: t,
          updated_at: t,
        };
        const key = datasetKey(auth.orgId, id);
        await storage.commitDir(tempDir, key);
        await testHold('register');
        const conditionJson = JSON.stringify(condition);
        try {
          // The dataset and the run's "registered" mark in one transaction: a crash leaves neither or both.
          await db.transaction().execute(async (trx) => {
            const claimed = await trx
              .updateTable('preprocess_runs')
              .set({ dataset_id: id, condition_json: conditionJson, registered_at: t })
              .where('organisation_id', '=', auth.orgId)
              .where('id', '=', run.id)
              .where('dataset_id', 'is', null)
              .executeTakeFirst();
            if (Number(claimed.numUpdatedRows) !== 1) throw new AppError(409, M.runRegistered);
            await datasets.insertRow(row, trx);
            if (run.condition_id) {
              await trx.updateTable('preprocess_conditions').set({ fitted_json: conditionJson, updated_at: t }).where('organisation_id', '=', auth.orgId).where('id', '=', run.condition_id).execute();
            }
          });
        } catch (e) {
          // The run's output is still in place, so registering can be tried again.
          await storage.remove(key);
          throw e;
        }
        fs.rmSync(result.output_dir, { recursive: true, force: true });
        if (stats.rowCount > SYNC_CSV_ROWS) void exportCsv(auth.orgId, id, key);
        await datasets.statisticsOnRegistration(auth, row, lang);
        return toView(row);
      } finally {
        fs.rmSync(tempDir, { recursive: true, force: true });
      }
    },

    /** The condition (with fitted parameters) that produced a preprocessed dataset. */
    async conditionOfDataset(auth: AuthContext, datasetId: string) {
      const row = await datasets.getRow(auth, datasetId);
      const key = conditionKey(row.organisation_id, row.id);
      if (!storage.exists(key)) throw new AppError(404, M.noCondition);
      return JSON.parse(fs.readFileSync(storage.pathOf(key), 'utf8'));
    },
  };
}
