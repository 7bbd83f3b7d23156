import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import '../training/i18nBundle';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import PredictionListPage from './PredictionListPage';
import PredictionReport from './PredictionReport';
import PredictionWizard from './PredictionWizard';
import { useParams } from 'react-router';
import { area } from '../../app/area';
import { useQuery } from '@tanstack/react-query';
import { answer, http, per } from '../../api/typed';
import PageLoading from '../../components/PageLoading';

const Images = area(() => import('../images'));

/** /prediction/report/{report_type}/{id}: image reports (analysis, classification) are drawn by features/images. */
function Report() {
  const { report_type } = useParams();
  if (report_type === 'analysis' || report_type === 'classification') return <Images page="prediction-report" />;
  return <PredictionReport />;
}

/** The inference wizard: image projects (analysis, classification) get the images area's wizard. */
function Wizard({ fromModel }: { fromModel: boolean }) {
  const { project_id = '', prediction_type } = useParams();
  // From a model the path has no type: ask the images area whether the project is one of its own (404 if not).
  const image = useQuery({
    queryKey: ['images', 'is-image-project', project_id],
    queryFn: ({ signal }) =>
      answer(http.GET('/api/image/train/result/{project_id}', { params: { path: { project_id } }, ...per({ signal, silent: true }) })).then(
        () => true,
        () => false,
      ),
    enabled: fromModel,
  });
  if (!fromModel) return prediction_type === 'analysis' || prediction_type === 'classification' ? <Images page="predict" /> : <PredictionWizard />;
  if (image.isPending) return <PageLoading />;
  return image.data ? <Images page="predict" /> : <PredictionWizard />;
}

i18n.addResourceBundle('en', 'prediction', en, true, true);
i18n.addResourceBundle('ja', 'prediction', ja, true, true);

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
