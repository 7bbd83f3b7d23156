import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ColumnInfo, parquetStats } from '../src/features/datasets/column-stats.js';
import { loadConfig } from '../src/config.js';
import { fromConditionCsv, parseCsv, toConditionCsv } from '../src/features/preprocessing/conditionFile.js';
import { KIND_PARAMS, READS, type Step } from '../src/features/preprocessing/schemas.js';
import { METHODS, PROCESS_TYPES } from '../src/features/datasets/history.js';
import { DATABASES, makeTestApp, multipart, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

const STEPS = [
  { process_type: 'missing', method: 'linear', columns: ['Pressure'] },
  { process_type: 'outliers', method: 'iqr', columns: ['Pressure'], params: { action: 'clip', k: 1.5 } },
  { process_type: 'scaling', method: 'standard', columns: ['Temperature'] },
  { process_type: 'computed', method: 'expression', params: { name: 'power', expression: 'Current * Voltage' } },
];

describe.each(DATABASES)('pre-processing on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let id: string;
  let parquet: string;

  beforeAll(async () => {
    t = await makeTestApp(kind);
    alice = await registerAndLogin(t.app, 'pre');
    const res = await upload(t.app, alice.auth, { name: 'valve1.csv', content: fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '0.csv')) }, { name: 'valve1', datetime_column: 'datetime' });
    id = res.json().detail.response.id;
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    parquet = path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', id, 'data.parquet');
  });
  afterAll(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, auth = alice.auth) =>
    t.app.inject({ method, url, payload: payload as object, headers: auth });

  it('loads a dataset for pre-processing', async () => {
    const r = await call('POST', `/api/load/dataset/${id}`);
    expect(r.statusCode).toBe(200);
    const b = r.json().detail.response;
    expect(b.row_count).toBe(1147);
    expect(b.columns.map((c: { name: string }) => c.name)).toContain('Pressure');
    expect(b.rows).toHaveLength(50);
  });

  it('previews a step: rows changed, the affected rows and before/after chart data', async () => {
    const r = await call('POST', `/api/manual/process/dataset/${id}`, { steps: STEPS.slice(0, 2) });
    expect(r.statusCode, r.body).toBe(200);
    const p = r.json().detail.response;
    expect(p.rows_before).toBe(1147);
    expect(p.rows_after).toBe(1147);
    expect(p.rows_changed).toBeGreaterThan(0);
    expect(p.cells_changed).toEqual({ Pressure: p.rows_changed });
    expect(p.chart.column).toBe('Pressure');
    expect(p.chart.histogram.before.reduce((a: number, b: number) => a + b, 0)).toBe(1147);
    expect(p.chart.series.x).toBe('datetime');
    const upper = p.step.fitted.bounds.Pressure.upper;
    for (const row of p.affected_rows) expect(row.after.Pressure).toBeLessThanOrEqual(upper + 1e-9);
  });

  it('explains a bad step by its number and column, and leaves the source alone', async () => {
    const before = fs.readFileSync(parquet);
    const r = await call('POST', `/api/manual/process/dataset/${id}`, {
      steps: [{ process_type: 'computed', method: 'expression', params: { name: 'bad', expression: 'Pressure / (Current - Current)' } }],
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0].msg).toContain('Step 1 (Computed column, expression): column "bad": division by zero');
    const w = await call('POST', `/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'window', method: 'mean', columns: ['Pressure'], params: { window: 5000 } }] });
    expect(w.json().detail[0].msg).toContain('longer than the data');
    const m = await call('POST', `/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'scaling', method: 'cubic', columns: ['Pressure'] }] });
    expect(m.statusCode).toBe(422);
    expect(m.json().detail[0].msg).toContain('unknown method "cubic"');
    // the same failures in Japanese: every part (step, reason, nested expression error) from the engine's catalogue
    const ja = (steps: unknown) =>
      t.app.inject({ method: 'POST', url: `/api/manual/process/dataset/${id}`, payload: { steps } as object, headers: { ...alice.auth, 'accept-language': 'ja' } });
    const rj = await ja([{ process_type: 'computed', method: 'expression', params: { name: 'bad', expression: 'Pressure / (Current - Current)' } }]);
    expect(rj.statusCode).toBe(422);
    expect(rj.json().detail[0].msg).toContain('ステップ1（Computed column, expression）: 列「bad」: 0で割っています');
    const uj = await ja([{ process_type: 'computed', method: 'expression', params: { name: 'u', expression: 'nope + 1' } }]);
    expect(uj.json().detail[0].msg).toContain('列「nope」がありません');
    const kj = await ja([{ process_type: 'outliers', method: 'iqr', columns: ['Pressure'], params: { k: 'abc' } }]);
    expect(kj.statusCode).toBe(422);
    expect(kj.json().detail[0].msg).toContain('パラメータ「k」は数値にしてください（「abc」は数値ではありません）');
    expect(kj.json().detail[0].msg).not.toMatch(/parameter|must be/);
    // the server's own request check of a method, and of a run without steps, through the catalogue too
    const mj = await ja([{ process_type: 'scaling', method: 'cubic', columns: ['Pressure'] }]);
    expect(mj.statusCode).toBe(422);
    expect(mj.json().detail[0]).toMatchObject({ loc: ['body', 'steps', '0', 'method'] });
    expect(mj.json().detail[0].msg).toBe('scaling の手法「cubic」は不明です（使用可能：standard, minmax, robust）');
    const none = await t.app.inject({ method: 'POST', url: `/api/preprocess/dataset/${id}`, payload: {}, headers: { ...alice.auth, 'accept-language': 'ja' } });
    expect(none.statusCode).toBe(422);
    expect(none.json().detail[0].msg).toBe('ステップか保存済みの condition_id を指定してください。');
    expect(fs.readFileSync(parquet).equals(before)).toBe(true);
  });

  it('refuses a parameter the step does not read, or a required one left out, naming it in the caller\'s language; nothing is stored', async () => {
    const ask = (url: string, payload: object, lang = 'en') => t.app.inject({ method: 'POST', url, payload, headers: { ...alice.auth, 'accept-language': lang } });
    const zscoreWithK = [{ process_type: 'outliers', method: 'zscore', columns: ['Pressure'], params: { action: 'clip', threshold: 3, k: 1.5 } }];
    const en = await ask(`/api/manual/process/dataset/${id}`, { steps: zscoreWithK });
    expect(en.statusCode).toBe(422);
    expect(en.json().detail).toEqual([
      { loc: ['body', 'steps', '0', 'params', 'k'], msg: 'the parameter "k" is not used by outliers (zscore); it uses: action, threshold', type: 'value_error' },
    ]);
    const ja = await ask(`/api/manual/process/dataset/${id}`, { steps: zscoreWithK }, 'ja');
    expect(ja.json().detail[0].msg).toBe('パラメータ「k」は outliers（zscore）では使われません（使うもの：action, threshold）');
    const none = await ask(`/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'scaling', method: 'standard', params: { k: 2 } }] });
    expect(none.json().detail[0].msg).toBe('the parameter "k" is not used by scaling (standard), which takes no parameters');
    const anyKind = await ask(`/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'missing', method: 'mean', params: { nonsense: 1 } }] });
    expect(anyKind.json().detail[0]).toMatchObject({ loc: ['body', 'steps', '0', 'params', 'nonsense'] });
    const required = await ask(`/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'computed', method: 'expression', params: { name: 'p', expression: ' ' } }] }, 'ja');
    expect(required.json().detail).toEqual([{ loc: ['body', 'steps', '0', 'params', 'expression'], msg: 'computed（expression）にはパラメータ「expression」が必要です', type: 'value_error' }]);
    const kind = await ask(`/api/manual/process/dataset/${id}`, { steps: [{ process_type: 'smooth', method: 'mean' }] });
    expect(kind.json().detail[0]).toMatchObject({ loc: ['body', 'steps', '0', 'process_type'], msg: expect.stringContaining('unknown process type "smooth"') });
    // nothing stored: neither a saved condition nor a run
    const save = await ask('/api/preprocess/conditions', { name: 'never stored', steps: zscoreWithK });
    expect(save.statusCode).toBe(422);
    const run = await ask(`/api/preprocess/dataset/${id}`, { steps: zscoreWithK, condition_name: 'never stored' });
    expect(run.statusCode).toBe(422);
    expect(await t.app.ctx.db.selectFrom('preprocess_conditions').select('id').where('name', '=', 'never stored').execute()).toEqual([]);
    expect(await t.app.ctx.db.selectFrom('preprocess_runs').select('id').where('condition_name', '=', 'never stored').execute()).toEqual([]);
    // every kind's valid body as the web app sends it still passes
    const ok = await ask('/api/preprocess/conditions', {
      name: 'every kind',
      steps: [
        { process_type: 'outliers', method: 'hampel', columns: ['Pressure'], params: { action: 'clip', threshold: 3, window: 7 } },
        { process_type: 'missing', method: 'constant', columns: ['Pressure'], params: { value: '0' } },
        { process_type: 'scaling', method: 'minmax', columns: ['Temperature'], params: {} },
        { process_type: 'computed', method: 'expression', params: { name: 'power', expression: 'Current * Voltage' } },
        { process_type: 'window', method: 'mean', columns: ['Pressure'], params: { span: '10min', name: 'p10' } },
        { process_type: 'window', method: 'lag', columns: ['Pressure'], params: { lag: 2 } },
        { process_type: 'columns', method: 'rename', params: { mapping: { Pressure: 'P' } } },
        { process_type: 'columns', method: 'retype', columns: ['P'], params: { dtype: 'float' } },
        { process_type: 'filter', method: 'keep', params: { column: 'P', op: 'between', value: 0, value2: 1 } },
        { process_type: 'sort', method: 'datetime', params: { ascending: false } },
      ],
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().detail.response.steps[6]).toEqual({ process_type: 'columns', method: 'rename', columns: [], params: { mapping: { Pressure: 'P' } } });
    await call('DELETE', `/api/preprocess/conditions/${ok.json().detail.response.id}`);
  });

  it('still loads a condition saved before parameters were checked: a key its step does not read is left out of the answer', async () => {
    const at = new Date().toISOString();
    const org = (await t.app.ctx.db.selectFrom('datasets').select('organisation_id').where('id', '=', id).executeTakeFirstOrThrow()).organisation_id;
    const steps = [
      { process_type: 'outliers', method: 'zscore', columns: ['Pressure'], params: { action: 'clip', threshold: 3, k: 1.5 } },
      { process_type: 'scaling', method: 'standard', columns: ['Temperature'], params: { stray: true } },
    ];
    await t.app.ctx.db
      .insertInto('preprocess_conditions')
      .values({ id: 'old-condition', organisation_id: org, name: 'saved long ago', steps_json: JSON.stringify(steps), fitted_json: null, datetime_column: null, source_dataset_id: null, created_by: null, created_at: at, updated_at: at })
      .execute();
    const one = await call('GET', '/api/preprocess/conditions/old-condition');
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().detail.response.steps).toEqual([
      { process_type: 'outliers', method: 'zscore', columns: ['Pressure'], params: { action: 'clip', threshold: 3 } },
      { process_type: 'scaling', method: 'standard', columns: ['Temperature'], params: {} },
    ]);
    expect((await call('GET', '/api/preprocess/conditions')).statusCode).toBe(200);
    expect((await call('GET', '/api/preprocess/conditions/old-condition/download')).statusCode).toBe(200);
    expect((await call('DELETE', '/api/preprocess/conditions/old-condition')).statusCode).toBe(200);
  });

  it('saves named conditions; a duplicate name answers 409 until confirmed (SPEC §5)', async () => {
    const first = await call('POST', '/api/preprocess/conditions', { name: 'valve clean', steps: STEPS.slice(0, 1) });
    expect(first.statusCode).toBe(201);
    const dup = await call('POST', '/api/preprocess/conditions', { name: 'valve clean', steps: STEPS });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail.response).toContain('already exists');
    const list1 = (await call('GET', '/api/preprocess/conditions')).json().detail.response;
    expect(list1.find((c: { name: string }) => c.name === 'valve clean').steps).toHaveLength(1);
    const ok = await call('POST', '/api/preprocess/conditions', { name: 'valve clean', steps: STEPS, confirm_overwrite: true });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().detail.response.id).toBe(first.json().detail.response.id);
    expect(ok.json().detail.response.steps).toHaveLength(4);
  });

  it('runs a condition, registers the temporary dataset with history, and stores the fitted parameters', async () => {
    const dup = await call('POST', `/api/preprocess/dataset/${id}`, { steps: STEPS, condition_name: 'valve clean' });
    expect(dup.statusCode).toBe(409);
    const run = await call('POST', `/api/preprocess/dataset/${id}`, { steps: STEPS, condition_name: 'valve clean', confirm_overwrite: true });
    expect(run.statusCode, run.body).toBe(200);
    const { temp_id, condition_id } = run.json().detail.response;
    const early = await call('POST', `/api/new_dataset/register/${temp_id}`, { name: 'too early' });
    expect([201, 409]).toContain(early.statusCode);
    let registered = early.statusCode === 201 ? early.json().detail.response : null;
    await t.app.ctx.jobs.waitFor(temp_id, 600_000);
    const res = (await call('GET', `/api/preprocess/result/${temp_id}`)).json().detail.response;
    expect(res.state).toBe('succeeded');
    expect(res.result.row_count).toBe(1147);
    expect(res.result.columns).toContain('power');
    if (!registered) {
      const reg = await call('POST', `/api/new_dataset/register/${temp_id}`, { name: 'valve1 clean', comment: 'cleaned' });
      expect(reg.statusCode, reg.body).toBe(201);
      registered = reg.json().detail.response;
    }
    expect(registered).toMatchObject({ preprocessed: true, parent_dataset_name: 'valve1', datetime_column: 'datetime', row_count: 1147, column_count: 12 });
    expect(registered.preprocess_history.map((h: { process_type: string }) => h.process_type)).toEqual(['missing', 'outliers', 'scaling', 'computed']);
    expect(registered.preprocess_history[2]).toMatchObject({ action_name: 'standard' });
    expect(registered.preprocess_history[2].modified_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const again = await call('POST', `/api/new_dataset/register/${temp_id}`, { name: 'twice' });
    expect(again.statusCode).toBe(409);

    // The new dataset reads like any other; the scaled column has mean 0.
    const rows = (await call('GET', `/api/dataset/upload/${registered.id}?page=1&page_size=5`)).json().detail.response;
    expect(rows.columns).toContain('power');
    // Untouched columns pass through as they were, in their place; the new column comes last (issue 20).
    const source = (await call('GET', `/api/dataset/upload/${id}?page=1&page_size=5`)).json().detail.response;
    expect(rows.columns).toEqual([...source.columns, 'power']);
    const ci = source.columns.indexOf('Accelerometer1RMS');
    expect(rows.rows.map((r: unknown[]) => r[ci])).toEqual(source.rows.map((r: unknown[]) => r[ci]));
    const pi = source.columns.indexOf('Current');
    const vi = source.columns.indexOf('Voltage');
    rows.rows.forEach((r: number[], k: number) => expect(r[rows.columns.indexOf('power')]).toBeCloseTo(Number(source.rows[k][pi]) * Number(source.rows[k][vi]), 9));
    const cond = (await call('GET', `/api/preprocess/dataset/${registered.id}/condition`)).json().detail.response;
    expect(cond.steps[2].fitted.columns.Temperature.scale).toBeGreaterThan(0);
    expect(cond.condition_id).toBe(condition_id);
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', registered.id).executeTakeFirstOrThrow();
    expect(fs.existsSync(path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', registered.id, 'condition.json'))).toBe(true);
    const saved = (await call('GET', `/api/preprocess/conditions/${condition_id}`)).json().detail.response;
    expect(saved.fitted.steps[1].fitted.bounds.Pressure.upper).toBeTypeOf('number');
    const stats = (await call('GET', `/api/dataset/${registered.id}/false`)).json().detail.response;
    const temp = stats.columns.find((c: { name: string }) => c.name === 'Temperature');
    expect(Math.abs(temp.mean)).toBeLessThan(1e-9);
    // The untouched columns' chunks were copied from the source file (issue 20), and the changed columns' figures
    // came from the engine, not from a second scan: every column agrees with DuckDB scanning the new file.
    expect(res.result.timings.untouched_columns).toBe('spliced');
    const conn = await t.app.ctx.duckdb.connect();
    const newFile = `'${path.join(t.dataDir, 'files', 'org', row.organisation_id, 'datasets', registered.id, 'data.parquet')}'`;
    try {
      const scanned = await parquetStats(conn, newFile.slice(1, -1), { exactUniqueRows: loadConfig().exactUniqueRows });
      expect(stats.columns.map((c: ColumnInfo) => c.name)).toEqual(scanned.columns.map((c) => c.name));
      for (const s of scanned.columns) {
        const got = stats.columns.find((c: ColumnInfo) => c.name === s.name) as ColumnInfo;
        expect({ ...got, mean: null, std: null, unique: null, unique_exact: null }, s.name).toEqual({ ...s, mean: null, std: null, unique: null, unique_exact: null });
        // a column whose figures the engine gave has its distinct count estimated, said so; an untouched one keeps
        // the source's exact count
        if (!res.result.columns.includes(s.name)) expect(got.unique_exact, s.name).toBe(true);
        if (s.name === 'Temperature') expect(got.unique_exact, s.name).toBe(false);
        for (const k of ['mean', 'std'] as const) expect(Math.abs((got[k] ?? 0) - (s[k] ?? 0)), `${s.name} ${k}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(s[k] ?? 0)));
        // Both distinct counts are estimates (DuckDB's is off by 4 % on Temperature here): the engine's within 2 % of the exact count.
        if (res.result.columns.includes(s.name) && ['Pressure', 'Temperature', 'power'].includes(s.name)) {
          const exact = Number((await conn.runAndReadAll(`SELECT count(DISTINCT "${s.name}") AS n FROM read_parquet(${newFile})`)).getRowObjectsJson()[0].n);
          expect(Math.abs(got.unique - exact), `${s.name} unique`).toBeLessThanOrEqual(Math.max(1, 0.02 * exact));
        }
      }
    } finally {
      conn.closeSync();
    }

    // Reused on another dataset: the saved condition by id.
    const other = (await upload(t.app, alice.auth, { name: 'valve1b.csv', content: fs.readFileSync(path.join(SHARED_DATA, 'skab_subset', 'valve1', '1.csv')) }, { datetime_column: 'datetime' })).json().detail.response.id;
    const run2 = (await call('POST', `/api/preprocess/dataset/${other}`, { condition_id })).json().detail.response;
    expect((await t.app.ctx.jobs.waitFor(run2.temp_id, 600_000)).state).toBe('succeeded');
  });

  it('downloads and uploads condition_setting_file.csv (round trip) and rejects a bad file by row', async () => {
    const list = (await call('GET', '/api/preprocess/conditions')).json().detail.response;
    const c = list.find((x: { name: string }) => x.name === 'valve clean');
    const dl = await call('GET', `/api/preprocess/conditions/${c.id}/download`);
    expect(dl.headers['content-disposition']).toContain('condition_setting_file.csv');
    const body = multipart({}, { name: 'condition_setting_file.csv', content: dl.rawPayload });
    const up = await t.app.inject({ method: 'POST', url: '/api/preprocess/conditions/upload', payload: body.payload, headers: { ...body.headers, ...alice.auth } });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().detail.response).toEqual({ name: 'valve clean', steps: c.steps });
    const bad = multipart({}, { name: 'c.csv', content: 'condition_name,step,process_type,method,columns,params\nx,1,scaling,cubic,a,\n' });
    const r = await t.app.inject({ method: 'POST', url: '/api/preprocess/conditions/upload', payload: bad.payload, headers: { ...bad.headers, ...alice.auth, 'accept-language': 'ja' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0].msg).toContain('2 行目');
    expect(r.json().detail[0].msg).toContain('cubic');
    const unread = multipart({}, { name: 'c.csv', content: 'condition_name,step,process_type,method,columns,params\nx,1,outliers,zscore,a,"{""k"":2}"\n' });
    const u = await t.app.inject({ method: 'POST', url: '/api/preprocess/conditions/upload', payload: unread.payload, headers: { ...unread.headers, ...alice.auth, 'accept-language': 'ja' } });
    expect(u.statusCode).toBe(422);
    expect(u.json().detail[0].msg).toBe('条件ファイルの 2 行目：パラメータ「k」は outliers（zscore）では使われません（使うもの：action, threshold）');
  });

  it('keeps conditions and runs within the organisation', async () => {
    const bob = await registerAndLogin(t.app, 'bob', 'Elsewhere');
    expect((await call('POST', `/api/load/dataset/${id}`, undefined, bob.auth)).statusCode).toBe(404);
    const list = (await call('GET', '/api/preprocess/conditions')).json().detail.response;
    expect((await call('GET', `/api/preprocess/conditions/${list[0].id}`, undefined, bob.auth)).statusCode).toBe(404);
    expect((await call('GET', '/api/preprocess/conditions', undefined, bob.auth)).json().detail.response).toEqual([]);
    expect((await call('DELETE', `/api/preprocess/conditions/${list[0].id}`)).statusCode).toBe(200);
  });
});

