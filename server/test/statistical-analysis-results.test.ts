import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestResult } from '../src/features/statistical-analysis/interpret.js';
import { TestResult as TestResultSchema } from '../src/features/statistical-analysis/responses.js';
import { TEST_TYPES } from '../src/features/statistical-analysis/schemas.js';
import { makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';

/**
 * Every test type, run by the engine end to end: the result stored on the project parses with its member of the
 * TestResult union and loses no key (the schema declares every field the engine writes for that test type).
 */
const rows = Array.from({ length: 40 }, (_, i) => {
  const v = ((i * 37) % 23) / 2 + i * 0.1;
  const w = v + (((i * 13) % 7) - 3) * 0.3; // equal to v where (13 i) mod 7 = 3: zero differences for Wilcoxon
  return `${i === 5 ? '' : v.toFixed(2)},${w.toFixed(2)},${'abc'[i % 3]},${i % 2 ? 'y' : 'x'}`;
});
const csv = ['v,w,g3,g2', ...rows].join('\n');

const split = { category: 'g2', group1: 'x', group2: 'y' };
const cases: [string, Record<string, unknown>, (r: TestResult) => void][] = [
  ['one_sample_t', { variable1: 'v', hypothetical_mean: 5 }, (r) => r.test_type === 'one_sample_t' && expect(r.charts.reference_line).toBe(5)],
  ['two_sample_t', { variable1: 'v', ...split }, (r) => r.test_type === 'two_sample_t' && expect(r.equal_variance.mode).toBe('auto')],
  ['two_sample_t', { variable1: 'v', variable2: 'w', equal_variance: 'welch' }, (r) => expect(r.method).toBe('welch')],
  ['paired_t', { variable1: 'v', variable2: 'w' }, (r) => r.test_type === 'paired_t' && expect(r.pairs).toBe(39)],
  ['paired_t', { variable1: 'v', ...split }, (r) => r.test_type === 'paired_t' && expect(r.differences.n).toBe(19)],
  ['mann_whitney', { variable1: 'v', ...split }, (r) => r.test_type === 'mann_whitney' && expect(Number.isFinite(r.z)).toBe(true)],
  ['wilcoxon', { variable1: 'v', hypothetical_mean: 5 }, (r) => r.test_type === 'wilcoxon' && expect([r.method, r.differences, r.charts.reference_line]).toEqual(['wilcoxon_one_sample', undefined, 5])],
  ['wilcoxon', { variable1: 'v', variable2: 'w' }, (r) => r.test_type === 'wilcoxon' && expect([r.method, r.differences?.n, r.charts.reference_line, r.zeros_dropped]).toEqual(['wilcoxon_paired', 39, undefined, 6])],
  ['anova', { variable1: 'v', category: 'g3' }, (r) => r.test_type === 'anova' && expect(r.post_hoc.pairs).toHaveLength(3)],
  ['chi_square', { variable1: 'g3', variable2: 'g2' }, (r) => r.test_type === 'chi_square' && expect([r.n, r.table.rows, r.table.columns]).toEqual([40, ['a', 'b', 'c'], ['x', 'y']])],
  ['pearson', { variable1: 'v', variable2: 'w' }, (r) => r.test_type === 'pearson' && expect([r.pairs, r.charts.scatter.n]).toEqual([39, 39])],
  ['spearman', { variable1: 'v', variable2: 'w' }, (r) => r.test_type === 'spearman' && expect(r.ci?.approximate).toBe(true)],
  ['shapiro', { variable1: 'v' }, (r) => r.test_type === 'shapiro' && expect(r.n_tested).toBe(39)],
  ['f_test', { variable1: 'v', variable2: 'w' }, (r) => r.test_type === 'f_test' && expect(r.estimate?.kind).toBe('variance_ratio')],
];

describe('every test type against its TestResult member', () => {
  let t: TestApp;
  let auth: Awaited<ReturnType<typeof registerAndLogin>>['auth'];
  let datasetId: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url: `/api/statistical/analysis/${url}`, payload, headers: auth });

  beforeAll(async () => {
    t = await makeTestApp('sqlite');
    auth = (await registerAndLogin(t.app, 'tr')).auth;
    datasetId = (await upload(t.app, auth, { name: 'all-tests.csv', content: csv })).json().detail.response.id;
  });
  afterAll(() => t.close());

  it('covers every test type', () => {
    expect(new Set(cases.map(([type]) => type))).toEqual(new Set(TEST_TYPES));
  });

  it.each(cases)('%s %j: the stored result parses strictly and the answers built from it are served', async (test_type, settings, check) => {
    const res = await call('POST', `register/${datasetId}`, { name: `${test_type}`, test_type, ...settings });
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json().detail.response;
    await t.app.ctx.jobs.waitFor(p.job_id, 600_000);
    const row = await t.app.ctx.db.selectFrom('statistical_projects').selectAll().where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(row.state, row.error ?? '').toBe('done');
    const stored: unknown = JSON.parse(row.result_json ?? 'null');
    const parsed = TestResultSchema.safeParse(stored);
    expect(parsed.error?.issues ?? []).toEqual([]);
    // zod drops keys a member does not declare: the parsed result equals the stored one only when none was dropped.
    expect(parsed.data).toStrictEqual(stored);
    expect(parsed.data?.test_type).toBe(test_type);
    check(parsed.data!);
    for (const url of [`train/result/${p.id}`, `eval/result/${p.id}`, `result/download/${p.id}?format=csv`, `result/download/${p.id}?format=html`]) {
      expect((await call('GET', url)).statusCode, url).toBe(200);
    }
  }, 120_000);
});
