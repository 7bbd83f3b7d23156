import Button from '@mui/material/Button';
import AddIcon from '@mui/icons-material/Add';
import type { GridColDef } from '@mui/x-data-grid';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { useCanWrite } from '../../api/me';
import { usePageTitle } from '../../app/pageTitle';
import ClientGrid from '../../components/ClientGrid';
import FilterSelect from '../../components/FilterSelect';
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
  const columns: GridColDef<PlatformProject>[] = [
    { field: 'name', headerName: t('col.name'), flex: 1, minWidth: 180 },
    { field: 'key', headerName: t('col.key'), width: 170 },
    { field: 'status', headerName: t('col.status'), width: 130, renderCell: (p) => <StatusChip status={p.row.status} /> },
    { field: 'version', headerName: t('col.version'), width: 100, valueGetter: (_v, row) => row.settings.version },
    { field: 'model', headerName: t('col.model'), flex: 1, minWidth: 180, valueGetter: (_v, row) => `${row.model.project_name} · ${row.model.model_key}` },
    { field: 'created_at', headerName: t('col.created'), width: 170, valueFormatter: (v) => formatDateTime(v as string) },
    { field: 'updated_at', headerName: t('col.updated'), width: 170, valueFormatter: (v) => formatDateTime(v as string) },
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
      <ClientGrid rows={list.data?.items} columns={columns} loading={list.isLoading} empty={t('empty')} onOpen={(row) => navigate(detailsPath(String(row.id)))} />
    </>
  );
}
