import type { z } from 'zod';
import type { Lang } from '../../i18n/messages.js';
import { barsSvg, heatmapSvg, linesSvg, scatterSvg } from '../../pdf/charts.js';
import type { PdfBlock, PdfDocument } from '../../pdf/index.js';
import type { ModelReport } from './responses.js';
import { T } from './report-messages.js';

/**
 * A model's report as a PDF document model: the same content as the report page and the HTML report (leaderboard
 * with test and validation columns and what chose the best model, metrics, charts, importances, settings), in the
 * reader's language. Figures come from the engine's report.json; nothing is computed here but layout.
 */

/** What the PDF shows: the report call's answer (project, model row, report.json), typed by its one schema (responses.ts). */
export type ReportInput = z.infer<typeof ModelReport>;

/** The metrics of the leaderboard per type (the same as the project page's model table). */
const PRIMARY: Record<string, string[]> = {
  regression: ['r2', 'rmse', 'mae', 'mape'],
  soft_sensor: ['r2', 'rmse', 'mae', 'mape'],
  discriminant_analysis: ['accuracy', 'precision', 'recall', 'f1', 'roc_auc'],
  clustering: ['n_clusters', 'silhouette', 'davies_bouldin', 'noise'],
  dimensional_compression: ['n_components', 'explained_variance', 'trustworthiness'],
};

export function fmt(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v !== 'number') return typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (!Number.isFinite(v)) return '—';
  if (Number.isInteger(v)) return v.toLocaleString('en');
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3);
  return v.toFixed(a >= 100 ? 2 : 4);
}

type Texts = (typeof T)[Lang];

/** Notes on how far the figures can be trusted: pending figures, cross-validation only, a small test set, scaled target units. */
function notesOf(p: ReportInput['project'], r: ReportInput['report'], t: Texts): PdfBlock[] {
  const out: PdfBlock[] = [];
  const ev = r.evaluation ?? null;
  if (r.pending) out.push({ kind: 'paragraph', text: t.pending, tone: 'warning' });
  if (ev?.mode === 'cv_only') out.push({ kind: 'paragraph', text: t.cvOnly, tone: 'warning' });
  else if (ev?.small_test) out.push({ kind: 'paragraph', text: t.smallTest(Number(ev.test_rows), Number(ev.threshold), ev.headline === 'forward_validation'), tone: 'warning' });
  const tu = r.target_units ?? null;
  if (tu?.scaled) out.push({ kind: 'paragraph', text: t.targetUnits(String(tu.target ?? p.target_variables?.[0] ?? ''), String(tu.method ?? 'scaling')), tone: 'muted' });
  return out;
}

/** The settings section's rows: the project, the model, the data and how it was trained. */
function settingsOf(p: ReportInput['project'], m: ReportInput['model'], r: ReportInput['report'], t: Texts, label: string, supervised: boolean) {
  const settings: Array<{ label: string; value: string }> = [
    { label: t.project, value: String(p.name) },
    { label: t.model, value: `${m.model_key} (${label})` },
    { label: t.type, value: t.types[p.project_type] ?? String(p.project_type) },
    { label: t.dataset, value: `${p.parent_dataset_name} (${t.rowsOf(Number(p.number_of_data))})` },
  ];
  if (p.target_variables?.length) settings.push({ label: t.target, value: p.target_variables.join(', ') });
  settings.push({ label: t.features, value: (p.feature_variables ?? []).join(', ') });
  if (supervised) {
    const ratio = Number(p.split_ratio);
    settings.push({
      label: t.split,
      value: p.evaluation === 'cv_only' ? t.cvOnlySplit : p.split_time ? String(p.split_time) : `${Math.round(ratio * 100)} / ${100 - Math.round(ratio * 100)}`,
    });
    settings.push({ label: t.cvFolds, value: String(p.cross_validation ?? '—') });
  }
  settings.push({ label: t.autoTune, value: p.auto_tune ? t.trialsN(Number(p.number_of_trials)) : t.off });
  if (p.lags?.length || p.windows?.length) settings.push({ label: t.lagsWindows, value: `${p.lags.join(', ') || '—'} / ${p.windows.join(', ') || '—'}` });
  settings.push({ label: t.rowsUsed, value: r.test_rows ? `${fmt(r.train_rows)} / ${fmt(r.test_rows)}` : fmt(r.train_rows) });
  if (r.trained_on) settings.push({ label: t.trainedOn, value: t.daskCluster(r.trained_on.scheduler, r.trained_on.workers) });
  settings.push({ label: t.time, value: r.seconds != null ? t.seconds(Number(r.seconds)) : '—' });
  return settings;
}

