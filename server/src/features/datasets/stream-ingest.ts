import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { MAX_HEADER_BYTES, sniffCsv, type Sniffed } from './csv-sniff.js';
import { csvReadOptions, integerGuards, PARQUET_OPTIONS, SAMPLE_ROWS, sqlString, STREAM_READ, WIDE_COLUMNS } from './ingest.js';

/**
 * Issue 17: a large CSV upload is converted to Parquet while it streams in. The request's bytes go to the original
 * file on disk (as before) and, through a named pipe, to a DuckDB `COPY (read_csv(pipe)) TO parquet` running at the
 * same time, so the conversion overlaps the upload instead of starting after it.
 *
 * This is only a head start: the service accepts its Parquet file only when the upload was complete, the conversion
 * succeeded, and DuckDB's sniff of the whole saved file gives the same columns and types (DuckDB samples the first
 * rows only, which the pipe saw too). Anything else (a value that contradicts the sampled type, a ragged row, a
 * datetime column that must be cast, a refused upload) falls back to the whole-file conversion, which gives today's
 * types and error messages; a wrong type is never kept.
 */
export interface StreamedParquet {
  /** The Parquet file written from the stream (inside the upload's temporary folder). */
  parquet: string;
  sniffed: Sniffed;
  /**
   * The columns read as text and cast to whole numbers in the COPY, failing on a fraction (DuckDB's own read would
   * round 50000.5 to 50001): the whole numbers of a sniff of the upload's head. The service keeps the file only when
   * every whole-number column of the saved file's sniff is among them.
   */
  guarded: string[];
  /** ms the conversion ran in all, and how much of it came after the last byte of the upload. */
  convert_ms: number;
  after_upload_ms: number;
}

export interface ReceivedUpload {
  size: number;
  /** ms from the first byte of the file part to the last one written to disk. */
  receive_ms: number;
  /** The conversion that ran beside the upload, when there was one: null when it gave up (the service converts the file). */
  streamed: Promise<StreamedParquet | null> | null;
  /** Stops the conversion (if it still runs) and drops its file; to call before the upload's folder is removed. */
  abandon(): Promise<void>;
}

const execFileP = promisify(execFile);

/**
 * Conversions beside an upload at once in this process. DuckDB's query and the file writes both run on Node's
 * small thread pool, and a query waiting on its pipe holds a thread: with one at a time, the writes that feed it always
 * find a thread. A second large upload meanwhile is converted after it arrives, as before.
 */
const MAX_ACTIVE = 1;
/** Bytes gathered before one write to disk and to the pipe. */
const WRITE_BYTES = 1 << 20;
let active = 0;

/** A writer to a named pipe DuckDB reads; it stops (`failed`) as soon as the reader goes away. */
class PipeWriter {
  private fh: fs.promises.FileHandle | null = null;
  failed = false;
  private constructor() {}

  /** Opens the pipe for writing; it waits for the reader, or gives up when `readerGone` settles first. */
  static async open(file: string, readerGone: Promise<unknown>): Promise<PipeWriter> {
    const w = new PipeWriter();
    const opening = fs.promises.open(file, fs.constants.O_WRONLY);
    let gone = false;
    let opened = false;
    void opening.then(() => (opened = true)).catch(() => undefined);
    void readerGone.finally(() => {
      gone = true;
      if (opened) return;
      // DuckDB ended before opening the pipe: an open for reading releases our blocked open for writing.
      try {
        fs.closeSync(fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK));
      } catch {
        /* already open or gone */
      }
    });
    try {
      w.fh = await opening;
      if (gone) await w.close();
    } catch {
      w.failed = true;
    }
    if (gone) w.failed = true;
    return w;
  }

  async write(buf: Buffer): Promise<void> {
    if (this.failed || !this.fh) return;
    try {
      let off = 0;
      while (off < buf.length) off += (await this.fh.write(buf, off, buf.length - off)).bytesWritten;
    } catch {
      // EPIPE: DuckDB stopped reading (an error on its side); the upload goes on to disk only.
      this.failed = true;
      await this.close();
    }
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close().catch(() => undefined);
  }
}

