import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import { DataGrid, type GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';
import { useGridLocale } from '../../components/gridLocale';
import SearchField from '../../components/SearchField';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useAllDatasets } from '../datasets/api';

/** Every dataset of the organisation, searchable; a click opens `${basePath}/details/{id}`. */
export default function DatasetPicker({ basePath }: { basePath: string }) {
  const { t } = useTranslation('visualization');
  const navigate = useNavigate();
  const localeText = useGridLocale();
  const q = useAllDatasets();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const s = search.trim().toLowerCase();
    return (q.data ?? []).filter((d) => !s || d.name.toLowerCase().includes(s) || (d.category ?? '').toLowerCase().includes(s));
  }, [q.data, search]);
  const columns: GridColDef<Dataset>[] = [
    { field: 'name', headerName: t('list.name'), flex: 2, minWidth: 200 },
    { field: 'row_count', headerName: t('list.rows'), type: 'number', width: 120, valueFormatter: (v: number) => formatInteger(v) },
    { field: 'column_count', headerName: t('list.columns'), type: 'number', width: 100 },
    {
      field: 'datetime_column',
      headerName: t('list.kind'),
      width: 170,
      sortable: false,
      renderCell: ({ row }) => (
        <Box sx={{ display: 'flex', gap: 0.5, alignItems: 'center', height: '100%' }}>
          {row.datetime_column && <Chip size="small" label={t('list.timeseries')} />}
          {row.preprocessed && <Chip size="small" color="secondary" variant="outlined" label={t('list.preprocessed')} />}
        </Box>
      ),
    },
    { field: 'parent_dataset_name', headerName: t('list.parent'), flex: 1, minWidth: 140 },
    { field: 'created_at', headerName: t('list.created'), width: 180, valueFormatter: (v: string) => formatDateTime(v) },
  ];
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <SearchField label={t('list.search')} value={search} onChange={setSearch} sx={{ mb: 2, minWidth: 280 }} size="small" />
      <Box sx={{ height: 520 }}>
        <DataGrid
          rows={rows}
          columns={columns}
          loading={q.isLoading}
          localeText={localeText}
          onRowClick={({ row }) => navigate(`${basePath}/details/${encodeURIComponent(row.id)}`)}
          initialState={{ pagination: { paginationModel: { pageSize: 20 } } }}
          pageSizeOptions={[10, 20, 50]}
          disableRowSelectionOnClick
          sx={{ '& .MuiDataGrid-row': { cursor: 'pointer' } }}
        />
      </Box>
    </Paper>
  );
}
