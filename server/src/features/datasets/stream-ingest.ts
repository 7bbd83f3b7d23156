import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { connect, type Duck, type DuckConnection, sqlString } from '../../duck/index.js';
import { MAX_HEADER_BYTES, sniffCsv, type Sniffed } from './csv-sniff.js';
import { csvReadOptions, doubleGuards, largeWholeColumns, PARQUET_OPTIONS, SAMPLE_ROWS, STREAM_READ, WIDE_COLUMNS } from './ingest.js';
import { columnType } from './column-stats.js';

/**
 * Issue 17: a large CSV upload is converted to Parquet while it streams in. The request's bytes go to the original
 * file on disk (as before) at the pace they arrive; the file is fed, as it grows, through named pipes to one DuckDB
 * `COPY (read_csv([pipe 1, pipe 2])) TO parquet` running at the same time. DuckDB reads a pipe on one thread, so the
 * file is cut in two at a record boundary near the middle of the announced upload size: the first piece goes to one
 * pipe, the header and the second piece to the other, and DuckDB's two threads parse them at once, keeping the rows
 * in file order. The read is not sniffed on the pipes: the columns, types and formats are those of DuckDB's sniff of
 * the upload's head.
 *
 * This is only a head start: the service accepts its Parquet file only when the upload was complete, the conversion
 * succeeded, and DuckDB's sniff of the whole saved file is the head's (same dialect, columns, types, formats).
 * Anything else (a value that contradicts the sampled type, a ragged row, a datetime column that must be cast, a
 * refused upload) falls back to the whole-file conversion, which gives today's types and error messages; a wrong
 * type is never kept.
 */
export interface StreamedParquet {
  /** The Parquet file written from the stream (inside the upload's temporary folder). */
  parquet: string;
  sniffed: Sniffed;
  /** DuckDB's sniff of the upload's head (sniff_csv without UserArguments and Prompt) the conversion read with. */
  sniff: Record<string, unknown>;
  /**
   * The columns read as DOUBLE or text and cast to whole numbers in the COPY, failing on a fraction (DuckDB's own read
   * would round 50000.5 to 50001): the whole numbers of the head's sniff (see doubleGuards). The service keeps the file only when every
   * whole-number column of the saved file's sniff is among them.
   */
  guarded: string[];
  /** Pieces the file was parsed in at once (1 when no cut was found). */
  pieces: number;
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
 * Conversions beside an upload at once in this process. DuckDB's query and the file reads and writes all run on
 * Node's small thread pool, and a query waiting on its pipes holds a thread (an open of a pipe not read yet holds
 * another): with one at a time, the reads and writes always find a thread. A second large upload meanwhile is
 * converted after it arrives, as before.
 */
const MAX_ACTIVE = 1;
/** Bytes gathered before one write to disk; bytes of one read fed to a pipe. */
const WRITE_BYTES = 1 << 20;
/**
 * Quote characters counted (to know whether a newline ends a record) before the cut is given up and the file is
 * parsed in one piece: a file quoting every field would cost the upload more in counting than the cut saves.
 */
const MAX_QUOTES_BEFORE_CUT = 4_000_000;
/** Conversions running now, counted per app (datasets service): two apps in one process share nothing. */
export interface ConversionSlots {
  active: number;
}
export const conversionSlots = (): ConversionSlots => ({ active: 0 });

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
      // EPIPE: DuckDB stopped reading (an error on its side)
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

/**
 * The upload's file as it grows on disk: how much is written, whether it ended, and where it is cut in two (the
 * first record boundary past `target`, found as the bytes are written).
 */
class GrowingFile {
  written = 0;
  ended = false;
  /** Offset of the second piece's first byte; null while not found (or given up). */
  cut: number | null = null;
  private quotes = 0;
  private waiters: (() => void)[] = [];

  constructor(private target: number | null) {}

