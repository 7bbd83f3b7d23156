import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import FilterSelect from '../../components/FilterSelect';
import ListTable, { type ListColumn } from '../../components/ListTable';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { ACTIONS, type AuditEvent, useAudit } from './api';

const NS = 'audit';

function ActionChip({ action }: { action: string }) {
  const { t } = useTranslation(NS);
  const color = action === 'sign_in_failed' ? 'error' : action === 'delete' || action === 'member_remove' || action === 'key_revoke' ? 'warning' : action.startsWith('sign') ? 'default' : 'info';
  return <Chip size="small" variant="outlined" color={color} label={t(`action.${action}`, { defaultValue: action })} />;
}

export default function AuditPage() {
  const { t } = useTranslation(NS);
  usePageTitle(t('title'));
  const { data: me } = useMe();
  const allowed = me?.role === 'owner' || me?.role === 'admin';
  const [action, setAction] = useState('');
  const [pagination, setPagination] = useState({ page: 0, pageSize: 50 });
  const list = useAudit(pagination.page + 1, pagination.pageSize, action);
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
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <FilterSelect
        label={t('filter')}
        allLabel={t('all')}
        allValue=""
        value={action}
        values={ACTIONS}
        labelOf={(a) => t(`action.${a}`)}
        onChange={(a) => {
          setAction(a);
          setPagination((p) => ({ ...p, page: 0 }));
        }}
        minWidth={240}
        testId="audit-filter"
      />
      <Paper variant="outlined" sx={{ height: 620 }}>
        <ListTable
          label={t('title')}
          rows={list.data?.items}
          rowKey={(e) => String(e.id)}
          total={list.data?.total ?? 0}
          columns={columns}
          loading={list.isFetching}
          page={pagination.page}
          pageSize={pagination.pageSize}
          onPage={(page, pageSize) => setPagination({ page, pageSize })}
          pageSizes={[25, 50, 100]}
          roomy
          empty={t('empty')}
        />
      </Paper>
    </>
  );
}
