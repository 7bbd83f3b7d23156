import type { AreaProps } from '../../app/area';
import '../training/i18nBundle';
import './i18nBundle';
import PredictionListPage from './PredictionListPage';
import PredictionReport from './PredictionReport';
import PredictionWizard from './PredictionWizard';
import { useParams } from 'react-router';
import { area } from '../../app/area';
import { useProject } from '../training/api';
import PageLoading from '../../components/PageLoading';

const Images = area(() => import('../images'));

/** /prediction/report/{report_type}/{id}: image reports (analysis, classification) are drawn by features/images. */
function Report() {
  const { report_type } = useParams();
  if (report_type === 'analysis' || report_type === 'classification') return <Images page="prediction-report" />;
  return <PredictionReport />;
}

const isImageType = (t: string | undefined) => t === 'analysis' || t === 'classification';

/** The inference wizard: image projects (analysis, classification) get the images area's wizard. */
function Wizard({ fromModel }: { fromModel: boolean }) {
  const { project_id = '', prediction_type } = useParams();
  // From a model the path has no type: the project's own answer (train/result serves every type, and the tabular
  // wizard reads it from the same cache) says which wizard it is, so no other area is asked for a project it lacks.
  const project = useProject(fromModel ? project_id : undefined);
  if (!fromModel) return isImageType(prediction_type) ? <Images page="predict" /> : <PredictionWizard />;
  if (project.isPending) return <PageLoading />;
  return isImageType(project.data?.project_type) ? <Images page="predict" /> : <PredictionWizard />;
}


/**
 * Prediction (SPEC §2): 'list' (/prediction), 'register' (/prediction/register/{project_id}/{prediction_type}),
 * 'register:from-model' (/training/prediction/register/{project_id}/{model_key}) and the report routes of each type.
 */
export default function PredictionArea({ page }: AreaProps) {
  if (page === 'register' || page === 'register:from-model') return <Wizard fromModel={page === 'register:from-model'} />;
  if (page === 'report') return <Report />;
  if (page.startsWith('report')) return <PredictionReport />;
  return <PredictionListPage />;
}
