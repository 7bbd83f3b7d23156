import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/index.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import type { Lang } from '../../i18n/messages.js';
import { sniffCsv, SniffError, MAX_HEADER_BYTES, type Sniffed } from './csv-sniff.js';
import { ident, readParquet, withConnection } from '../../duck/index.js';
import { ingestCsv } from './ingest.js';
import { type IngestResult } from './column-stats.js';
import { datasetSchema, datasetStats } from './stored.js';
import { datasetRepo } from './repo.js';
import { sketchDirOf } from './sketch.js';
import type { SketchChange, SketchStore } from './sketch-store.js';
import { statisticsResultOf, statisticsStateOf, warmSketchesWhenDone } from './statistics-job.js';
import type { RegisterFields } from './schemas.js';
import { conversionSlots, type StreamedParquet } from './stream-ingest.js';
import { statisticsJob } from './jobs.js';

export type CellValue = string | number | boolean | null;

/** A 64-bit integer cell (DuckDB's JSON form gives them as strings): a number when a double holds it exactly, else its
 * digits, so the page never shows 9007199254740993 as ...992. */
export function exactInteger(v: unknown): number | string | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return null;
  return Number.isSafeInteger(n) ? n : String(v);
}

export const datasetKey = (orgId: string, id: string) => `org/${orgId}/datasets/${id}`;
const PARQUET = 'data.parquet';

export interface UploadedFile {
  path: string;
  fileName: string;
  size: number;
  /** The Parquet conversion that ran while the upload streamed in, if any (stream-ingest.ts). */
  streamed?: Promise<StreamedParquet | null> | null;
  /** ms the upload took to arrive (first to last byte of the file). */
  receiveMs?: number;
}

export function toView(row: DatasetTable, statistics?: { state: string; job_id: string | null }) {
  const ext = path.extname(row.file_name).toLowerCase() || '.csv';
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    training_type: row.training_type,
    data_type: row.data_type,
    type: row.type,
    comment: row.comment,
    file_name: row.file_name,
    file_size: Number(row.file_size),
    encoding: row.encoding,
    delimiter: row.delimiter,
    row_count: Number(row.row_count),
    column_count: Number(row.column_count),
    datetime_column: row.datetime_column,
    preprocessed: !!row.preprocessed,
    preprocess_history: JSON.parse(row.preprocess_history), // checked as the answer's PreprocessStep[] when answered
    parent_dataset_name: row.parent_dataset_name,
    created_at: row.created_at,
    updated_at: row.updated_at,
    files: { original: `datasets/${row.id}/original${ext}`, parquet: `datasets/${row.id}/${PARQUET}` },
    statistics: statistics ?? { state: row.statistics_job_id ? 'unknown' : 'none', job_id: row.statistics_job_id },
  };
}
export type DatasetView = ReturnType<typeof toView>;

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

const asUserError = (e: unknown) => (e instanceof SniffError ? new AppError(422, e.key, e.params, 'file') : e);

/** The storage key of a dataset's file as it was uploaded. */
function originalFile(row: DatasetTable) {
  const ext = path.extname(row.file_name).toLowerCase() || '.csv';
  return `${datasetKey(row.organisation_id, row.id)}/original${ext}`;
}

/** The row of a dataset registered from an upload, once it is sniffed and converted (register). */
function newRow(auth: AuthContext, id: string, fields: RegisterFields, file: UploadedFile, sniffed: Sniffed, ingest: IngestResult): DatasetTable {
  const now = new Date().toISOString();
  return {
    id,
    organisation_id: auth.orgId,
    name: fields.name,
    category: fields.category,
    training_type: fields.training_type,
    data_type: fields.data_type,
    type: fields.type,
    comment: fields.comment,
    file_name: file.fileName,
    file_size: file.size,
    encoding: sniffed.encoding,
    delimiter: sniffed.delimiter,
    row_count: ingest.rowCount,
    column_count: ingest.columns.length,
    schema_json: JSON.stringify(ingest.columns.map((c) => ({ name: c.name, type: c.type, dtype: c.dtype }))),
    stats_json: JSON.stringify(ingest.columns),
    datetime_column: fields.datetime_column,
    preprocessed: 0,
    preprocess_history: '[]',
    parent_dataset_name: null,
    statistics_job_id: null,
    created_by: auth.userId,
    created_at: now,
    updated_at: now,
  };
}

