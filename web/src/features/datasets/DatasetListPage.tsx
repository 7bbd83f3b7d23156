import { useCanWrite } from '../../api/me';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import OpenInBrowserIcon from '@mui/icons-material/OpenInBrowser';
import SearchIcon from '@mui/icons-material/Search';
import SearchOffIcon from '@mui/icons-material/SearchOff';
import { DataGrid, GridActionsCellItem, type GridColDef, type GridSortModel } from '@mui/x-data-grid';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { DATA_TYPES, DATASET_TYPES, type Dataset } from '../../api/types';
import PageHeader from '../../components/PageHeader';
import { useGridLocale } from '../../components/gridLocale';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
import { downloadOriginal, useDatasetList, type ListParams } from './api';
import DeleteDatasetDialog from './DeleteDatasetDialog';
import EditDatasetDialog from './EditDatasetDialog';
import EnumSelect from './EnumSelect';
import { dataTypeLabel, trainingTypeLabel, typeLabel } from './labels';

export const detailsPath = (d: Pick<Dataset, 'id' | 'data_type'>) =>
  `/dataset/details/${encodeURIComponent(d.id)}/${encodeURIComponent(d.data_type || 'training_data')}`;

const SORTABLE = new Set(['name', 'created_at']);
const PAGE_SIZES = [10, 20, 50, 100];

function NoResults() {
  const { t } = useTranslation();
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', alignItems: 'center', justifyContent: 'center', height: '100%', gap: 1, color: 'text.secondary' }}>
      <SearchOffIcon sx={{ fontSize: 36 }} />
      <Typography>{t('common.noResults')}</Typography>
    </Box>
  );
}

