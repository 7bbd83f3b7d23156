import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, makeTestApp, registerAndLogin, STRONG_PASSWORD, type TestApp } from './helpers.js';

/** A multipart body with the JSON `settings` field and any number of CSV files. */
function form(settings: unknown, files: Record<string, string> = {}) {
  const boundary = `----doe${crypto.randomBytes(8).toString('hex')}`;
  const parts = [`--${boundary}\r\nContent-Disposition: form-data; name="settings"\r\n\r\n${JSON.stringify(settings)}\r\n`];
  for (const [field, content] of Object.entries(files)) {
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${field}.csv"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n`);
  }
  parts.push(`--${boundary}--\r\n`);
  return { payload: Buffer.from(parts.join('')), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The invitation token mailed to `to` (the embedded default writes each mail to the outbox). */
function invitationToken(dataDir: string, to: string): string {
  const dir = path.join(dataDir, 'outbox');
  for (const f of fs.readdirSync(dir).sort().reverse()) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const m = text.includes(`To: ${to}`) && /accept-invitation\?token=([A-Za-z0-9_%-]+)/.exec(text);
    if (m) return decodeURIComponent(m[1]);
  }
  throw new Error(`no invitation to ${to}`);
}

const MIXTURE = {
  name: 'Coating blend',
  variables: [
    { name: 'resin', type: 'mixture', low: 0.1, high: 0.6 },
    { name: 'solvent', type: 'mixture', low: 0.1, high: 0.7 },
    { name: 'filler', type: 'mixture', low: 0.05, high: 0.5 },
  ],
  mixture_total: 1,
  model: { kind: 'scheffe_quadratic' },
  responses: ['gloss'],
  algorithm: 'd_optimal',
  n_runs: 10,
  seed: 7,
  exclude_tolerance: 0.01,
};
const EXCLUDE = 'resin,solvent,filler\n0.6,0.3,0.1\n';

describe.each(DATABASES)('optimal design on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let projectId: string;

  const send = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: { payload: Buffer; headers: Record<string, string> } | object, who = alice, lang = 'en') => {
    const isForm = body && 'payload' in body && Buffer.isBuffer((body as { payload: Buffer }).payload);
    return t.app.inject({
      method, url: `/api/optimal/${url}`,
      payload: isForm ? (body as { payload: Buffer }).payload : (body as object | undefined),
      headers: { ...(isForm ? (body as { headers: Record<string, string> }).headers : {}), ...who.auth, 'accept-language': lang },
    });
  };

  beforeAll(async () => {
    t = await makeTestApp(kind);
    alice = await registerAndLogin(t.app, 'da');
    bob = await registerAndLogin(t.app, 'db', 'Other Works');
  });
  afterAll(() => t.close());

  it('serves every call of SPEC §7 at its method and path, with response schemas in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const calls: [string, string][] = [
      ['post', '/api/optimal/register'], ['get', '/api/optimal/projects'], ['get', '/api/optimal/projects/list'], ['get', '/api/optimal/project/{id}'],
      ['post', '/api/optimal/evaluate/{id}'], ['post', '/api/optimal/experiment/download'], ['get', '/api/optimal/result/{id}'],
      ['get', '/api/optimal/eval/result/{id}'], ['delete', '/api/optimal/project/delete/{id}'], ['get', '/api/optimal/result/download/{id}'],
    ];
    for (const [method, url] of calls) expect(doc.paths[url]?.[method], `${method} ${url}`).toBeTruthy();
    expect(doc.paths['/api/optimal/project/{id}'].get.responses['200']).toBeTruthy();
  });

  it('designs 10 D-optimal runs of a constrained 3-component mixture that avoid the excluded blend', async () => {
    const res = await send('POST', 'register', form(MIXTURE, { exclude_file: EXCLUDE }));
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json().detail.response;
    projectId = p.id;
    const job = p.round_list[0].job_id;
    if (p.state === 'running') await t.app.ctx.jobs.waitFor(job, 600_000);
    const r = (await send('GET', `result/${p.id}`)).json().detail.response;
    expect(r.state).toBe('done');
    expect(r.result.runs).toHaveLength(10);
    for (const run of r.result.runs) {
      expect(Math.abs(run.resin + run.solvent + run.filler - 1)).toBeLessThanOrEqual(1e-9);
      expect(run.filler).toBeGreaterThanOrEqual(0.05 - 1e-9);
      expect(Math.abs(run.resin - 0.6) <= 0.005 && Math.abs(run.solvent - 0.3) <= 0.006).toBe(false);
    }
    expect(r.result.criteria.d_efficiency).toBeGreaterThan(0);
    expect(Object.keys(r.result.criteria.vif)).toContain('resin*solvent');
    const list = (await send('GET', 'projects?page=1&page_size=10')).json().detail.response;
    expect(list.items.map((x: { id: string }) => x.id)).toContain(p.id);
    expect((await send('GET', 'projects/list?state=done')).json().detail.response.counts.done).toBeGreaterThanOrEqual(1);
  });

  it('downloads the experiment sheet and the design, and proposes 4 runs by BO from uploaded results', async () => {
    const sheet = await send('POST', 'experiment/download', { project_id: projectId });
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-disposition']).toContain('.csv');
    const lines = sheet.body.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(lines[0]).toBe('round,run,resin,solvent,filler,gloss');
    expect(lines).toHaveLength(11);
    const filled = [lines[0], ...lines.slice(1).map((l) => {
      const [, , a, b, c] = l.split(',').map(Number);
      return `${l}${(80 - 100 * (a - 0.4) ** 2 - 60 * (c - 0.3) ** 2 + b).toFixed(3)}`;
    })].join('\n');
    const res = await send('POST', `round/${projectId}`, form({ algorithm: 'bayesian', n_runs: 4, seed: 1, bo: { response: 'gloss', direction: 'maximize' } }, { file: filled }));
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json().detail.response;
    expect(p.rounds).toBe(2);
    expect(p.round_list[0].results).toHaveLength(10);
    if (p.state === 'running') await t.app.ctx.jobs.waitFor(p.round_list[1].job_id, 600_000);
    const r = (await send('GET', `result/${projectId}?round=2`)).json().detail.response;
    expect(r.state).toBe('done');
    expect(r.result.runs).toHaveLength(4);
    expect(r.result.bo.mean).toHaveLength(4);
    for (const run of r.result.runs) expect(Math.abs(run.resin + run.solvent + run.filler - 1)).toBeLessThanOrEqual(1e-9);
    const all = await send('GET', `result/download/${projectId}`);
    expect(all.body.replace(/^\uFEFF/, '').trim().split(/\r?\n/)).toHaveLength(15);
  });

  it("evaluates a user's design beside ours", async () => {
    const user = 'resin,solvent,filler\n0.6,0.35,0.05\n0.1,0.7,0.2\n0.3,0.2,0.5\n0.35,0.35,0.3\n0.5,0.2,0.3\n0.2,0.5,0.3\n0.25,0.6,0.15\n';
    const res = await send('POST', `evaluate/${projectId}`, { ...form({}, { file: user }) });
    expect(res.statusCode, res.body).toBe(200);
    let ev = res.json().detail.response;
    if (ev.state === 'running') {
      await new Promise((r) => setTimeout(r, 100));
      ev = (await send('GET', `eval/result/${projectId}`)).json().detail.response;
    }
    expect(ev.evaluation.user.runs).toBe(7);
    expect(ev.evaluation.ours.runs).toBe(4);
  });

  it('refuses bad input with a clear message in the reader language and stores nothing', async () => {
    const before = (await send('GET', 'projects/list')).json().detail.response.counts.all;
    const unreachable = { ...MIXTURE, variables: MIXTURE.variables.map((v) => ({ ...v, high: 0.3 })) };
    let res = await send('POST', 'register', form(unreachable), alice, 'ja');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toContain('合計1に到達できません');
    res = await send('POST', 'register', form({ ...MIXTURE, n_runs: 3 }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toContain('at least 6 runs');
    res = await send('POST', 'register', form(MIXTURE, { exclude_file: 'resin,water\n0.1,0.9\n' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toContain('"water"');
    res = await send('POST', 'register', form(MIXTURE, { runs_file: 'resin,solvent,filler,gloss\n0.7,0.2,0.1,3\n' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toContain('row 1');
    res = await send('POST', 'register', form({ ...MIXTURE, variables: [{ name: 'a', type: 'continuous', low: 0, high: 1 }, { name: 'b', type: 'continuous', low: 0, high: 1 }], model: { kind: 'linear' }, constraints: [{ type: 'linear', coefficients: { a: 1, b: 1 }, op: '>=', total: 2.5 }] }));
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].msg).toContain('a + b >= 2.5');
    expect((await send('GET', 'projects/list')).json().detail.response.counts.all).toBe(before);
  });

  it('says why a row of an uploaded file is refused, in the reader language (issue 15)', async () => {
    const msg = async (settings: object, files: Record<string, string>, lang: string) => {
      const res = await send('POST', 'register', form(settings, files), alice, lang);
      expect(res.statusCode, res.body).toBe(422);
      return res.json().detail[0].msg as string;
    };
    // a value outside its variable's range: the engine's reason, said from the server's catalogue
    const outside = { runs_file: 'resin,solvent,filler,gloss\n0.7,0.2,0.1,3\n' };
    expect(await msg(MIXTURE, outside, 'ja')).toBe('実験ファイルの1行目は使えません（「resin」が0.1〜0.6の範囲外です）。');
    expect(await msg(MIXTURE, outside, 'en')).toBe('Runs file: row 1 cannot be used ("resin" is outside 0.1 to 0.6).');
    // a word where a number belongs, a column the project does not have, a value missing
    expect(await msg(MIXTURE, { exclude_file: 'resin,solvent,filler\n0.2,abc,0.2\n' }, 'ja')).toBe('除外ファイル: 1行目の「solvent」の値「abc」は数値ではありません。');
    expect(await msg(MIXTURE, { exclude_file: 'resin,water\n0.1,0.9\n' }, 'ja')).toBe('除外ファイル: 列「water」はこのプロジェクトの変数でも結果でもありません。');
    expect(await msg(MIXTURE, { runs_file: 'resin,solvent,filler\n0.2,,0.2\n' }, 'ja')).toBe('実験ファイル: 1行目に「solvent」の値がありません。');
    // a row that breaks a constraint between variables, and one outside a range of the exclude file
    const box = { ...MIXTURE, variables: [{ name: 'a', type: 'continuous', low: 0, high: 1 }, { name: 'b', type: 'continuous', low: 0, high: 1 }], model: { kind: 'linear' }, constraints: [{ type: 'linear', coefficients: { a: 1, b: 1 }, op: '<=', total: 1 }] };
    expect(await msg(box, { runs_file: 'a,b\n0.2,0.3\n0.8,0.8\n' }, 'ja')).toBe('実験ファイルの2行目は使えません（制約 a + b <= 1 を満たしていません）。');
    expect(await msg(box, { exclude_file: 'a,b\n2,0.5\n' }, 'ja')).toBe('除外ファイルの1行目が変数の範囲外です（「a」が0〜1の範囲外です）。');
    // the settings' own checks are said in Japanese too
    const typed = await send('POST', 'register', form({ ...MIXTURE, n_runs: 'many' }), alice, 'ja');
    expect(typed.statusCode).toBe(422);
    expect(typed.json().detail[0]).toMatchObject({ loc: ['body', 'settings', 'n_runs'], msg: expect.stringContaining('無効な入力') });
  });

  it('refuses a model the constraints make impossible to estimate, naming the terms and why, and stores nothing (issue 30)', async () => {
    const before = (await send('GET', 'projects/list')).json().detail.response.counts.all;
    const box3 = (low: number, high: number) => ['A', 'B', 'C'].map((name) => ({ name, type: 'continuous', low, high }));
    const tied = { ...MIXTURE, mixture_total: undefined, variables: box3(-1, 1), model: { kind: 'quadratic' }, constraints: [{ type: 'sum', coefficients: { A: 1, B: 1, C: 1 }, op: '=', total: 0 }], n_runs: 12 };
    let res = await send('POST', 'register', form(tied), alice, 'en');
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail[0].msg).toBe(
      'The model cannot be estimated in this region: C, A^2, B^2, C^2 cannot be told apart from the other terms, because every run must satisfy A + B + C = 0. Remove these terms (a custom model) or change the constraints.',
    );
    res = await send('POST', 'register', form(tied), alice, 'ja');
    expect(res.json().detail[0].msg).toBe(
      'この領域ではモデルを推定できません。すべての実験が A + B + C = 0 を満たすため、C、A^2、B^2、C^2 を他の項と区別できません。これらの項を除く（カスタムモデル）か、制約を変更してください。',
    );
    const pinned = { ...tied, variables: box3(0, 1), constraints: [{ type: 'linear', coefficients: { A: 1, B: 1 }, op: '>=', total: 2 }] };
    res = await send('POST', 'register', form(pinned), alice, 'en');
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().detail[0].msg).toContain('because every run must satisfy A + B = 2; A = 1; B = 1');
    expect(res.json().detail[0].msg).toContain('A, B, A*B, A*C, B*C, A^2, B^2 cannot be told apart');
    expect((await send('GET', 'projects/list')).json().detail.response.counts.all).toBe(before);
  });

  it('keeps organisations apart and lets viewers only read', async () => {
    const email = `viewer.${crypto.randomBytes(3).toString('hex')}@example.com`;
    const inv = await t.app.inject({ method: 'POST', url: '/account/api/members', headers: alice.auth, payload: { email, role: 'viewer', first_name: 'Yui', last_name: 'Ito' } });
    expect(inv.statusCode).toBe(201);
    const token = invitationToken(t.dataDir, email);
    const accepted = await t.app.inject({ method: 'POST', url: '/account/api/auth/accept-invitation', payload: { token, password: STRONG_PASSWORD, confirm_password: STRONG_PASSWORD } });
    const viewer = { ...alice, auth: { authorization: `Bearer ${accepted.json().detail.response.access_token}` } };
    expect((await send('GET', `project/${projectId}`, undefined, viewer)).statusCode).toBe(200);
    expect((await send('POST', 'register', form(MIXTURE), viewer)).statusCode).toBe(403);
    expect((await send('DELETE', `project/delete/${projectId}`, undefined, viewer)).statusCode).toBe(403);
    expect((await send('POST', `round/${projectId}`, form({ algorithm: 'd_optimal', n_runs: 2 }), viewer)).statusCode).toBe(403);

    expect((await send('GET', `project/${projectId}`, undefined, bob)).statusCode).toBe(404);
    expect((await send('DELETE', `project/delete/${projectId}`, undefined, bob)).statusCode).toBe(404);
    expect((await send('GET', 'projects', undefined, bob)).json().detail.response.total).toBe(0);
    const del = await send('DELETE', `project/delete/${projectId}`);
    expect(del.statusCode).toBe(200);
    expect((await send('GET', `project/${projectId}`)).statusCode).toBe(404);
  });
});
