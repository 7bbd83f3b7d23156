import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import { DataGrid, type GridColDef } from '@mui/x-data-grid';
import { useTranslation } from 'react-i18next';
import { columnTypeLabel } from './labels';
import type { DatasetColumn } from '../../api/types';
import { useGridLocale } from '../../components/gridLocale';
import { formatInteger, formatNumber, formatUnique } from '../../lib/format';

const TYPE_COLOR: Record<string, 'primary' | 'secondary' | 'info' | 'warning' | 'default'> = {
  integer: 'primary',
  float: 'primary',
  string: 'secondary',
  boolean: 'info',
  datetime: 'warning',
  date: 'warning',
};

/** Column types and the quick statistics computed at upload (GET /api/dataset/{id}/false). */
export default function ColumnsTab({ columns }: { columns: DatasetColumn[] }) {
  const { t } = useTranslation();
  const localeText = useGridLocale();
  const num = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : v === null || v === undefined ? '' : String(v));
  const cols: GridColDef<DatasetColumn & { id: number }>[] = [
    { field: 'name', headerName: t('dataset.columns.name'), flex: 1.3, minWidth: 180 },
    {
      field: 'type',
      headerName: t('dataset.columns.type'),
      width: 120,
      renderCell: (p) => <Chip size="small" variant="outlined" color={TYPE_COLOR[p.row.type] ?? 'default'} label={columnTypeLabel(t, p.row.type)} />,
    },
    { field: 'count', headerName: t('stats.count'), type: 'number', width: 100, valueFormatter: (v: number) => formatInteger(v) },
    { field: 'missing', headerName: t('stats.missing'), type: 'number', width: 100, valueFormatter: (v: number) => formatInteger(v) },
    { field: 'unique', headerName: t('stats.unique'), description: t('stats.unique_estimate'), type: 'number', width: 110, valueFormatter: (_v: number, row) => formatUnique(row) },
    { field: 'min', headerName: t('stats.min'), type: 'number', width: 120, valueFormatter: num },
    { field: 'max', headerName: t('stats.max'), type: 'number', width: 120, valueFormatter: num },
    { field: 'mean', headerName: t('stats.mean'), type: 'number', width: 120, valueFormatter: num },
    { field: 'std', headerName: t('stats.std'), type: 'number', width: 120, valueFormatter: num },
  ];
  return (
    <Paper variant="outlined" sx={{ height: 'calc(100vh - 250px)', minHeight: 420 }}>
      <DataGrid
        rows={columns.map((c, i) => ({ ...c, id: i }))}
        columns={cols}
        density="compact"
        disableRowSelectionOnClick
        localeText={{ ...localeText, noRowsLabel: t('common.noData') }}
        pageSizeOptions={[25, 50, 100]}
        initialState={{ pagination: { paginationModel: { pageSize: 100 } } }}
        sx={{ border: 0 }}
      />
    </Paper>
  );
}
