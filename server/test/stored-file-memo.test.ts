import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { storedFileMemo } from '../src/db/stored.js';

describe('storedFileMemo', () => {
  it('parses a file once while it is unchanged, again once rewritten, and keeps the last `max` files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memo-'));
    let parses = 0;
    const read = storedFileMemo('test file', z.object({ n: z.number() }).transform((v) => (parses++, v)), 1);
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    fs.writeFileSync(a, '{"n":1}');
    fs.writeFileSync(b, '{"n":2}');
    expect(await read(a)).toEqual({ n: 1 });
    expect(await read(a)).toEqual({ n: 1 });
    expect(parses).toBe(1);
    fs.writeFileSync(a, '{"n": 10}');
    expect(await read(a)).toEqual({ n: 10 });
    expect(parses).toBe(2);
    expect(await read(b)).toEqual({ n: 2 }); // one kept: a is forgotten
    expect(await read(a)).toEqual({ n: 10 });
    expect(parses).toBe(4);
    fs.writeFileSync(b, '{"n":"x"}');
    await expect(read(b)).rejects.toThrow(/stored test file is not its declared shape/);
    fs.rmSync(dir, { recursive: true });
  });
});
