import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, filesUnder, makeTestApp, registerAndLogin, SHARED_DATA, type TestApp, upload } from './helpers.js';

const SLEEP = path.join(SHARED_DATA, 'ttest_student_sleep');
const expected = JSON.parse(fs.readFileSync(path.join(SLEEP, 'expected_results.json'), 'utf8'));

/** SPEC §7 'Statistical analysis': every call, on a real database, with the test run by the engine. */
describe.each(DATABASES)('statistical analysis on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let bob: Awaited<ReturnType<typeof registerAndLogin>>;
  let sleepId: string;
  let oddId: string;

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, who = alice, lang = 'en') =>
    t.app.inject({ method, url: `/api/statistical/analysis/${url}`, payload: payload as object | undefined, headers: { ...who.auth, 'accept-language': lang } });
  const waitDone = async (id: string) => {
    const p = (await call('GET', `project/${id}`)).json().detail.response;
    if (p.job_id) await t.app.ctx.jobs.waitFor(p.job_id, 600_000);
    return (await call('GET', `train/result/${id}`)).json().detail.response;
  };

  beforeAll(async () => {
    t = await makeTestApp(kind);
    alice = await registerAndLogin(t.app, 'sa');
    bob = await registerAndLogin(t.app, 'sb', 'Other Works');
    sleepId = (await upload(t.app, alice.auth, { name: 'sleep.csv', content: fs.readFileSync(path.join(SLEEP, 'sleep.csv')) })).json().detail.response.id;
    // text column, a constant, a column with one value, and a group with a single row
    const odd = ['v,label,const,few,grp', ...Array.from({ length: 12 }, (_, i) => `${i * 1.5},x${i % 3},7,${i === 0 ? 1 : ''},${i === 11 ? 'c' : i % 2 ? 'a' : 'b'}`)].join('\n');
    oddId = (await upload(t.app, alice.auth, { name: 'odd.csv', content: odd })).json().detail.response.id;
  });
  afterAll(() => t.close());

  it('serves every call of SPEC §7 at its method and path, described in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const calls: [string, string][] = [
      ['post', '/api/statistical/analysis/register/{dataset_id}'],
      ['get', '/api/statistical/analysis/projects'],
      ['get', '/api/statistical/analysis/projects/list'],
      ['get', '/api/statistical/analysis/project/{id}'],
      ['post', '/api/statistical/analysis/train/model/{id}'],
      ['post', '/api/statistical/analysis/download'],
      ['get', '/api/statistical/analysis/train/result/{id}'],
      ['get', '/api/statistical/analysis/eval/result/{id}'],
      ['delete', '/api/statistical/analysis/project/delete/{id}'],
      ['get', '/api/statistical/analysis/result/download/{id}'],
    ];
    for (const [method, url] of calls) expect(doc.paths[url]?.[method], `${method} ${url}`).toBeTruthy();
    const body = doc.paths['/api/statistical/analysis/register/{dataset_id}'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['test_type', 'variable1', 'variable2', 'category', 'group1', 'group2', 'hypothetical_mean', 'significance_level']));
  });

  it('registers a paired t-test on the sleep data and runs it in the engine: R figures (t = -4.0621, df = 9, p = 0.002833)', async () => {
    const res = await call('POST', `register/${sleepId}`, {
      name: 'Sleep, paired', test_type: 'paired_t', variable1: 'extra', variable2: 'ID', category: 'group', group1: '1', group2: '2',
    });
    expect(res.statusCode).toBe(201);
    const p = res.json().detail.response;
    expect(p).toMatchObject({ significance_level: 0.05, alternative: 'two-sided', test_type: 'paired_t', dataset_name: 'sleep.csv' });
    expect(['running', 'done']).toContain(p.state); // a quick test may be done before the answer is written
    const r = await waitDone(p.id);
    expect(r.state).toBe('done');
    const e = expected.paired_t_test;
    expect(r.result.statistic.value).toBeCloseTo(e.full_precision.t, 9);
    expect(r.result.df).toBe(9);
    expect(r.result.p_value).toBeCloseTo(e.full_precision.p_value, 12);
    expect(r.result.ci.low).toBeCloseTo(e.full_precision.conf_int_95[0], 9);
    expect(r.result.ci.high).toBeCloseTo(e.full_precision.conf_int_95[1], 9);
    expect(r.result.groups.map((g: { n: unknown }) => g.n)).toEqual([10, 10]);

    const ev = (await call('GET', `eval/result/${p.id}`)).json().detail.response;
    expect(ev.reject).toBe(true);
    expect(ev.statistic_text).toBe('t(9) = -4.0621');
    expect(ev.p_text).toBe('p = 0.002833');
    expect(ev.sentence.en).toBe(
      'At the 5% significance level, the mean difference of "extra" between group "1" and group "2" (-1.58) differs significantly from 0 (t(9) = -4.0621, p = 0.002833). The null hypothesis is rejected.',
    );
    expect(ev.sentence.ja).toBe('有意水準5%で、グループ「1」とグループ「2」の「extra」の差の平均（-1.58）は0と有意に異なります（t(9) = -4.0621、p = 0.002833）。帰無仮説を棄却します。');
    expect(ev.effect_size).toMatchObject({ kind: 'cohens_d', magnitude: 'large' });

    const view = (await call('GET', `project/${p.id}`)).json().detail.response;
    expect(view.summary).toMatchObject({ statistic: 't', reject: true });
    expect(view.finished_at).toBeTruthy();
  });

  it("runs Welch's test with a category split and re-runs it at another significance level", async () => {
    const p = (await call('POST', `register/${sleepId}`, { name: 'Sleep, Welch', test_type: 'two_sample_t', variable1: 'extra', category: 'group', group1: '1', group2: '2', equal_variance: 'welch' })).json().detail.response;
    let r = await waitDone(p.id);
    const e = expected.welch_two_sample_t_test.full_precision;
    expect(r.result.method).toBe('welch');
    expect(r.result.df).toBeCloseTo(e.df, 7);
    expect(r.result.p_value).toBeCloseTo(e.p_value, 11);
    expect(r.result.reject).toBe(false);
    let ev = (await call('GET', `eval/result/${p.id}`, undefined, alice, 'ja')).json().detail.response;
    expect(ev.sentence.ja).toBe(
      '有意水準5%で、グループ「1」の「extra」の平均（0.75）とグループ「2」の「extra」の平均（2.33）の間に有意な差は認められません（t(17.776) = -1.8608、p = 0.07939）。帰無仮説は棄却されません。',
    );

    const again = await call('POST', `train/model/${p.id}`, { significance_level: 0.1 });
    expect(again.statusCode).toBe(200);
    // a quick test may already be done by the time the answer is written
    expect(again.json().detail.response).toMatchObject({ significance_level: 0.1, equal_variance: 'welch', group1: '1' });
    expect(['running', 'done']).toContain(again.json().detail.response.state);
    r = await waitDone(p.id);
    expect(r.result.reject).toBe(true);
    ev = (await call('GET', `eval/result/${p.id}`)).json().detail.response;
    expect(ev.sentence.en).toMatch(/^At the 10% significance level, the mean of "extra" in group "1" \(0\.75\) differs significantly from the mean of "extra" in group "2" \(2\.33\)/);
  });

  it('lists projects by state with pages, lists them all with counts, and downloads CSV, report and summary', async () => {
    const page = (await call('GET', 'projects?state=done&page=1&page_size=1')).json().detail.response;
    expect(page.total).toBe(2);
    expect(page.items).toHaveLength(1);
    expect(page.items[0].name).toBe('Sleep, Welch'); // newest first
    expect((await call('GET', 'projects?state=failed')).json().detail.response.total).toBe(0);
    const all = (await call('GET', 'projects/list?state=done')).json().detail.response;
    expect(all.items.map((i: { name: string }) => i.name).sort()).toEqual(['Sleep, Welch', 'Sleep, paired']);
    expect(all.counts).toMatchObject({ all: 2, done: 2, running: 0 });

    const id = page.items[0].id;
    const csv = await call('GET', `result/download/${id}`);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('Sleep%2C%20Welch_result.csv');
    expect(csv.body).toContain('p-value,');
    expect(csv.body).toMatch(/\n1,10,0,0\.75,/);
    const html = await call('GET', `result/download/${id}?format=html&lang=ja`);
    expect(html.headers['content-type']).toContain('text/html');
    expect(html.body).toContain('<svg');
    expect(html.body).toContain('有意水準10%で');
    expect(html.body).not.toContain('<script');
    const summary = await call('POST', 'download', { ids: [] });
    expect(summary.statusCode).toBe(200);
    expect(summary.body.trim().split('\r\n')).toHaveLength(3);
    expect((await call('POST', 'download', { ids: ['nope'] })).statusCode).toBe(404);
  });

  it('gives the values of a category column with counts', async () => {
    const v = (await call('GET', `values/${sleepId}?column=group`)).json().detail.response;
    expect(v).toMatchObject({ column: 'group', type: 'integer', distinct: 2, values: [{ value: '1', count: 10 }, { value: '2', count: 10 }] });
    expect((await call('GET', `values/${sleepId}?column=nope`)).statusCode).toBe(422);
  });

  it.each([
    [{ test_type: 'one_sample_t', variable1: 'extra', significance_level: 1 }, 'significance_level', 'greater than 0 and less than 1', '0より大きく1未満'],
    [{ test_type: 'one_sample_t', variable1: 'extra', significance_level: 0 }, 'significance_level', 'greater than 0 and less than 1', '有意水準'],
    [{ test_type: 'one_sample_t', variable1: 'label' }, 'variable1', 'is not numeric', '数値ではありません'],
    [{ test_type: 'two_sample_t', variable1: 'v', category: 'grp', group1: 'a', group2: 'zzz' }, 'group2', 'has no value "zzz"', '値「zzz」はありません'],
    [{ test_type: 'two_sample_t', variable1: 'v', category: 'grp', group1: 'a', group2: 'c' }, 'variable1', 'has 1 value(s)', '1件しかありません'],
    [{ test_type: 'one_sample_t', variable1: 'const' }, 'variable1', 'zero variance', '分散がゼロ'],
    [{ test_type: 'one_sample_t', variable1: 'few' }, 'variable1', 'at least 2 are needed', '少なくとも2件'],
    [{ test_type: 'two_sample_t', variable1: 'v', category: 'grp', group1: 'a', group2: 'a' }, 'group2', 'must be different', '異なる値'],
    [{ test_type: 'two_sample_t', variable1: 'v' }, 'variable2', 'Please choose variable 2', '変数2'],
    [{ test_type: 'pearson', variable1: 'v', variable2: 'nope' }, 'variable2', 'is not in the dataset', 'データセットにありません'],
  ])('refuses bad input with a clear message and stores nothing: %j', async (settings, field, en, ja) => {
    for (const [lang, text] of [['en', en], ['ja', ja]] as const) {
      const res = await call('POST', `register/${oddId}`, { name: 'bad', ...settings }, alice, lang);
      expect(res.statusCode).toBe(422);
      const d = res.json().detail[0];
      expect(d.loc).toEqual(['body', field]);
      expect(d.msg).toContain(text);
    }
    const list = (await call('GET', 'projects/list')).json().detail.response;
    expect(list.items.some((i: { name: string }) => i.name === 'bad')).toBe(false);
  });

  it('keeps projects to their organisation and to writers', async () => {
    const id = (await call('GET', 'projects')).json().detail.response.items[0].id;
    for (const [m, u] of [['GET', `project/${id}`], ['GET', `train/result/${id}`], ['GET', `eval/result/${id}`], ['GET', `result/download/${id}`], ['POST', `train/model/${id}`], ['DELETE', `project/delete/${id}`]] as const) {
      expect((await call(m, u, m === 'POST' ? {} : undefined, bob)).statusCode).toBe(404);
    }
    expect((await call('POST', `register/${sleepId}`, { name: 'x', test_type: 'shapiro', variable1: 'extra' }, bob)).statusCode).toBe(404);
    expect((await call('GET', 'projects', undefined, bob)).json().detail.response.total).toBe(0);
  });

  it('stores a project without running it, runs it on demand, and deletes it with its files', async () => {
    const p = (await call('POST', `register/${sleepId}`, { name: 'Normality', test_type: 'shapiro', variable1: 'extra', run: false })).json().detail.response;
    expect(p.state).toBe('ready');
    expect((await call('GET', `eval/result/${p.id}`)).statusCode).toBe(409);
    expect((await call('GET', 'projects?state=ready')).json().detail.response.total).toBe(1);
    // A quick test may already be done by the time the answer is written.
    expect(['running', 'done']).toContain((await call('POST', `train/model/${p.id}`, {})).json().detail.response.state);
    const r = await waitDone(p.id);
    expect(r.state).toBe('done');
    expect(r.result.test_type).toBe('shapiro');
    const row = await t.app.ctx.db.selectFrom('datasets').selectAll().where('id', '=', sleepId).executeTakeFirstOrThrow();
    const dir = path.join(t.dataDir, 'files', 'org', row.organisation_id, 'statistical-analysis', p.id);
    expect(filesUnder(dir)).toContain('result.json');
    expect((await call('DELETE', `project/delete/${p.id}`)).statusCode).toBe(200);
    expect((await call('GET', `project/${p.id}`)).statusCode).toBe(404);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('localises an engine input error by its code', async () => {
    // Rows that the DuckDB check lets through but the pairing by key refuses (a key repeated within a group).
    const csv = ['y,g,k', '1,a,1', '2,a,1', '3,b,1', '5,b,2', '4,a,3', '6,b,3'].join('\n');
    const id = (await upload(t.app, alice.auth, { name: 'dup.csv', content: csv })).json().detail.response.id;
    const p = (await call('POST', `register/${id}`, { name: 'dup', test_type: 'paired_t', variable1: 'y', variable2: 'k', category: 'g', group1: 'a', group2: 'b' })).json().detail.response;
    await waitDone(p.id);
    const ja = (await call('GET', `train/result/${p.id}`, undefined, alice, 'ja')).json().detail.response;
    expect(ja.state).toBe('failed');
    expect(ja.error).toBe('キー列「k」のキーがグループ「a」内で重複しています。キーは各グループで1回ずつにしてください。');
    const list = (await call('GET', 'projects?state=failed')).json().detail.response;
    expect(list.items[0].error).toContain('repeats a key');
    // It can be run again, here as an unpaired test.
    await call('POST', `train/model/${p.id}`, { test_type: 'two_sample_t', variable2: null });
    const r = await waitDone(p.id);
    expect(r.state).toBe('done');
    expect(r.error).toBeNull();
  });
});

