import type { AreaProps } from '../../app/area';
import AreaUnavailable from '../../app/AreaUnavailable';
import { useParams } from 'react-router';
import PageLoading from '../../components/PageLoading';
import { isProjectType, useProject } from './api';
import DetailsPage from './DetailsPage';
import './i18nBundle';
import ProjectListPage from './ProjectListPage';
import RegisterWizard from './RegisterWizard';
import ReportPage from './ReportPage';
import { area } from '../../app/area';

/** Image analysis and classification pages live in their own lazily loaded area (features/images). */
const Images = area(() => import('../images'));
const TimeSeries = area(() => import('../timeseries'));
const IMAGE_TYPES = ['analysis', 'classification'];

/** /training/result/threshold/{project_id}/{model_key}: OK/NG images and time-series detectors share the path. */
function GenericThreshold() {
  const { project_id: id } = useParams();
  const { data } = useProject(id);
  if (!data) return <PageLoading />;
  if (IMAGE_TYPES.includes(data.project_type)) return <Images page="result:threshold" />;
  if (data.project_type.startsWith('time_series')) return <TimeSeries page="threshold" />;
  return <AreaUnavailable area="training" />;
}

/** /training/result/report/{project_id}/{model_key}: the type comes from the project. */
function GenericReport() {
  const { project_id: id } = useParams();
  const { data } = useProject(id);
  if (!data) return <PageLoading />;
  if (IMAGE_TYPES.includes(data.project_type)) return <Images page="report" />;
  return <ReportPage type={isProjectType(data.project_type) ? data.project_type : undefined} />;
}

/** /training/details/{project_id} serves every type: image projects get the image page. */
function GenericDetails() {
  const { project_id: id } = useParams();
  const { data } = useProject(id);
  if (!data) return <PageLoading />;
  if (IMAGE_TYPES.includes(data.project_type)) return <Images page="details" />;
  return <DetailsPage />;
}

/**
 * Training on tables (SPEC §2 'Training'): 'list', 'register:<type>', 'details[:<type>]', 'result:<type>' and
 * 'report[:<type>]' for regression, soft sensor, discriminant analysis, clustering and dimensional compression.
 * Image pages are handed to features/images; the threshold page to images or time series by the project's type.
 */
export default function TrainingArea({ page }: AreaProps) {
  const [kind, type] = page.split(':');
  if (kind === 'list') return <ProjectListPage />;
  if (kind === 'classification' && (type === 'images' || type === 'class')) return <Images page={page} />;
  if (kind === 'result' && type === 'threshold') return <GenericThreshold />;
  if ((kind === 'register' || kind === 'result') && IMAGE_TYPES.includes(type)) return <Images page={page} />;
  if (kind === 'details' && !type) return <GenericDetails />;
  if (kind === 'register' && isProjectType(type)) return <RegisterWizard key={type} type={type} />;
  if ((kind === 'details' || kind === 'result') && (!type || isProjectType(type))) return <DetailsPage />;
  if (kind === 'report' && !type) return <GenericReport />;
  if (kind === 'report' && isProjectType(type)) return <ReportPage type={type} />;
  return <AreaUnavailable area="training" />;
}
