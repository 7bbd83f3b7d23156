import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import iconv from 'iconv-lite';
import { connect, type Duck, type DuckConnection, ident, jsonNumber, sqlString } from '../../duck/index.js';
import { SniffError, type Sniffed } from './csv-sniff.js';
import type { StreamedParquet } from './stream-ingest.js';
import { columnType, describe, type IngestResult, parquetStats } from './column-stats.js';





async function transcodeCp932(src: string, dest: string): Promise<void> {
  await pipeline(fs.createReadStream(src), iconv.decodeStream('cp932'), iconv.encodeStream('utf8'), fs.createWriteStream(dest));
}

/** Rows DuckDB's sniffer reads (from the start of the file) to infer the column types. */
export const SAMPLE_ROWS = 20480;

/** Lines up to 16 MB are read (csv_line_too_long beyond). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
/**
 * DuckDB's CSV read buffer. Left to itself it is 16 × max_line_size, 256 MB for every read however small the file,
 * so three uploads at once exhausted the 768 MB cap (csv_out_of_memory for a 10 kB file). 32 MB is DuckDB's own
 * default (16 × its 2 MB line limit); a file smaller than that gets a buffer of its size.
 */
const READ_BUFFER_BYTES = 32 * 1024 * 1024;

/** read_csv's options for a sniffed CSV: the whole-file conversion and the one beside the upload use the same. */
export function csvReadOptions(delimiter: string, maxLine: number, buffer: number, sampleSize: number): string {
  return `delim=${sqlString(delimiter)}, header=true, quote='"', escape='"', strict_mode=true, null_padding=false, max_line_size=${maxLine}, buffer_size=${buffer}, sample_size=${sampleSize}, encoding='utf-8'`;
}

/**
 * The limits of the conversion beside an upload. DuckDB parses a pipe one read buffer at a time, so what is left
 * after the last byte arrives is up to one buffer: 4 MB leaves ~0.2 s where 32 MB left ~1 s (100 MB file). A line
 * longer than 2 MB fails there, and the whole-file conversion (16 MB lines) takes over.
 */
export const STREAM_READ = { maxLine: 2 * 1024 * 1024, buffer: 4 * 1024 * 1024 };

function fileRead(file: string): { maxLine: number; buffer: number } {
  const size = fs.statSync(file).size;
  const maxLine = Math.min(MAX_LINE_BYTES, size + 1); // a line is never longer than its file
  return { maxLine, buffer: Math.min(READ_BUFFER_BYTES, Math.max(2 * maxLine, 256 * 1024)) };
}

/** `types` overrides the sniffed type of some columns (by name). */
export function readCsvExpr(file: string, s: Sniffed, sampleSize: number, types: Record<string, string> = {}): string {
  const { maxLine, buffer } = fileRead(file);
  const names = Object.keys(types);
  const override = names.length ? `, types={${names.map((n) => `${sqlString(n)}: ${sqlString(types[n])}`).join(', ')}}` : '';
  return `read_csv(${sqlString(file)}, ${csvReadOptions(s.delimiter, maxLine, buffer, sampleSize)}${override})`;
}

/**
 * Whether a text value of a column typed as whole numbers from the sampled rows is a number that is not whole
 * (`50000.5`): DuckDB's text-to-integer cast takes it and rounds it (50001) without a word. It has a point or an
 * exponent (cheap tests first), the integer cast takes it, and it is neither digits with a zero fraction (`5.0`) nor a
 * double that is a whole number below 2^53 (`1e3`: BIGINT 1000 is exact). Such a column is read as DOUBLE (as pandas
 * reads it).
 */
function fractionSql(v: string): string {
  const d = `TRY_CAST(${v} AS DOUBLE)`;
  return `((contains(${v}, '.') OR contains(${v}, 'e') OR contains(${v}, 'E')) AND TRY_CAST(${v} AS BIGINT) IS NOT NULL
    AND NOT regexp_full_match(${v}, '\\s*[+-]?[0-9]+\\.0*\\s*') AND NOT coalesce(${d} = trunc(${d}) AND abs(${d}) < 9007199254740992, false))`;
}