describe('step parameters', () => {
  it("declares for each kind exactly the parameters its methods read (the engine's catalogue)", () => {
    for (const kind of PROCESS_TYPES) {
      const read = new Set(Object.values<{ reads: readonly string[] }>(READS[kind]).flatMap((r) => r.reads));
      expect(Object.keys(KIND_PARAMS[kind]).sort(), kind).toEqual([...read].sort());
      expect(Object.keys(READS[kind]).sort(), kind).toEqual([...METHODS[kind]].sort());
    }
  });

  it("is the engine's catalogue: the same kinds, methods, parameters read and required (engine preprocessing/catalogue.json)", () => {
    const file = path.resolve(import.meta.dirname, '../../engine/mitate_engine/preprocessing/catalogue.json');
    const engine = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, { reads: string[]; required: string[] }>>;
    const ours = Object.fromEntries(
      PROCESS_TYPES.map((kind) => [
        kind,
        Object.fromEntries(
          Object.entries<{ reads: readonly string[]; required?: readonly string[] }>(READS[kind]).map(([m, r]) => [m, { reads: [...r.reads].sort(), required: [...(r.required ?? [])].sort() }]),
        ),
      ]),
    );
    const theirs = Object.fromEntries(
      Object.entries(engine).map(([kind, methods]) => [kind, Object.fromEntries(Object.entries(methods).map(([m, r]) => [m, { reads: [...r.reads].sort(), required: [...r.required].sort() }]))]),
    );
    expect(ours).toEqual(theirs);
  });
});

