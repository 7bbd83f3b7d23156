import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';
import ListTable, { type ListColumn } from '../../components/ListTable';
import SearchField from '../../components/SearchField';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useAllDatasets } from '../datasets/api';

/** Every dataset of the organisation, searchable and sortable; a click opens `${basePath}/details/{id}`. */
export default function DatasetPicker({ basePath }: { basePath: string }) {
  const { t } = useTranslation('visualization');
  const navigate = useNavigate();
  const q = useAllDatasets();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const s = search.trim().toLowerCase();
    return (q.data ?? []).filter((d) => !s || d.name.toLowerCase().includes(s) || (d.category ?? '').toLowerCase().includes(s));
  }, [q.data, search]);
  const columns: ListColumn<Dataset>[] = [
    { field: 'name', headerName: t('list.name'), minWidth: 200, sortable: true },
    { field: 'row_count', headerName: t('list.rows'), numeric: true, width: 120, sortable: true, render: (d) => formatInteger(d.row_count) },
    { field: 'column_count', headerName: t('list.columns'), numeric: true, width: 100, sortable: true },
    {
      field: 'datetime_column',
      headerName: t('list.kind'),
      width: 170,
      render: (d) => (
        <Box sx={{ display: 'flex', gap: 0.5, alignItems: 'center' }}>
          {d.datetime_column && <Chip size="small" label={t('list.timeseries')} />}
          {d.preprocessed && <Chip size="small" color="secondary" variant="outlined" label={t('list.preprocessed')} />}
        </Box>
      ),
    },
    { field: 'parent_dataset_name', headerName: t('list.parent'), minWidth: 140, sortable: true },
    { field: 'created_at', headerName: t('list.created'), width: 180, sortable: true, render: (d) => formatDateTime(d.created_at) },
  ];
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <SearchField label={t('list.search')} value={search} onChange={setSearch} sx={{ mb: 2, minWidth: 280 }} size="small" />
      <Box sx={{ height: 520 }}>
        <ListTable
          label={t('list.label')}
          rows={rows}
          rowKey={(d) => d.id}
          columns={columns}
          loading={q.isLoading}
          pageSizes={[10, 20, 50]}
          initialPageSize={20}
          onOpen={(d) => navigate(`${basePath}/details/${encodeURIComponent(d.id)}`)}
          empty={search.trim() ? t('list.noMatch') : t('list.empty')}
        />
      </Box>
    </Paper>
  );
}