/** What the guarded conversion raises on the first such value (see integerGuards). */
const FRACTION_MARK = 'mitate: a fraction in a whole-number column';

/**
 * The whole-number columns among `cols` read as text and cast in the conversion's SELECT, which fails on a value that
 * is not whole (fractionSql) instead of rounding it: `types` for read_csv and the `REPLACE` items.
 */
export function integerGuards(cols: { name: string; dtype: string }[]): { types: Record<string, string>; replace: string[] } {
  const ints = cols.filter((c) => columnType(c.dtype) === 'integer');
  return {
    types: Object.fromEntries(ints.map((c) => [c.name, 'VARCHAR'])),
    replace: ints.map(textGuard),
  };
}

/** The text guard's `REPLACE` item of a whole-number column read as text. */
function textGuard(c: { name: string; dtype: string }): string {
  const v = ident(c.name);
  return `CASE WHEN ${fractionSql(v)} THEN error(${sqlString(FRACTION_MARK)}) ELSE CAST(${v} AS ${c.dtype}) END AS ${v}`;
}

/**
 * 2^52. A double holds every whole number below 2^53 exactly, but from 2^52 on it cannot hold a half: `2^52 + 0.5`
 * reads as the whole double 2^52, where the text guard's cast rounds it to 2^52 + 1. Below 2^52 a double that is
 * whole is within a quarter of the written number, so the text cast rounds that number to the same whole number.
 */
const TWO_52 = '4503599627370496';

/**
 * The cheaper guard tried first (issue 17: the text guard cost ~0.28 of 1.09 parse CPU-s on 2 M rows, the DOUBLE
 * read ~0.07): the whole-number columns are read as DOUBLE and cast in the SELECT, failing (FRACTION_MARK) on a value
 * that is not whole, NaN, ±inf, or not below 2^52 in magnitude. A whole number written in digits below 2^52 parses
 * to that exact double, so the cast gives what the text guard gives (`5.0`, `1e3` stay whole as there). Every value
 * this guard refuses, and a value DuckDB's DOUBLE read refuses while the integer cast takes it (`0x10`), sends the
 * conversion back to the text guard (integerGuards), which then decides as before. `textColumns` (whole numbers
 * of 2^52 or more among the sampled rows, see largeWholeColumns) keep the text guard from the start.
 */
export function doubleGuards(cols: { name: string; dtype: string }[], textColumns: string[] = []): { types: Record<string, string>; replace: string[] } {
  const ints = cols.filter((c) => columnType(c.dtype) === 'integer');
  return {
    types: Object.fromEntries(ints.map((c) => [c.name, textColumns.includes(c.name) ? 'VARCHAR' : 'DOUBLE'])),
    replace: ints.map((c) => {
      if (textColumns.includes(c.name)) return textGuard(c);
      const v = ident(c.name);
      // NaN compares equal to itself and above every number in DuckDB: `abs(NaN) >= 2^52` holds, as inf's does
      return `CASE WHEN ${v} <> trunc(${v}) OR abs(${v}) >= ${TWO_52}::DOUBLE THEN error(${sqlString(FRACTION_MARK)}) ELSE CAST(${v} AS ${c.dtype}) END AS ${v}`;
    }),
  };
}

/**
 * The whole-number columns whose sampled rows (the first SAMPLE_ROWS of `expr`, read with the sniffed types) hold a
 * value of 2^52 or more in magnitude (a 19-digit identifier): the double guard would give way on it, so they keep the
 * text guard.
 */