describe('condition file', () => {
  it('quotes JSON and separators, and reads its own output back', () => {
    const steps: Step[] = [
      { process_type: 'columns', method: 'rename', columns: [], params: { mapping: { 'a,b': 'c "d"' } } },
      { process_type: 'missing', method: 'mean', columns: ['x', 'y z'], params: {} },
    ];
    const csv = toConditionCsv('名前, with comma', steps);
    expect(fromConditionCsv(csv)).toEqual({ name: '名前, with comma', steps });
    expect(parseCsv('a,"b\nc",d\r\ne,f,g\n')).toEqual([{ line: 1, fields: ['a', 'b\nc', 'd'] }, { line: 3, fields: ['e', 'f', 'g'] }]);
  });
  it.each([
    ['name,step\n', 'header'],
    ['condition_name,step,process_type,method,columns,params\nx,1,scaling,standard,a\n', 'expected 6 values'],
    ['condition_name,step,process_type,method,columns,params\nx,1,nothing,standard,a,\n', 'unknown process_type'],
    ['condition_name,step,process_type,method,columns,params\nx,1,scaling,standard,a,{oops\n', 'not valid JSON'],
    ['condition_name,step,process_type,method,columns,params\nx,1,outliers,zscore,a,"{""k"":2}"\n', 'the parameter "k" is not used by outliers (zscore)'],
    ['condition_name,step,process_type,method,columns,params\nx,1,columns,retype,a,\n', 'the parameter "dtype" is required for columns (retype)'],
  ])('rejects %j', (text, msg) => {
    expect(() => fromConditionCsv(text)).toThrow();
    try {
      fromConditionCsv(text);
    } catch (e) {
      const err = e as { key: { en: string }; params: Record<string, string> };
      expect(err.key.en.replace(/\{(\w+)\}/g, (_, k) => String(err.params[k]))).toContain(msg);
    }
  });
  it.each([
    ['x,1,scaling,standard,a\n', 2, '値は 6 個必要ですが、5 個あります'],
    ['x,1,scaling,standard,a,{oops\n', 2, 'params が正しい JSON ではありません'],
    ['x,1,scaling,standard,a,\ny,2,scaling,standard,a,\n', 3, 'すべての行の condition_name を同じにしてください（「x」）'],
    ['x,1,scaling,standard,a,\nx,1,scaling,minmax,a,\n', 3, 'step 1 が2回あります'],
    ['x,1,scaling,standard,"a\n', 2, '引用符で始まる値が閉じられていません'],
  ])("says what is wrong with a row in the caller's language (ja): %j", (rows, row, reason) => {
    try {
      fromConditionCsv(`condition_name,step,process_type,method,columns,params\n${rows}`, 'ja');
      expect.unreachable();
    } catch (e) {
      expect((e as { params: Record<string, unknown> }).params).toEqual({ row, reason });
    }
  });
});
