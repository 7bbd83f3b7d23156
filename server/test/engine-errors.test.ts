import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineErrorText, localizeErrors } from '../src/i18n/engine-errors.js';
import { localize } from '../src/i18n/messages.js';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp } from './helpers.js';
import { predictJob } from '../src/features/prediction/jobs.js';

/** Issue 15: engine errors carry a code and parameters and are said in the caller's language. */
describe('engine errors in two languages', () => {
  const step = JSON.stringify({
    code: 'step_failed',
    params: { step: 2, kind: 'Scaling, standard', reason: { code: 'step_constant', params: { column: 'k' }, message: 'x' } },
    message: 'Step 2 (Scaling, standard): the column "k" is constant (or nearly), so it cannot be scaled',
  });

  it('renders a code with its parameters, nested reasons included', () => {
    expect(engineErrorText(step, 'en')).toBe('Step 2 (Scaling, standard): the column "k" is constant (or nearly), so it cannot be scaled');
    expect(engineErrorText(step, 'ja')).toBe('ステップ2（Scaling, standard）: 列「k」はほぼ一定値のため、スケーリングできません');
    const limit = JSON.stringify({ code: 'algorithm_row_limit', params: { algorithm: 'Gaussian process', max: 3000, rows: 8133 }, message: '' });
    expect(engineErrorText(limit, 'en')).toBe('Gaussian process is limited to 3,000 training rows (this project has 8,133); choose another algorithm or sample the data.');
    expect(engineErrorText(limit, 'ja')).toContain('3,000行まで');
  });

  it('leaves other texts alone and falls back to the message of an unknown code', () => {
    expect(engineErrorText('ValueError: boom', 'ja')).toBe('ValueError: boom');
    expect(engineErrorText(JSON.stringify({ code: 'nope', params: {}, message: 'Plain English' }), 'ja')).toBe('Plain English');
    expect(engineErrorText(null, 'ja')).toBeNull();
  });

  it('localizes error fields of an answer and parameters of server messages', () => {
    const answer = { detail: { response: { models: [{ error: step }], job: { error: 'cancelled' } } } };
    localizeErrors(answer, 'ja');
    expect(answer.detail.response.models[0].error).toContain('ステップ2');
    expect(answer.detail.response.job.error).toBe('cancelled');
    expect(localize('ja', { en: 'Preview failed: {reason}', ja: 'プレビューに失敗しました: {reason}' }, { reason: step })).toContain('列「k」');
  });
});

describe.each(DATABASES)('a failed engine job on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'errors');
  }, 900_000);
  afterAll(() => t?.close());

  it('is said in the language of whoever reads it', async () => {
    const org = await t.app.ctx.db.selectFrom('organisations').select('id').executeTakeFirstOrThrow();
    const job = await t.app.ctx.jobs.create({ orgId: org.id, userId: null, kind: predictJob, spec: { model: '/nonexistent/model.joblib', parquet: '/nonexistent.parquet' } });
    expect((await t.app.ctx.jobs.waitFor(job.id, 600_000)).state).toBe('failed');
    const read = async (lang: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/jobs/${job.id}`, headers: { ...alice.auth, 'accept-language': lang } })).json().detail.response.error;
    expect(await read('en')).toBe('The trained model file is missing; train the model again.');
    expect(await read('ja')).toBe('学習済みモデルのファイルがありません。もう一度学習してください。');
  }, 900_000);
});
