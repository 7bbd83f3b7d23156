import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import { type DuckConnection, withConnection } from '../../duck/index.js';
import { copyParquetToCsv } from '../../http/csv.js';
import { testHold } from '../../testhold.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { type ColumnInfo, type IngestResult, parquetStats } from '../datasets/column-stats.js';
import { datasetKey, toView } from '../datasets/service.js';
import { datasetStats, preprocessHistory } from '../datasets/stored.js';
import { M } from './messages.js';
import type { ResultOf } from '../../jobs/kind.js';
import { preprocessJob } from './jobs.js';
import { preprocessRepo } from './repo.js';
import { now, type PreprocessDeps } from './base.js';

// A finished run registered as a new dataset, with the condition it applied stored beside it.

/** Up to this many rows the CSV copy of a registered dataset is written before answering; larger ones after. */
const SYNC_CSV_ROWS = 1_000_000;

const writeCsv = (conn: DuckConnection, parquet: string, dest: string) => copyParquetToCsv(conn, parquet, dest);

type RegisterFields = { name: string; comment: string; category?: string; data_type?: string; type?: string; training_type?: string };

/** What a preprocess job leaves: the new table and, when its rows are the source's in place, which columns changed. */
type RunOutput = ResultOf<typeof preprocessJob>;

/**
 * Statistics of a new dataset whose rows are the source's, in place: the source's figures for the columns the
 * condition left alone (same values), fresh ones for the changed columns only, taken from the engine's figures
 * where it gave them (issue 20). Anything that does not line up is computed over the whole new file.
 */
async function statisticsBesideSource(conn: DuckConnection, run: RunOutput, source: DatasetTable | undefined, parquet: string, exactUniqueRows: number): Promise<IngestResult> {
  const changed = await parquetStats(conn, parquet, { exactUniqueRows, only: run.changed_columns ?? [], known: run.column_figures ?? {} });
  const fresh = new Map(changed.columns.map((c) => [c.name, c]));
  const inherited = new Map((source ? datasetStats(source) : []).map((c) => [c.name, c]));
  const columns = run.columns.map((c) => fresh.get(c) ?? inherited.get(c));
  if (!source || Number(source.row_count) !== changed.rowCount || columns.some((c) => !c)) return parquetStats(conn, parquet, { exactUniqueRows });
  return { rowCount: changed.rowCount, columns: columns as ColumnInfo[] };
}

/** The registered dataset's row: the run's table with its statistics, the parent's settings unless given, and the
 * parent's history followed by the run's. */
function processedRow(
  who: { id: string; orgId: string; userId: string; at: string },
  b: RegisterFields,
  parent: DatasetTable | undefined,
  result: RunOutput,
  stats: IngestResult,
  fileSize: number,
): DatasetTable {
  const history = [...(parent ? preprocessHistory(parent) : []), ...result.history];
  return {
    id: who.id,
    organisation_id: who.orgId,
    name: b.name,
    category: b.category ?? parent?.category ?? '',
    training_type: b.training_type ?? parent?.training_type ?? 'regression',
    data_type: b.data_type ?? parent?.data_type ?? 'training_data',
    type: b.type ?? parent?.type ?? 'supervised',
    comment: b.comment,
    file_name: `${b.name.replace(/[\\/:*?"<>|]/g, '_')}.csv`,
    file_size: fileSize,
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
    created_by: who.userId,
    created_at: who.at,
    updated_at: who.at,
  };
}

/** Writes the CSV of a large registered dataset in the background: a partial file is never visible. */
async function exportCsv(d: PreprocessDeps, orgId: string, id: string, key: string) {
  const { storage, duckdb, datasets, log } = d;
  const dest = storage.pathOf(`${key}/original.csv`);
  const part = `${dest}.part`;
  try {
    await withConnection(duckdb, (conn) => writeCsv(conn, storage.pathOf(`${key}/data.parquet`), part));
    fs.renameSync(part, dest);
    await storage.persist(`${key}/original.csv`);
    await datasets.updateRow(orgId, id, { file_size: fs.statSync(dest).size });
  } catch (e) {
    fs.rmSync(part, { force: true });
    log.warn(`dataset ${id}: the CSV copy could not be written: ${(e as Error).message}`);
  }
}


/**
 * POST new_dataset/register/{temp_id}: the run's output becomes a dataset (preprocessed, parent name, history);
 * the condition with its fitted parameters is stored beside the data (condition.json), on the run row and on
 * the named condition, so the same transformation can be applied unchanged to inference data.
 */
export async function register(d: PreprocessDeps, auth: AuthContext, tempId: string, b: RegisterFields, lang: Lang = 'en') {
  const { db, jobs, storage, duckdb, datasets, getRun, config } = d;
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
    const stats = await withConnection(duckdb, async (conn) => {
      const { exactUniqueRows } = config;
      const figures = result.changed_columns ? await statisticsBesideSource(conn, result, parent, parquet, exactUniqueRows) : await parquetStats(conn, parquet, { exactUniqueRows });
      // The "original file" of a preprocessed dataset is its data as CSV, so downloads work alike. Large ones
      // are written after the answer (see exportCsv); small ones before it.
      if (figures.rowCount <= SYNC_CSV_ROWS) await writeCsv(conn, parquet, path.join(tempDir, 'original.csv'));
      return figures;
    });
    const condition = { ...result.condition, dataset_id: id, source_dataset_id: run.source_dataset_id, condition_id: run.condition_id };
    fs.writeFileSync(path.join(tempDir, 'condition.json'), JSON.stringify(condition));
    const t = now();
    const fileSize = fs.existsSync(path.join(tempDir, 'original.csv')) ? fs.statSync(path.join(tempDir, 'original.csv')).size : fs.statSync(parquet).size;
    const row = processedRow({ id, orgId: auth.orgId, userId: auth.userId, at: t }, b, parent, result, stats, fileSize);
    const key = datasetKey(auth.orgId, id);
    await storage.commitDir(tempDir, key);
    await testHold(d.config.testHoldFile, 'register');
    const conditionJson = JSON.stringify(condition);
    try {
      // The dataset and the run's "registered" mark in one transaction: a crash leaves neither or both.
      await db.transaction().execute(async (trx) => {
        if (!(await preprocessRepo.claimRun(trx, auth.orgId, run.id, { dataset_id: id, condition_json: conditionJson, registered_at: t }))) throw new AppError(409, M.runRegistered);
        await datasets.insertRow(row, trx);
        if (run.condition_id) await preprocessRepo.updateCondition(trx, auth.orgId, run.condition_id, { fitted_json: conditionJson, updated_at: t });
      });
    } catch (e) {
      // The run's output is still in place, so registering can be tried again.
      await storage.remove(key);
      throw e;
    }
    fs.rmSync(result.output_dir, { recursive: true, force: true });
    if (stats.rowCount > SYNC_CSV_ROWS) void exportCsv(d, auth.orgId, id, key);
    await datasets.statisticsOnRegistration(auth, row, lang);
    return toView(row);
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}
