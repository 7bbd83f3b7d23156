import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DownloadIcon from '@mui/icons-material/Download';
import PictureAsPdfIcon from '@mui/icons-material/PictureAsPdf';
import TimelineIcon from '@mui/icons-material/Timeline';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { detailsPath, downloadModel, downloadReport, downloadReportPdf, type ProjectType, useReport } from './api';
import { NS } from './labels';
import {
  ClassificationSections,
  ClusterSections,
  CoefficientsSection,
  HyperparametersSection,
  ImportanceSections,
  MetricsSections,
  ProjectionSections,
  RegressionSections,
  ReportNotes,
  TimeSeriesSection,
  TuningSections,
} from './reportSections';

/** One model's report (SPEC §2 'Results and reports'): metrics, charts of its type, importances, CV folds, hyper-parameters. */
export default function ReportPage({ type }: { type?: ProjectType }) {
  const { t } = useTranslation(NS);
  const params = useParams();
  const projectId = params.project_id ?? '';
  const key = params.model ?? params.model_key ?? '';
  const navigate = useNavigate();
  const { data, isLoading } = useReport(type ?? 'regression', projectId, key);
  usePageTitle(data ? t('report.title', { model: data.model.model_key }) : null);
  if (isLoading) return <PageLoading />;
  if (!data) return null;
  const { project: p, model: m, report: r } = data;
  // each section component renders nothing when the report has no data for it; their panels share one grid

  return (
    <>
      <PageHeader
        title={`${p.name} — ${r.label ?? m.model_key}`}
        subtitle={[
          r.test_rows
            ? t('report.rows', { train: r.train_rows, test: r.test_rows, seconds: (r.seconds ?? 0).toFixed(1) })
            : t('report.rowsUnsupervised', { rows: r.train_rows, seconds: (r.seconds ?? 0).toFixed(1) }),
          r.trained_on ? t('report.trainedOnDask', { scheduler: r.trained_on.scheduler, workers: r.trained_on.workers }) : null,
        ]
          .filter(Boolean)
          .join(' · ')}
        actions={
          <>
            <Button startIcon={<ArrowBackIcon />} onClick={() => navigate(detailsPath(p.project_type, p.project_id))}>
              {t('report.back')}
            </Button>
            <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => void downloadReport(p, m)}>
              {t('report.downloadHtml')}
            </Button>
            <Button variant="outlined" startIcon={<PictureAsPdfIcon />} onClick={() => void downloadReportPdf(p, m)}>
              {t('report.downloadPdf')}
            </Button>
            <Button variant="outlined" startIcon={<DownloadIcon />} onClick={() => void downloadModel(p, m)}>
              {t('report.downloadModel')}
            </Button>
            <Button variant="contained" startIcon={<TimelineIcon />} onClick={() => navigate(`/training/prediction/register/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`)}>
              {t('report.predict')}
            </Button>
            {(p.project_type === 'regression' || p.project_type === 'soft_sensor') && !p.lags.length && !p.windows.length && (
              <Button variant="outlined" onClick={() => navigate(`/training/optimization/register/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`)}>
                {t('report.optimize')}
              </Button>
            )}
          </>
        }
      />
      {r.pending && (
        <Alert severity="info" sx={{ mb: 2 }} role="status">
          {t('report.pending')}
        </Alert>
      )}
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, gap: 2 }}>
        <ReportNotes data={data} />
        <MetricsSections data={data} />
        <RegressionSections data={data} />
        <TimeSeriesSection data={data} />
        <CoefficientsSection data={data} />
        <ClassificationSections data={data} />
        <ClusterSections data={data} />
        <ProjectionSections data={data} />
        <ImportanceSections data={data} />
        <TuningSections data={data} />
        <HyperparametersSection data={data} />
      </Box>
    </>
  );
}
