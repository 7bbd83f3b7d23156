import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import DetailsPage from './DetailsPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import ProjectListPage from './ProjectListPage';
import RegisterPage from './RegisterPage';

i18n.addResourceBundle('en', 'statisticalAnalysis', en, true, true);
i18n.addResourceBundle('ja', 'statisticalAnalysis', ja, true, true);

/**
 * Statistical analysis (SPEC §2 'Statistics'): 'list' (/statistical-analysis), 'register'
 * (/statistical-analysis/register/{dataset_id}) and 'details' (/statistical-analysis/details/{project_id}).
 */
export default function StatisticalAnalysisArea({ page }: AreaProps) {
  if (page === 'register') return <RegisterPage />;
  if (page === 'details') return <DetailsPage />;
  return <ProjectListPage />;
}
