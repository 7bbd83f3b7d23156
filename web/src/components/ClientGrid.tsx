import Paper from '@mui/material/Paper';
import { DataGrid, type DataGridProps, type GridValidRowModel } from '@mui/x-data-grid';
import { EmptyOverlay } from './PagedGrid';
import { useGridLocale } from './gridLocale';

type Props<R extends GridValidRowModel> = Pick<DataGridProps<R>, 'columns' | 'getRowId'> & {
  rows: R[] | undefined;
  loading: boolean;
  /** What an empty list says. */
  empty: string;
  /** Opens a row's page; rows show a pointer when given. */
  onOpen?: (row: R) => void;
  height?: number;
};

/** A short list loaded whole (invoices, platform projects): the grid's texts in the UI language, the empty state,
 * a row click that opens the row. Long lists use PagedGrid (server paging). */
export default function ClientGrid<R extends GridValidRowModel>({ rows, loading, empty, onOpen, height = 520, ...grid }: Props<R>) {
  const localeText = useGridLocale();
  return (
    <Paper variant="outlined" sx={{ height }}>
      <DataGrid<R>
        {...grid}
        rows={rows ?? []}
        loading={loading}
        localeText={localeText}
        onRowClick={onOpen ? (p) => onOpen(p.row) : undefined}
        sx={{ border: 0, ...(onOpen ? { '& .MuiDataGrid-row': { cursor: 'pointer' } } : {}) }}
        slots={{ noRowsOverlay: () => <EmptyOverlay text={empty} /> }}
      />
    </Paper>
  );
}
