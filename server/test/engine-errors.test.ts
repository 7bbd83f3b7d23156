import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEngineError, engineErrorText, localizeErrors } from '../src/i18n/engine-errors.js';
import { engineErrors } from '../src/features/optimization/messages.js';
import { engineErrorText as optimizationText, optimizationWording } from '../src/features/optimization/rules.js';
import { designWording, engineErrorText as designText, errors as designErrors, isInputError } from '../src/features/optimal-design/messages.js';
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

  it('decodes only the coded JSON the engine writes', () => {
    expect(decodeEngineError(step)?.code).toBe('step_failed');
    expect(decodeEngineError('{"code": 3}')).toBeNull();
    expect(decodeEngineError('{"code": "x", oops')).toBeNull();
    expect(decodeEngineError('ValueError: boom')).toBeNull();
    expect(decodeEngineError(null)).toBeNull();
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

/** The optimization and optimal-design pages word some parameters their own way, through the one renderer. */
describe('an area\'s wording of engine errors', () => {
  const coded = (code: string, params: Record<string, unknown>, message = 'English message') => JSON.stringify({ code, params, message });

  it('optimization: a list as quoted names, numbers as they are, other codes from the engine catalogue', () => {
    const infeasible = coded('optimization.infeasible', { constraints: ['budget', 'mix'] });
    expect(engineErrorText(infeasible, 'en', engineErrors, optimizationWording)).toBe('No condition satisfies these constraints within the feature ranges: "budget", "mix".');
    expect(engineErrorText(infeasible, 'ja', engineErrors, optimizationWording)).toBe('変数の範囲内でこれらの制約をすべて満たす条件はありません: 「budget」、「mix」。');
    expect(optimizationText(infeasible, 'ja')).toBe('変数の範囲内でこれらの制約をすべて満たす条件はありません: 「budget」、「mix」。');
    const outside = coded('optimization.range_outside_data', { feature: 'cement', lower: 1000, upper: 2500.5 });
    expect(optimizationText(outside, 'en')).toBe('The range of "cement" lies outside the training data (1000 to 2500.5).');
    expect(optimizationText(coded('optimization.model_missing', { model: null }), 'ja')).toBe('モデル「」の学習済みファイルがありません。削除された可能性があります。');
    // a code of the engine's catalogue outside the area's is said in the reader's language too
    expect(optimizationText(coded('step_constant', { column: 'k' }, 'the column "k" is constant'), 'ja')).toBe('列「k」はほぼ一定値のため、スケーリングできません');
    expect(optimizationText(coded('not_a_code', {}, 'the engine said so'), 'ja')).toBe('the engine said so');
    expect(optimizationText('Traceback: boom', 'ja')).toBe('Traceback: boom');
    expect(optimizationText('', 'ja')).toBeNull();
  });

  it('optimal design: files by name, lists joined per language, row reasons as constraints', () => {
    const file = coded('file_not_a_number', { file: 'runs', row: 1200, variable: 'x', value: 'abc' });
    expect(engineErrorText(file, 'en', designErrors, designWording)).toBe('Runs file: row 1200 has "abc" for "x", which is not a number.');
    expect(designText(file, 'ja')).toBe('実験ファイル: 1200行目の「x」の値「abc」は数値ではありません。');
    const estimable = coded('model_not_estimable', { terms: ['a*b', 'a^2'], equalities: ['a + b = 1', 'c = 0'] });
    expect(designText(estimable, 'en')).toBe(
      'The model cannot be estimated in this region: a*b, a^2 cannot be told apart from the other terms, because every run must satisfy a + b = 1; c = 0. Remove these terms (a custom model) or change the constraints.',
    );
    expect(designText(estimable, 'ja')).toContain('すべての実験が a + b = 1、c = 0 を満たすため、a*b、a^2 を');
    const reasons = [
      { code: 'range', variable: 'x', low: 0, high: 1 },
      { code: 'levels', variable: 'k', levels: ['a', 'b'] },
      { code: 'constraint', label: 'x + y <= 1' },
    ];
    const outside = coded('run_outside', { row: 3, constraints: 'x', reasons });
    expect(designText(outside, 'en')).toBe('Runs file: row 3 cannot be used ("x" is outside 0 to 1; "k" is not one of a, b; breaks x + y <= 1).');
    expect(designText(outside, 'ja')).toBe('実験ファイルの3行目は使えません（「x」が0〜1の範囲外です、「k」がa, bのいずれでもありません、制約 x + y <= 1 を満たしていません）。');
    // a missing parameter stays as written; an engine code outside the area's catalogue is said in the reader's
    // language, one no catalogue knows by its English message
    expect(designText(coded('term_unknown', { term: 'q' }), 'en')).toBe('The model term "q" uses "{variable}", which is not a variable.');
    expect(designText(coded('optimization.no_model', {}), 'ja')).toBe('学習済みモデルを1つ以上選択してください。');
    expect(designText(coded('not_a_code', {}), 'ja')).toBe('English message');
    expect(isInputError(file)).toBe(true);
    expect(isInputError('ValueError: boom')).toBe(false);
    expect(isInputError(null)).toBe(false);
  });
});
