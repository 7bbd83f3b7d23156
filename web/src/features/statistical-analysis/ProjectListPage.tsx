import Autocomplete from '@mui/material/Autocomplete';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import ReplayIcon from '@mui/icons-material/Replay';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useNavigate } from 'react-router';
import type { Dataset } from '../../api/types';
import ListPage, { RowLink } from '../../components/ListPage';
import type { ListAction, ListColumn } from '../../components/ListTable';
import { useListPage } from '../../components/useListPage';
import { showSnackbar } from '../../lib/feedback';
import { formatDateTime, formatInteger } from '../../lib/format';
import { useAllDatasets } from '../datasets/api';
import { downloadResult, downloadSummary, type Project, runProject, STATES, statKeys, useProjects, useStateCounts } from './api';
import DeleteProjectDialog from './DeleteProjectDialog';
import { DecisionChip, formatP, methodLabel, NS, StateChip, variablesText } from './labels';

export const detailsPath = (id: string) => `/statistical-analysis/details/${encodeURIComponent(id)}`;
export const registerPath = (datasetId: string) => `/statistical-analysis/register/${encodeURIComponent(datasetId)}`;
/** Choose a dataset, then go to the register page of a test on it. */
function NewTestCard() {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const datasets = useAllDatasets();
  const [chosen, setChosen] = useState<Dataset | null>(null);
  const items = datasets.data ?? [];
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {t('newTest.title')}
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {t('newTest.text')}
      </Typography>
      {datasets.isSuccess && items.length === 0 ? (
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
          <Typography color="text.secondary">{t('newTest.noDatasets')}</Typography>
          <Button component={RouterLink} to="/dataset/register" variant="outlined">
            {t('newTest.toDatasets')}
          </Button>
        </Box>
      ) : (
        <Box sx={{ display: 'flex', gap: 1.5, alignItems: 'center', flexWrap: 'wrap' }}>
          <Autocomplete
            options={items}
            value={chosen}
            onChange={(_, v) => setChosen(v)}
            loading={datasets.isLoading}
            getOptionLabel={(d) => d.name}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            renderOption={(props, d) => (
              <li {...props} key={d.id}>
                <Box>
                  <Typography variant="body2">{d.name}</Typography>
                  <Typography variant="caption" color="text.secondary">
                    {t('newTest.rows', { rows: formatInteger(d.row_count), columns: formatInteger(d.column_count) })} · {d.file_name}
                  </Typography>
                </Box>
              </li>
            )}
            renderInput={(params) => <TextField {...params} label={t('newTest.dataset')} />}
            sx={{ flex: 1, minWidth: 280, maxWidth: 560 }}
          />
          <Button variant="contained" startIcon={<AddIcon />} disabled={!chosen} onClick={() => chosen && navigate(registerPath(chosen.id))}>
            {t('newTest.button')}
          </Button>
        </Box>
      )}
    </Paper>
  );
}

/** /statistical-analysis: the projects by state, with a way to start a test on a dataset. */
export default function ProjectListPage() {
  const { t, i18n } = useTranslation(NS);
  const queryClient = useQueryClient();
  const list = useListPage();
  const state = list.filter('state', STATES);
  const [deleting, setDeleting] = useState<Project | null>(null);

  const result = useProjects({ ...list.params, state });
  const counts = useStateCounts().data?.counts;
  const lang = i18n.language === 'ja' ? 'ja' : 'en';

  const rerun = useMutation({
    mutationFn: (p: Project) => runProject(p.id),
    onSuccess: () => {
      showSnackbar(t('details.started'));
      void queryClient.invalidateQueries({ queryKey: statKeys.all });
    },
  });
  const download = useMutation({ mutationFn: (p: Project) => downloadResult(p, 'csv', lang) });
  const summary = useMutation({ mutationFn: () => downloadSummary((result.data?.items ?? []).map((p) => p.id)) });

  const columns: ListColumn<Project>[] = [
    { field: 'name', headerName: t('columns.name'), minWidth: 160, render: (row) => <RowLink to={detailsPath(row.id)}>{row.name}</RowLink> },
    { field: 'test_type', headerName: t('columns.test'), minWidth: 150, render: (row) => methodLabel(t, row.test_type, row.summary?.method) },
    { field: 'dataset_name', headerName: t('columns.dataset'), minWidth: 110 },
    { field: 'variables', headerName: t('columns.variables'), minWidth: 140, render: (row) => variablesText(row) },
    { field: 'p_value', headerName: t('columns.pValue'), width: 96, numeric: true, render: (row) => formatP(row.summary?.p_value) },
    { field: 'decision', headerName: t('columns.decision'), width: 130, render: (row) => (row.summary ? <DecisionChip reject={row.summary.reject} /> : null) },
    { field: 'state', headerName: t('columns.state'), width: 100, render: (row) => <StateChip state={row.state} /> },
    { field: 'created_at', headerName: t('columns.createdAt'), width: 132, render: (row) => formatDateTime(row.created_at) },
  ];
  const actions = (row: Project): ListAction<Project>[] => [
    { key: 'rerun', icon: <ReplayIcon fontSize="small" />, label: t('details.rerun'), disabled: row.state === 'running', onClick: () => rerun.mutate(row) },
    { key: 'csv', icon: <DownloadIcon fontSize="small" />, label: t('details.downloadCsv'), disabled: !row.summary, onClick: () => download.mutate(row) },
    // its own dialog, shared with the project page (it forgets the project's queries)
    { key: 'delete', icon: <DeleteOutlineIcon fontSize="small" />, label: t('details.delete'), onClick: () => setDeleting(row) },
  ];

  const tabLabel = (key: string) => `${t(`tabs.${key || 'all'}`)}${counts ? ` (${counts[key || 'all'] ?? 0})` : ''}`;

  return (
    <ListPage
      title={t('title')}
      subtitle={t('listSubtitle')}
      actions={
        <Button variant="outlined" startIcon={<DownloadIcon />} disabled={!result.data?.items.length || summary.isPending} onClick={() => summary.mutate()}>
          {t('downloadSummary')}
        </Button>
      }
      lead={<NewTestCard />}
      list={list}
      searchLabel={t('search')}
      filters={
        <Tabs value={state} onChange={(_, v: string) => list.setFilter('state', v)} aria-label={t('columns.state')} variant="scrollable" sx={{ flex: 1, minWidth: 280 }}>
          <Tab value="" label={tabLabel('')} />
          {STATES.map((s) => (
            <Tab key={s} value={s} label={tabLabel(s)} />
          ))}
        </Tabs>
      }
      result={result}
      columns={columns}
      rowKey={(r) => r.id}
      rowPath={(row) => detailsPath(row.id)}
      rowActions={actions}
      sx={{ height: 'calc(100vh - 420px)', minHeight: 360 }}
      empty={t('noProjects')}
    >
      <DeleteProjectDialog project={deleting} onClose={() => setDeleting(null)} />
    </ListPage>
  );
}
