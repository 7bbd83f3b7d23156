import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import OperationsPage from './OperationsPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

i18n.addResourceBundle('en', 'operations', en, true, true);
i18n.addResourceBundle('ja', 'operations', ja, true, true);

/** /admin/operations: the worker pool, the queue and recent failures (platform administrators). */
export default function OperationsArea(_props: AreaProps) {
  return <OperationsPage />;
}
