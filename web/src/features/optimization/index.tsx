import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import '../training/i18nBundle'; // metric names (R², RMSE…) in the wizard's model details
import DetailsPage from './DetailsPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import ProjectListPage from './ProjectListPage';
import RegisterWizard from './RegisterWizard';
import ResultPage from './ResultPage';
import VisualizationPage from './VisualizationPage';

i18n.addResourceBundle('en', 'optimization', en, true, true);
i18n.addResourceBundle('ja', 'optimization', ja, true, true);

/**
 * Optimization (SPEC §2): 'list' (/optimization), 'register' and 'register:from-model' (the wizard, the latter
 * from /training/optimization/register/{project_id}/{model_key}), 'details', 'result' and 'visualization'.
 */
export default function OptimizationArea({ page }: AreaProps) {
  if (page === 'register' || page === 'register:from-model') return <RegisterWizard />;
  if (page === 'details') return <DetailsPage />;
  if (page === 'result') return <ResultPage />;
  if (page === 'visualization') return <VisualizationPage />;
  return <ProjectListPage />;
}
