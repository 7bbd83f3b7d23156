import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import '../training/i18nBundle';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import PredictionListPage from './PredictionListPage';
import PredictionReport from './PredictionReport';
import PredictionWizard from './PredictionWizard';

i18n.addResourceBundle('en', 'prediction', en, true, true);
i18n.addResourceBundle('ja', 'prediction', ja, true, true);

/**
 * Prediction (SPEC §2): 'list' (/prediction), 'register' (/prediction/register/{project_id}/{prediction_type}),
 * 'register:from-model' (/training/prediction/register/{project_id}/{model_key}) and the report routes of each type.
 */
export default function PredictionArea({ page }: AreaProps) {
  if (page === 'register' || page === 'register:from-model') return <PredictionWizard />;
  if (page.startsWith('report')) return <PredictionReport />;
  return <PredictionListPage />;
}