/** The scale-out column: the same run through BullMQ on Redis and a Python bullmq worker. */
describe.skipIf(!process.env.TEST_REDIS_URL)('statistical analysis through BullMQ', () => {
  it('runs the paired t-test of the sleep data and stores its result on the project', async () => {
    const t = await makeTestApp('sqlite', { config: { redisUrl: process.env.TEST_REDIS_URL, queueName: `mitate-sa-${Date.now()}` } });
    try {
      const a = await registerAndLogin(t.app, 'bull');
      const id = (await upload(t.app, a.auth, { name: 'sleep.csv', content: fs.readFileSync(path.join(SLEEP, 'sleep.csv')) })).json().detail.response.id;
      const res = await t.app.inject({
        method: 'POST', url: `/api/statistical/analysis/register/${id}`, headers: a.auth,
        payload: { name: 'bull', test_type: 'paired_t', variable1: 'extra', category: 'group', group1: '1', group2: '2' },
      });
      const p = res.json().detail.response;
      await t.app.ctx.jobs.waitFor(p.job_id, 600_000);
      const r = (await t.app.inject({ method: 'GET', url: `/api/statistical/analysis/train/result/${p.id}`, headers: a.auth })).json().detail.response;
      expect(r.state).toBe('done');
      expect(r.result.statistic.value).toBeCloseTo(expected.paired_t_test.full_precision.t, 9);
    } finally {
      await t.close();
    }
  }, 90_000);
});
