import Button from '@mui/material/Button';
import AddIcon from '@mui/icons-material/Add';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { useCanWrite } from '../../api/me';
import FilterSelect from '../../components/FilterSelect';
import ListPage from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { formatDateTime } from '../../lib/format';
import { type PlatformProject, type Status, STATUSES, useIsPlatformAdmin, useProjects } from './api';
import { detailsPath, NS, StatusChip } from './common';

export default function ProjectListPage() {
  const { t } = useTranslation(NS);
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<Status | 'all'>('all');
  const projects = useProjects(status);
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
    <ListPage
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
      filters={<FilterSelect ns={NS} prefix="status" allValue="all" value={status} values={STATUSES} onChange={setStatus} minWidth={200} />}
      result={projects}
      columns={columns}
      rowKey={(row) => String(row.id)}
      rowPath={(row) => detailsPath(String(row.id))}
      openOnClick
      pageSizes={[25, 50, 100]}
      roomy
      sx={{ height: 520 }}
      empty={t('empty')}
    />
  );
}
