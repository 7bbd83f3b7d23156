import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import { GridActionsCellItem, type GridColDef } from '@mui/x-data-grid';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import PagedGrid from '../../components/PagedGrid';
import SearchField from '../../components/SearchField';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatNumber } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
import { deleteProject, detailsPath, optKeys, type Project, registerPath, useProjects } from './api';
import { NS, StateChip } from './labels';

const STATES = ['', 'done', 'running', 'failed', 'ready'] as const;

/** /optimization: projects with their state, searched and filtered, and the way to a new one. */
export default function ProjectListPage() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  usePageTitle(t('title'));
  const [state, setState] = useState('');
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), 400);
  const [paging, setPaging] = useState({ page: 0, pageSize: 20 });
  const { data, isFetching } = useProjects({ query, state, page: paging.page + 1, page_size: paging.pageSize });

  async function remove(p: Project) {
    if (!window.confirm(t('list.confirmDelete', { name: p.name }))) return;
    await deleteProject(p.id);
    showSnackbar(t('list.deleted'));
    await queryClient.invalidateQueries({ queryKey: optKeys.all });
  }

  const columns: GridColDef<Project>[] = [
    {
      field: 'name',
      headerName: t('list.name'),
      flex: 1.4,
      renderCell: ({ row }) => (
        <Link component={RouterLink} to={detailsPath(row.id)}>
          {row.name}
        </Link>
      ),
    },
    { field: 'state', headerName: t('list.state'), width: 120, renderCell: ({ row }) => <StateChip state={row.state} /> },
    { field: 'targets', headerName: t('list.targets'), flex: 1, valueGetter: (_v, row) => row.targets.map((x) => `${x.name} (${t(`goals.${x.goal}`)})`).join(', ') },
    { field: 'dataset_name', headerName: t('models.dataset'), flex: 1 },
    { field: 'algorithms', headerName: t('algorithm.title'), flex: 1, valueGetter: (_v, row) => row.algorithms.map((a) => t(`algorithms.${a}`)).join(', ') },
    {
      field: 'best',
      headerName: t('list.best'),
      flex: 1,
      valueGetter: (_v, row) => {
        const b = row.runs.find((r) => r.best)?.best;
        return b ? Object.entries(b.predictions).map(([k, v]) => `${k} ${formatNumber(v)}`).join(', ') : '';
      },
    },
    { field: 'created_at', headerName: t('list.created'), width: 170, valueFormatter: (v) => formatDateTime(v as string) },
    {
      field: 'actions',
      type: 'actions',
      width: 60,
      getActions: ({ row }) => [<GridActionsCellItem key="d" icon={<DeleteOutlineIcon />} label={t('list.delete')} onClick={() => void remove(row)} showInMenu={false} />],
    },
  ];

  return (
    <Box>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => navigate(registerPath)}>
            {t('list.new')}
          </Button>
        }
      />
      <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
        <Tabs value={state} onChange={(_, v) => { setState(v); setPaging((p) => ({ ...p, page: 0 })); }}>
          {STATES.map((s) => (
            <Tab key={s || 'all'} value={s} label={`${t(`states.${s || 'all'}`)} (${data?.counts[s || 'all'] ?? 0})`} />
          ))}
        </Tabs>
        <SearchField label={t('list.search')} value={search} onChange={setSearch} size="small" />
      </Box>
      <Box sx={{ height: 560 }}>
        <PagedGrid
          rows={data?.items}
          columns={columns}
          loading={isFetching && !data}
          total={data?.total}
          paging={paging}
          onPaging={setPaging}
          empty={t('list.empty')}
        />
      </Box>
    </Box>
  );
}
