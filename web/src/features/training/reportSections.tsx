import Alert from '@mui/material/Alert';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { histogramParts } from '../../charts/histogram';
import type { ReportData } from './api';
import { PALETTE } from './charts';
import { formatMetric, NS } from './labels';
import { bars, chart, groupsScatter, Section, SimpleTable } from './reportParts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Notes on how the model was evaluated: CV only or a small test set, sampling of a large table, scaled target units. */
export function ReportNotes({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const sections: ReactNode[] = [];
  const ev = r.evaluation;
  if (ev && (ev.mode === 'cv_only' || ev.small_test)) {
    sections.push(
      <Alert key="evaluation" severity={ev.mode === 'cv_only' ? 'info' : 'warning'} sx={{ mb: 2, alignSelf: 'start' }} role="note">
        {ev.mode === 'cv_only'
          ? t('report.cvOnly')
          : t(ev.headline === 'forward_validation' ? 'report.smallTestForward' : 'report.smallTest', { rows: ev.test_rows, min: ev.threshold })}
      </Alert>,
    );
  }
  const sm = r.sampling;
  if (sm?.large) {
    const num = (v: number | null | undefined) => (v ?? 0).toLocaleString('en');
    sections.push(
      <Alert key="sampling" severity="info" sx={{ mb: 2, alignSelf: 'start' }} role="note" data-testid="report-sampling">
        {sm.cv ? t('report.sampling', { folds: sm.cv.folds, rows: num(sm.cv.rows), how: t(`report.samplingHow.${sm.cv.sample}`), train: num(sm.final_fit_rows) }) : null}{' '}
        {t('report.samplingRest', { trainRows: num(sm.train_metric_rows), test: num(sm.test_rows), imp: num(sm.importance_rows), shap: num(sm.shap_rows), points: num(sm.chart_points) })}
      </Alert>,
    );
  }
  const units = r.target_units;
  if (units?.scaled) {
    sections.push(
      <Alert key="units" severity="info" sx={{ mb: 2, alignSelf: 'start' }} role="note">
        {t('report.targetUnits', { target: units.target, method: units.method })}
      </Alert>,
    );
  }
  return <>{sections}</>;
}

/** The repeated-CV spread and the metrics table (test or out-of-fold, and train). */
export function MetricsSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const ev = r.evaluation;
  const rcv = ev?.repeated_cv;
  const metricRows = Object.entries(r.metrics ?? {}).filter(([, v]) => typeof v === 'number' || v === null);
  const sections: ReactNode[] = [];
  if (rcv) {
    sections.push(
      <Section key="repeated" title={t('report.repeatedCv', { metric: t(`metrics.${rcv.metric === 'R²' ? 'r2' : rcv.metric.replace(/ /g, '_')}`, { defaultValue: rcv.metric }) })}>
        <SimpleTable
          head={[t('report.mean'), t('report.std'), t('report.p10'), t('report.p90'), t('report.foldsRepeats')]}
          rows={[[rcv.mean, rcv.std, rcv.low, rcv.high, `${rcv.folds} × ${rcv.repeats}`]]}
        />
      </Section>,
    );
  }
  sections.push(
    <Section key="metrics" title={t('report.metrics')}>
      <SimpleTable
        head={['', ev?.mode === 'cv_only' ? t('report.outOfFold') : r.test_rows ? t('report.test') : t('report.value'), ...(Object.keys(r.train_metrics ?? {}).length ? [t('report.train')] : [])]}
        rows={metricRows.map(([k, v]) => [t(`metrics.${k}`, { defaultValue: k }), v as number, ...(Object.keys(r.train_metrics ?? {}).length ? [r.train_metrics[k] as number] : [])])}
      />
    </Section>,
  );
  return <>{sections}</>;
}

