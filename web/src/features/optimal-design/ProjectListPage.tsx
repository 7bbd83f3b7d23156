import AddIcon from '@mui/icons-material/Add';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import ListTable, { type ListColumn } from '../../components/ListTable';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
import { type ProjectSummary, useProjects } from './api';

export const detailsPath = (id: string, round?: number) => `/optimal-design/details/${encodeURIComponent(id)}${round ? `/${round}` : ''}`;

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation('optimalDesign');
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : 'info';
  return <Chip size="small" color={color} label={t(`state.${state}`, { defaultValue: state })} />;
}

export default function ProjectListPage() {
  const { t } = useTranslation('optimalDesign');
  usePageTitle(t('title'));
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(20);
  const q = useDebounced(query, 300);
  const list = useProjects({ query: q, page: page + 1, page_size: pageSize });
  const items = list.data?.items ?? [];
  const columns: ListColumn<ProjectSummary>[] = [
    {
      field: 'name',
      headerName: t('col.name'),
      render: (p) => (
        <Link component={RouterLink} to={detailsPath(p.id)}>
          {p.name}
        </Link>
      ),
    },
    { field: 'state', headerName: t('col.state'), render: (p) => <StateChip state={p.state} /> },
    { field: 'rounds', headerName: t('col.rounds') },
    { field: 'variables', headerName: t('col.variables') },
    { field: 'created', headerName: t('col.created'), render: (p) => formatDateTime(p.created_at) },
    { field: 'updated', headerName: t('col.updated'), render: (p) => formatDateTime(p.updated_at) },
  ];
  return (
    <Box>
      <PageHeader
        title={t('title')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} component={RouterLink} to="/optimal-design/register">
            {t('new')}
          </Button>
        }
      />
      <TextField size="small" label={t('search')} value={query} onChange={(e) => setQuery(e.target.value)} sx={{ mb: 2, minWidth: 280 }} />
      <Paper variant="outlined">
        <ListTable
          label={t('title')}
          rows={items}
          rowKey={(p) => p.id}
          columns={columns}
          total={list.data?.total ?? 0}
          loading={list.isFetching && !list.data}
          page={page}
          pageSize={pageSize}
          pageSizes={[10, 20, 50]}
          onPage={(p, size) => {
            setPage(p);
            setPageSize(size);
          }}
          empty={
            <Typography color="text.secondary" sx={{ textAlign: 'center' }}>
              {t('noProjects')}
            </Typography>
          }
        />
      </Paper>
    </Box>
  );
}