/** Where a registration's time went, for the log line: the conversion's phases and the upload's arrival. */
function timingsOf(tm: IngestResult['timings'], file: UploadedFile): string {
  const beside = tm?.streamed ? `; converted while receiving: ${tm.streamed.convert_ms} ms, ${tm.streamed.after_upload_ms} ms of it after the upload, in ${tm.streamed.pieces} piece(s) at once` : '';
  const received = file.receiveMs === undefined ? '' : `; upload received in ${file.receiveMs} ms`;
  return tm ? ` (re-encoding ${tm.transcode_ms} ms, CSV to Parquet ${tm.parquet_ms} ms, statistics ${tm.stats_ms} ms${beside}${received})` : '';
}

/** What the other areas read of the exploration sketches (sketch-store.ts). */
const sketchReads = (sketches: SketchStore, parquetPath: (row: DatasetTable) => string) => ({
  /** The dataset's exploration sketch, or null while none is built. */
  sketchOf: (row: DatasetTable) => sketches.read(row.id, parquetPath(row)),
  /** `f` is told when a dataset's sketch is replaced (with its new build id) or the dataset is deleted. */
  onSketchChange: (f: SketchChange) => sketches.onChange(f),
});

/** `sketches`: this app's exploration sketches and their caches (built with the services). */
export function makeDatasetService(ctx: AppContext, { sketches }: { sketches: SketchStore }) {
  const { db, storage, duckdb } = ctx;

  async function getRow(auth: AuthContext, id: string): Promise<DatasetTable> {
    const row = await datasetRepo.get(db, auth.orgId, id);
    if (!row) throw new AppError(404, 'dataset_not_found');
    return row;
  }

  const slots = conversionSlots(); // large CSVs converted while they arrive: this app's count (stream-ingest.ts)
  const parquetPath = (row: DatasetTable) => storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/${PARQUET}`);

  /** The engine's full statistics of a dataset, said in the asker's `lang`; while one runs, asking again joins it. */
  async function startStatistics(auth: AuthContext, row: DatasetTable, lang: Lang = 'en') {
    const current = row.statistics_job_id ? await ctx.jobs.get(auth.orgId, row.statistics_job_id) : undefined;
    if (current && (current.state === 'queued' || current.state === 'running')) return current;
    const job = await ctx.jobs.create({
      orgId: auth.orgId,
      userId: auth.userId,
      kind: statisticsJob,
      subjectType: 'dataset',
      subjectId: row.id,
      spec: {
        parquet: parquetPath(row),
        output_dir: storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/statistics`),
        // Exploration sketches from the same pass over the columns (issue 17; see sketch.ts).
        sketch_dir: sketchDirOf(parquetPath(row)),
        datetime_column: row.datetime_column,
        max_categories: 20,
        bins: 20,
        lang,
      },
    });
    await datasetRepo.update(db, auth.orgId, row.id, { statistics_job_id: job.id });
    return job;
  }

  /** Every new dataset gets its statistics at once (issue 21); a failure to queue them never undoes the registration. */
  async function statisticsOnRegistration(auth: AuthContext, row: DatasetTable, lang: Lang = 'en') {
    try {
      row.statistics_job_id = (await startStatistics(auth, row, lang)).id;
    } catch (e) {
      ctx.log.warn(`dataset ${row.id}: statistics not started: ${(e as Error).message}`);
    }
  }

  return {
    getRow,
    /** The organisation's dataset row, or undefined (no 404). */
    find: (orgId: string, id: string) => datasetRepo.get(db, orgId, id),
    /** Stores a new dataset's row; `tx` joins the caller's transaction (a preprocessing run's registration). */
    insertRow: (row: DatasetTable, tx: Db = db) => datasetRepo.insert(tx, row),
    updateRow: (orgId: string, id: string, patch: Partial<DatasetTable>) => datasetRepo.update(db, orgId, id, patch),
    /** How an upload of `length` bytes is converted to Parquet while it streams in (large CSVs only), or null. */
    streamConversion: (dir: string, length: number) => (length >= ctx.config.streamIngestMinMb * 1024 * 1024 ? { duck: duckdb, slots, dir, expectedBytes: length } : null),
    parquetPath,
    ...sketchReads(sketches, parquetPath),
    startStatistics,
    statisticsOnRegistration,

    statisticsResult: async (auth: AuthContext, id: string) => statisticsResultOf(ctx.jobs, auth.orgId, await getRow(auth, id)),
    installJobHandlers: () => warmSketchesWhenDone(ctx, (row) => sketches.read(row.id, parquetPath(row))), // once, at start-up (services.ts)

    /**
     * Registers an uploaded CSV: sniff, convert to Parquet and compute statistics inside the upload's
     * temporary folder, then commit the folder and insert the row. Any failure leaves nothing behind.
     */
    async register(auth: AuthContext, fields: RegisterFields, file: UploadedFile, tempDir: string, lang: Lang = 'en'): Promise<DatasetView> {
      if (fields.training_type.startsWith('time_series') && !fields.datetime_column) {
        throw new AppError(422, 'datetime_column_required', {}, 'datetime_column');
      }
      const started = Date.now();
      let sniffed;
      let ingest;
      try {
        sniffed = sniffCsv(await readHead(file.path, MAX_HEADER_BYTES), file.size);
        ingest = await ingestCsv(duckdb, { src: file.path, dir: tempDir, sniffed, exactUniqueRows: ctx.config.exactUniqueRows, datetimeColumn: fields.datetime_column, streamed: file.streamed });
      } catch (e) {
        throw asUserError(e);
      }
      const id = crypto.randomUUID();
      const row = newRow(auth, id, fields, file, sniffed, ingest);
      const key = datasetKey(auth.orgId, id);
      await storage.commitDir(tempDir, key);
      try {
        await datasetRepo.insert(db, row);
      } catch (e) {
        storage.remove(key);
        throw e;
      }
      ctx.log.info(`dataset ${id} registered: ${ingest.rowCount} rows x ${ingest.columns.length} columns in ${Date.now() - started} ms${timingsOf(ingest.timings, file)}`);
      await statisticsOnRegistration(auth, row, lang);
      return toView(row);
    },

    async list(auth: AuthContext, q: Parameters<typeof datasetRepo.list>[2]) {
      const { items, total } = await datasetRepo.list(db, auth.orgId, q);
      return { items: items.map((r) => toView(r)), total };
    },

    async all(auth: AuthContext) {
      return (await datasetRepo.all(db, auth.orgId)).map((r) => toView(r));
    },

    async get(auth: AuthContext, id: string, minSchema: boolean) {
      const row = await getRow(auth, id);
      const columns = minSchema ? datasetSchema(row) : datasetStats(row);
      return { ...toView(row, await statisticsStateOf(ctx.jobs, auth.orgId, row)), columns };
    },

    async update(auth: AuthContext, id: string, patch: Partial<DatasetTable>) {
      await getRow(auth, id);
      await datasetRepo.update(db, auth.orgId, id, { ...patch, updated_at: new Date().toISOString() });
      const row = await getRow(auth, id);
      return toView(row, await statisticsStateOf(ctx.jobs, auth.orgId, row));
    },

    async remove(auth: AuthContext, id: string) {
      const row = await getRow(auth, id);
      const parquet = parquetPath(row); // before the removal: on object storage a later lookup would read it back
      await datasetRepo.delete(db, auth.orgId, id);
      // its statistics job has nothing left to write to (its outputs would otherwise come back with the job's result)
      if (row.statistics_job_id) await ctx.jobs.cancel(auth.orgId, row.statistics_job_id).catch(() => undefined);
      await storage.remove(datasetKey(row.organisation_id, row.id));
      sketches.forget(row.id, parquet);
      return { id };
    },

    originalFile,

    /** One page of rows, read from Parquet by DuckDB; 64-bit integers become numbers, or their exact digits when a
     * double cannot hold them (beyond 2^53, e.g. serial numbers). */
    async preview(auth: AuthContext, id: string, page: number, pageSize: number) {
      const row = await getRow(auth, id);
      if (path.extname(row.file_name).toLowerCase() === '.zip') throw new AppError(409, 'dataset_has_no_rows');
      const schema = datasetSchema(row);
      const file = storage.pathOf(`${datasetKey(row.organisation_id, row.id)}/${PARQUET}`);
      return withConnection(duckdb, async (conn) => {
        const r = await conn.runAndReadAll(`SELECT ${schema.map((c) => ident(c.name)).join(', ')} FROM ${readParquet(file)} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`);
        const ints = schema.map((c) => c.type === 'integer');
        // CSV columns hold scalars only, so every cell is one.
        const rows = r.getRowsJson().map((vals) => vals.map((v, i) => (ints[i] ? exactInteger(v) : v))) as CellValue[][];
        return { columns: schema.map((c) => c.name), rows, total: Number(row.row_count), page, page_size: pageSize };
      });
    },
  };
}
export type DatasetService = ReturnType<typeof makeDatasetService>;
