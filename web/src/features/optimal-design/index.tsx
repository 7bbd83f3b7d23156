import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import DetailsPage from './DetailsPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import ProjectListPage from './ProjectListPage';
import RegisterWizard from './RegisterWizard';

i18n.addResourceBundle('en', 'optimalDesign', en, true, true);
i18n.addResourceBundle('ja', 'optimalDesign', ja, true, true);

/**
 * Optimal design (SPEC §2): 'list' (/optimal-design), 'register' (/optimal-design/register), 'details'
 * (/optimal-design/details/{project_id}, the newest round) and 'details:model' (…/{model}: one round by number).
 */
export default function Area({ page }: AreaProps) {
  if (page === 'register') return <RegisterWizard />;
  if (page === 'details' || page === 'details:model') return <DetailsPage />;
  return <ProjectListPage />;
}
