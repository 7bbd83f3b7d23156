import AlertTitle from '@mui/material/AlertTitle';
import i18n from 'i18next';
import { useTranslation } from 'react-i18next';
import LinkAlert from '../../components/LinkAlert';
import { useProjectLock } from './api';
import { invoicePath, NS } from './common';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

i18n.addResourceBundle('en', NS, en, true, true);
i18n.addResourceBundle('ja', NS, ja, true, true);

/** On a platform project page: 'project locked for unpaid invoice' (SPEC §8) while an invoice is overdue. */
export default function ProjectLockNotice({ projectId }: { projectId: string }) {
  const { t } = useTranslation(NS);
  const lock = useProjectLock(projectId);
  if (!lock.data?.locked) return null;
  const first = lock.data.invoices[0];
  return (
    <LinkAlert severity="error" sx={{ mb: 2 }} data-testid="project-locked" to={first && invoicePath(first.id)} linkLabel={t('lock.open')}>
      <AlertTitle>{t('lock.locked')}</AlertTitle>
      {t('lock.hint', { numbers: lock.data.invoices.map((i) => i.number).join(', ') })}
    </LinkAlert>
  );
}
