import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffCsv } from '../src/features/datasets/csv-sniff.js';
import { ingestCsv } from '../src/features/datasets/ingest.js';
import { loadConfig } from '../src/config.js';

/**
 * Issue 16, load: many users upload at once. DuckDB's CSV reader took a 256 MB buffer per read (16 × the 16 MB line
 * limit) whatever the file's size, so three small uploads at once ran out of the server's 768 MB cap and the user was
 * told the file was "too wide". Found by bench/load.bench.mjs (200 users).
 */
describe('CSV ingest under concurrent uploads', () => {
  let dir: string;
  let duck: DuckDBInstance;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-ingest-'));
    // the server's own settings (src/app.ts)
    duck = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '768MB', preserve_insertion_order: 'true', temp_directory: path.join(dir, 'duckdb') });
  });
  afterAll(() => {
    duck?.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ingest = (name: string, content: string) => {
    const d = path.join(dir, name);
    fs.mkdirSync(d, { recursive: true });
    const src = path.join(d, 'upload.csv');
    fs.writeFileSync(src, content);
    return ingestCsv(duck, { src, dir: d, exactUniqueRows: loadConfig().exactUniqueRows, sniffed: sniffCsv(fs.readFileSync(src).subarray(0, 1 << 20), fs.statSync(src).size) });
  };

  it('converts 24 small files at once, each completely', async () => {
    const csv = (n: number) => ['x1,x2,line,y', ...Array.from({ length: 300 }, (_, i) => `${i * n},${(i * 7) % 11},L${i % 4},${i * 0.5}`)].join('\n') + '\n';
    const results = await Promise.allSettled(Array.from({ length: 24 }, (_, i) => ingest(`small-${i}`, csv(i + 1))));
    const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason?.key ?? (r as PromiseRejectedResult).reason));
    expect(failed).toEqual([]);
    for (const r of results) expect((r as PromiseFulfilledResult<{ rowCount: number }>).value.rowCount).toBe(300);
  }, 120_000);

  it('still reads a 15 MB line and refuses one over 16 MB', async () => {
    const withLine = (len: number) => `a,b\n1,x\n2,${'y'.repeat(len)}\n3,z\n`;
    expect((await ingest('line-15mb', withLine(15 * 1024 * 1024))).rowCount).toBe(3);
    await expect(ingest('line-17mb', withLine(17 * 1024 * 1024))).rejects.toMatchObject({ key: 'csv_line_too_long' });
  }, 120_000);
});