  /** Notes `buf`, written to disk at the current end; to call before the readers may read it (`advance`). */
  note(buf: Buffer): void {
    const offset = this.written;
    if (this.cut === null && this.target !== null) {
      // a newline ends a record when the quote characters before it are even (a doubled quote counts twice)
      const count = (from: number, to: number) => {
        let n = 0;
        for (let j = buf.indexOf(0x22, from); j !== -1 && j < to; j = buf.indexOf(0x22, j + 1)) n++;
        return n;
      };
      if (offset + buf.length > this.target) {
        let p = Math.max(0, this.target - offset);
        let q = this.quotes + count(0, p);
        for (let nl = buf.indexOf(0x0a, p); nl !== -1; nl = buf.indexOf(0x0a, p)) {
          q += count(p, nl);
          p = nl + 1;
          if (q % 2 === 0) {
            this.cut = offset + nl + 1;
            break;
          }
        }
        this.quotes = q + (this.cut === null ? count(p, buf.length) : 0);
      } else this.quotes += count(0, buf.length);
      if (this.quotes > MAX_QUOTES_BEFORE_CUT) this.target = null;
    }
    this.written += buf.length;
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Settles at the next write or at the end. */
  change(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}

/** The streaming conversion of one upload: start it on the head, feed it from the growing file, end it. */
class StreamConversion {
  private conn: DuckConnection | null = null;
  private done: Promise<boolean> = Promise.resolve(false);
  private feeding: Promise<boolean> = Promise.resolve(false);
  private stopped = false;
  private started = 0;
  private uploadEnded = 0;
  private finished = 0;
  private sniff: Record<string, unknown> = {};
  private guarded: string[] = [];
  private pieces = 1;
  readonly parquet: string;
  private readonly pipes: string[];

  constructor(
    private readonly duck: Duck,
    private readonly slots: ConversionSlots,
    private readonly dir: string,
    private readonly src: string,
    private readonly file: GrowingFile,
    readonly sniffed: Sniffed,
  ) {
    this.parquet = path.join(dir, 'streamed.parquet');
    this.pipes = [path.join(dir, 'upload.pipe'), path.join(dir, 'tail.upload.pipe')];
  }

  /**
   * DuckDB's sniff of the head's complete lines (null when it cannot be sniffed), and its whole-number columns holding
   * a value of 2^52 or more among the sampled rows (they keep the text guard, see doubleGuards).
   */
  private async headSniff(conn: DuckConnection, head: Buffer): Promise<{ sniff: Record<string, unknown>; large: string[] } | null> {
    const file = path.join(this.dir, 'head.csv');
    try {
      const end = head.lastIndexOf(0x0a);
      if (end < 0) return null;
      await fs.promises.writeFile(file, head.subarray(0, end + 1));
      const options = csvReadOptions(this.sniffed.delimiter, STREAM_READ.maxLine, STREAM_READ.buffer, SAMPLE_ROWS);
      const r = await conn.runAndReadAll(`SELECT * EXCLUDE (UserArguments, Prompt) FROM sniff_csv(${sqlString(file)}, ${options})`);
      const sniff = r.getRowObjectsJson()[0] as Record<string, unknown>;
      const cols = (sniff.Columns as { name: string; type: string }[]).map((c) => ({ name: String(c.name), dtype: String(c.type) }));
      return { sniff, large: await largeWholeColumns(conn, `read_csv(${sqlString(file)}, ${options})`, cols) };
    } catch {
      return null; // the service converts the whole file and says what is wrong
    } finally {
      fs.rmSync(file, { force: true });
    }
  }

  /** Starts the COPY on the pipes and their feeders; false when it cannot (the file is converted after the upload). */
  async start(head: Buffer): Promise<boolean> {
    this.slots.active++;
    this.counted = true;
    try {
      for (const fifo of this.pipes) await execFileP('mkfifo', ['-m', '600', fifo]);
    } catch {
      return false; // no named pipes here: the file is converted after the upload, as before
    }
    this.started = Date.now();
    this.conn = await connect(this.duck);
    const headRead = await this.headSniff(this.conn, head);
    const sniff = headRead?.sniff;
    if (!headRead || !sniff || sniff.HasHeader !== true || Number(sniff.SkipRows) !== 0) return false;
    this.sniff = sniff;
    const cols = (sniff.Columns as { name: string; type: string }[]).map((c) => ({ name: String(c.name), dtype: String(c.type) }));
    if (cols.length !== this.sniffed.header.length) return false;
    // whole-number columns are read as DOUBLE (or text) and cast, failing on a fraction or a value the guard cannot
    // decide (the whole-file conversion then decides as it does for any file)
    const guards = doubleGuards(cols, headRead.large);
    this.guarded = cols.filter((c) => columnType(c.dtype) === 'integer').map((c) => c.name);
    const columns = cols.map((c) => `${sqlString(c.name)}: ${sqlString(guards.types[c.name] ?? c.dtype)}`).join(', ');
    const formats = [['dateformat', sniff.DateFormat], ['timestampformat', sniff.TimestampFormat]]
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `, ${k}=${sqlString(String(v))}`)
      .join('');
    const list = `[${this.pipes.map(sqlString).join(', ')}]`;
    const expr = `read_csv(${list}, ${csvReadOptions(this.sniffed.delimiter, STREAM_READ.maxLine, STREAM_READ.buffer, SAMPLE_ROWS)}, auto_detect=false, columns={${columns}}${formats})`;
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
    // the header line (a quoted header may hold newlines) opens the second piece too
    this.feeding = Promise.all([this.feed(0, head), this.feed(1, head)]).then(
      (ok) => ok.every(Boolean),
      () => false,
    );
    return true;
  }

  /** The header's bytes: up to the first newline outside quotes. */
  private static headerLine(head: Buffer): Buffer | null {
    let quoted = false;
    for (let i = 0; i < head.length; i++) {
      if (head[i] === 0x22) quoted = !quoted;
      else if (head[i] === 0x0a && !quoted) return head.subarray(0, i + 1);
    }
    return null;
  }

  /**
   * Feeds piece `k` from the file on disk to its pipe as the file grows: the first piece up to the cut (the whole
   * file when there is none), the second the header and what follows the cut (the header only when there is none).
   * True when it fed all of its piece.
   */
  private async feed(k: number, head: Buffer): Promise<boolean> {
    const writer = await PipeWriter.open(this.pipes[k], this.done);
    const fh = await fs.promises.open(this.src, 'r');
    const f = this.file;
    try {
      let pos = 0;
      if (k === 1) {
        while (f.cut === null && !f.ended && !this.stopped) await f.change();
        if (f.cut === null) {
          // no cut: a header-only piece (DuckDB reads no rows from it)
          const header = StreamConversion.headerLine(head);
          if (!header) return false;
          await writer.write(header);
          return !writer.failed;
        }
        const header = StreamConversion.headerLine(head);
        if (!header || header.length > f.cut) return false;
        await writer.write(header);
        pos = f.cut;
        this.pieces = 2;
      }
      const buf = Buffer.allocUnsafe(WRITE_BYTES);
      for (;;) {
        if (this.stopped || writer.failed) return false;
        const stop = k === 0 && f.cut !== null ? f.cut : f.written;
        if (pos >= stop) {
          if (k === 0 && f.cut !== null) return true;
          if (f.ended) return true;
          await f.change();
          continue;
        }
        const { bytesRead } = await fh.read(buf, 0, Math.min(WRITE_BYTES, stop - pos), pos);
        if (bytesRead === 0) return false;
        pos += bytesRead;
        await writer.write(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      }
    } finally {
      await fh.close();
      // the pipe's end tells DuckDB this piece is over
      await writer.close();
    }
  }

  private ending: Promise<StreamedParquet | null> | null = null;
  private counted = false;
  private abandoned = false;

  /**
   * The upload ended: complete, the feeders finish their pieces and the pipes' ends tell DuckDB there is no more;
   * not complete (or abandoned later), the conversion is interrupted and its file dropped. Safe to call again.
   */
  async end(complete: boolean): Promise<StreamedParquet | null> {
    if (!complete) {
      this.abandoned = true;
      this.stopped = true;
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
    const fed = await this.feeding;
    if (!fed) {
      this.stopped = true;
      this.conn?.interrupt();
    }
    const ok = await this.done;
    this.conn?.closeSync();
    this.conn = null;
    if (this.counted) this.slots.active--;
    this.counted = false;
    for (const fifo of this.pipes) fs.rmSync(fifo, { force: true });
    if (!ok || !fed || this.abandoned) {
      fs.rmSync(this.parquet, { force: true });
      return null;
    }
    return {
      parquet: this.parquet,
      sniffed: this.sniffed,
      sniff: this.sniff,
      guarded: this.guarded,
      pieces: this.pieces,
      convert_ms: this.finished - this.started,
      after_upload_ms: Math.max(0, this.finished - this.uploadEnded),
    };
  }
}

/**
 * Writes an uploaded file part to `dest`; with `convert` (the caller decides: a large CSV), starts converting it to
 * Parquet beside the upload, cut in two near half of `expectedBytes` (the request's announced size; 0: unknown, one
 * piece). A failed upload throws after the conversion has stopped.
 */
export async function receiveUpload(
  source: AsyncIterable<Buffer>,
  dest: string,
  convert: { duck: Duck; slots: ConversionSlots; dir: string; expectedBytes?: number } | null,
): Promise<ReceivedUpload> {
  const t0 = Date.now();
  const out = await fs.promises.open(dest, 'w');
  const expected = convert?.expectedBytes ?? 0;
  const file = new GrowingFile(expected > 0 ? Math.floor(expected / 2) : null);
  let size = 0;
  let head: Buffer[] | null = convert ? [] : null;
  let headBytes = 0;
  let conversion: StreamConversion | null = null;

  const writeAll = async (buf: Buffer) => {
    let off = 0;
    while (off < buf.length) off += (await out.write(buf, off, buf.length - off)).bytesWritten;
    file.note(buf);
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
    if (sniffed && sniffed.encoding !== 'cp932' && sniffed.header.length <= WIDE_COLUMNS && convert!.slots.active < MAX_ACTIVE) {
      const c = new StreamConversion(convert!.duck, convert!.slots, convert!.dir, dest, file, sniffed);
      if (await c.start(bytes).catch(() => false)) conversion = c;
      else await c.end(false);
    }
  };

  // The request's chunks (tens of kB) are gathered to WRITE_BYTES before they go to disk: fewer writes, fewer hops
  // through Node's thread pool and fewer wake-ups of the feeders.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await writeAll(buf);
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
    file.end();
    await (conversion as StreamConversion | null)?.end(false);
    throw e;
  }
  await out.close();
  file.end();
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
