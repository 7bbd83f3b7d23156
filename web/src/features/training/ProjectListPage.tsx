import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { formatDateTime, formatInteger } from '../../lib/format';
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
  const qc = useQueryClient();
  const list = useListPage();
  const type = list.filter('project_type', NEW_PROJECT_TYPES);
  const result = useProjectList(list.params.query, type, list.params.page, list.params.page_size);
  const [creating, setCreating] = useState(false);

  const best = (row: ListedProject) => {
    const m = row.models.find((x) => x.model_key === row.best_model_key);
    if (!m) return '';
    const k = (isProjectType(row.project_type) ? PRIMARY_METRICS[row.project_type] : ['f1'])[row.project_type === 'clustering' ? 1 : row.project_type === 'dimensional_compression' ? 2 : 0];
    return `${m.model_key} · ${t(`metrics.${k}`)} ${formatMetric(metricOf(m, k))}`;
  };
  const columns: ListColumn<ListedProject>[] = [
    { field: 'name', headerName: t('list.name'), sortable: true, minWidth: 160, render: (row) => <RowLink to={detailsPath(row.project_type, row.project_id)}>{row.name}</RowLink> },
    { field: 'project_type', headerName: t('list.type'), sortable: true, width: 170, render: (row) => t(`types.${row.project_type}`) },
    { field: 'parent_dataset_name', headerName: t('list.dataset'), sortable: true, minWidth: 130 },
    { field: 'training_state', headerName: t('list.state'), sortable: true, width: 130, render: (row) => <StateChip state={row.training_state} /> },
    { field: 'models', headerName: t('list.models'), sortable: true, numeric: true, width: 90, render: (row) => row.models.length, sortValue: (row) => row.models.length },
    { field: 'best_model_key', headerName: t('list.best'), sortable: true, minWidth: 170, render: best, sortValue: best },
    { field: 'created_at', headerName: t('list.created'), sortable: true, width: 150, render: (row) => formatDateTime(row.created_at) },
  ];

  return (
    <ListPage
      title={t('title')}
      subtitle={t('subtitle')}
      create={{ label: t('list.new'), onClick: () => setCreating(true) }}
      list={list}
      searchLabel={t('list.search')}
      filters={
        <TextField select value={type} onChange={(e) => list.setFilter('project_type', e.target.value)} sx={{ minWidth: 220 }} label={t('list.type')}>
          <MenuItem value="">{t('list.allTypes')}</MenuItem>
          {NEW_PROJECT_TYPES.map((ty) => (
            <MenuItem key={ty} value={ty}>
              {t(`types.${ty}`)}
            </MenuItem>
          ))}
        </TextField>
      }
      result={result}
      columns={columns}
      rowKey={(r) => r.project_id}
      rowPath={(row) => detailsPath(row.project_type, row.project_id)}
      remove={{
        label: t('list.delete'),
        confirm: (row) => ({
          title: t('details.deleteTitle'),
          text: t('details.deleteText', { name: row.name }),
          run: async () => {
            await deleteProject(row.project_type, row.project_id);
            await qc.invalidateQueries({ queryKey: ['training'] });
          },
          done: t('details.deleted'),
        }),
      }}
      roomy
      empty={t('list.empty')}
    >
      {creating && <NewProjectDialog open onClose={() => setCreating(false)} />}
    </ListPage>
  );
}
