import i18n from 'i18next';
import type { AreaProps } from '../../app/area';
import en from './i18n/en.json';
import ja from './i18n/ja.json';
import SettingsPage from './SettingsPage';

i18n.addResourceBundle('en', 'installation', en, true, true);
i18n.addResourceBundle('ja', 'installation', ja, true, true);

/** /admin/settings: the installation's settings (bank account, hosted-API review), for platform administrators. */
export default function InstallationArea(_props: AreaProps) {
  return <SettingsPage />;
}
