import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import '../training/i18nBundle'; // project type names in the model picker
import AdminReviewPage from './AdminReviewPage';
import CreatePage from './CreatePage';
import DetailsPage from './DetailsPage';
import EditPage from './EditPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import ListPage from './ListPage';

i18n.addResourceBundle('en', 'platform', en, true, true);
i18n.addResourceBundle('ja', 'platform', ja, true, true);

/** Hosted model APIs (SPEC §2 'Other' projects list; §3 'Platform project', 'Credential', 'Request statistics'). */
export default function PlatformArea({ page }: AreaProps) {
  if (page === 'new') return <CreatePage />;
  if (page === 'details') return <DetailsPage />;
  if (page === 'edit') return <EditPage />;
  if (page === 'admin') return <AdminReviewPage />;
  return <ListPage />;
}
