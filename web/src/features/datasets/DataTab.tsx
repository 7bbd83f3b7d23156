import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import TablePagination from '@mui/material/TablePagination';
import { DataGrid, type GridColDef } from '@mui/x-data-grid';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Cell, DatasetColumn } from '../../api/types';
import { useGridLocale } from '../../components/gridLocale';
import { formatInteger } from '../../lib/format';
import { useDataPage } from './api';

export const DATA_PAGE_SIZES = [50, 100, 500];

type Row = { id: number; __n: number } & Record<string, Cell | number>;

/**
 * The rows of the dataset, page by page from the server. The grid virtualises the page; the pager is our own
 * because the MIT DataGrid caps its page size at 100 and 500 rows a page is asked for.
 */
export default function DataTab({ datasetId, columnTypes = [] }: { datasetId: string; columnTypes?: Pick<DatasetColumn, 'name' | 'type'>[] }) {
  const { t } = useTranslation();
  const localeText = useGridLocale();
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(100);
  const { data, isFetching } = useDataPage(datasetId, page + 1, pageSize);

  const columns: GridColDef<Row>[] = useMemo(() => {
    const cols: GridColDef<Row>[] = [
      {
        field: '__n',
        headerName: '#',
        width: 72,
        sortable: false,
        align: 'right',
        headerAlign: 'right',
        cellClassName: 'row-number',
      },
    ];
    const numeric = new Set(columnTypes.filter((c) => c.type === 'integer' || c.type === 'float').map((c) => c.name));
    // a date and time is read whole: '2020-03-09 1…' hid the time (issue 33)
    const dated = new Set(columnTypes.filter((c) => c.type === 'datetime' || c.type === 'date').map((c) => c.name));
    (data?.columns ?? []).forEach((name, i) => {
      const right = numeric.has(name);
      cols.push({
        align: right ? 'right' : 'left',
        headerAlign: right ? 'right' : 'left',
        field: `c${i}`,
        headerName: name,
        minWidth: dated.has(name) ? 180 : 110,
        flex: 1,
        sortable: false,
        renderCell: (p) => (p.value === null || p.value === undefined ? <Box component="span" sx={{ color: 'text.disabled' }}>—</Box> : String(p.value)),
      });
    });
    return cols;
  }, [data?.columns, columnTypes]);

  const rows: Row[] = useMemo(() => {
    const offset = ((data?.page ?? 1) - 1) * (data?.page_size ?? pageSize);
    return (data?.rows ?? []).map((r, i) => {
      const row: Row = { id: offset + i, __n: offset + i + 1 };
      r.forEach((v, j) => {
        row[`c${j}`] = v;
      });
      return row;
    });
  }, [data, pageSize]);

  return (
    <Paper variant="outlined" sx={{ display: 'flex', flexDirection: 'column', height: 'calc(100vh - 250px)', minHeight: 420 }}>
      <Box sx={{ flex: 1, minHeight: 0 }}>
        <DataGrid
          rows={rows}
          columns={columns}
          loading={isFetching}
          paginationMode="server"
          rowCount={data?.total ?? 0}
          hideFooter
          density="compact"
          disableColumnMenu
          disableRowSelectionOnClick
          localeText={{ ...localeText, noRowsLabel: t('common.noData') }}
          sx={{ border: 0, '& .row-number': { color: 'text.secondary', bgcolor: '#fafbfc' } }}
        />
      </Box>
      <TablePagination
        component="div"
        count={data?.total ?? 0}
        page={page}
        rowsPerPage={pageSize}
        rowsPerPageOptions={DATA_PAGE_SIZES}
        onPageChange={(_, p) => setPage(p)}
        onRowsPerPageChange={(e) => {
          setPageSize(Number(e.target.value));
          setPage(0);
        }}
        labelRowsPerPage={t('dataset.rowsPerPage')}
        labelDisplayedRows={({ from, to, count }) => t('common.displayedRows', { from: formatInteger(from), to: formatInteger(to), count: formatInteger(count) })}
        sx={{ borderTop: 1, borderColor: 'divider' }}
      />
    </Paper>
  );
}
