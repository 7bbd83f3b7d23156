import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Step from '@mui/material/Step';
import StepButton from '@mui/material/StepButton';
import Stepper from '@mui/material/Stepper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TuneIcon from '@mui/icons-material/Tune';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useDataset } from '../datasets/api';
import StatisticsTab from '../datasets/StatisticsTab';
import { CorrelationSection, DistributionSection, MatrixSection, ScatterSection, StatisticsTable, TimeSeriesSection } from './sections';

const TABS = ['statistics', 'distributions', 'scatter', 'matrix', 'correlation', 'timeseries'] as const;
type TabKey = (typeof TABS)[number];

/** /visualization/details/{dataset_id}: the wizard of SPEC §2 (dataset, statistics) with one tab per kind of chart. */
export default function VisualizationDetailsPage() {
  const { t } = useTranslation('visualization');
  const { dataset_id: id = '' } = useParams();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const q = useDataset(id);
  usePageTitle(q.data ? `${q.data.name} – ${t('title')}` : null);
  if (q.isLoading) return <PageLoading />;
  if (!q.data) return <Alert severity="error">{t('notFound')}</Alert>;
  const d = q.data;
  const tabs = TABS.filter((k) => k !== 'timeseries' || !!d.datetime_column);
  const tab: TabKey = (tabs as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as TabKey) : 'statistics';
  const wizard = params.get('step') === 'dataset' ? 0 : 1;
  const setTab = (k: string) => setParams((p) => { p.set('tab', k); p.delete('step'); return p; }, { replace: true });
  return (
    <Box>
      <PageHeader
        title={d.name}
        subtitle={t('subtitle')}
        actions={
          <Button variant="outlined" startIcon={<TuneIcon />} onClick={() => navigate(`/pre-processing/details/${encodeURIComponent(d.id)}`)}>
            {t('preprocessThis')}
          </Button>
        }
      />
      <Stepper nonLinear activeStep={wizard} sx={{ mb: 2, maxWidth: 480 }}>
        <Step completed>
          <StepButton onClick={() => setParams((p) => { p.set('step', 'dataset'); return p; }, { replace: true })}>{t('wizard.dataset')}</StepButton>
        </Step>
        <Step>
          <StepButton onClick={() => setParams((p) => { p.delete('step'); return p; }, { replace: true })}>{t('wizard.statistics')}</StepButton>
        </Step>
      </Stepper>
      {wizard === 0 ? (
        <Box sx={{ mb: 2 }}>
          <InfoGrid
            items={[
              { label: t('info.rows'), value: formatInteger(d.row_count) },
              { label: t('info.columns'), value: formatInteger(d.column_count) },
              { label: t('info.datetime'), value: d.datetime_column ?? '–' },
              { label: t('info.file'), value: d.file_name },
              { label: t('info.created'), value: formatDateTime(d.created_at) },
              { label: t('info.preprocessed'), value: d.preprocessed ? <Chip size="small" color="secondary" label={t('info.yes')} /> : t('info.no') },
              ...(d.parent_dataset_name ? [{ label: t('info.parent'), value: d.parent_dataset_name }] : []),
            ]}
          />
          <Button sx={{ mt: 2 }} variant="contained" onClick={() => setParams((p) => { p.delete('step'); return p; }, { replace: true })}>
            {t('next')}
          </Button>
        </Box>
      ) : (
        <>
          <Tabs value={tab} onChange={(_, v) => setTab(v)} variant="scrollable" sx={{ mb: 2, borderBottom: 1, borderColor: 'divider' }}>
            {tabs.map((k) => (
              <Tab key={k} value={k} label={t(`tabs.${k}`)} />
            ))}
          </Tabs>
          {tab === 'statistics' && (
            <>
              <StatisticsTab dataset={d} />
              <Box sx={{ mt: 2 }}>
                <StatisticsTable dataset={d} />
              </Box>
            </>
          )}
          {tab === 'distributions' && <DistributionSection dataset={d} columns={d.columns} />}
          {tab === 'scatter' && <ScatterSection dataset={d} columns={d.columns} />}
          {tab === 'matrix' && <MatrixSection dataset={d} columns={d.columns} />}
          {tab === 'correlation' && <CorrelationSection dataset={d} columns={d.columns} />}
          {tab === 'timeseries' && <TimeSeriesSection dataset={d} columns={d.columns} />}
        </>
      )}
    </Box>
  );
}
