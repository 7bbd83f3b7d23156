import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlString } from '../src/duck/index.js';
import { csvReadOptions, doubleGuards, integerGuards, largeWholeColumns, textGuardDecides } from '../src/features/datasets/ingest.js';

/**
 * Issue 17: the whole-number guard reads a column as DOUBLE (doubleGuards) instead of text (integerGuards). For every
 * written value the double guard must give what the text guard gives, or give way to it (a failure textGuardDecides
 * hands to the text guard); it may never keep a different number.
 */
const cols = [
  { name: 'a', dtype: 'BIGINT' },
  { name: 'b', dtype: 'BIGINT' },
];

type Outcome = { value: string | null } | { fraction: true } | { error: string };

describe('whole-number guard read as DOUBLE', () => {
  let duck: DuckDBInstance;
  let conn: DuckDBConnection;
  let dir: string;
  beforeAll(async () => {
    duck = await DuckDBInstance.create(':memory:', { threads: '2' });
    conn = await duck.connect();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-guard-'));
  });
  afterAll(() => {
    conn.closeSync();
    duck.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `a,b` rows 1,2 then (late, 7): the conversion's `a` on the late row, through the given guard. */
  const convert = async (late: string, guards: { types: Record<string, string>; replace: string[] }): Promise<Outcome> => {
    const file = path.join(dir, 'g.csv');
    fs.writeFileSync(file, `a,b\n1,2\n${late.includes(',') ? `"${late}"` : late},7\n`);
    const types = `{'a': ${sqlString(guards.types.a ?? 'BIGINT')}, 'b': ${sqlString(guards.types.b ?? 'BIGINT')}}`;
    const expr = `read_csv(${sqlString(file)}, ${csvReadOptions(',', 1 << 20, 1 << 20, 20480)}, auto_detect=false, columns=${types})`;
    try {
      const r = await conn.runAndReadAll(`SELECT a::VARCHAR AS a, typeof(a) AS t FROM (SELECT * REPLACE (${guards.replace.join(', ')}) FROM ${expr}) WHERE b::BIGINT = 7`);
      const row = r.getRowObjectsJson()[0];
      expect(row.t).toBe('BIGINT');
      return { value: row.a === null ? null : String(row.a) };
    } catch (e) {
      const message = String((e as Error).message);
      if (/mitate: a fraction/.test(message) && !/Could not convert/.test(message)) return { fraction: true };
      return { error: message };
    }
  };

  const values = [
    // whole, as the text guard reads them
    ['5.0', '5'],
    ['12.000', '12'],
    ['12.', '12'],
    ['1e3', '1000'],
    ['1E3', '1000'],
    ['1e+3', '1000'],
    ['-1.25e2', '-125'],
    ['1.5e1', '15'],
    ['+5', '5'],
    [' 7', '7'],
    ['007', '7'],
    ['-0', '0'],
    ['-0.0', '0'],
    ['0e0', '0'],
    ['1_000', '1000'],
    ['', null],
    // the double's bounds: below 2^52 kept, from 2^52 on given way to the text guard
    ['4503599627370495', '4503599627370495'],
    ['-4503599627370495', '-4503599627370495'],
    ['4503599627370496', 'text'],
    ['-4503599627370496', 'text'],
    ['4503599627370496.5', 'text'], // a double holds no half here: the text guard decides (it rounds, as before)
    ['9007199254740991', 'text'],
    ['9007199254740992', 'text'],
    ['9007199254740993', 'text'],
    ['-9223372036854775808', 'text'],
    ['9223372036854775807', 'text'],
    ['1e18', 'text'],
    ['1e308', 'text'],
    // fractions, NaN and infinities: the text guard decides (a fraction there makes the column DOUBLE)
    ['50000.5', 'text'],
    ['.5', 'text'],
    ['2.5e-1', 'text'],
    ['9007199254740991.5', 'text'],
    ['nan', 'text'],
    ['NaN', 'text'],
    ['inf', 'text'],
    ['-inf', 'text'],
    ['Infinity', 'text'],
    // DuckDB's DOUBLE read refuses it, its integer cast takes it: the text guard decides
    ['0x10', 'text'],
  ] as const;

  it.each(values)('%s: the double guard keeps %s or gives way to the text guard, which reads it as before', async (late, want) => {
    const text = await convert(late, integerGuards(cols));
    const dbl = await convert(late, doubleGuards(cols));
    if (want === 'text') {
      expect('value' in dbl, JSON.stringify(dbl)).toBe(false);
      const message = 'fraction' in dbl ? 'mitate: a fraction in a whole-number column' : (dbl as { error: string }).error;
      expect(await textGuardDecides(conn, message)).toBe(true);
    } else {
      expect(dbl).toEqual({ value: want });
      expect(text).toEqual({ value: want });
    }
  });

  it.each(['abc', '1d3', '1,5'])('%s: refused by both reads, the failure is not handed to the text guard (it fails there too)', async (late) => {
    const text = await convert(late, integerGuards(cols));
    const dbl = await convert(late, doubleGuards(cols));
    expect('value' in text).toBe(false);
    expect('error' in dbl).toBe(true);
    expect(await textGuardDecides(conn, (dbl as { error: string }).error)).toBe(false);
  });

  it('keeps the text guard for a column whose sampled rows hold a value of 2^52 or more', async () => {
    const file = path.join(dir, 'large.csv');
    fs.writeFileSync(file, `a,b\n1,-4503599627370496\n2,3\n`);
    const expr = `read_csv(${sqlString(file)}, ${csvReadOptions(',', 1 << 20, 1 << 20, 20480)})`;
    expect(await largeWholeColumns(conn, expr, cols)).toEqual(['b']);
    const g = doubleGuards(cols, ['b']);
    expect(g.types).toEqual({ a: 'DOUBLE', b: 'VARCHAR' });
    expect(g.replace[1]).toBe(integerGuards([cols[1]]).replace[0]);
    // -2^63 in the sample: the comparison must not overflow
    fs.writeFileSync(file, `a,b\n-9223372036854775808,1\n2,3\n`);
    expect(await largeWholeColumns(conn, expr, cols)).toEqual(['a']);
    fs.writeFileSync(file, `a,b\n4503599627370495,1\n2,3\n`);
    expect(await largeWholeColumns(conn, expr, cols)).toEqual([]);
  });
});