/** The leaderboard: every model with its primary test figures, cross-validation and time; the best one starred. */
function leaderboardOf(p: ReportInput['project'], t: Texts, supervised: boolean): PdfBlock {
  const keys = PRIMARY[p.project_type] ?? [];
  const models = p.models ?? [];
  return {
    kind: 'table',
    columns: [
      { label: t.model },
      { label: t.state },
      ...keys.map((k) => ({ label: supervised ? t.testOf(t.metrics[k] ?? k) : (t.metrics[k] ?? k), align: 'right' as const })),
      ...(supervised ? [{ label: p.project_type === 'soft_sensor' ? t.cvPooled : t.cvMean, align: 'right' as const }] : []),
      { label: t.timeS, align: 'right' },
    ],
    rows: models.map((x) => {
      const figures: Record<string, unknown> = x.metrics ?? {};
      return [
      `${x.model_key === p.best_model_key ? '★ ' : ''}${x.model_key}`,
      t.states[x.state] ?? String(x.state),
      ...keys.map((k) => fmt(figures[k])),
      ...(supervised ? [fmt(x.cv?.mean)] : []),
      x.seconds != null ? Number(x.seconds).toFixed(1) : '—',
      ];
    }),
    emphasisRows: models.flatMap((x, i) => (x.model_key === p.best_model_key ? [i] : [])),
    fontSize: 7.5,
  };
}

/** The model's figures on the test set (or out of fold), beside the training set's when the report has them. */
function metricsTable(r: ReportInput['report'], t: Texts, metricRows: [string, unknown][], metricName: (k: string) => string): PdfBlock {
  const train = r.train_metrics ?? {};
  const hasTrain = Object.keys(train).length > 0;
  return {
    kind: 'table',
    columns: [
      { label: t.metric },
      { label: r.evaluation?.mode === 'cv_only' ? t.outOfFold : r.test_rows ? t.test : t.value, align: 'right' },
      ...(hasTrain ? [{ label: t.train, align: 'right' as const }] : []),
    ],
    rows: metricRows.map(([k, v]) => [metricName(k), fmt(v), ...(hasTrain ? [fmt(train[k])] : [])]),
  };
}

