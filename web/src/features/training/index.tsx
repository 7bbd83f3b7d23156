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

/** /training/result/report/{project_id}/{model_key}: the type comes from the project. */
function GenericReport() {
  const { project_id: id } = useParams();
  const { data } = useProject(id);
  if (!data) return <PageLoading />;
  return <ReportPage type={data.project_type} />;
}

/**
 * Training on tables (SPEC §2 'Training'): 'list', 'register:<type>', 'details[:<type>]', 'result:<type>' and
 * 'report[:<type>]' for regression, soft sensor, discriminant analysis, clustering and dimensional compression.
 * Image and time-series pages belong to other areas of work and show as unavailable here.
 */
export default function TrainingArea({ page }: AreaProps) {
  const [kind, type] = page.split(':');
  if (kind === 'list') return <ProjectListPage />;
  if (kind === 'register' && isProjectType(type)) return <RegisterWizard key={type} type={type} />;
  if ((kind === 'details' || kind === 'result') && (!type || isProjectType(type))) return <DetailsPage />;
  if (kind === 'report' && !type) return <GenericReport />;
  if (kind === 'report' && isProjectType(type)) return <ReportPage type={type} />;
  return <AreaUnavailable area="training" />;
}