/** The streaming conversion of one upload: start it on the first bytes, feed it, end it. */
class StreamConversion {
  private conn: DuckDBConnection | null = null;
  private writer: PipeWriter | null = null;
  private done: Promise<boolean> = Promise.resolve(false);
  private started = 0;
  private uploadEnded = 0;
  private finished = 0;
  readonly parquet: string;

  constructor(
    private readonly duck: DuckDBInstance,
    private readonly dir: string,
    readonly sniffed: Sniffed,
  ) {
    this.parquet = path.join(dir, 'streamed.parquet');
  }

  private guarded: string[] = [];

  /** The whole-number columns of DuckDB's sniff of the head's complete lines (none when it cannot be sniffed). */
  private async headIntegers(conn: DuckDBConnection, head: Buffer): Promise<{ name: string; dtype: string }[]> {
    const file = path.join(this.dir, 'head.csv');
    try {
      const end = head.lastIndexOf(0x0a);
      if (end < 0) return [];
      await fs.promises.writeFile(file, head.subarray(0, end + 1));
      const r = await conn.runAndReadAll(`SELECT Columns FROM sniff_csv(${sqlString(file)}, ${csvReadOptions(this.sniffed.delimiter, STREAM_READ.maxLine, STREAM_READ.buffer, SAMPLE_ROWS)})`);
      const cols = (r.getRowObjectsJson()[0].Columns as { name: string; type: string }[]).map((c) => ({ name: String(c.name), dtype: String(c.type) }));
      return cols.filter((c) => /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/.test(c.dtype));
    } catch {
      return []; // the service then gives way to the whole-file conversion for any whole-number column
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  async start(head: Buffer): Promise<boolean> {
    active++;
    this.counted = true;
    const fifo = path.join(this.dir, 'upload.pipe');
    try {
      await execFileP('mkfifo', ['-m', '600', fifo]);
    } catch {
      return false; // no named pipes here: the file is converted after the upload, as before
    }
    this.started = Date.now();
    this.conn = await this.duck.connect();
    // whole-number columns are read as text and cast, failing on a fraction (the whole-file conversion does the same)
    const ints = await this.headIntegers(this.conn, head);
    const guards = integerGuards(ints);
    this.guarded = ints.map((c) => c.name);
    const types = ints.length ? `, types={${ints.map((c) => `${sqlString(c.name)}: 'VARCHAR'`).join(', ')}}` : '';
    const expr = `read_csv(${sqlString(fifo)}, ${csvReadOptions(this.sniffed.delimiter, STREAM_READ.maxLine, STREAM_READ.buffer, SAMPLE_ROWS)}${types})`;
    const select = `SELECT *${guards.replace.length ? ` REPLACE (${guards.replace.join(', ')})` : ''} FROM ${expr}`;
    const run = this.conn.run(`COPY (${select}) TO ${sqlString(this.parquet)} ${PARQUET_OPTIONS}`);
    const settle = (ok: boolean) => {
      this.finished = Date.now();
      return ok;
    };
    this.done = run.then(
      () => settle(true),
      () => settle(false),
    );
    this.writer = await PipeWriter.open(fifo, this.done);
    return !this.writer.failed;
  }

  write(buf: Buffer): Promise<void> {
    return this.writer ? this.writer.write(buf) : Promise.resolve();
  }

  private ending: Promise<StreamedParquet | null> | null = null;
  private counted = false;
  private abandoned = false;

  /**
   * The upload ended: complete, the pipe's end tells DuckDB there is no more; not complete (or abandoned later), the
   * conversion is interrupted and its file dropped. Safe to call again.
   */
  async end(complete: boolean): Promise<StreamedParquet | null> {
    if (!complete) {
      this.abandoned = true;
      this.conn?.interrupt();
    }
    this.ending ??= this.finish();
    const r = await this.ending;
    if (!this.abandoned) return r;
    if (r) fs.rmSync(r.parquet, { force: true });
    return null;
  }

  private async finish(): Promise<StreamedParquet | null> {
    this.uploadEnded = Date.now();
    if (!this.writer || this.writer.failed) this.conn?.interrupt();
    await this.writer?.close();
    const ok = await this.done;
    this.conn?.closeSync();
    this.conn = null;
    if (this.counted) active--;
    this.counted = false;
    fs.rmSync(path.join(this.dir, 'upload.pipe'), { force: true });
    if (!ok || this.abandoned || !this.writer || this.writer.failed) {
      fs.rmSync(this.parquet, { force: true });
      return null;
    }
    return {
      parquet: this.parquet,
      sniffed: this.sniffed,
      guarded: this.guarded,
      convert_ms: this.finished - this.started,
      after_upload_ms: Math.max(0, this.finished - this.uploadEnded),
    };
  }
}

/**
 * Writes an uploaded file part to `dest`; with `convert` (the caller decides: a large CSV), starts converting it to
 * Parquet beside the upload. A failed upload throws after the conversion has stopped.
 */
export async function receiveUpload(
  source: AsyncIterable<Buffer>,
  dest: string,
  convert: { duck: DuckDBInstance; dir: string } | null,
): Promise<ReceivedUpload> {
  const t0 = Date.now();
  const out = await fs.promises.open(dest, 'w');
  let size = 0;
  let head: Buffer[] | null = convert ? [] : null;
  let headBytes = 0;
  let conversion: StreamConversion | null = null;

  const writeAll = async (buf: Buffer) => {
    let off = 0;
    while (off < buf.length) off += (await out.write(buf, off, buf.length - off)).bytesWritten;
  };
  /**
   * The first MAX_HEADER_BYTES (already on disk) decide whether and how to convert while receiving; `ended`: the file
   * is all here.
   */
  const decide = async (ended: boolean) => {
    const bytes = Buffer.concat(head!);
    head = null;
    let sniffed: Sniffed | null = null;
    try {
      sniffed = sniffCsv(bytes.subarray(0, MAX_HEADER_BYTES), ended ? bytes.length : Number.MAX_SAFE_INTEGER);
    } catch {
      sniffed = null; // the service sniffs the saved file again and says what is wrong
    }
    if (sniffed && sniffed.encoding !== 'cp932' && sniffed.header.length <= WIDE_COLUMNS && active < MAX_ACTIVE) {
      const c = new StreamConversion(convert!.duck, convert!.dir, sniffed);
      if (await c.start(bytes).catch(() => false)) {
        conversion = c;
        await c.write(bytes);
      } else await c.end(false);
    }
  };

  // The request's chunks (tens of kB) are gathered to WRITE_BYTES before they go to disk and the pipe: fewer writes,
  // fewer hops through Node's thread pool and fewer wake-ups of DuckDB's reader.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await Promise.all([writeAll(buf), (conversion as StreamConversion | null)?.write(buf)]);
  };
  try {
    for await (const chunk of source) {
      size += chunk.length;
      if (head) {
        await writeAll(chunk);
        head.push(chunk);
        headBytes += chunk.length;
        if (headBytes >= MAX_HEADER_BYTES) await decide(false);
        continue;
      }
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= WRITE_BYTES) await flush();
    }
    await flush();
    if (head) await decide(true);
  } catch (e) {
    await out.close();
    await (conversion as StreamConversion | null)?.end(false);
    throw e;
  }
  await out.close();
  const receive_ms = Date.now() - t0;
  const c = conversion as StreamConversion | null;
  const streamed = c ? c.end(true) : null;
  return {
    size,
    receive_ms,
    streamed,
    // a refused upload (or a failure after it) stops the conversion before its folder is removed
    abandon: async () => {
      if (c) await c.end(false);
    },
  };
}
