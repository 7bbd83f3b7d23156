import fs from 'node:fs';
import path from 'node:path';
import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { engineErrorText, isEngineCode } from '../../i18n/engine-errors.js';
import { type Lang, localize } from '../../i18n/messages.js';
import { figuresAt, percentile, rates, thresholdForMissRate } from '@mitate/rules';
import { M } from './messages.js';
import { type ImageDeps } from './base.js';
import { modelSummary } from '../training/stored.js';
import { readImageReport } from './stored.js';

// A trained model's result at the threshold in force, and a threshold chosen by hand or by a rule.

/** A threshold rule in `lang`: a code of the engine catalogue (image_threshold_rule_<code>) with its parameters, as the
 * engine's report and POST update/threshold store it; a text stored before rules were codes is shown as it is. */
function ruleText(rule: unknown, params: unknown, lang: Lang): string | null {
  if (typeof rule !== 'string' || !rule) return null;
  const code = `image_threshold_rule_${rule}`;
  if (!isEngineCode(code)) return rule;
  return engineErrorText(JSON.stringify({ code, params: params && typeof params === 'object' ? params : {} }), lang);
}

type HeldScore = { label: string; score: number; split: string };
type ThresholdedReport = { threshold?: number; metrics: Record<string, unknown>; gallery: { score: number; predicted: string }[] };
/** An OK/NG report seen at the threshold in force: its test figures (all but ROC AUC, which no threshold changes) and
 * the gallery's predicted classes. At the threshold training chose, the engine's own figures are kept. */
function atThreshold<R extends ThresholdedReport>(report: R, test: HeldScore[], threshold: number): R {
  if (report.threshold === threshold || !test.length) return report;
  const figures = figuresAt(test.map((s) => s.label), test.map((s) => s.score), threshold);
  return {
    ...report,
    metrics: { ...report.metrics, ...figures },
    gallery: report.gallery.map((g) => ({ ...g, predicted: g.score >= threshold ? 'NG' : 'OK' })),
  };
}

type ThresholdAsk = { threshold?: number; target_miss_rate?: number; ok_percentile?: number };

/** The threshold asked for, or derived from a target miss rate / an OK percentile on validation scores, with its rule
 * as a catalogue code (image_threshold_rule_<code>) and parameters. */
function chooseThreshold(b: ThresholdAsk, val: HeldScore[]): { t: number; rule: string; params: Record<string, number> } {
  if (b.threshold !== undefined) return { t: b.threshold, rule: 'manual', params: {} };
  if (b.target_miss_rate !== undefined) {
    const ng = val.filter((s) => s.label === 'NG');
    if (!ng.length) throw new AppError(422, M.noNgScores, {}, 'target_miss_rate');
    const t = thresholdForMissRate(val.map((s) => s.label), val.map((s) => s.score), b.target_miss_rate);
    return { t, rule: 'target_miss_rate', params: { miss_rate: b.target_miss_rate } };
  }
  if (b.ok_percentile !== undefined) {
    const ok = val.filter((s) => s.label === 'OK').map((s) => s.score);
    if (!ok.length) throw new AppError(422, M.thresholdInput, {}, 'ok_percentile');
    return { t: percentile(ok, b.ok_percentile), rule: 'ok_percentile', params: { percentile: b.ok_percentile } };
  }
  throw new AppError(422, M.thresholdInput, {}, 'threshold');
}

export async function detail(d: ImageDeps, auth: AuthContext, projectId: string, key: string, lang: Lang = 'en') {
  const p = await d.getProject(auth, projectId);
  const m = await d.getModel(auth, projectId, key);
  const dir = d.runDir(m);
  if (m.state !== 'done' || !dir || !fs.existsSync(path.join(dir, 'report.json'))) {
    throw new AppError(409, { en: 'The model "{model}" has not been trained yet.', ja: 'モデル「{model}」はまだ学習されていません。' }, { model: m.model_key });
  }
  const report = await readImageReport(dir);
  const v = await d.view(auth, p);
  const model = v.models.find((x) => x.model_key === key)!;
  const threshold = model.threshold ?? report.threshold ?? null;
  // the rule of the threshold in force: the one saved by POST update/threshold, else the one training used
  const saved = modelSummary(m);
  const rule = saved.threshold_rule !== undefined ? ruleText(saved.threshold_rule, saved.threshold_rule_params, lang) : ruleText(report.threshold_rule, report.threshold_rule_params, lang);
  const held = report.scores;
  const test = held.filter((s) => s.split === 'test');
  return {
    project: v,
    model,
    report: p.project_type === 'analysis' && threshold !== null ? atThreshold(report, test, threshold) : report,
    threshold,
    threshold_rule: threshold === null ? null : rule,
    rates: p.project_type === 'analysis' && threshold !== null ? rates(test.map((s) => s.label), test.map((s) => s.score), threshold) : null,
  };
}

/** The HTML report is made at training: when another threshold is in force, a notice in `lang` saying so and
 * what it gives on the test images (the figures of the result page), to open the report with; else null. */
export async function reportNotice(d: ImageDeps, auth: AuthContext, projectId: string, key: string, lang: Lang): Promise<string | null> {
  const r = await detail(d, auth, projectId, key, lang);
  if (r.project.project_type !== 'analysis' || r.threshold === null || r.report.threshold === undefined || r.report.threshold === r.threshold) return null;
  const m = r.report.metrics;
  const pct = (v: number | null | undefined) => (v == null ? '—' : `${(v * 100).toFixed(1)} %`);
  const fig = (v: number | null | undefined) => (v == null ? '—' : v.toFixed(3));
  const t = (v: number) => String(Number(v.toFixed(4)));
  return localize(lang, M.reportThresholdInForce, {
    trained: t(r.report.threshold),
    current: t(r.threshold),
    rule: r.threshold_rule ?? '',
    miss: pct(m.miss_rate),
    over: pct(m.over_detection_rate),
    accuracy: fig(m.accuracy),
    f1: fig(m.f1),
  });
}

/** POST update/threshold: a threshold, or one derived from a target miss rate / an OK percentile on validation scores. */
export async function updateThreshold(d: ImageDeps, auth: AuthContext, projectId: string, key: string, b: ThresholdAsk, lang: Lang = 'en') {
  const p = await d.getProject(auth, projectId);
  if (p.project_type !== 'analysis') throw new AppError(422, M.thresholdNeedsAnalysis, {}, 'threshold');
  const r = await detail(d, auth, projectId, key);
  const scores = r.report.scores;
  const { t, rule, params } = chooseThreshold(b, scores.filter((s) => s.split === 'validation'));
  const m = await d.getModel(auth, projectId, key);
  const summary = { ...modelSummary(m), threshold: t, threshold_rule: rule, threshold_rule_params: params };
  // the model's figures (project page, training list) follow the threshold in force, as the result page's do
  const metrics = atThreshold(r.report, scores.filter((s) => s.split === 'test'), t).metrics;
  await d.runs.setModelFigures(auth.orgId, m.id, { summary_json: JSON.stringify(summary), metrics_json: JSON.stringify(metrics) });
  return detail(d, auth, projectId, key, lang);
}
