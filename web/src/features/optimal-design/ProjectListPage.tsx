import AddIcon from '@mui/icons-material/Add';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import PageHeader from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
import { useProjects } from './api';

export const detailsPath = (id: string, round?: number) => `/optimal-design/details/${encodeURIComponent(id)}${round ? `/${round}` : ''}`;

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation('doe');
  const color = state === 'done' ? 'success' : state === 'failed' ? 'error' : 'info';
  return <Chip size="small" color={color} label={t(`state.${state}`, { defaultValue: state })} />;
}

export default function ProjectListPage() {
  const { t } = useTranslation('doe');
  usePageTitle(t('title'));
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(20);
  const q = useDebounced(query, 300);
  const list = useProjects({ query: q, page: page + 1, page_size: pageSize });
  const items = list.data?.items ?? [];
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
        <Table size="small">
          <TableHead>
            <TableRow>
              {(['name', 'state', 'rounds', 'variables', 'created', 'updated'] as const).map((c) => (
                <TableCell key={c}>{t(`col.${c}`)}</TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {items.map((p) => (
              <TableRow key={p.id} hover>
                <TableCell>
                  <Link component={RouterLink} to={detailsPath(p.id)}>
                    {p.name}
                  </Link>
                </TableCell>
                <TableCell>
                  <StateChip state={p.state} />
                </TableCell>
                <TableCell>{p.rounds}</TableCell>
                <TableCell>{p.variables}</TableCell>
                <TableCell>{formatDateTime(p.created_at)}</TableCell>
                <TableCell>{formatDateTime(p.updated_at)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
        {!items.length && !list.isLoading && (
          <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }}>
            {t('noProjects')}
          </Typography>
        )}
        <TablePagination
          component="div"
          count={list.data?.total ?? 0}
          page={page}
          rowsPerPage={pageSize}
          rowsPerPageOptions={[10, 20, 50]}
          onPageChange={(_, p) => setPage(p)}
          onRowsPerPageChange={(e) => {
            setPageSize(Number(e.target.value));
            setPage(0);
          }}
        />
      </Paper>
    </Box>
  );
}