export async function largeWholeColumns(conn: DuckConnection, expr: string, cols: { name: string; dtype: string }[]): Promise<string[]> {
  const ints = cols.filter((c) => columnType(c.dtype) === 'integer');
  if (ints.length === 0) return [];
  const parts = ints.map((c, i) => `coalesce(bool_or(${ident(c.name)} >= ${TWO_52} OR ${ident(c.name)} <= -${TWO_52}), false) AS l${i}`);
  const row = (await conn.runAndReadAll(`SELECT ${parts.join(', ')} FROM (SELECT ${ints.map((c) => ident(c.name)).join(', ')} FROM ${expr} LIMIT ${SAMPLE_ROWS})`)).getRowObjectsJson()[0] as Record<string, unknown>;
  return ints.filter((_, i) => row[`l${i}`] === true).map((c) => c.name);
}

/**
 * Whether a failure of the double-guarded conversion must be decided by the text guard: a value the double guard
 * refused, or a whole-number column's text that DuckDB's DOUBLE read refused but its integer cast takes. Any other
 * failure (a text no number cast takes, a ragged row) fails the text guard's conversion alike.
 */
export async function textGuardDecides(conn: DuckConnection, message: string): Promise<boolean> {
  if (message.includes(FRACTION_MARK)) return true;
  const m = /Could not convert string "(.*)" to 'DOUBLE'/.exec(message);
  if (!m) return false;
  const r = (await conn.runAndReadAll(`SELECT TRY_CAST(${sqlString(m[1])} AS BIGINT) IS NOT NULL AS ok`)).getRowObjectsJson()[0];
  return r.ok === true;
}

/**
 * The whole-number columns of the sampled rows that hold, further down, a number that is not whole (fractionSql): one
 * scan of the file reading only these columns, as text.
 */
export async function nonIntegralColumns(conn: DuckConnection, file: string, s: Sniffed, cols: { name: string; dtype: string }[]): Promise<string[]> {
  const ints = cols.filter((c) => columnType(c.dtype) === 'integer');
  if (ints.length === 0) return [];
  const expr = readCsvExpr(file, s, SAMPLE_ROWS, Object.fromEntries(ints.map((c) => [c.name, 'VARCHAR'])));
  const parts = ints.map((c, i) => `count(*) FILTER (WHERE ${fractionSql(ident(c.name))}) AS n${i}`);
  const row = (await conn.runAndReadAll(`SELECT ${parts.join(', ')} FROM ${expr}`)).getRowObjectsJson()[0] as Record<string, unknown>;
  return ints.filter((_, i) => (jsonNumber(row[`n${i}`]) ?? 0) > 0).map((c) => c.name);
}

/** Turns DuckDB's CSV errors into the user's words (row and field counts where DuckDB gives them). */
export function csvErrorToSniffError(message: string): SniffError {
  const cols = /Expected Number of Columns:\s*(\d+)\s*Found:\s*(\d+)/i.exec(message);
  const line = /Line:\s*(\d+)/i.exec(message);
  if (cols) return new SniffError('csv_ragged', { row: line ? Number(line[1]) : '?', found: cols[2], expected: cols[1] });
  if (/Maximum line size of \d+ bytes exceeded/i.test(message)) return new SniffError('csv_line_too_long', { max: '16 MB' });
  if (/Invalid unicode|UTF-8/i.test(message)) return new SniffError('csv_unreadable', { reason: 'invalid characters for the detected encoding' });
  const first = message.split('\n').find((l) => l.trim()) ?? message;
  return new SniffError('csv_unreadable', { reason: first.replace(/^[A-Za-z ]+Error:\s*/, '').slice(0, 300) });
}

/**
 * Streams the file once with a quote-aware scanner and returns the first record (1-based line of the file,
 * header = 1) whose field count differs from the header's. Only used on the error path.
 */
export async function findRaggedRecord(file: string, delim: string, expected: number): Promise<{ row: number; found: number } | null> {
  const d = delim.charCodeAt(0);
  let quoted = false;
  let fields = 1;
  let line = 1;
  let recordLine = 1;
  let blank = true;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === 0x22) quoted = !quoted;
      else if (c === 0x0a) {
        line++;
        if (quoted) continue;
        if (!blank && fields !== expected) return { row: recordLine, found: fields };
        fields = 1;
        blank = true;
        recordLine = line;
        continue;
      } else if (c === d && !quoted) fields++;
      if (c !== 0x0d && c !== 0x0a) blank = false;
    }
  }
  if (!blank && fields !== expected) return { row: recordLine, found: fields };
  return null;
}