export default function DatasetListPage() {
  const canWrite = useCanWrite();
  const { t } = useTranslation();
  const navigate = useNavigate();
  const localeText = useGridLocale();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('query') ?? '');
  const query = useDebounced(search.trim(), 400);
  const dataType = params.get('data_type') ?? '';
  const type = params.get('type') ?? '';
  const page = Math.max(0, Number(params.get('page') ?? 1) - 1) || 0;
  const pageSize = PAGE_SIZES.includes(Number(params.get('page_size'))) ? Number(params.get('page_size')) : 20;
  const sort = params.get('sort') ?? 'created_at_desc';
  const [editing, setEditing] = useState<Dataset | null>(null);
  const [deleting, setDeleting] = useState<Dataset | null>(null);

  const update = (changes: Record<string, string | number | null>, resetPage = true) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v === null || v === '') next.delete(k);
          else next.set(k, String(v));
        }
        if (resetPage) next.delete('page');
        return next;
      },
      { replace: true },
    );
  };

  useEffect(() => {
    if ((params.get('query') ?? '') !== query) update({ query });
    // Only the debounced text drives this; `update` and `params` change on every render.
  }, [query]);

  const listParams: ListParams = { query, page: page + 1, page_size: pageSize, data_type: dataType, type, sort };
  const { data, isFetching } = useDatasetList(listParams);

  const download = useMutation({ mutationFn: (d: Dataset) => downloadOriginal(d) });

  const sortModel: GridSortModel = useMemo(() => {
    const m = /^(.*)_(asc|desc)$/.exec(sort);
    return m && SORTABLE.has(m[1]) ? [{ field: m[1], sort: m[2] as 'asc' | 'desc' }] : [];
  }, [sort]);

  const columns: GridColDef<Dataset>[] = [
    {
      field: 'name',
      headerName: t('dataset.fields.name'),
      flex: 1.4,
      minWidth: 150,
      renderCell: (p) => (
        <Link component={RouterLink} to={detailsPath(p.row)} underline="hover" sx={{ fontWeight: 500 }}>
          {p.row.name}
        </Link>
      ),
    },
    {
      field: 'data_type',
      headerName: t('dataset.fields.dataType'),
      width: 105,
      sortable: false,
      valueFormatter: (v: string) => dataTypeLabel(t, v),
    },
    { field: 'type', headerName: t('dataset.fields.type'), width: 100, sortable: false, valueFormatter: (v: string) => typeLabel(t, v) },
    {
      field: 'training_type',
      headerName: t('dataset.fields.trainingType'),
      flex: 1,
      minWidth: 120,
      sortable: false,
      valueFormatter: (v: string) => trainingTypeLabel(t, v),
    },
    {
      field: 'category',
      headerName: t('dataset.fields.category'),
      width: 100,
      sortable: false,
      renderCell: (p) => (p.row.category ? <Chip size="small" label={p.row.category} variant="outlined" /> : null),
    },
    {
      field: 'row_count',
      headerName: t('dataset.fields.rows'),
      type: 'number',
      width: 74,
      sortable: false,
      valueFormatter: (v: number) => formatInteger(v),
    },
    {
      field: 'column_count',
      headerName: t('dataset.fields.columns'),
      type: 'number',
      width: 80,
      sortable: false,
      valueFormatter: (v: number) => formatInteger(v),
    },
    { field: 'file_name', headerName: t('dataset.fields.fileName'), flex: 0.8, minWidth: 105, sortable: false },
    {
      field: 'created_at',
      headerName: t('dataset.fields.createdAt'),
      width: 132,
      valueFormatter: (v: string) => formatDateTime(v),
    },
    {
      field: 'actions',
      type: 'actions',
      headerName: t('common.actions'),
      width: 140,
      getActions: (p) => [
        <GridActionsCellItem key="open" icon={<OpenInBrowserIcon />} label={t('common.open')} onClick={() => navigate(detailsPath(p.row))} />,
        ...(canWrite ? [<GridActionsCellItem key="edit" icon={<EditOutlinedIcon />} label={t('common.edit')} onClick={() => setEditing(p.row)} />] : []),
        <GridActionsCellItem key="download" icon={<DownloadIcon />} label={t('common.download')} onClick={() => download.mutate(p.row)} />,
        ...(canWrite ? [<GridActionsCellItem key="delete" icon={<DeleteOutlineIcon />} label={t('common.delete')} onClick={() => setDeleting(p.row)} />] : []),
      ],
    },
  ];

  return (
    <>
      <PageHeader
        title={t('pages.datasets')}
        subtitle={t('dataset.listSubtitle')}
        actions={
          canWrite && (
            <Button variant="contained" startIcon={<AddIcon />} component={RouterLink} to="/dataset/register">
              {t('dataset.registerButton')}
            </Button>
          )
        }
      />
      <Paper variant="outlined" sx={{ p: 1.5, mb: 1.5, display: 'flex', gap: 1.5, flexWrap: 'wrap', alignItems: 'center' }}>
        <TextField
          placeholder={t('dataset.searchPlaceholder')}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          sx={{ flex: 1, minWidth: 240 }}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
            htmlInput: { 'aria-label': t('dataset.search') },
          }}
        />
        <EnumSelect
          label={t('dataset.fields.dataType')}
          value={dataType}
          options={DATA_TYPES}
          labelOf={(v) => dataTypeLabel(t, v)}
          onChange={(v) => update({ data_type: v })}
          emptyLabel={t('common.all')}
          fullWidth={false}
          minWidth={170}
        />
        <EnumSelect
          label={t('dataset.fields.type')}
          value={type}
          options={DATASET_TYPES}
          labelOf={(v) => typeLabel(t, v)}
          onChange={(v) => update({ type: v })}
          emptyLabel={t('common.all')}
          fullWidth={false}
          minWidth={170}
        />
      </Paper>
      <Paper variant="outlined" sx={{ height: 'calc(100vh - 262px)', minHeight: 380 }}>
        <DataGrid
          rows={data?.items ?? []}
          columns={columns}
          rowCount={data?.total ?? 0}
          loading={isFetching}
          paginationMode="server"
          sortingMode="server"
          filterMode="server"
          disableColumnFilter
          paginationModel={{ page, pageSize }}
          onPaginationModelChange={(m) => update({ page: m.page + 1, page_size: m.pageSize }, false)}
          pageSizeOptions={PAGE_SIZES}
          sortModel={sortModel}
          onSortModelChange={(m) => update({ sort: m[0] ? `${m[0].field}_${m[0].sort}` : 'created_at_desc' })}
          density="compact"
          disableRowSelectionOnClick
          localeText={localeText}
          slots={{ noRowsOverlay: NoResults, noResultsOverlay: NoResults }}
          sx={{ border: 0 }}
        />
      </Paper>
      <EditDatasetDialog dataset={editing} onClose={() => setEditing(null)} />
      <DeleteDatasetDialog dataset={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
