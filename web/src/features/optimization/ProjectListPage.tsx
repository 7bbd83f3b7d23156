import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import ListTable, { type ListColumn, PAGE_SIZES } from '../../components/ListTable';
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

  const targets = (row: Project) => row.targets.map((x) => `${x.name} (${t(`goals.${x.goal}`)})`).join(', ');
  const algorithms = (row: Project) => row.algorithms.map((a) => t(`algorithms.${a}`)).join(', ');
  const best = (row: Project) => {
    const b = row.runs.find((r) => r.best)?.best;
    return b ? Object.entries(b.predictions).map(([k, v]) => `${k} ${formatNumber(v)}`).join(', ') : '';
  };
  const columns: ListColumn<Project>[] = [
    {
      field: 'name',
      headerName: t('list.name'),
      sortable: true,
      render: (row) => (
        <Link component={RouterLink} to={detailsPath(row.id)}>
          {row.name}
        </Link>
      ),
    },
    { field: 'state', headerName: t('list.state'), sortable: true, width: 120, render: (row) => <StateChip state={row.state} /> },
    { field: 'targets', headerName: t('list.targets'), sortable: true, render: targets, sortValue: targets },
    { field: 'dataset_name', headerName: t('models.dataset'), sortable: true },
    { field: 'algorithms', headerName: t('algorithm.title'), sortable: true, render: algorithms, sortValue: algorithms },
    { field: 'best', headerName: t('list.best'), sortable: true, render: best, sortValue: best },
    { field: 'created_at', headerName: t('list.created'), sortable: true, width: 170, render: (row) => formatDateTime(row.created_at) },
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
      <Paper variant="outlined" sx={{ height: 560 }}>
        <ListTable
          label={t('title')}
          rows={data?.items}
          rowKey={(r) => r.id}
          columns={columns}
          actions={(row) => [{ key: 'd', icon: <DeleteOutlineIcon />, label: t('list.delete'), onClick: () => void remove(row) }]}
          loading={isFetching && !data}
          total={data?.total ?? 0}
          page={paging.page}
          pageSize={paging.pageSize}
          pageSizes={PAGE_SIZES}
          onPage={(page, pageSize) => setPaging({ page, pageSize })}
          roomy
          empty={t('list.empty')}
        />
      </Paper>
    </Box>
  );
}
