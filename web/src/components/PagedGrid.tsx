import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { DataGrid, type DataGridProps, type GridPaginationModel, type GridValidRowModel } from '@mui/x-data-grid';
import { useGridLocale } from './gridLocale';

export const PAGE_SIZES = [10, 20, 50, 100];

type Props<R extends GridValidRowModel> = Pick<DataGridProps<R>, 'columns' | 'getRowId' | 'density' | 'sx' | 'disableColumnSorting' | 'disableColumnFilter' | 'disableColumnMenu'> & {
  rows: R[] | undefined;
  total: number | undefined;
  /** True while the first page is on its way (later pages keep the rows shown). */
  loading: boolean;
  paging: GridPaginationModel;
  onPaging: (m: GridPaginationModel) => void;
  /** What an empty list says. */
  empty: string;
  pageSizes?: number[];
};

/** A server-paged DataGrid of an area's projects: one place for paging, the grid's texts in the UI language and the empty state. */
export default function PagedGrid<R extends GridValidRowModel>({ rows, total, loading, paging, onPaging, empty, pageSizes = PAGE_SIZES, ...grid }: Props<R>) {
  const localeText = useGridLocale();
  return (
    <DataGrid<R>
      {...grid}
      rows={rows ?? []}
      loading={loading}
      rowCount={total ?? 0}
      paginationMode="server"
      paginationModel={paging}
      onPaginationModelChange={onPaging}
      pageSizeOptions={pageSizes}
      disableRowSelectionOnClick
      localeText={localeText}
      slots={{ noRowsOverlay: () => <EmptyOverlay text={empty} /> }}
    />
  );
}

/** What a grid with no rows says, centred in the grid. */
export function EmptyOverlay({ text }: { text: string }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', height: '100%', p: 4 }}>
      <Typography color="text.secondary">{text}</Typography>
    </Box>
  );
}