export function trainingReportPdf({ project: p, model: m, report: r }: ReportInput, lang: Lang, now = new Date()): PdfDocument {
  const t = T[lang];
  const metricName = (k: string) => t.metrics[k === 'R²' ? 'r2' : k.replace(/ /g, '_')] ?? k;
  const supervised = p.project_type !== 'clustering' && p.project_type !== 'dimensional_compression';
  const ch = r.charts ?? {};
  const ev = r.evaluation ?? null;
  const label = String(r.label ?? m.model_key);
  const stamp = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '—');
  const blocks: PdfBlock[] = [];
  const h = (text: string, level: 1 | 2 = 1) => blocks.push({ kind: 'heading', text, level });
  const chart = (svg: string, caption: string, width = 400) => blocks.push({ kind: 'image', format: 'svg', data: svg, width, caption });

  // ---- notes on how far the figures can be trusted ----------------------------------------------------------
  blocks.push(...notesOf(p, r, t));

  // ---- settings ---------------------------------------------------------------------------------------------
  h(t.settings);
  blocks.push({ kind: 'keyValue', rows: settingsOf(p, m, r, t, label, supervised) });

  // ---- leaderboard ------------------------------------------------------------------------------------------
  h(t.leaderboard);
  blocks.push({ kind: 'paragraph', text: t.chosenBy[p.best_model_basis] ?? '', tone: 'muted' });
  blocks.push(leaderboardOf(p, t, supervised));

  // ---- figures ----------------------------------------------------------------------------------------------
  const rcv = ev?.repeated_cv ?? null;
  if (rcv) {
    h(t.repeatedCv(metricName(String(rcv.metric))), 2);
    blocks.push({
      kind: 'table',
      columns: [t.mean, t.std, t.p10, t.p90, t.foldsRepeats].map((label) => ({ label, align: 'right' as const })),
      rows: [[fmt(rcv.mean), fmt(rcv.std), fmt(rcv.low), fmt(rcv.high), `${rcv.folds} × ${rcv.repeats}`]],
    });
  }
  const metricRows = Object.entries(r.metrics ?? {}).filter(([, v]) => typeof v === 'number' || v === null);
  if (metricRows.length) {
    h(t.metricsTitle, 2);
    blocks.push(metricsTable(r, t, metricRows, metricName));
  }
  if (r.cv?.folds?.length) {
    h(t.cvTitle(metricName(String(r.cv.metric))), 2);
    const rows = (r.cv.folds as number[]).map((v, i) => [`${t.fold} ${i + 1}`, fmt(v)]);
    if (r.cv.aggregate === 'pooled_forward') rows.push([t.mean, fmt(r.cv.fold_mean)], [t.pooled, fmt(r.cv.mean)]);
    else rows.push([t.mean, fmt(r.cv.mean)]);
    rows.push([t.std, fmt(r.cv.std)]);
    blocks.push({ kind: 'table', columns: [{ label: t.fold }, { label: t.score, align: 'right' }], rows });
  }

  const chartStart = blocks.length;
  if (ch.predicted_vs_actual) {
    chart(scatterSvg(ch.predicted_vs_actual.actual, ch.predicted_vs_actual.predicted, { xLabel: t.actual, yLabel: t.predicted, diagonal: true }), t.predictedVsActual);
    if (ch.residuals) chart(scatterSvg(ch.residuals.predicted, ch.residuals.residual, { xLabel: t.predicted, yLabel: t.residual, zeroLine: true }), t.residuals);
  }
  if (ch.time_series?.test) {
    const te = ch.time_series.test;
    const xs = (te.actual as unknown[]).map((_, i) => i);
    chart(linesSvg([{ name: t.actual, x: xs, y: te.actual }, { name: t.predicted, x: xs, y: te.predicted }], { xLabel: t.timeOrder, yLabel: String(p.target_variables?.[0] ?? '') }), t.timeSeries, 480);
  }
  if (ch.confusion_matrix) {
    const { labels, matrix } = ch.confusion_matrix;
    chart(heatmapSvg(labels.map(String), labels.map(String), matrix, { rowTitle: t.actual, colTitle: t.predicted }), t.confusion, 260);
  }
  if (ch.roc?.length) {
    chart(
      linesSvg(
        [...ch.roc.slice(0, 9).map((c) => ({ name: `${c.class} (AUC ${Number(c.auc).toFixed(3)})`, x: c.fpr, y: c.tpr })), { name: '', x: [0, 1], y: [0, 1], dashed: true }],
        { xLabel: t.fpr, yLabel: t.tpr, xRange: [0, 1], yRange: [0, 1] },
      ),
      t.roc,
      360,
    );
  }
  if (ch.per_class) {
    const classes = Object.entries(ch.per_class).flatMap(([k, v]) => (typeof v === 'object' && !['macro avg', 'weighted avg', 'micro avg'].includes(k) ? [[k, v] as const] : []));
    h(t.perClass, 2);
    blocks.push({
      kind: 'table',
      columns: [{ label: t.class }, ...[t.metrics.precision!, t.metrics.recall!, t.metrics.f1!, t.support].map((label) => ({ label, align: 'right' as const }))],
      rows: classes.map(([c, v]) => [c, fmt(v.precision), fmt(v.recall), fmt(v['f1-score']), fmt(v.support)]),
    });
  }
  if (ch.pca_scatter) chart(scatterSvg(ch.pca_scatter.x, ch.pca_scatter.y, { xLabel: 'PC1', yLabel: 'PC2', groups: ch.pca_scatter.cluster }), t.clusters);
  const sizes = r.metrics?.cluster_sizes as Record<string, number> | undefined;
  if (sizes && typeof sizes === 'object') chart(barsSvg(Object.keys(sizes).map((k) => `${t.cluster} ${k}`), Object.values(sizes)), t.clusterSizes, 380);
  if (ch.elbow) {
    chart(linesSvg([{ name: t.inertia, x: ch.elbow.k, y: ch.elbow.inertia }], { xLabel: 'k', yLabel: t.inertia }), `${t.elbow} — ${t.inertia}`, 360);
    chart(linesSvg([{ name: t.metrics.silhouette!, x: ch.elbow.k, y: ch.elbow.silhouette }], { xLabel: 'k', yLabel: t.metrics.silhouette! }), `${t.elbow} — ${t.metrics.silhouette}`, 360);
  }
  if (ch.map) chart(scatterSvg(ch.map.x, ch.map.y, { xLabel: '1', yLabel: '2', groups: ch.map.color ?? null }), `${t.map}${ch.map.color_label ? ` (${ch.map.color_label})` : ''}`);
  if (ch.scree?.ratio) {
    const comps = (ch.scree.ratio as number[]).map((_, i) => i + 1);
    chart(linesSvg([{ name: t.ratio, x: comps, y: ch.scree.ratio }, { name: t.cumulative, x: comps, y: ch.scree.cumulative ?? [] }], { xLabel: t.component, yLabel: t.ratio, yRange: [0, 1] }), t.scree, 360);
  }
  if (blocks.length > chartStart) blocks.splice(chartStart, 0, { kind: 'heading', text: t.charts, level: 1 });

  const pi = r.permutation_importance ?? [];
  const shap = r.shap ?? [];
  if (pi.length || shap.length) h(t.importance);
  if (pi.length) {
    const top = pi.slice(0, 25);
    const title = p.project_type === 'clustering' ? t.clusterImportance : p.project_type === 'dimensional_compression' ? t.pcaImportance : t.permutation;
    chart(barsSvg(top.map((x) => String(x.feature)), top.map((x) => x.mean)), title, 440);
  }
  if (shap.length) {
    const top = shap.slice(0, 25);
    chart(barsSvg(top.map((x) => String(x.feature)), top.map((x) => x.mean_abs)), t.shap, 440);
  }
  if (ch.coefficients?.length) {
    h(t.coefficients, 2);
    const c = ch.coefficients;
    const withP = c[0]?.p_value !== undefined;
    blocks.push({
      kind: 'table',
      columns: [{ label: t.feature }, { label: t.coefficient, align: 'right' }, ...(withP ? [{ label: t.stdError, align: 'right' as const }, { label: t.pValue, align: 'right' as const }] : [])],
      rows: c.map((x) => [String(x.feature), fmt(x.coefficient), ...(withP ? [fmt(x.std_error), fmt(x.p_value)] : [])]),
    });
  }

  h(t.hyperparameters);
  const defaults = r.defaults ?? {};
  blocks.push({
    kind: 'table',
    columns: [{ label: t.name }, { label: t.value }, { label: t.defaultValue }],
    rows: Object.entries(r.hyperparameters ?? {}).map(([k, v]) => [String((r.param_labels as Record<string, string> | undefined)?.[k] ?? k), fmt(v), fmt(defaults[k])]),
  });
  const trials = r.auto_tune?.trials ?? [];
  if (trials.length) {
    h(t.trials(metricName(String(r.auto_tune.objective))), 2);
    blocks.push({
      kind: 'table',
      columns: [{ label: t.trial, align: 'right', weight: 1 }, { label: t.score, align: 'right', weight: 1.5 }, { label: t.parameters, weight: 6 }],
      rows: trials.map((x) => [String(x.number), fmt(x.value), Object.entries(x.params ?? {}).map(([k, v]) => `${k}=${fmt(v)}`).join(', ')]),
    });
  }

  return {
    title: `${p.name} — ${label}`,
    subtitle: t.subtitle(t.types[p.project_type] ?? String(p.project_type), String(p.parent_dataset_name), stamp(m.trained_at)),
    language: lang,
    header: t.report,
    footer: t.generated(stamp(now.toISOString())),
    subject: t.report,
    blocks,
  };
}