/** Predicted vs actual, residuals and their histogram. */
export function RegressionSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.predicted_vs_actual) {
    const { actual, predicted } = ch.predicted_vs_actual;
    const known = [...actual, ...predicted].filter((v): v is number => v !== null);
    const lo = Math.min(...known);
    const hi = Math.max(...known);
    const res = ch.residuals ?? { predicted: [], residual: [] };
    sections.push(
      <Section key="pva" title={t('report.predictedVsActual')}>
        {chart(t('report.predictedVsActual'), {
          grid: { left: 55, right: 20, top: 20, bottom: 45 },
          tooltip: { trigger: 'item' },
          xAxis: { type: 'value', name: t('report.actual'), nameLocation: 'middle', nameGap: 28, scale: true },
          yAxis: { type: 'value', name: t('report.predicted'), scale: true },
          series: [
            { type: 'scatter', symbolSize: 4, data: actual.map((a, i) => [a, predicted[i]]), itemStyle: { color: PALETTE[0], opacity: 0.6 } },
            { type: 'line', data: [[lo, lo], [hi, hi]], symbol: 'none', lineStyle: { type: 'dashed', color: '#999' }, silent: true },
          ],
        })}
      </Section>,
      <Section key="res" title={t('report.residuals')}>
        {chart(t('report.residuals'), {
          grid: { left: 55, right: 20, top: 20, bottom: 45 },
          tooltip: { trigger: 'item' },
          xAxis: { type: 'value', name: t('report.predicted'), nameLocation: 'middle', nameGap: 28, scale: true },
          yAxis: { type: 'value', name: t('report.residual') },
          series: [
            {
              type: 'scatter',
              symbolSize: 4,
              data: res.predicted.map((v, i) => [v, res.residual[i]]),
              itemStyle: { color: PALETTE[1], opacity: 0.6 },
              markLine: { silent: true, symbol: 'none', data: [{ yAxis: 0 }], lineStyle: { color: '#999' } },
            },
          ],
        })}
      </Section>,
    );
    const h = ch.residual_histogram;
    if (h)
      sections.push(
        <Section key="hist" title={t('report.residualHistogram')}>
          {chart(t('report.residualHistogram'), {
            grid: { left: 45, right: 20, top: 20, bottom: 40 },
            ...histogramParts(h.edges, h.counts, { color: PALETTE[2], xName: t('report.residual') }),
            yAxis: { type: 'value' },
          })}
        </Section>,
      );
  }
  return <>{sections}</>;
}

