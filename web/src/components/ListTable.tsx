import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import Tooltip from '@mui/material/Tooltip';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatInteger } from '../lib/format';

export interface ListColumn<T> {
  field: string;
  headerName: string;
  sortable?: boolean;
  numeric?: boolean;
  width?: number;
  minWidth?: number;
  /** What the cell shows; the row's own value of `field` when absent. */
  render?: (row: T) => ReactNode;
}

export interface ListAction<T> {
  key: string;
  label: string;
  icon: ReactNode;
  onClick: (row: T) => void;
}

export type SortDirection = 'asc' | 'desc';

interface Props<T> {
  label: string;
  rows: T[];
  rowKey: (row: T) => string;
  columns: ListColumn<T>[];
  actions?: (row: T) => ListAction<T>[];
  total: number;
  loading?: boolean;
  page: number;
  pageSize: number;
  pageSizes: number[];
  onPage: (page: number, pageSize: number) => void;
  /** The server's order (a list without sortable columns leaves both out). */
  sort?: { field: string; direction: SortDirection } | null;
  /** null: back to the server's default order. */
  onSort?: (sort: { field: string; direction: SortDirection } | null) => void;
  empty: ReactNode;
}

/**
 * A server-paged, server-sorted list: the light table of the first pages a person opens (the DataGrid weighs
 * more than the rest of the first route together). Sorting cycles ascending → descending → default, as the grid does.
 */
export default function ListTable<T>(p: Props<T>) {
  const { t } = useTranslation();
  const nextSort = (field: string) => {
    if (p.sort?.field !== field) return p.onSort?.({ field, direction: 'asc' });
    return p.onSort?.(p.sort.direction === 'asc' ? { field, direction: 'desc' } : null);
  };
  const span = p.columns.length + (p.actions ? 1 : 0);
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
      <Box sx={{ height: 4 }}>{p.loading && <LinearProgress aria-label={t('common.loading')} />}</Box>
      <TableContainer sx={{ flex: 1 }}>
        <Table size="small" stickyHeader aria-label={p.label}>
          <TableHead>
            <TableRow>
              {p.columns.map((c) => (
                <TableCell
                  key={c.field}
                  align={c.numeric ? 'right' : 'left'}
                  sx={{ width: c.width, minWidth: c.minWidth, fontWeight: 600, whiteSpace: 'nowrap' }}
                  sortDirection={p.sort?.field === c.field ? p.sort.direction : false}
                >
                  {c.sortable ? (
                    <TableSortLabel active={p.sort?.field === c.field} direction={p.sort?.field === c.field ? p.sort.direction : 'asc'} onClick={() => nextSort(c.field)}>
                      {c.headerName}
                    </TableSortLabel>
                  ) : (
                    c.headerName
                  )}
                </TableCell>
              ))}
              {p.actions && (
                <TableCell align="right" sx={{ fontWeight: 600, whiteSpace: 'nowrap' }}>
                  {t('common.actions')}
                </TableCell>
              )}
            </TableRow>
          </TableHead>
          <TableBody>
            {p.rows.map((row) => (
              <TableRow key={p.rowKey(row)} hover>
                {p.columns.map((c) => (
                  <TableCell key={c.field} align={c.numeric ? 'right' : 'left'}>
                    {c.render ? c.render(row) : String((row as Record<string, unknown>)[c.field] ?? '')}
                  </TableCell>
                ))}
                {p.actions && (
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap', py: 0 }}>
                    {p.actions(row).map((a) => (
                      <Tooltip key={a.key} title={a.label}>
                        <IconButton size="small" aria-label={a.label} onClick={() => a.onClick(row)}>
                          {a.icon}
                        </IconButton>
                      </Tooltip>
                    ))}
                  </TableCell>
                )}
              </TableRow>
            ))}
            {!p.loading && p.rows.length === 0 && (
              <TableRow>
                <TableCell colSpan={span} sx={{ height: 200, border: 0 }}>
                  {p.empty}
                </TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePagination
        component="div"
        count={p.total}
        page={p.page}
        rowsPerPage={p.pageSize}
        rowsPerPageOptions={p.pageSizes}
        onPageChange={(_, page) => p.onPage(page, p.pageSize)}
        onRowsPerPageChange={(e) => p.onPage(0, Number(e.target.value))}
        labelRowsPerPage={t('common.rowsPerPage')}
        labelDisplayedRows={({ from, to, count }) =>
          t('common.displayedRows', { from: formatInteger(from), to: formatInteger(to), count: count === -1 ? '?' : formatInteger(count) })
        }
        sx={{ borderTop: 1, borderColor: 'divider', flexShrink: 0 }}
      />
    </Box>
  );
}
