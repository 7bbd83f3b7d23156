import { useCanWrite } from '../../api/me';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import SearchOffIcon from '@mui/icons-material/SearchOff';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DATA_TYPES, DATASET_TYPES, type Dataset } from '../../api/types';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListAction, ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { formatDateTime, formatInteger } from '../../lib/format';
import { downloadOriginal, LIST_SORTS, useDatasetList } from './api';
import DeleteDatasetDialog from './DeleteDatasetDialog';
import EditDatasetDialog from './EditDatasetDialog';
import EnumSelect from './EnumSelect';
import { dataTypeLabel, trainingTypeLabel, typeLabel } from './labels';

export const detailsPath = (d: Pick<Dataset, 'id' | 'data_type'>) =>
  `/dataset/details/${encodeURIComponent(d.id)}/${encodeURIComponent(d.data_type || 'training_data')}`;

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
  const list = useListPage({ sorts: LIST_SORTS, defaultSort: 'created_at_desc' });
  const dataType = list.filter('data_type', DATA_TYPES);
  const type = list.filter('type', DATASET_TYPES);
  const [editing, setEditing] = useState<Dataset | null>(null);
  const [deleting, setDeleting] = useState<Dataset | null>(null);
  const result = useDatasetList({ ...list.params, data_type: dataType, type, sort: list.sort ?? 'created_at_desc' });
  const download = useMutation({ mutationFn: (d: Dataset) => downloadOriginal(d) });

  const columns: ListColumn<Dataset>[] = [
    { field: 'name', headerName: t('dataset.fields.name'), sortable: true, minWidth: 150, render: (d) => <RowLink to={detailsPath(d)}>{d.name}</RowLink> },
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
    ...(canWrite ? [{ key: 'edit', icon: <EditOutlinedIcon fontSize="small" />, label: t('common.edit'), onClick: () => setEditing(d) }] : []),
    { key: 'download', icon: <DownloadIcon fontSize="small" />, label: t('common.download'), onClick: () => download.mutate(d) },
    // its own dialog, shared with the dataset page (it names what else goes with the dataset)
    ...(canWrite ? [{ key: 'delete', icon: <DeleteOutlineIcon fontSize="small" />, label: t('common.delete'), onClick: () => setDeleting(d) }] : []),
  ];
  return (
    <ListPage
      title={t('pages.datasets')}
      subtitle={t('dataset.listSubtitle')}
      create={canWrite ? { label: t('dataset.registerButton'), to: '/dataset/register' } : undefined}
      list={list}
      searchLabel={t('dataset.search')}
      filters={
        <>
          <EnumSelect
            label={t('dataset.fields.dataType')}
            value={dataType}
            options={DATA_TYPES}
            labelOf={(v) => dataTypeLabel(t, v)}
            onChange={(v) => list.setFilter('data_type', v)}
            emptyLabel={t('common.all')}
            fullWidth={false}
            minWidth={170}
          />
          <EnumSelect
            label={t('dataset.fields.type')}
            value={type}
            options={DATASET_TYPES}
            labelOf={(v) => typeLabel(t, v)}
            onChange={(v) => list.setFilter('type', v)}
            emptyLabel={t('common.all')}
            fullWidth={false}
            minWidth={170}
          />
        </>
      }
      result={result}
      columns={columns}
      rowKey={(d) => d.id}
      rowPath={detailsPath}
      rowActions={actions}
      sx={{ height: 'calc(100vh - 262px)', minHeight: 380 }}
      empty={<NoResults />}
    >
      <EditDatasetDialog dataset={editing} onClose={() => setEditing(null)} />
      <DeleteDatasetDialog dataset={deleting} onClose={() => setDeleting(null)} />
    </ListPage>
  );
}