/** Converts a sniffed CSV to `<dir>/data.parquet` and computes the schema and quick per-column statistics. */
export async function ingestCsv(
  duck: Duck,
  opts: { src: string; dir: string; sniffed: Sniffed; exactUniqueRows: number; datetimeColumn?: string | null; streamed?: Promise<StreamedParquet | null> | null },
): Promise<IngestResult> {
  let file = opts.src;
  const t0 = Date.now();
  if (opts.sniffed.encoding === 'cp932') {
    file = path.join(opts.dir, 'utf8.csv');
    await transcodeCp932(opts.src, file);
  }
  const t1 = Date.now();
  const out = path.join(opts.dir, 'data.parquet');
  const conn = await connect(duck);
  try {
    // DuckDB's sniffs of the saved file run while the conversion beside the upload finishes its last rows
    const sniffs = opts.streamed ? fileSniffs(duck, file, opts.sniffed) : null;
    const streamed = opts.streamed ? await opts.streamed : null;
    if (streamed && (await acceptStreamed(conn, out, streamed, opts.sniffed, await sniffs, opts.datetimeColumn ?? null))) {
      const t2 = Date.now();
      try {
        const result = await parquetStats(conn, out, { exactUniqueRows: opts.exactUniqueRows, footer: true });
        if (result.rowCount > 0 && result.columns.length === opts.sniffed.header.length) {
          result.timings = { transcode_ms: t1 - t0, parquet_ms: t2 - t1, stats_ms: Date.now() - t2, streamed: { convert_ms: streamed.convert_ms, after_upload_ms: streamed.after_upload_ms, pieces: streamed.pieces } };
          return result;
        }
      } catch (e) {
        if (!isOutOfMemory(e)) throw e;
      }
      // no rows or another column count: the whole-file path below says what is wrong, as before
      fs.rmSync(out, { force: true });
    }
    // Try the fast sniff (sampled types) first; a value that contradicts the sample makes us scan it all.
    let lastError: unknown;
    for (const sampleSize of [SAMPLE_ROWS, -1]) {
      let doubles: Record<string, string> = {};
      try {
        // A whole-number column of the sample is read as text and cast in the SELECT, failing on a fraction further
        // down (DuckDB's read would round it); then the columns holding one are read as DOUBLE. The whole file's
        // sample needs no guard: it has seen every value.
        // The double guard (doubleGuards) goes first; a value it cannot decide hands the file to the text guard.
        let guard: 'double' | 'text' = 'double';
        for (;;) {
          const expr = readCsvExpr(file, opts.sniffed, sampleSize, doubles);
          const cols = await describe(conn, expr);
          const guards =
            sampleSize === -1 ? { types: {}, replace: [] } : guard === 'double' ? doubleGuards(cols, await largeWholeColumns(conn, expr, cols)) : integerGuards(cols);
          const guarded = readCsvExpr(file, opts.sniffed, sampleSize, { ...doubles, ...guards.types });
          const replace = [...guards.replace, ...(await datetimeCast(conn, expr, cols, opts.datetimeColumn ?? null))];
          try {
            await writeParquet(conn, `SELECT *${replace.length ? ` REPLACE (${replace.join(', ')})` : ''} FROM ${guarded}`, out, cols.length);
            break;
          } catch (e) {
            if (guard === 'double' && guards.replace.length > 0 && (await textGuardDecides(conn, String((e as Error).message)))) {
              guard = 'text';
              continue;
            }
            if (!String((e as Error).message).includes(FRACTION_MARK) || Object.keys(doubles).length) throw e;
            const fractional = await nonIntegralColumns(conn, file, opts.sniffed, cols);
            if (fractional.length === 0) throw e;
            doubles = Object.fromEntries(fractional.map((n) => [n, 'DOUBLE']));
          }
        }
        lastError = undefined;
        break;
      } catch (e) {
        if (e instanceof SniffError) throw e;
        if (isOutOfMemory(e)) throw new SniffError('csv_out_of_memory', { count: opts.sniffed.header.length });
        lastError = e;
        if (!/Could not convert|Conversion Error|sniff/i.test(String((e as Error).message))) break;
      }
    }
    if (lastError) {
      // DuckDB's sniffer gives up on ragged files without saying where; find the row ourselves.
      const ragged = await findRaggedRecord(file, opts.sniffed.delimiter, opts.sniffed.header.length);
      if (ragged) throw new SniffError('csv_ragged', { row: ragged.row, found: ragged.found, expected: opts.sniffed.header.length });
      throw csvErrorToSniffError(String((lastError as Error).message ?? lastError));
    }
    let result: IngestResult;
    const t2 = Date.now();
    try {
      result = await parquetStats(conn, out, { exactUniqueRows: opts.exactUniqueRows, footer: true });
      result.timings = { transcode_ms: t1 - t0, parquet_ms: t2 - t1, stats_ms: Date.now() - t2, streamed: null };
    } catch (e) {
      if (isOutOfMemory(e)) throw new SniffError('csv_out_of_memory', { count: opts.sniffed.header.length });
      throw e;
    }
    if (result.rowCount === 0 || result.columns.length !== opts.sniffed.header.length) {
      // DuckDB's sniffer may settle on another column count (a long row) and read no rows instead of failing.
      const ragged = await findRaggedRecord(file, opts.sniffed.delimiter, opts.sniffed.header.length);
      if (ragged) throw new SniffError('csv_ragged', { row: ragged.row, found: ragged.found, expected: opts.sniffed.header.length });
    }
    if (result.rowCount === 0) throw new SniffError('csv_header_only');
    return result;
  } finally {
    conn.closeSync();
    if (file !== opts.src) fs.rmSync(file, { force: true });
  }
}

