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
import Typography from '@mui/material/Typography';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatInteger } from '../lib/format';

/** The page sizes of the server-paged lists. */
export const PAGE_SIZES = [10, 20, 50, 100];

export interface ListColumn<T> {
  field: string;
  headerName: string;
  sortable?: boolean;
  numeric?: boolean;
  /** A fixed width: the cell keeps to one line (dates, states, numbers). */
  width?: number;
  minWidth?: number;
  /** What the cell shows; the row's own value of `field` when absent. */
  render?: (row: T) => ReactNode;
  /** What a sort in the browser orders by (lists the server does not sort); the row's value of `field` when absent. */
  sortValue?: (row: T) => string | number | null | undefined;
}

export interface ListAction<T> {
  key: string;
  label: string;
  icon: ReactNode;
  onClick: (row: T) => void;
  disabled?: boolean;
}

export type SortDirection = 'asc' | 'desc';
type Sort = { field: string; direction: SortDirection } | null;

interface Props<T> {
  label: string;
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  columns: ListColumn<T>[];
  actions?: (row: T) => ListAction<T>[];
  /** The server's count of rows. Absent: `rows` is the whole list, paged (and sorted) here. */
  total?: number;
  loading?: boolean;
  /** The page shown and its change, for a server-paged list. */
  page?: number;
  pageSize?: number;
  onPage?: (page: number, pageSize: number) => void;
  pageSizes: number[];
  /** The first page size of a list paged here (the largest of `pageSizes` when absent). */
  initialPageSize?: number;
  /** The server's order (a list without sortable columns leaves both out). Without `onSort`, sortable columns order
   * the rows shown in the browser. */
  sort?: Sort;
  /** null: back to the server's default order. */
  onSort?: (sort: Sort) => void;
  /** Opens a row's page on a click anywhere in the row. */
  onOpen?: (row: T) => void;
  /** Taller rows (the project lists) rather than the small ones. */
  roomy?: boolean;
  /** What an empty list says: a text is centred and muted. */
  empty: ReactNode;
}

const valueOf = <T,>(c: ListColumn<T>, row: T) => (c.sortValue ? c.sortValue(row) : (row as Record<string, unknown>)[c.field]);

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined || a === '') return -1;
  if (b === null || b === undefined || b === '') return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

/**
 * The one list of every list page: a light MUI table (the DataGrid weighs more than the rest of the first route
 * together) with paging, sorting, row actions, row links and the empty state. Paged and sorted by the server when
 * given `total`/`onPage` and `onSort`, otherwise in the browser. Sorting cycles ascending → descending → default.
 */
export default function ListTable<T>(p: Props<T>) {
  const { t } = useTranslation();
  const [localSort, setLocalSort] = useState<Sort>(null);
  const [localPage, setLocalPage] = useState({ page: 0, pageSize: p.initialPageSize ?? Math.max(...p.pageSizes) });
  const sort = p.onSort ? (p.sort ?? null) : localSort;
  const setSort = p.onSort ?? setLocalSort;
  const paged = p.total !== undefined;
  const page = paged ? (p.page ?? 0) : localPage.page;
  const pageSize = paged ? (p.pageSize ?? p.pageSizes[0]) : localPage.pageSize;
  const onPage = p.onPage ?? ((page: number, pageSize: number) => setLocalPage({ page, pageSize }));
  const shown = useMemo(() => {
    let rows = p.rows ?? [];
    const column = !p.onSort && sort ? p.columns.find((c) => c.field === sort.field) : undefined;
    if (column && sort) rows = [...rows].sort((a, b) => compare(valueOf(column, a), valueOf(column, b)) * (sort.direction === 'asc' ? 1 : -1));
    return paged ? rows : rows.slice(page * pageSize, (page + 1) * pageSize);
  }, [p.rows, p.columns, p.onSort, sort, paged, page, pageSize]);
  const nextSort = (field: string) => {
    if (sort?.field !== field) return setSort({ field, direction: 'asc' });
    return setSort(sort.direction === 'asc' ? { field, direction: 'desc' } : null);
  };
  const span = p.columns.length + (p.actions ? 1 : 0);
  const rowSx = { ...(p.roomy ? { height: 52 } : {}), ...(p.onOpen ? { cursor: 'pointer' } : {}) };
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
      <Box sx={{ height: 4 }}>{p.loading && <LinearProgress aria-label={t('common.loading')} />}</Box>
      <TableContainer sx={{ flex: 1 }}>
        <Table size="small" stickyHeader aria-label={p.label}>
          <TableHead>
            <TableRow sx={p.roomy ? { height: 56 } : undefined}>
              {p.columns.map((c) => (
                <TableCell
                  key={c.field}
                  align={c.numeric ? 'right' : 'left'}
                  sx={{ width: c.width, minWidth: c.minWidth, fontWeight: 600, whiteSpace: 'nowrap' }}
                  sortDirection={sort?.field === c.field ? sort.direction : false}
                >
                  {c.sortable ? (
                    <TableSortLabel active={sort?.field === c.field} direction={sort?.field === c.field ? sort.direction : 'asc'} onClick={() => nextSort(c.field)}>
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
            {shown.map((row) => (
              <TableRow key={p.rowKey(row)} hover sx={rowSx} onClick={p.onOpen ? () => p.onOpen!(row) : undefined}>
                {p.columns.map((c) => (
                  <TableCell key={c.field} align={c.numeric ? 'right' : 'left'} sx={c.width ? { whiteSpace: 'nowrap' } : undefined}>
                    {c.render ? c.render(row) : String((row as Record<string, unknown>)[c.field] ?? '')}
                  </TableCell>
                ))}
                {p.actions && (
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap', py: 0 }}>
                    {p.actions(row).map((a) => (
                      <Tooltip key={a.key} title={a.label}>
                        <IconButton
                          size="small"
                          aria-label={a.label}
                          disabled={a.disabled}
                          onClick={(e) => {
                            e.stopPropagation();
                            a.onClick(row);
                          }}
                        >
                          {a.icon}
                        </IconButton>
                      </Tooltip>
                    ))}
                  </TableCell>
                )}
              </TableRow>
            ))}
            {!p.loading && shown.length === 0 && (
              <TableRow>
                <TableCell colSpan={span} sx={{ height: 200, border: 0 }}>
                  {typeof p.empty === 'string' ? (
                    <Typography color="text.secondary" sx={{ textAlign: 'center' }}>
                      {p.empty}
                    </Typography>
                  ) : (
                    p.empty
                  )}
                </TableCell>
              </TableRow>
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <TablePagination
        component="div"
        count={paged ? p.total! : (p.rows?.length ?? 0)}
        page={page}
        rowsPerPage={pageSize}
        rowsPerPageOptions={p.pageSizes}
        onPageChange={(_, page) => onPage(page, pageSize)}
        onRowsPerPageChange={(e) => onPage(0, Number(e.target.value))}
        labelRowsPerPage={t('common.rowsPerPage')}
        labelDisplayedRows={({ from, to, count }) =>
          t('common.displayedRows', { from: formatInteger(from), to: formatInteger(to), count: count === -1 ? '?' : formatInteger(count) })
        }
        sx={{ borderTop: 1, borderColor: 'divider', flexShrink: 0 }}
      />
    </Box>
  );
}
