import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { DataGrid, type GridColDef, type GridPaginationModel } from '@mui/x-data-grid';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import EChart from '../../charts/EChart';
import InfoGrid from '../../components/InfoGrid';
import { useGridLocale } from '../../components/gridLocale';
import { formatDateTime, formatInteger } from '../../lib/format';
import { PALETTE } from '../training/charts';
import { formatMetric } from '../training/labels';
import { isTablePrediction, useResultRows, type Prediction } from './api';
import { NS } from './PredictionListPage';

/**
 * The sections of a table prediction's report (PredictionReport.tsx): its run, summary, chart and result rows. The
 * chart and the table read the same page of rows (one query, shared by its key).
 */

/** Class or cluster counts of a classifying prediction, or null. */
export const countsOf = (p: Prediction) => ((p.project_type === 'discriminant_analysis' || p.project_type === 'clustering') && p.result ? p.result.counts : null);

/** Progress while the prediction runs; its error when it failed. */
export function RunSection({ p }: { p: Prediction }) {
  const { t } = useTranslation(NS);
  if (p.state === 'queued' || p.state === 'running') {
    return (
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }} role="status" aria-live="polite">
        <Typography variant="body2" sx={{ mb: 1 }}>
          {t('report.running')} {Math.round(p.progress * 100)} % {p.message ? `— ${p.message}` : ''}
        </Typography>
        <LinearProgress variant="determinate" value={p.progress * 100} />
      </Paper>
    );
  }
  if (p.state !== 'failed') return null;
  return (
    <Alert severity="error" sx={{ mb: 2 }}>
      <strong>{t('report.failed')}</strong>: {p.error}
    </Alert>
  );
}

/** What was predicted with what, and the figures of the predicted values. */
export function SummarySection({ p }: { p: Prediction }) {
  const { t } = useTranslation(NS);
  // this page shows tables' predictions: statistics of the predicted value, rows and the condition applied
  const res = isTablePrediction(p) ? p.result : null;
  const stats = (p.project_type === 'regression' || p.project_type === 'soft_sensor') && p.result ? p.result.stats : null;
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
        {t('report.summary')}
      </Typography>
      <InfoGrid
        items={[
          { label: t('fields.project'), value: p.project_name },
          { label: t('fields.model'), value: p.model_key },
          { label: t('fields.dataset'), value: p.test_dataset },
          { label: t('fields.created'), value: formatDateTime(p.created_at) },
          ...(res ? [{ label: t('fields.rows'), value: formatInteger(res.rows) }] : []),
          ...(stats
            ? [
                { label: t('report.mean'), value: formatMetric(stats.mean) },
                { label: t('report.min'), value: formatMetric(stats.min) },
                { label: t('report.max'), value: formatMetric(stats.max) },
                ...(stats.missing ? [{ label: t('report.missing'), value: formatInteger(stats.missing) }] : []),
              ]
            : []),
          ...(res?.condition_applied ? [{ label: t('report.conditionApplied'), value: res.condition_applied }] : []),
        ]}
      />
    </Paper>
  );
}

/** The counts of a classifying prediction, or the map of a dimensional compression's first two outputs (the page shown). */
export function ChartSection({ p, paging }: { p: Prediction; paging: GridPaginationModel }) {
  const { t } = useTranslation(NS);
  const rows = useResultRows(p.id, paging.page + 1, paging.pageSize, p.state === 'done').data;
  const counts = countsOf(p);
  if (p.state !== 'done') return null;
  let chart = null;
  if (counts) {
    const keys = Object.keys(counts);
    chart = (
      <EChart
        ariaLabel={t('report.counts')}
        height={260}
        option={{
          animation: false,
          grid: { left: 60, right: 20, top: 20, bottom: 50 },
          tooltip: { trigger: 'axis' },
          xAxis: { type: 'category', data: keys, axisLabel: { rotate: keys.length > 6 ? 30 : 0 } },
          yAxis: { type: 'value' },
          series: [{ type: 'bar', data: keys.map((k) => counts[k]), itemStyle: { color: PALETTE[0] } }],
        }}
      />
    );
  } else if (p.project_type === 'dimensional_compression' && rows && rows.outputs.length >= 2) {
    const [a, b] = [rows.columns.indexOf(rows.outputs[0]), rows.columns.indexOf(rows.outputs[1])];
    chart = (
      <EChart
        ariaLabel={t('report.map')}
        height={300}
        option={{
          animation: false,
          grid: { left: 50, right: 20, top: 20, bottom: 40 },
          xAxis: { type: 'value', scale: true, name: rows.outputs[0] },
          yAxis: { type: 'value', scale: true, name: rows.outputs[1] },
          series: [{ type: 'scatter', symbolSize: 5, data: rows.rows.map((r) => [r[a], r[b]]), itemStyle: { color: PALETTE[0] } }],
        }}
      />
    );
  }
  if (!chart) return null;
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {counts ? t('report.counts') : t('report.map')}
      </Typography>
      {chart}
    </Paper>
  );
}

/** The result rows beside the input rows, paged by the server; the model's outputs stand out. */
export function ResultsSection({ p, paging, onPaging }: { p: Prediction; paging: GridPaginationModel; onPaging: (m: GridPaginationModel) => void }) {
  const { t } = useTranslation(NS);
  const localeText = useGridLocale();
  const rows = useResultRows(p.id, paging.page + 1, paging.pageSize, p.state === 'done');
  const columns: GridColDef[] = useMemo(
    () =>
      (rows.data?.columns ?? []).map((c, i) => ({
        field: `c${i}`,
        headerName: c,
        minWidth: rows.data?.outputs.includes(c) ? Math.min(320, 40 + c.length * 8) : 110,
        flex: 1,
        headerClassName: rows.data?.outputs.includes(c) ? 'output-column' : undefined,
        cellClassName: rows.data?.outputs.includes(c) ? 'output-column' : undefined,
        // model outputs are rounded for reading; input values are shown as they are in the file
        valueFormatter: (v: unknown) => (rows.data?.outputs.includes(c) && typeof v === 'number' ? formatMetric(v) : v === null ? '' : String(v)),
      })),
    [rows.data],
  );
  const gridRows = useMemo(
    () => (rows.data?.rows ?? []).map((r, i) => Object.fromEntries([['id', (rows.data!.page - 1) * rows.data!.page_size + i], ...r.map((v, j) => [`c${j}`, v])])),
    [rows.data],
  );
  if (p.state !== 'done') return null;
  return (
    <Paper variant="outlined" sx={{ height: 560, '& .output-column': { bgcolor: 'rgba(25,118,210,0.08)', fontWeight: 600 } }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, px: 2, pt: 1.5 }}>
        {t('report.results')}
      </Typography>
      <Box sx={{ height: 510 }}>
        <DataGrid
          rows={gridRows}
          columns={columns}
          loading={rows.isFetching && !rows.data}
          rowCount={rows.data?.total ?? 0}
          paginationMode="server"
          paginationModel={paging}
          onPaginationModelChange={onPaging}
          pageSizeOptions={[25, 50, 100]}
          disableRowSelectionOnClick
          localeText={localeText}
          density="compact"
        />
      </Box>
    </Paper>
  );
}