interface FileSniffs {
  /** DuckDB's sniff of the saved file (without UserArguments and Prompt), as the whole-file path reads it. */
  record: Record<string, unknown>;
  columns: { name: string; dtype: string }[];
}

/**
 * DuckDB's sniff of the saved file (dialect, header, types, date and time formats) with the whole-file path's read
 * buffer; null when the file cannot be sniffed.
 */
async function fileSniffs(duck: Duck, file: string, sniffed: Sniffed): Promise<FileSniffs | null> {
  const conn = await connect(duck);
  try {
    const read = fileRead(file);
    const record = (await conn.runAndReadAll(`SELECT * EXCLUDE (UserArguments, Prompt) FROM sniff_csv(${sqlString(file)}, ${csvReadOptions(sniffed.delimiter, read.maxLine, read.buffer, SAMPLE_ROWS)})`)).getRowObjectsJson()[0];
    const columns = (record.Columns as { name: string; type: string }[]).map((c) => ({ name: String(c.name), dtype: String(c.type) }));
    return { record, columns };
  } catch {
    return null; // the whole-file path gives the error in the user's words
  } finally {
    conn.closeSync();
  }
}

/**
 * Keeps the Parquet file converted beside the upload when it is what the whole-file path would write: the upload's
 * head sniffs the same, DuckDB's sniff of the saved file (dialect, columns, types, formats) is the sniff of the head
 * the conversion read with, its columns and types are the Parquet file's, its whole-number columns were all guarded against a fraction (see
 * StreamedParquet.guarded), and a datetime column needs no cast. Otherwise the caller converts
 * the file.
 */
