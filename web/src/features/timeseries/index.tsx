import { useParams } from 'react-router';
import type { AreaProps } from '../../app/area';
import '../training/i18nBundle';
import DetailsPage from './DetailsPage';
import './i18nBundle';
import PredictionReport from './PredictionReport';
import RegisterWizard from './RegisterWizard';
import ReportPage from './ReportPage';
import ThresholdPage from './ThresholdPage';
import { isTsType } from './api';
import NotFound from '../../app/NotFound';

/** Time-series anomaly detection (SPEC §2): register:<type>, details, result, report, threshold, prediction-report. */
export default function TimeSeriesArea({ page }: AreaProps) {
  const params = useParams();
  const [kind, type] = page.split(':');
  if (kind === 'register' && isTsType(type)) return <RegisterWizard key={type} type={type} />;
  if (kind === 'details' || kind === 'result') return <DetailsPage key={params.project_id} />;
  if (kind === 'report') return <ReportPage />;
  if (kind === 'threshold') return <ThresholdPage />;
  if (kind === 'prediction-report') return <PredictionReport />;
  return <NotFound />;
}
