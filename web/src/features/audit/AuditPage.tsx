import Alert from '@mui/material/Alert';
import Chip from '@mui/material/Chip';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { DataGrid, type GridColDef, type GridPaginationModel } from '@mui/x-data-grid';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { useGridLocale } from '../../components/gridLocale';
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
  const localeText = useGridLocale();
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
      <TextField
        select
        size="small"
        label={t('filter')}
        value={action}
        onChange={(e) => {
          setAction(e.target.value);
          setPagination((p) => ({ ...p, page: 0 }));
        }}
        sx={{ mb: 2, minWidth: 240 }}
        slotProps={{ select: { inputProps: { 'data-testid': 'audit-filter' } } }}
      >
        <MenuItem value="">{t('all')}</MenuItem>
        {ACTIONS.map((a) => (
          <MenuItem key={a} value={a}>
            {t(`action.${a}`)}
          </MenuItem>
        ))}
      </TextField>
      <Paper variant="outlined" sx={{ height: 620 }}>
        <DataGrid
          rows={list.data?.items ?? []}
          columns={columns}
          loading={list.isFetching}
          localeText={localeText}
          paginationMode="server"
          rowCount={list.data?.total ?? 0}
          paginationModel={pagination}
          onPaginationModelChange={setPagination}
          pageSizeOptions={[25, 50, 100]}
          disableColumnMenu
          sx={{ border: 0 }}
          slots={{ noRowsOverlay: () => <Typography sx={{ p: 3, color: 'text.secondary', textAlign: 'center' }}>{t('empty')}</Typography> }}
        />
      </Paper>
    </>
  );
}
