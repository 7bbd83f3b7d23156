import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell, neutraliseCell } from '../src/http/csv.js';
import { makeTestApp, multipart, registerAndLogin, type TestApp, upload } from './helpers.js';

/** Issue 18 item 4: every CSV the server writes neutralises spreadsheet formulas; uploads stay byte for byte. */
const FORMULAS = ['=HYPERLINK("http://evil.example","click")', '+SUM(1+1)', '@SUM(A1)', "=cmd|' /C calc'!A0", '-2+3'];

describe('the CSV neutraliser', () => {
  it('prefixes a quote to formula starts, never to plain numbers', () => {
    for (const f of [...FORMULAS, '\tx', '\rx']) expect(neutraliseCell(f)).toBe(`'${f}`);
    for (const s of ['-3', '+1.5e3', '-.5', 'a=b', '', 'plain']) expect(neutraliseCell(s)).toBe(s);
    expect(csvCell(-2.5)).toBe('-2.5');
    expect(csvCell('=1,2')).toBe(`"'=1,2"`);
  });
});

describe('CSVs the server writes', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const original = Buffer.from(['note,x', ...FORMULAS.map((f, i) => `"${f.replace(/"/g, '""')}",${-i - 0.5}`), 'fine,7'].join('\r\n') + '\r\n');

  beforeAll(async () => {
    t = await makeTestApp('sqlite');
    auth = (await registerAndLogin(t.app, 'csv', 'Formula Org')).auth;
  }, 900_000);
  afterAll(() => t?.close());

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) => t.app.inject({ method, url, payload: payload as object, headers: auth });

  it('keeps the original upload byte for byte and neutralises the preprocessed dataset\'s CSV', async () => {
    const up = await upload(t.app, auth, { name: 'formulas.csv', content: original }, { type: 'unsupervised' });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().detail.response.id;
    const raw = await call('GET', `/api/dataset/download/${id}`);
    expect(Buffer.compare(raw.rawPayload, original)).toBe(0);

    const run = await call('POST', `/api/preprocess/dataset/${id}`, { steps: [{ process_type: 'scaling', method: 'minmax', columns: ['x'] }] });
    expect(run.statusCode, run.body).toBe(200);
    const { temp_id } = run.json().detail.response;
    expect((await t.app.ctx.jobs.waitFor(temp_id, 600_000)).state).toBe('succeeded');
    const reg = await call('POST', `/api/new_dataset/register/${temp_id}`, { name: 'formulas clean' });
    expect(reg.statusCode, reg.body).toBe(201);
    const csv = (await call('GET', `/api/dataset/download/${reg.json().detail.response.id}`)).body;
    const notes = csv.trim().split(/\r?\n/).slice(1).map((l) => l.slice(0, l.lastIndexOf(',')));
    expect(notes).toEqual([...FORMULAS.map((f) => (/[",]/.test(f) ? `"'${f.replace(/"/g, '""')}"` : `'${f}`)), 'fine']);
    for (const line of csv.trim().split(/\r?\n/).slice(1)) expect(line).not.toMatch(/^[=+\-@]/);
  }, 900_000);

  it('neutralises a condition file and reads its own file back to the same name', async () => {
    const name = '=HYPERLINK("http://evil.example","x")';
    const saved = await call('POST', '/api/preprocess/conditions', { name, steps: [{ process_type: 'scaling', method: 'standard', columns: ['@x'] }] });
    expect(saved.statusCode, saved.body).toBe(201);
    const dl = await call('GET', `/api/preprocess/conditions/${saved.json().detail.response.id}/download`);
    const row = dl.body.replace(/^\uFEFF/, '').split('\r\n')[1];
    expect(row.startsWith(`"'=HYPERLINK(`)).toBe(true);
    expect(row).toContain(`,'@x,`);
    const body = multipart({}, { name: 'condition_setting_file.csv', content: dl.rawPayload });
    const back = await t.app.inject({ method: 'POST', url: '/api/preprocess/conditions/upload', payload: body.payload, headers: { ...body.headers, ...auth } });
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().detail.response.name).toBe(name);
    expect(back.json().detail.response.steps[0].columns).toEqual(['@x']);
  });
});
