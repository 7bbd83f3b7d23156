import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { DATABASES, makeTestApp, registerAndLogin, type TestApp, upload } from './helpers.js';
import { pdfInfo, pdfPages } from './pdf-text.js';

// A made-up process table with Japanese column names: 120 rows, 収率 = 2·温度 − 圧力 + noise; 等級 from 収率.
function table(): string {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const rows = ['温度,圧力,触媒,収率,等級'];
  for (let i = 0; i < 120; i++) {
    const a = 20 + rand() * 40;
    const b = 1 + rand() * 9;
    const c = rand() * 5;
    const y = 2 * a - b + 0.5 * c + (rand() - 0.5) * 4;
    rows.push([a.toFixed(2), b.toFixed(2), c.toFixed(2), y.toFixed(2), y > 75 ? '良' : y > 55 ? '可' : '不可'].join(','));
  }
  return rows.join('\n');
}

/** Issue 15: the training report as a PDF, read back as text, in the caller's language. */
describe.each(DATABASES)('training report PDF on %s', (kind) => {
  let t: TestApp;
  let alice: Awaited<ReturnType<typeof registerAndLogin>>;
  let dataset: string;
  const call = (method: string, url: string, payload?: unknown, lang = 'en', auth?: Record<string, string>) =>
    t.app.inject({ method: method as 'GET', url, payload: payload as object, headers: { ...(auth ?? alice.auth), 'accept-language': lang } });
  const body = (res: LightMyRequestResponse) => res.json().detail.response;

  async function train(prefix: string, payload: object) {
    const p = body(await call('POST', `/api/${prefix}/register/${dataset}`, payload));
    expect(p.project_id).toBeTruthy();
    await call('POST', `/api/train/model/${p.project_id}`);
    const started = body(await call('GET', `/api/${prefix}/project/${p.project_id}`));
    await t.app.ctx.jobs.waitFor(started.job.id, 300_000);
    // cross-validation and importances may finish after the model (pending); wait for them too
    for (let i = 0; i < 300; i++) {
      const v = body(await call('GET', `/api/${prefix}/project/${p.project_id}`));
      if (v.models.every((m: { state: string; pending: unknown }) => m.state !== 'training' && !m.pending)) return v;
      await new Promise((r) => setTimeout(r, 1000));
    }
    throw new Error('models still pending');
  }

  beforeAll(async () => {
    t = await makeTestApp(kind, { config: { workers: 1 } });
    alice = await registerAndLogin(t.app, 'reporter');
    dataset = body(await upload(t.app, alice.auth, { name: 'process.csv', content: table() })).id;
  }, 900_000);
  afterAll(() => t?.close());

  it('regression: leaderboard with test and CV columns, what chose the model, metrics, charts, importances and settings, in Japanese', async () => {
    const p = await train('regress', {
      name: '収率モデル',
      target_variables: ['収率'],
      feature_variables: ['温度', '圧力', '触媒'],
      cross_validation: 3,
      models: [{ algorithm: 'linear' }, { algorithm: 'random_forest', params: { n_estimators: 30 } }],
    });
    expect(p.models.map((m: { state: string }) => m.state)).toEqual(['done', 'done']);
    const best = p.models.find((m: { model_key: string }) => m.model_key === p.best_model_key);
    const res = await call('GET', `/api/regress/report/pdf/${p.project_id}/${best.model_key}`, undefined, 'ja');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toContain('.pdf');
    const pdf = res.rawPayload;
    expect(pdfInfo(pdf).Title).toMatch(/^収率モデル — ./);
    const pages = pdfPages(pdf);
    const text = pages.join('\n');
    for (const s of ['学習レポート', '設定', '目的変数', '収率', '説明変数', '温度, 圧力, 触媒', 'モデルの比較', '交差検証の平均', '最良モデルは交差検証スコアで選んでいます', '評価指標', '予測値と実測値（テスト）', '残差（テスト）', '特徴量の重要度', '使用したハイパーパラメータ']) {
      expect(text, s).toContain(s);
    }
    expect(text.replace(/\s+/g, '')).toContain('R²（テスト）');
    // Both models in the leaderboard, the chosen one starred, with their figures as the API gives them.
    for (const m of p.models) {
      const line = text.split('\n').find((l) => l.includes(m.model_key) && /完了/.test(l));
      expect(line, m.model_key).toBeTruthy();
      expect(line!.startsWith('★') || line!.trim().startsWith('★')).toBe(m.model_key === p.best_model_key);
      expect(line).toContain(Number(m.metrics.r2).toFixed(4));
      expect(line).toContain(Number(m.cv.mean).toFixed(4));
    }
    pages.forEach((pg, i) => expect(pg).toContain(`${i + 1} / ${pages.length} ページ`));
  }, 400_000);

  it('discriminant analysis in English: confusion matrix, per-class table and ROC; the query can choose the language', async () => {
    const p = await train('discriminant/analysis', {
      name: 'grade',
      target_variables: ['等級'],
      feature_variables: ['温度', '圧力', '触媒'],
      cross_validation: 3,
      models: [{ algorithm: 'lda' }],
    });
    const m = p.models[0];
    expect(m.state).toBe('done');
    const res = await call('GET', `/api/discriminant/analysis/report/pdf/${p.project_id}/${m.model_key}?lang=en`, undefined, 'ja');
    expect(res.statusCode).toBe(200);
    const text = pdfPages(res.rawPayload).join('\n');
    for (const s of ['Training report', 'Leaderboard', 'CV mean', 'Confusion matrix (test)', 'Per class', 'ROC curve (test)', 'Hyper-parameters used', '不可', '良']) {
      expect(text, s).toContain(s);
    }
    expect(text.replace(/\s+/g, '')).toContain('Accuracy(test)');
    expect(text).toContain(Number(m.metrics.accuracy).toFixed(4));
  }, 400_000);

  it("another organisation's report is not found; an untrained model is refused", async () => {
    const bob = await registerAndLogin(t.app, 'outsider', 'Other Org');
    const p = body(await call('POST', `/api/regress/register/${dataset}`, { name: 'untrained', target_variables: ['収率'], feature_variables: ['温度'], models: [{ algorithm: 'linear' }] }));
    const key = p.models[0].model_key;
    expect((await call('GET', `/api/regress/report/pdf/${p.project_id}/${key}`, undefined, 'en', bob.auth)).statusCode).toBe(404);
    const res = await call('GET', `/api/regress/report/pdf/${p.project_id}/${key}`, undefined, 'ja');
    expect(res.statusCode).toBe(409);
    expect(JSON.stringify(res.json())).toContain('まだ学習されていません');
  });
});
