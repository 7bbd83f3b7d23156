import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import DownloadIcon from '@mui/icons-material/Download';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { formatDateTime } from '../../lib/format';
import { type ListedProject, useProjectList } from '../training/api';
import { deletePrediction, downloadPredictions, type Prediction, reportPath, usePredictions } from './api';

export const NS = 'prediction';
const COLORS = { queued: 'default', running: 'info', failed: 'error', done: 'success' } as const;

export function PredictionState({ state }: { state: Prediction['state'] }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" color={COLORS[state]} label={t(`states.${state}`)} />;
}

function NewPredictionDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const projects = useProjectList('', '', 1, 200);
  const [project, setProject] = useState<ListedProject | null>(null);
  const items = (projects.data?.items ?? []).filter((p) => p.models_done > 0);
  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="new-prediction-title">
      <DialogTitle id="new-prediction-title">{t('wizard.title')}</DialogTitle>
      <DialogContent sx={{ pt: '8px !important' }}>
        <Autocomplete
          options={items}
          value={project}
          onChange={(_, v) => setProject(v)}
          getOptionLabel={(p) => `${p.name} (${t(`types.${p.project_type}`, { ns: 'training' })})`}
          isOptionEqualToValue={(a, b) => a.project_id === b.project_id}
          renderInput={(p) => <TextField {...p} label={t('wizard.project')} required />}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel', { ns: 'translation' })}</Button>
        <Button variant="contained" disabled={!project} onClick={() => project && navigate(`/prediction/register/${encodeURIComponent(project.project_id)}/${project.project_type}`)}>
          {t('wizard.next')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default function PredictionListPage() {
  const { t } = useTranslation(NS);
  const qc = useQueryClient();
  const list = useListPage();
  const result = usePredictions(list.params.query, list.params.page, list.params.page_size);
  const [creating, setCreating] = useState(false);

  const columns: ListColumn<Prediction>[] = [
    { field: 'name', headerName: t('fields.name'), sortable: true, minWidth: 180, render: (row) => <RowLink to={reportPath(row)}>{row.name}</RowLink> },
    { field: 'project_name', headerName: t('fields.project'), sortable: true, minWidth: 130 },
    { field: 'project_type', headerName: t('fields.type'), sortable: true, width: 160, render: (row) => t(`types.${row.project_type}`, { ns: 'training' }) },
    { field: 'model_key', headerName: t('fields.model'), sortable: true, width: 150 },
    { field: 'test_dataset', headerName: t('fields.dataset'), sortable: true, minWidth: 130 },
    { field: 'state', headerName: t('fields.state'), sortable: true, width: 110, render: (row) => <PredictionState state={row.state} /> },
    { field: 'created_at', headerName: t('fields.created'), sortable: true, width: 150, render: (row) => formatDateTime(row.created_at) },
  ];

  return (
    <ListPage
      title={t('title')}
      subtitle={t('subtitle')}
      create={{ label: t('new'), onClick: () => setCreating(true) }}
      list={list}
      searchLabel={t('search')}
      result={result}
      columns={columns}
      rowKey={(r) => r.id}
      rowPath={reportPath}
      rowActions={(row) => [{ key: 'dl', icon: <DownloadIcon fontSize="small" />, label: t('actions.download'), disabled: row.state !== 'done', onClick: () => void downloadPredictions(row) }]}
      remove={{
        label: t('actions.delete'),
        confirm: (row) => ({
          title: t('report.deleteTitle'),
          text: t('report.deleteText', { name: row.name }),
          run: async () => {
            await deletePrediction(row.id);
            await qc.invalidateQueries({ queryKey: ['prediction'] });
          },
          done: t('report.deleted'),
        }),
      }}
      roomy
      empty={t('empty')}
    >
      {creating && <NewPredictionDialog onClose={() => setCreating(false)} />}
    </ListPage>
  );
}
