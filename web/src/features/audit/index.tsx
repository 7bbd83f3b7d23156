import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import AuditPage from './AuditPage';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

i18n.addResourceBundle('en', 'audit', en, true, true);
i18n.addResourceBundle('ja', 'audit', ja, true, true);

/** /audit: the organisation's audit log (owners and administrators). */
export default function AuditArea(_props: AreaProps) {
  return <AuditPage />;
}
