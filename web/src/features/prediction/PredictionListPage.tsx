import Autocomplete from '@mui/material/Autocomplete';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import TextField from '@mui/material/TextField';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import OpenInBrowserIcon from '@mui/icons-material/OpenInBrowser';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import PageHeader from '../../components/PageHeader';
import ListTable, { type ListAction, type ListColumn, PAGE_SIZES } from '../../components/ListTable';
import SearchField from '../../components/SearchField';
import { useConfirmedAction } from '../../components/useConfirmedAction';
import { formatDateTime } from '../../lib/format';
import { useDebounced } from '../../lib/useDebounced';
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
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const query = useDebounced(search.trim(), 400);
  const [pagination, setPagination] = useState({ page: 0, pageSize: 20 });
  const [creating, setCreating] = useState(false);
  const confirm = useConfirmedAction();
  const { data, isFetching } = usePredictions(query, pagination.page + 1, pagination.pageSize);

  const askDelete = (row: Prediction) =>
    confirm.ask({
      title: t('report.deleteTitle'),
      text: t('report.deleteText', { name: row.name }),
      confirmLabel: t('actions.delete'),
      destructive: true,
      run: async () => {
        await deletePrediction(row.id);
        await qc.invalidateQueries({ queryKey: ['prediction'] });
      },
      done: t('report.deleted'),
    });

  const columns: ListColumn<Prediction>[] = [
    {
      field: 'name',
      headerName: t('fields.name'),
      sortable: true,
      minWidth: 180,
      render: (row) => (
        <Link component={RouterLink} to={reportPath(row)} underline="hover" sx={{ fontWeight: 500 }}>
          {row.name}
        </Link>
      ),
    },
    { field: 'project_name', headerName: t('fields.project'), sortable: true, minWidth: 130 },
    { field: 'project_type', headerName: t('fields.type'), sortable: true, width: 160, render: (row) => t(`types.${row.project_type}`, { ns: 'training' }) },
    { field: 'model_key', headerName: t('fields.model'), sortable: true, width: 150 },
    { field: 'test_dataset', headerName: t('fields.dataset'), sortable: true, minWidth: 130 },
    { field: 'state', headerName: t('fields.state'), sortable: true, width: 110, render: (row) => <PredictionState state={row.state} /> },
    { field: 'created_at', headerName: t('fields.created'), sortable: true, width: 150, render: (row) => formatDateTime(row.created_at) },
  ];
  const actions = (row: Prediction): ListAction<Prediction>[] => [
    { key: 'open', icon: <OpenInBrowserIcon />, label: t('actions.open'), onClick: () => navigate(reportPath(row)) },
    { key: 'dl', icon: <DownloadIcon />, label: t('actions.download'), disabled: row.state !== 'done', onClick: () => void downloadPredictions(row) },
    { key: 'del', icon: <DeleteOutlineIcon />, label: t('actions.delete'), onClick: () => askDelete(row) },
  ];

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        actions={
          <Button variant="contained" startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            {t('new')}
          </Button>
        }
      />
      <Paper variant="outlined" sx={{ p: 1.5, mb: 1.5 }}>
        <SearchField label={t('search')} value={search} onChange={setSearch} fullWidth />
      </Paper>
      <Paper variant="outlined" sx={{ height: 560 }}>
        <ListTable
          label={t('title')}
          rows={data?.items}
          rowKey={(r) => r.id}
          columns={columns}
          actions={actions}
          loading={isFetching && !data}
          total={data?.total ?? 0}
          page={pagination.page}
          pageSize={pagination.pageSize}
          pageSizes={PAGE_SIZES}
          onPage={(page, pageSize) => setPagination({ page, pageSize })}
          roomy
          empty={t('empty')}
        />
      </Paper>
      {creating && <NewPredictionDialog onClose={() => setCreating(false)} />}
      {confirm.dialog}
    </>
  );
}