async function acceptStreamed(
  conn: DuckConnection,
  out: string,
  streamed: StreamedParquet,
  sniffed: Sniffed,
  sniffs: FileSniffs | null,
  datetimeColumn: string | null,
): Promise<boolean> {
  const same = (a: Sniffed, b: Sniffed) => a.encoding === b.encoding && a.delimiter === b.delimiter && a.header.length === b.header.length && a.header.every((h, i) => h === b.header[i]);
  let ok = same(streamed.sniffed, sniffed) && !!sniffs && JSON.stringify(sniffs.record) === JSON.stringify(streamed.sniff);
  try {
    if (ok && sniffs) {
      const fromFile = sniffs.columns;
      const fromStream = await describe(conn, `read_parquet(${sqlString(streamed.parquet)})`);
      ok = fromFile.length === fromStream.length && fromFile.every((c, i) => c.name === fromStream[i].name && c.dtype === fromStream[i].dtype);
      // every whole-number column was read with the guard (a fraction further down failed the stream, not rounded)
      ok &&= fromFile.every((c) => columnType(c.dtype) !== 'integer' || streamed.guarded.includes(c.name));
      if (ok && datetimeColumn) {
        const col = fromFile.find((c) => c.name === datetimeColumn);
        const t = col ? columnType(col.dtype) : null;
        ok = t === 'datetime' || t === 'integer';
      }
    }
  } catch {
    ok = false;
  }
  if (ok) fs.renameSync(streamed.parquet, out);
  else fs.rmSync(streamed.parquet, { force: true });
  return ok;
}

/** Tables wider than this are read into a temporary table first (see writeParquet). */
export const WIDE_COLUMNS = 500;

/**
 * The Parquet layout of every converted CSV (the exploration pages read its row groups). Format version 1: version 2
 * wrote 15 % less CPU and a quarter smaller files, but its delta-encoded text columns cannot be read by pyarrow as
 * dictionaries ("Not yet implemented: DecodeArrow of DictAccumulator for DeltaLengthByteArrayDecoder"), which the
 * engine does for category columns (statistical analysis failed on such a file).
 */
export const PARQUET_OPTIONS = '(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880)';

const isOutOfMemory = (e: unknown) => /Out of Memory/i.test(String((e as Error)?.message ?? e));

/**
 * Writes the query to Parquet. Streaming a wide CSV straight into the Parquet writer keeps both the reader's
 * and the writer's per-column buffers alive in every thread (3,000 text columns exceed 768 MB); going
 * through a temporary table (which DuckDB spills to disk when it must) keeps only one side alive at a time.
 */
async function writeParquet(conn: DuckConnection, query: string, out: string, columns: number): Promise<void> {
  const options = PARQUET_OPTIONS;
  if (columns <= WIDE_COLUMNS) {
    await conn.run(`COPY (${query}) TO ${sqlString(out)} ${options}`);
    return;
  }
  await conn.run(`CREATE OR REPLACE TEMP TABLE wide_ingest AS ${query}`);
  try {
    await conn.run(`COPY wide_ingest TO ${sqlString(out)} ${options}`);
  } finally {
    await conn.run('DROP TABLE IF EXISTS wide_ingest');
  }
}

/** The `REPLACE` item casting the datetime column to timestamps, when it must be cast. */
async function datetimeCast(
  conn: DuckConnection,
  expr: string,
  cols: { name: string; dtype: string }[],
  datetimeColumn: string | null,
): Promise<string[]> {
  if (!datetimeColumn) return [];
  const col = cols.find((c) => c.name === datetimeColumn);
  if (!col) throw new SniffError('datetime_column_missing', { name: datetimeColumn });
  const t = columnType(col.dtype);
  // a date/time, or whole numbers giving the rows' order (a sample number): both order a time series
  if (t === 'datetime' || t === 'integer') return [];
  const q = ident(col.name);
  const r = await conn.runAndReadAll(
    `SELECT count(*) FILTER (WHERE ${q} IS NOT NULL AND try_cast(${q} AS TIMESTAMP) IS NULL) AS bad FROM ${expr}`,
  );
  const bad = jsonNumber(r.getRowObjectsJson()[0].bad) ?? 0;
  if (bad > 0) throw new SniffError('datetime_column_invalid', { name: datetimeColumn, count: bad });
  return [`CAST(${q} AS TIMESTAMP) AS ${q}`];
}
