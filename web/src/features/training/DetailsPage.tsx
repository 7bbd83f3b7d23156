import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import AssessmentIcon from '@mui/icons-material/AssessmentOutlined';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLongOutlined';
import TimelineIcon from '@mui/icons-material/Timeline';
import StarIcon from '@mui/icons-material/Star';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import ConfirmDialog from '../../components/ConfirmDialog';
import InfoGrid from '../../components/InfoGrid';
import PageHeader from '../../components/PageHeader';
import PageLoading from '../../components/PageLoading';
import { showSnackbar } from '../../lib/feedback';
import { formatInteger } from '../../lib/format';
import { deleteProject, downloadModel, metricOf, type Model, renameProject, reportPath, trainingKeys, trainProject, useCatalogue, useTableProject } from './api';
import { formatMetric, NS, PRIMARY_METRICS, StateChip } from './labels';

/** A project: its settings, the Train button, progress while it trains, and the model list with metrics. */
export default function DetailsPage() {
  const { t } = useTranslation(NS);
  const { project_id: id = '' } = useParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const { data: p, isLoading } = useTableProject(id);
  const [log, setLog] = useState<Model | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const catalogue = useCatalogue();
  usePageTitle(p?.name);
  if (isLoading) return <PageLoading />;
  if (!p) return null;

  const metrics = PRIMARY_METRICS[p.project_type];
  // each model's algorithm in the reader's language, beside its key
  const names = new Map((catalogue.data?.types.find((x) => x.type === p.project_type)?.algorithms ?? []).map((a) => [a.key, a.label]));
  const supervised = p.project_type !== 'clustering' && p.project_type !== 'dimensional_compression';
  const training = p.training_state === 'training';
  const train = async () => {
    setBusy(true);
    try {
      const next = await trainProject(p.project_id);
      qc.setQueryData(trainingKeys.project(p.project_id), next);
      showSnackbar(t('details.started'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader
        title={p.name}
        subtitle={
          <Box component="span" sx={{ display: 'inline-flex', gap: 1, alignItems: 'center' }}>
            {t(`types.${p.project_type}`)} · <StateChip state={p.training_state} />
          </Box>
        }
        actions={
          <>
            <Button variant="contained" startIcon={<PlayArrowIcon />} disabled={training || busy} onClick={() => void train()}>
              {training ? t('details.training') : p.training_state === 'ready' ? t('details.train') : t('details.retrain')}
            </Button>
            <Button startIcon={<EditOutlinedIcon />} onClick={() => setRenaming(p.name)}>
              {t('details.rename')}
            </Button>
            <Button color="error" startIcon={<DeleteOutlineIcon />} onClick={() => setDeleting(true)}>
              {t('details.delete')}
            </Button>
          </>
        }
      />
      {training && p.job && (
        <Paper variant="outlined" sx={{ p: 2, mb: 2 }} role="status" aria-live="polite">
          <Typography variant="body2" sx={{ mb: 1 }}>
            {t('details.progress')}: {Math.round(p.job.progress * 100)} % {p.job.message ? `— ${p.job.message}` : ''}
          </Typography>
          <LinearProgress variant="determinate" value={p.job.progress * 100} aria-label={t('details.progress')} />
        </Paper>
      )}
      {p.training_state === 'failed' && p.error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {t('details.failedRun')}: {p.error}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, mb: 1.5 }}>
          {t('details.info')}
        </Typography>
        <InfoGrid
          items={[
            { label: t('details.dataset'), value: `${p.parent_dataset_name} (${formatInteger(p.number_of_data)})` },
            ...(p.target_variables.length ? [{ label: t('details.target'), value: p.target_variables.join(', ') }] : []),
            ...(p.project_type !== 'clustering' && p.project_type !== 'dimensional_compression'
              ? [
                  { label: t('details.split'), value: p.evaluation === 'cv_only' ? t('wizard.cvOnly') : (p.split_time ?? `${Math.round((p.split_ratio ?? 0) * 100)} / ${100 - Math.round((p.split_ratio ?? 0) * 100)}`) },
                  { label: t('details.cv'), value: p.cross_validation === 'default' ? t('details.cvDefault') : String(p.cross_validation) },
                ]
              : []),
            { label: t('details.autoTune'), value: p.auto_tune ? t('details.trials', { n: p.number_of_trials }) : t('details.off') },
            ...(p.lags.length || p.windows.length ? [{ label: `${t('wizard.lags')} / ${t('wizard.windows')}`, value: `${p.lags.join(', ') || '—'} / ${p.windows.join(', ') || '—'}` }] : []),
            { label: t('details.features'), value: p.feature_variables.join(', '), wide: true },
          ]}
        />
      </Paper>
      <Paper variant="outlined" sx={{ overflowX: 'auto' }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, p: 2, pb: 1 }}>
          {t('details.models')}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, pb: 1 }}>
          {t(`details.chosenBy.${p.best_model_basis}`)}
        </Typography>
        <Table size="small" aria-label={t('details.models')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('details.model')}</TableCell>
              <TableCell>{t('details.state')}</TableCell>
              {metrics.map((m) => (
                <TableCell key={m} align="right">
                  {supervised ? t('details.testOf', { metric: t(`metrics.${m}`) }) : t(`metrics.${m}`)}
                </TableCell>
              ))}
              {supervised && <TableCell align="right">{p.project_type === 'soft_sensor' ? t('details.cvPooled') : t('details.cvMean')}</TableCell>}
              <TableCell align="right">{t('details.time')}</TableCell>
              <TableCell align="right" />
            </TableRow>
          </TableHead>
          <TableBody>
            {p.models.map((m) => (
              <TableRow key={m.model_key} hover>
                <TableCell>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
                    {m.model_key === p.best_model_key && (
                      <Tooltip title={t('details.best')}>
                        <StarIcon fontSize="small" color="warning" />
                      </Tooltip>
                    )}
                    <Box>
                      <Box sx={{ whiteSpace: 'nowrap' }}>{m.model_key}</Box>
                      {names.has(m.algorithm) && (
                        <Typography variant="caption" color="text.secondary" sx={{ display: 'block', whiteSpace: 'nowrap' }}>
                          {names.get(m.algorithm)}
                        </Typography>
                      )}
                    </Box>
                  </Box>
                </TableCell>
                <TableCell>
                  <StateChip state={m.state} />
                </TableCell>
                {metrics.map((k) => (
                  <TableCell key={k} align="right">
                    {formatMetric(metricOf(m, k))}
                  </TableCell>
                ))}
                {supervised && <TableCell align="right">{formatMetric(m.cv?.mean)}</TableCell>}
                <TableCell align="right">{m.seconds != null ? m.seconds.toFixed(1) : '—'}</TableCell>
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  {m.state === 'done' && (
                    <Box sx={{ display: 'inline-flex', gap: 0.5 }}>
                      <Button size="small" startIcon={<AssessmentIcon />} aria-label={`${t('details.report')} ${m.model_key}`} onClick={() => navigate(reportPath(p.project_type, p.project_id, m.model_key))}>
                        {t('details.report')}
                      </Button>
                      <Button size="small" startIcon={<DownloadIcon />} aria-label={`${t('details.downloadModel')} ${m.model_key}`} onClick={() => void downloadModel(p, m)}>
                        {t('details.model')}
                      </Button>
                      <Button
                        size="small"
                        startIcon={<TimelineIcon />}
                        aria-label={`${t('details.predict')} ${m.model_key}`}
                        onClick={() => navigate(`/training/prediction/register/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`)}
                      >
                        {t('details.predict')}
                      </Button>
                      {(p.project_type === 'regression' || p.project_type === 'soft_sensor') && !p.lags.length && !p.windows.length && (
                        <Button
                          size="small"
                          aria-label={`${t('details.optimize')} ${m.model_key}`}
                          onClick={() => navigate(`/training/optimization/register/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`)}
                        >
                          {t('details.optimize')}
                        </Button>
                      )}
                    </Box>
                  )}
                  {m.state === 'failed' && (
                    <Button size="small" color="error" startIcon={<ReceiptLongIcon />} onClick={() => setLog(m)}>
                      {t('details.log')}
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Paper>
      <Dialog open={!!log} onClose={() => setLog(null)} maxWidth="md" fullWidth aria-labelledby="log-title">
        <DialogTitle id="log-title">{t('details.logTitle', { model: log?.model_key ?? '' })}</DialogTitle>
        <DialogContent>
          <Alert severity="error" sx={{ mb: 1 }}>
            {log?.error}
          </Alert>
          <Box component="pre" sx={{ fontSize: 12, whiteSpace: 'pre-wrap', bgcolor: 'grey.100', p: 1.5, borderRadius: 1, maxHeight: 400, overflow: 'auto' }}>
            {log?.log}
          </Box>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setLog(null)}>{t('details.close')}</Button>
        </DialogActions>
      </Dialog>
      <Dialog open={renaming !== null} onClose={() => setRenaming(null)} maxWidth="xs" fullWidth aria-labelledby="rename-title">
        <DialogTitle id="rename-title">{t('details.rename')}</DialogTitle>
        <DialogContent sx={{ pt: '8px !important' }}>
          <TextField fullWidth label={t('wizard.name')} value={renaming ?? ''} onChange={(e) => setRenaming(e.target.value)} slotProps={{ htmlInput: { maxLength: 200 } }} />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setRenaming(null)}>{t('details.close')}</Button>
          <Button
            variant="contained"
            disabled={!renaming?.trim() || busy}
            onClick={async () => {
              setBusy(true);
              try {
                qc.setQueryData(trainingKeys.project(p.project_id), await renameProject(p.project_id, renaming!.trim()));
                await qc.invalidateQueries({ queryKey: ['training', 'list'] });
                setRenaming(null);
              } finally {
                setBusy(false);
              }
            }}
          >
            {t('details.rename')}
          </Button>
        </DialogActions>
      </Dialog>
      <ConfirmDialog
        open={deleting}
        title={t('details.deleteTitle')}
        text={t('details.deleteText', { name: p.name })}
        confirmLabel={t('list.delete')}
        destructive
        busy={busy}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          setBusy(true);
          try {
            await deleteProject(p.project_type, p.project_id);
            await qc.invalidateQueries({ queryKey: ['training'] });
            showSnackbar(t('details.deleted'));
            navigate('/training');
          } finally {
            setBusy(false);
          }
        }}
      />
    </>
  );
}
