import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import type { GridColDef, GridPaginationModel } from '@mui/x-data-grid';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import FilterSelect from '../../components/FilterSelect';
import PageHeader from '../../components/PageHeader';
import PagedGrid from '../../components/PagedGrid';
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
  const [pagination, setPagination] = useState<GridPaginationModel>({ page: 0, pageSize: 50 });
  const list = useAudit(pagination.page + 1, pagination.pageSize, action);
  const columns: GridColDef<AuditEvent>[] = [
    { field: 'created_at', headerName: t('col.time'), width: 160, sortable: false, valueFormatter: (v) => formatDateTime(v as string) },
    { field: 'actor_email', headerName: t('col.who'), flex: 1, minWidth: 180, sortable: false },
    { field: 'action', headerName: t('col.action'), width: 180, sortable: false, renderCell: (p) => <ActionChip action={p.row.action} /> },
    { field: 'route', headerName: t('col.call'), flex: 1.2, minWidth: 220, sortable: false, valueGetter: (_v, row) => `${row.method} ${row.route}` },
    { field: 'subject_id', headerName: t('col.subject'), width: 120, sortable: false, valueFormatter: (v) => (v ? String(v).slice(0, 13) : '') },
    { field: 'status', headerName: t('col.status'), width: 80, sortable: false },
    { field: 'ip', headerName: t('col.ip'), width: 120, sortable: false },
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
        <PagedGrid
          rows={list.data?.items}
          total={list.data?.total}
          columns={columns}
          loading={list.isFetching}
          paging={pagination}
          onPaging={setPagination}
          pageSizes={[25, 50, 100]}
          disableColumnMenu
          sx={{ border: 0 }}
          empty={t('empty')}
        />
      </Paper>
    </>
  );
}
