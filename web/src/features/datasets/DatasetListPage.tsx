import { useCanWrite } from '../../api/me';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import OpenInBrowserIcon from '@mui/icons-material/OpenInBrowser';
import SearchOffIcon from '@mui/icons-material/SearchOff';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import { DATA_TYPES, DATASET_TYPES, isOneOf, type Dataset } from '../../api/types';
import PageHeader from '../../components/PageHeader';
import ListTable, { type ListAction, type ListColumn, PAGE_SIZES, type SortDirection } from '../../components/ListTable';
import SearchField from '../../components/SearchField';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useUrlListState } from '../../lib/useUrlListState';
import { downloadOriginal, LIST_SORTS, useDatasetList, type ListParams } from './api';
import DeleteDatasetDialog from './DeleteDatasetDialog';
import EditDatasetDialog from './EditDatasetDialog';
import EnumSelect from './EnumSelect';
import { dataTypeLabel, trainingTypeLabel, typeLabel } from './labels';

export const detailsPath = (d: Pick<Dataset, 'id' | 'data_type'>) =>
  `/dataset/details/${encodeURIComponent(d.id)}/${encodeURIComponent(d.data_type || 'training_data')}`;

const SORTABLE = new Set(['name', 'created_at']);

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
  const { params, search, setSearch, query, page, pageSize, update } = useUrlListState(PAGE_SIZES);
  const dataType = params.get('data_type') ?? '';
  const type = params.get('type') ?? '';
  const sort = params.get('sort') ?? 'created_at_desc';
  const [editing, setEditing] = useState<Dataset | null>(null);
  const [deleting, setDeleting] = useState<Dataset | null>(null);

  // Values the server does not know (a hand-edited address) are left out of the call rather than refused.
  const listParams: ListParams = {
    query,
    page: page + 1,
    page_size: pageSize,
    data_type: isOneOf(DATA_TYPES, dataType) ? dataType : '',
    type: isOneOf(DATASET_TYPES, type) ? type : '',
    sort: isOneOf(LIST_SORTS, sort) ? sort : 'created_at_desc',
  };
  const { data, isFetching } = useDatasetList(listParams);

  const download = useMutation({ mutationFn: (d: Dataset) => downloadOriginal(d) });

  const sortState = useMemo(() => {
    const m = /^(.*)_(asc|desc)$/.exec(sort);
    return m && SORTABLE.has(m[1]) ? { field: m[1], direction: m[2] as SortDirection } : null;
  }, [sort]);

  const columns: ListColumn<Dataset>[] = [
    {
      field: 'name',
      headerName: t('dataset.fields.name'),
      sortable: true,
      minWidth: 150,
      render: (d) => (
        <Link component={RouterLink} to={detailsPath(d)} underline="hover" sx={{ fontWeight: 500 }}>
          {d.name}
        </Link>
      ),
    },
    { field: 'data_type', headerName: t('dataset.fields.dataType'), render: (d) => dataTypeLabel(t, d.data_type) },
    { field: 'type', headerName: t('dataset.fields.type'), render: (d) => typeLabel(t, d.type) },
    { field: 'training_type', headerName: t('dataset.fields.trainingType'), minWidth: 120, render: (d) => trainingTypeLabel(t, d.training_type) },
    {
      field: 'category',
      headerName: t('dataset.fields.category'),
      render: (d) => (d.category ? <Chip size="small" label={d.category} variant="outlined" /> : null),
    },
    { field: 'row_count', headerName: t('dataset.fields.rows'), numeric: true, render: (d) => formatInteger(d.row_count) },
    { field: 'column_count', headerName: t('dataset.fields.columns'), numeric: true, render: (d) => formatInteger(d.column_count) },
    { field: 'file_name', headerName: t('dataset.fields.fileName'), minWidth: 105 },
    { field: 'created_at', headerName: t('dataset.fields.createdAt'), sortable: true, width: 140, render: (d) => formatDateTime(d.created_at) },
  ];

  const actions = (d: Dataset): ListAction<Dataset>[] => [
    { key: 'open', icon: <OpenInBrowserIcon fontSize="small" />, label: t('common.open'), onClick: () => navigate(detailsPath(d)) },
    ...(canWrite ? [{ key: 'edit', icon: <EditOutlinedIcon fontSize="small" />, label: t('common.edit'), onClick: () => setEditing(d) }] : []),
    { key: 'download', icon: <DownloadIcon fontSize="small" />, label: t('common.download'), onClick: () => download.mutate(d) },
    ...(canWrite ? [{ key: 'delete', icon: <DeleteOutlineIcon fontSize="small" />, label: t('common.delete'), onClick: () => setDeleting(d) }] : []),
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
        <SearchField label={t('dataset.search')} value={search} onChange={setSearch} sx={{ flex: 1, minWidth: 240 }} />
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
        <ListTable
          label={t('pages.datasets')}
          rows={data?.items ?? []}
          rowKey={(d) => d.id}
          columns={columns}
          actions={actions}
          total={data?.total ?? 0}
          loading={isFetching}
          page={page}
          pageSize={pageSize}
          pageSizes={PAGE_SIZES}
          onPage={(p, size) => update({ page: p + 1, page_size: size }, false)}
          sort={sortState}
          onSort={(s) => update({ sort: s ? `${s.field}_${s.direction}` : 'created_at_desc' })}
          empty={<NoResults />}
        />
      </Paper>
      <EditDatasetDialog dataset={editing} onClose={() => setEditing(null)} />
      <DeleteDatasetDialog dataset={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
