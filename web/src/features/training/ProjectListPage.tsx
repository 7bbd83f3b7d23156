import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import OpenInBrowserIcon from '@mui/icons-material/OpenInBrowser';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';
import ListTable, { type ListAction, type ListColumn, PAGE_SIZES } from '../../components/ListTable';
import PageHeader from '../../components/PageHeader';
import SearchField from '../../components/SearchField';
import { useConfirmedAction } from '../../components/useConfirmedAction';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
import { useAllDatasets } from '../datasets/api';
import { deleteProject, detailsPath, isImageProject, isProjectType, metricOf, NEW_PROJECT_TYPES, type ListedProject, type ProjectType, registerPath, useProjectList } from './api';
import { formatMetric, NS, PRIMARY_METRICS, StateChip } from './labels';

/** Choose a dataset and a training type, then open that type's wizard. */
export function NewProjectDialog({ open, onClose, initialType }: { open: boolean; onClose: () => void; initialType?: ProjectType }) {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const datasets = useAllDatasets();
  const [dataset, setDataset] = useState<Dataset | null>(null);
  const [type, setType] = useState<string>(initialType ?? 'regression');
  // an image project takes an image dataset registered for its type; the table types take table datasets
  const fits = (d: Dataset, ty: string) => d.data_type !== 'inference_data' && (isImageProject(ty) ? d.training_type === ty : !isImageProject(d.training_type ?? ''));
  const items = (datasets.data ?? []).filter((d) => fits(d, type));
  const chooseType = (v: string) => {
    setType(v);
    if (dataset && !fits(dataset, v)) setDataset(null);
  };
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="new-project-title">
      <DialogTitle id="new-project-title">{t('newDialog.title')}</DialogTitle>
      <DialogContent sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: '8px !important' }}>
        <Autocomplete
          options={items}
          value={dataset}
          onChange={(_, v) => setDataset(v)}
          getOptionLabel={(d) => (isImageProject(d.training_type ?? '') ? `${d.name} (${t('newDialog.images', { n: formatInteger(d.row_count) })})` : `${d.name} (${formatInteger(d.row_count)} × ${d.column_count})`)}
          isOptionEqualToValue={(a, b) => a.id === b.id}
          loading={datasets.isLoading}
          renderInput={(p) => <TextField {...p} label={t('newDialog.dataset')} required />}
        />
        <TextField select label={t('newDialog.type')} value={type} onChange={(e) => chooseType(e.target.value)} helperText={t(`typeHelp.${type}`)}>
          {NEW_PROJECT_TYPES.map((ty) => (
            <MenuItem key={ty} value={ty}>
              {t(`types.${ty}`)}
            </MenuItem>
          ))}
        </TextField>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel', { ns: 'translation' })}</Button>
        <Button variant="contained" disabled={!dataset} onClick={() => dataset && navigate(registerPath(type, dataset.id))}>
          {t('newDialog.next')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default function ProjectListPage() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), 400);
  const [type, setType] = useState('');
  const [pagination, setPagination] = useState({ page: 0, pageSize: 20 });
  const [creating, setCreating] = useState(false);
  const confirm = useConfirmedAction();
  const { data, isFetching } = useProjectList(query, type, pagination.page + 1, pagination.pageSize);

  const askDelete = (row: ListedProject) =>
    confirm.ask({
      title: t('details.deleteTitle'),
      text: t('details.deleteText', { name: row.name }),
      confirmLabel: t('list.delete'),
      destructive: true,
      run: async () => {
        await deleteProject(row.project_type, row.project_id);
        await qc.invalidateQueries({ queryKey: ['training'] });
      },
      done: t('details.deleted'),
    });

  const best = (row: ListedProject) => {
    const m = row.models.find((x) => x.model_key === row.best_model_key);
    if (!m) return '';
    const k = (isProjectType(row.project_type) ? PRIMARY_METRICS[row.project_type] : ['f1'])[row.project_type === 'clustering' ? 1 : row.project_type === 'dimensional_compression' ? 2 : 0];
    return `${m.model_key} · ${t(`metrics.${k}`)} ${formatMetric(metricOf(m, k))}`;
  };
  const columns: ListColumn<ListedProject>[] = [
    {
      field: 'name',
      headerName: t('list.name'),
      sortable: true,
      minWidth: 160,
      render: (row) => (
        <Link component={RouterLink} to={detailsPath(row.project_type, row.project_id)} underline="hover" sx={{ fontWeight: 500 }}>
          {row.name}
        </Link>
      ),
    },
    { field: 'project_type', headerName: t('list.type'), sortable: true, width: 170, render: (row) => t(`types.${row.project_type}`) },
    { field: 'parent_dataset_name', headerName: t('list.dataset'), sortable: true, minWidth: 130 },
    { field: 'training_state', headerName: t('list.state'), sortable: true, width: 130, render: (row) => <StateChip state={row.training_state} /> },
    { field: 'models', headerName: t('list.models'), sortable: true, numeric: true, width: 90, render: (row) => row.models.length, sortValue: (row) => row.models.length },
    { field: 'best_model_key', headerName: t('list.best'), sortable: true, minWidth: 170, render: best, sortValue: best },
    { field: 'created_at', headerName: t('list.created'), sortable: true, width: 150, render: (row) => formatDateTime(row.created_at) },
  ];
  const actions = (row: ListedProject): ListAction<ListedProject>[] => [
    { key: 'open', icon: <OpenInBrowserIcon />, label: t('list.open'), onClick: () => navigate(detailsPath(row.project_type, row.project_id)) },
    { key: 'delete', icon: <DeleteOutlineIcon />, label: t('list.delete'), onClick: () => askDelete(row) },
  ];

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            {t('list.new')}
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ p: 1.5, mb: 1.5, display: 'flex', gap: 1.5, flexWrap: 'wrap' }}>
        <SearchField label={t('list.search')} value={search} onChange={setSearch} sx={{ flex: 1, minWidth: 240 }} />
        <TextField select value={type} onChange={(e) => setType(e.target.value)} sx={{ minWidth: 220 }} label={t('list.type')}>
          <MenuItem value="">{t('list.allTypes')}</MenuItem>
          {NEW_PROJECT_TYPES.map((ty) => (
            <MenuItem key={ty} value={ty}>
              {t(`types.${ty}`)}
            </MenuItem>
          ))}
        </TextField>
      </Paper>
      <Paper variant="outlined" sx={{ height: 560 }}>
        <ListTable
          label={t('title')}
          rows={data?.items}
          rowKey={(r) => r.project_id}
          columns={columns}
          actions={actions}
          loading={isFetching && !data}
          total={data?.total ?? 0}
          page={pagination.page}
          pageSize={pagination.pageSize}
          pageSizes={PAGE_SIZES}
          onPage={(page, pageSize) => setPagination({ page, pageSize })}
          roomy
          empty={t('list.empty')}
        />
      </Paper>
      {creating && <NewProjectDialog open onClose={() => setCreating(false)} />}
      {confirm.dialog}
    </>
  );
}
