import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import { DataGrid, type GridColDef } from '@mui/x-data-grid';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import EChart from '../../charts/EChart';
import ConfirmDialog from '../../components/ConfirmDialog';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { useGridLocale } from '../../components/gridLocale';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatInteger } from '../../lib/format';
import { PALETTE } from '../training/charts';
import { formatMetric } from '../training/labels';
import { deletePrediction, downloadPredictions, isTablePrediction, usePrediction, useResultRows } from './api';
import { NS, PredictionState } from './PredictionListPage';

/** A prediction: progress while it runs, then its summary and the result table beside the input rows. */
export default function PredictionReport() {
  const { t } = useTranslation(NS);
  const { prediction_id: id = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const localeText = useGridLocale();
  const { data: p, isLoading } = usePrediction(id);
  const [pagination, setPagination] = useState({ page: 0, pageSize: 50 });
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const rows = useResultRows(id, pagination.page + 1, pagination.pageSize, p?.state === 'done');
  usePageTitle(p ? t('report.title', { name: p.name }) : null);

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

  if (isLoading) return <PageLoading />;
  if (!p) return null;
  const running = p.state === 'queued' || p.state === 'running';
  // this page shows tables' predictions: class or cluster counts, or statistics of the predicted value
  const res = isTablePrediction(p) ? p.result : null;
  const counts = (p.project_type === 'discriminant_analysis' || p.project_type === 'clustering') && p.result ? p.result.counts : null;
  const stats = (p.project_type === 'regression' || p.project_type === 'soft_sensor') && p.result ? p.result.stats : null;

  const chart = () => {
    if (counts) {
      const keys = Object.keys(counts);
      return (
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
    }
    if (p.project_type === 'dimensional_compression' && rows.data && rows.data.outputs.length >= 2) {
      const [a, b] = [rows.data.columns.indexOf(rows.data.outputs[0]), rows.data.columns.indexOf(rows.data.outputs[1])];
      return (
        <EChart
          ariaLabel={t('report.map')}
          height={300}
          option={{
            animation: false,
            grid: { left: 50, right: 20, top: 20, bottom: 40 },
            xAxis: { type: 'value', scale: true, name: rows.data.outputs[0] },
            yAxis: { type: 'value', scale: true, name: rows.data.outputs[1] },
            series: [{ type: 'scatter', symbolSize: 5, data: rows.data.rows.map((r) => [r[a], r[b]]), itemStyle: { color: PALETTE[0] } }],
          }}
        />
      );
    }
    return null;
  };

  return (
    <>
      <PageHeader
        title={p.name}
        subtitle={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1, alignItems: 'center' }}>
            {t(`types.${p.project_type}`, { ns: 'training' })} · <PredictionState state={p.state} />
          </Box>
        }
        actions={
          <>
            <Button startIcon={<ArrowBackIcon />} onClick={() => navigate('/prediction')}>
              {t('report.back')}
            </Button>
            <Button variant="contained" startIcon={<DownloadIcon />} disabled={p.state !== 'done'} onClick={() => void downloadPredictions(p)}>
              {t('actions.download')}
            </Button>
            <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setDeleting(true)}>
              {t('actions.delete')}
            </Button>
          </>
        }
      />
      {running && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }} role="status" aria-live="polite">
          <Typography variant="body2" sx={{ mb: 1 }}>
            {t('report.running')} {Math.round(p.progress * 100)} % {p.message ? `— ${p.message}` : ''}
          </Typography>
          <LinearProgress variant="determinate" value={p.progress * 100} />
        </Paper>
      )}
      {p.state === 'failed' && (
        <Alert severity="error" sx={{ mb: 2 }}>
          <strong>{t('report.failed')}</strong>: {p.error}
        </Alert>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: counts || p.project_type === 'dimensional_compression' ? '1fr 1fr' : '1fr' }, gap: 2, mb: 2 }}>
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
        {p.state === 'done' && chart() && (
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
              {counts ? t('report.counts') : t('report.map')}
            </Typography>
            {chart()}
          </Paper>
        )}
      </Box>
      {p.state === 'done' && (
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
              paginationModel={pagination}
              onPaginationModelChange={setPagination}
              pageSizeOptions={[25, 50, 100]}
              disableRowSelectionOnClick
              localeText={localeText}
              density="compact"
            />
          </Box>
        </Paper>
      )}
      <ConfirmDialog
        open={deleting}
        title={t('report.deleteTitle')}
        text={t('report.deleteText', { name: p.name })}
        confirmLabel={t('actions.delete')}
        destructive
        busy={busy}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          setBusy(true);
          try {
            await deletePrediction(p.id);
            await qc.invalidateQueries({ queryKey: ['prediction'] });
            showSnackbar(t('report.deleted'));
            navigate('/prediction');
          } finally {
            setBusy(false);
          }
        }}
      />
    </>
  );
}
