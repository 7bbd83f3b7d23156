import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import ConfirmDialog from '../../components/ConfirmDialog';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { deletePrediction, downloadPredictions, usePrediction } from './api';
import { NS, PredictionState } from './PredictionListPage';
import { ChartSection, countsOf, ResultsSection, RunSection, SummarySection } from './ReportSections';

/** A prediction: progress while it runs, then its summary and the result table beside the input rows. */
export default function PredictionReport() {
  const { t } = useTranslation(NS);
  const { prediction_id: id = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { data: p, isLoading } = usePrediction(id);
  const [pagination, setPagination] = useState({ page: 0, pageSize: 50 });
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  usePageTitle(p ? t('report.title', { name: p.name }) : null);

  if (isLoading) return <PageLoading />;
  if (!p) return null;
  const chartBeside = countsOf(p) || p.project_type === 'dimensional_compression';

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
      <RunSection p={p} />
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: chartBeside ? '1fr 1fr' : '1fr' }, gap: 2, mb: 2 }}>
        <SummarySection p={p} />
        <ChartSection p={p} paging={pagination} />
      </Box>
      <ResultsSection p={p} paging={pagination} onPaging={setPagination} />
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
