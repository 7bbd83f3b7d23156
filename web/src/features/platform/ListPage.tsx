import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import AddIcon from '@mui/icons-material/Add';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import FilterSelect from '../../components/FilterSelect';
import ListTable, { type ListColumn } from '../../components/ListTable';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { type PlatformProject, type Status, STATUSES, useIsPlatformAdmin, useProjects } from './api';
import { detailsPath, NS, StatusChip } from './common';

export default function ListPage() {
  const { t } = useTranslation(NS);
  usePageTitle(t('title'));
  const navigate = useNavigate();
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<Status | 'all'>('all');
  const list = useProjects(status);
  const admin = useIsPlatformAdmin();
  const model = (row: PlatformProject) => `${row.model.project_name} · ${row.model.model_key}`;
  const columns: ListColumn<PlatformProject>[] = [
    { field: 'name', headerName: t('col.name'), sortable: true, minWidth: 180 },
    { field: 'key', headerName: t('col.key'), sortable: true, width: 170 },
    { field: 'status', headerName: t('col.status'), sortable: true, width: 130, render: (row) => <StatusChip status={row.status} /> },
    { field: 'version', headerName: t('col.version'), sortable: true, width: 100, render: (row) => row.settings.version, sortValue: (row) => row.settings.version },
    { field: 'model', headerName: t('col.model'), sortable: true, minWidth: 180, render: model, sortValue: model },
    { field: 'created_at', headerName: t('col.created'), sortable: true, width: 170, render: (row) => formatDateTime(row.created_at) },
    { field: 'updated_at', headerName: t('col.updated'), sortable: true, width: 170, render: (row) => formatDateTime(row.updated_at) },
  ];
  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <>
            {admin.data?.platform_admin && (
              <Button component={RouterLink} to="/admin/platform" variant="outlined">
                {t('admin.link')}
              </Button>
            )}
            {canWrite && (
              <Button component={RouterLink} to="/platform/new" variant="contained" startIcon={<AddIcon />}>
                {t('new')}
              </Button>
            )}
          </>
        }
      />
      <FilterSelect
        label={t('filter')}
        allLabel={t('all')}
        allValue="all"
        value={status}
        values={STATUSES}
        labelOf={(s) => t(`status.${s}`)}
        onChange={setStatus}
        minWidth={200}
      />
      <Paper variant="outlined" sx={{ height: 520 }}>
        <ListTable
          label={t('title')}
          rows={list.data?.items}
          rowKey={(row) => String(row.id)}
          columns={columns}
          loading={list.isLoading}
          pageSizes={[25, 50, 100]}
          onOpen={(row) => navigate(detailsPath(String(row.id)))}
          roomy
          empty={t('empty')}
        />
      </Paper>
    </>
  );
}
