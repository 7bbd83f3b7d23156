import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import FilterSelect from '../../components/FilterSelect';
import ListPage from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import PageHeader from '../../components/PageHeader';
import { useListPage } from '../../components/useListPage';
import { formatDateTime } from '../../lib/format';
import { ACTIONS, type AuditEvent, useAudit } from './api';

const NS = 'audit';
const PAGE_SIZES = [25, 50, 100];

function ActionChip({ action }: { action: string }) {
  const { t } = useTranslation(NS);
  const color = action === 'sign_in_failed' ? 'error' : action === 'delete' || action === 'member_remove' || action === 'key_revoke' ? 'warning' : action.startsWith('sign') ? 'default' : 'info';
  return <Chip size="small" variant="outlined" color={color} label={t(`action.${action}`, { defaultValue: action })} />;
}

export default function AuditPage() {
  const { t } = useTranslation(NS);
  const { data: me } = useMe();
  const allowed = me?.role === 'owner' || me?.role === 'admin';
  const list = useListPage({ pageSizes: PAGE_SIZES, defaultPageSize: 50 });
  const action = list.filter('action', ACTIONS);
  const result = useAudit(list.params.page, list.params.page_size, action);
  usePageTitle(t('title'));
  const columns: ListColumn<AuditEvent>[] = [
    { field: 'created_at', headerName: t('col.time'), width: 160, render: (e) => formatDateTime(e.created_at) },
    { field: 'actor_email', headerName: t('col.who'), minWidth: 180 },
    { field: 'action', headerName: t('col.action'), width: 180, render: (e) => <ActionChip action={e.action} /> },
    { field: 'route', headerName: t('col.call'), minWidth: 220, render: (e) => `${e.method} ${e.route}` },
    { field: 'subject_id', headerName: t('col.subject'), width: 120, render: (e) => (e.subject_id ? String(e.subject_id).slice(0, 13) : '') },
    { field: 'status', headerName: t('col.status'), width: 80 },
    { field: 'ip', headerName: t('col.ip'), width: 120 },
  ];
  if (me && !allowed) {
    return (
      <>
        <PageHeader title={t('title')} />
        <Alert severity="info">{t('forbidden')}</Alert>
      </>
    );
  }
  return (
    <ListPage
      title={t('title')}
      subtitle={t('subtitle')}
      list={list}
      filters={<FilterSelect ns={NS} prefix="action" allValue="" value={action} values={ACTIONS} onChange={(a) => list.setFilter('action', a)} minWidth={240} testId="audit-filter" />}
      result={result}
      columns={columns}
      rowKey={(e) => String(e.id)}
      roomy
      sx={{ height: 620 }}
      empty={t('empty')}
    />
  );
}