/** Actual and predicted along time, train and test parts. */
export function TimeSeriesSection({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { project: p, report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.time_series) {
    const ts = ch.time_series;
    const times = [...ts.train.time, ...ts.test.time].map(String);
    const pad = (n: number) => Array(n).fill(null);
    sections.push(
      <Section key="ts" title={t('report.timeSeries')} wide>
        {chart(
          t('report.timeSeries'),
          {
            grid: { left: 55, right: 20, top: 40, bottom: 70 },
            tooltip: { trigger: 'axis' },
            legend: { top: 0 },
            dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
            xAxis: { type: 'category', data: times },
            yAxis: { type: 'value', scale: true, name: p.target_variables[0] },
            series: [
              { name: t('report.actual'), type: 'line', showSymbol: false, data: [...ts.train.actual, ...ts.test.actual], lineStyle: { width: 1 }, itemStyle: { color: '#555' } },
              { name: `${t('report.predicted')} (${t('report.trainPart')})`, type: 'line', showSymbol: false, data: [...ts.train.predicted, ...pad(ts.test.time.length)], lineStyle: { width: 1 }, itemStyle: { color: PALETTE[0] } },
              { name: `${t('report.predicted')} (${t('report.testPart')})`, type: 'line', showSymbol: false, data: [...pad(ts.train.time.length), ...ts.test.predicted], lineStyle: { width: 1.5 }, itemStyle: { color: PALETTE[1] } },
            ],
          },
          380,
        )}
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** Linear coefficients, with p-values when the model has them. */
export function CoefficientsSection({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { project: p, report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.coefficients) {
    sections.push(
      <Section key="coef" title={t('report.coefficients')}>
        <SimpleTable
          head={[
            t('report.feature'),
            t('report.coefficient'),
            ...(ch.coefficients[0]?.p_value !== undefined ? [t('report.pValue'), t('report.significant', { alpha: p.significance_level })] : []),
          ]}
          rows={ch.coefficients.map((c) => [
            c.feature,
            c.coefficient,
            ...(c.p_value !== undefined ? [c.p_value, c.significant ? t('wizard.yes') : t('wizard.no')] : []),
          ])}
        />
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** Confusion matrix, ROC curves and per-class scores. */
export function ClassificationSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.confusion_matrix) {
    const { labels, matrix } = ch.confusion_matrix;
    const max = Math.max(1, ...matrix.flat());
    sections.push(
      <Section key="cm" title={t('report.confusion')}>
        {chart(
          t('report.confusion'),
          {
            grid: { left: 100, right: 20, top: 10, bottom: 60 },
            tooltip: { position: 'top' },
            xAxis: { type: 'category', data: labels, name: t('report.predicted'), nameLocation: 'middle', nameGap: 45, axisLabel: { rotate: 30 } },
            yAxis: { type: 'category', data: labels, inverse: true },
            visualMap: { min: 0, max, show: false, inRange: { color: ['#f5f9ff', '#1976d2'] } },
            series: [{ type: 'heatmap', data: matrix.flatMap((row: number[], i: number) => row.map((v, j) => [j, i, v])), label: { show: true } }],
          },
          Math.max(260, labels.length * 40 + 80),
        )}
      </Section>,
    );
  }
  if (ch.roc?.length) {
    sections.push(
      <Section key="roc" title={t('report.roc')}>
        {chart(t('report.roc'), {
          grid: { left: 50, right: 20, top: 30, bottom: 70 },
          tooltip: { trigger: 'item' },
          legend: { type: 'scroll', bottom: 0 },
          xAxis: { type: 'value', min: 0, max: 1, name: t('report.fpr'), nameLocation: 'middle', nameGap: 28 },
          yAxis: { type: 'value', min: 0, max: 1, name: t('report.tpr') },
          series: [
            ...ch.roc.map((c, i) => ({
              name: `${c.class} (${c.auc === null ? '—' : c.auc.toFixed(3)})`,
              type: 'line',
              showSymbol: false,
              data: c.fpr.map((x, j) => [x, c.tpr[j]]),
              itemStyle: { color: PALETTE[i % PALETTE.length] },
            })),
            { type: 'line', data: [[0, 0], [1, 1]], symbol: 'none', silent: true, lineStyle: { type: 'dashed', color: '#aaa' } },
          ],
        })}
      </Section>,
    );
  }
  if (ch.per_class) {
    // scikit-learn's classification_report: a row per class, then the overall accuracy and the averages
    const classes = Object.entries(ch.per_class).filter((e): e is [string, Record<string, number>] => typeof e[1] === 'object' && !['macro avg', 'weighted avg', 'micro avg'].includes(e[0]));
    sections.push(
      <Section key="pc" title={t('report.perClass')}>
        <SimpleTable
          head={[t('report.class'), t('metrics.precision'), t('metrics.recall'), t('metrics.f1'), t('report.support')]}
          rows={classes.map(([c, v]) => [c, v.precision, v.recall, v['f1-score'], v.support])}
        />
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** Clusters on the first two components, their sizes, elbow, dendrogram and profiles. */
export function ClusterSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.pca_scatter) {
    sections.push(
      <Section key="clusters" title={t('report.clusters')}>
        {chart(t('report.clusters'), groupsScatter(ch.pca_scatter.x, ch.pca_scatter.y, ch.pca_scatter.cluster, t('report.cluster')), 360)}
      </Section>,
    );
    const sizes = r.metrics.cluster_sizes as Record<string, number>;
    sections.push(
      <Section key="sizes" title={t('report.clusterSizes')}>
        {chart(t('report.clusterSizes'), {
          grid: { left: 50, right: 20, top: 20, bottom: 40 },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'category', data: Object.keys(sizes).map((k) => (k === '-1' ? t('report.noiseCluster') : k)) },
          yAxis: { type: 'value' },
          series: [{ type: 'bar', data: Object.values(sizes), itemStyle: { color: PALETTE[0] } }],
        })}
      </Section>,
    );
  }
  if (ch.elbow) {
    sections.push(
      <Section key="elbow" title={t('report.elbow')}>
        {chart(t('report.elbow'), {
          grid: { left: 60, right: 50, top: 40, bottom: 40 },
          tooltip: { trigger: 'axis' },
          legend: { top: 0 },
          xAxis: { type: 'category', data: ch.elbow.k, name: 'k' },
          yAxis: [{ type: 'value', name: t('report.inertia') }, { type: 'value', name: t('metrics.silhouette') }],
          series: [
            { name: t('report.inertia'), type: 'line', data: ch.elbow.inertia, itemStyle: { color: PALETTE[0] } },
            { name: t('metrics.silhouette'), type: 'line', yAxisIndex: 1, data: ch.elbow.silhouette, itemStyle: { color: PALETTE[1] } },
          ],
        })}
      </Section>,
    );
  }
  if (ch.dendrogram) {
    const d = ch.dendrogram;
    sections.push(
      <Section key="dendro" title={t('report.dendrogram')}>
        {chart(t('report.dendrogram'), {
          grid: { left: 55, right: 20, top: 20, bottom: 30 },
          xAxis: { type: 'value', show: false, min: 0, max: d.leaves.length * 10 },
          yAxis: { type: 'value', name: t('report.distance') },
          series: d.icoord.map((xs: number[], i: number) => ({
            type: 'line',
            symbol: 'none',
            silent: true,
            data: xs.map((x, j) => [x, d.dcoord[i][j]]),
            lineStyle: { color: PALETTE[0], width: 1 },
          })),
        })}
      </Section>,
    );
  }
  if (ch.profiles && ch.profiles.features.length) {
    const { features, clusters, means } = ch.profiles;
    // each column scaled to 0..1 so inputs of different units share one colour scale
    const cols = features.map((_, j) => means.map((row) => row[j]).filter((v): v is number => v !== null));
    const scaled = means.map((row) =>
      row.map((v, j) => {
        if (v === null) return null;
        const c = cols[j];
        const lo = Math.min(...c);
        const hi = Math.max(...c);
        return hi > lo ? (v - lo) / (hi - lo) : 0.5;
      }),
    );
    sections.push(
      <Section key="profiles" title={t('report.profiles')} wide>
        {chart(
          t('report.profiles'),
          {
            grid: { left: 60, right: 20, top: 10, bottom: 110 },
            tooltip: { formatter: (x: any) => `${features[x.value[0]]} · ${clusters[x.value[1]]}: ${formatMetric(means[x.value[1]][x.value[0]])}` },
            xAxis: { type: 'category', data: features, axisLabel: { rotate: 50, fontSize: 10 } },
            yAxis: { type: 'category', data: clusters, name: t('report.cluster') },
            visualMap: { min: 0, max: 1, show: false, inRange: { color: ['#f5f9ff', '#e65100'] } },
            series: [{ type: 'heatmap', data: scaled.flatMap((row, i) => row.map((v, j) => [j, i, v])) }],
          },
          Math.max(240, clusters.length * 30 + 140),
        )}
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** The map of a projection, the scree plot, biplot and loadings. */
export function ProjectionSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { model: m, report: r } = data;
  const ch = r.charts ?? {};
  const sections: ReactNode[] = [];
  if (ch.map) {
    sections.push(
      <Section key="map" title={`${t('report.map')}${ch.map.color_label ? ` (${ch.map.color_label})` : ''}`} wide>
        {chart(t('report.map'), groupsScatter(ch.map.x, ch.map.y, ch.map.color, m.algorithm), 420)}
      </Section>,
    );
  }
  if (ch.scree) {
    sections.push(
      <Section key="scree" title={t('report.scree')}>
        {chart(t('report.scree'), {
          grid: { left: 50, right: 50, top: 40, bottom: 40 },
          tooltip: { trigger: 'axis' },
          legend: { top: 0 },
          xAxis: { type: 'category', data: ch.scree.ratio.map((_, i) => `PC${i + 1}`) },
          yAxis: [{ type: 'value', max: 1 }, { type: 'value', max: 1 }],
          series: [
            { name: t('report.ratio'), type: 'bar', data: ch.scree.ratio, itemStyle: { color: PALETTE[0] } },
            { name: t('report.cumulative'), type: 'line', yAxisIndex: 1, data: ch.scree.cumulative, itemStyle: { color: PALETTE[1] } },
          ],
        })}
      </Section>,
    );
  }
  if (ch.biplot) {
    const b = ch.biplot;
    sections.push(
      <Section key="biplot" title={t('report.biplot')}>
        {chart(
          t('report.biplot'),
          {
            grid: { left: 50, right: 20, top: 20, bottom: 40 },
            tooltip: { trigger: 'item' },
            xAxis: { type: 'value', name: 'PC1', scale: true },
            yAxis: { type: 'value', name: 'PC2', scale: true },
            series: [
              { type: 'scatter', symbolSize: 3, data: (ch.map?.x ?? []).map((x, i) => [x, ch.map?.y[i] ?? null]), itemStyle: { color: '#bbb' }, silent: true },
              ...b.features.map((f: string, i: number) => ({
                name: f,
                type: 'line',
                data: [[0, 0], [b.x[i], b.y[i]]],
                symbol: ['none', 'arrow'],
                symbolSize: 7,
                lineStyle: { color: PALETTE[i % PALETTE.length] },
                itemStyle: { color: PALETTE[i % PALETTE.length] },
                endLabel: { show: b.features.length <= 15, formatter: f, fontSize: 10 },
              })),
            ],
          },
          380,
        )}
      </Section>,
    );
  }
  if (ch.loadings) {
    const L = ch.loadings;
    sections.push(
      <Section key="loadings" title={t('report.loadings')}>
        {chart(
          t('report.loadings'),
          {
            grid: { left: 140, right: 20, top: 10, bottom: 40 },
            tooltip: { formatter: (x: any) => `${L.features[x.value[1]]} · PC${x.value[0] + 1}: ${formatMetric(x.value[2])}` },
            xAxis: { type: 'category', data: L.components.map((_, i) => `PC${i + 1}`) },
            yAxis: { type: 'category', data: L.features, axisLabel: { fontSize: 10, width: 130, overflow: 'truncate' } },
            visualMap: { min: -1, max: 1, show: false, inRange: { color: ['#c62828', '#ffffff', '#1976d2'] } },
            series: [{ type: 'heatmap', data: L.components.flatMap((row, i) => row.map((v, j) => [i, j, v])) }],
          },
          Math.max(260, L.features.length * 16 + 60),
        )}
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** Permutation importance and SHAP values. */
export function ImportanceSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { project: p, report: r } = data;
  const sections: ReactNode[] = [];
  const pi = r.permutation_importance ?? [];
  if (pi.length) {
    const title = p.project_type === 'clustering' ? t('report.clusterImportance') : p.project_type === 'dimensional_compression' ? t('report.pcaImportance') : t('report.permutation');
    const top = pi.slice(0, 25);
    sections.push(
      <Section key="pi" title={title} help={p.project_type === 'clustering' || p.project_type === 'dimensional_compression' ? undefined : t('report.permutationHelp')}>
        {chart(title, bars(top.map((x) => x.feature), top.map((x) => x.mean ?? 0)), Math.max(200, top.length * 22 + 40))}
      </Section>,
    );
  }
  if (r.shap?.length) {
    const top = r.shap.slice(0, 25);
    sections.push(
      <Section key="shap" title={t('report.shap')}>
        {chart(t('report.shap'), bars(top.map((x) => x.feature), top.map((x) => x.mean_abs ?? 0)), Math.max(200, top.length * 22 + 40))}
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** CV fold scores and auto-tuning trials. */
export function TuningSections({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const cvMetric = (name: string) => t(`metrics.${name === 'R²' ? 'r2' : name.replace(/ /g, '_')}`, { defaultValue: name });
  const sections: ReactNode[] = [];
  if (r.cv?.folds?.length) {
    sections.push(
      <Section key="cv" title={t('report.cv', { metric: cvMetric(r.cv.metric) })}>
        {chart(t('report.cv', { metric: cvMetric(r.cv.metric) }), {
          grid: { left: 50, right: 20, top: 20, bottom: 40 },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'category', data: r.cv.folds.map((_: number, i: number) => `${t('report.fold')} ${i + 1}`) },
          yAxis: { type: 'value', scale: true },
          series: [{ type: 'bar', data: r.cv.folds, itemStyle: { color: PALETTE[2] }, markLine: { symbol: 'none', data: [{ yAxis: r.cv.mean, name: t('report.mean') }], label: { position: 'insideEndTop', formatter: `${r.cv.aggregate === 'pooled_forward' ? t('report.pooled') : t('report.mean')} ${formatMetric(r.cv.mean)}` } } }],
        })}
      </Section>,
    );
  }
  const trials = r.auto_tune?.trials ?? [];
  if (trials.length) {
    let best = -Infinity;
    const running = trials.map((x) => (x.value != null && x.value > best ? (best = x.value) : best === -Infinity ? null : best));
    sections.push(
      <Section key="trials" title={t('report.trials', { objective: cvMetric(r.auto_tune.objective) })}>
        {chart(t('report.trials', { objective: cvMetric(r.auto_tune.objective) }), {
          grid: { left: 50, right: 20, top: 40, bottom: 40 },
          tooltip: { trigger: 'axis' },
          legend: { top: 0 },
          xAxis: { type: 'category', data: trials.map((x) => x.number), name: t('report.trial') },
          yAxis: { type: 'value', scale: true },
          series: [
            { name: t('report.score'), type: 'scatter', data: trials.map((x) => x.value), itemStyle: { color: PALETTE[0] } },
            { name: t('report.best'), type: 'line', step: 'end', data: running, itemStyle: { color: PALETTE[1] } },
          ],
        })}
      </Section>,
    );
  }
  return <>{sections}</>;
}

/** The hyper-parameters used, beside their defaults. */
export function HyperparametersSection({ data }: { data: ReportData }) {
  const { t } = useTranslation(NS);
  const { report: r } = data;
  const sections: ReactNode[] = [];
  sections.push(
    <Section key="hp" title={t('report.hyperparameters')}>
      <SimpleTable
        head={[t('report.name'), t('report.value'), t('report.defaultValue')]}
        rows={Object.entries(r.hyperparameters ?? {}).map(([k, v]) => [r.param_labels?.[k] ?? k, v as any, (r.defaults ?? {})[k] as any])}
      />
    </Section>,
  );
  return <>{sections}</>;
}
