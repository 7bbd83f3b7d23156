import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import EChart from '../../charts/EChart';
import ConfirmDialog from '../../components/ConfirmDialog';
import PageLoading from '../../components/PageLoading';
import ProjectFrame from '../../components/ProjectFrame';
import { useProjectActions } from '../../components/useProjectActions';
import { imageKeys, type ImageModel, imageProjects, stopTraining, trainImageProject, useImageProject } from './api';
import './charts';
import { NS as TRAINING_NS, RunErrorAlert } from '../training/labels';
import { fmt, NS, StateChip } from './shared';

function EpochChart({ model }: { model: ImageModel }) {
  const { t } = useTranslation(NS);
  const e = model.epochs;
  const x = e.map((r) => r.epoch);
  const line = (name: string, data: (number | null)[], axis = 0, dashed = false) => ({ name, type: 'line', data, yAxisIndex: axis, showSymbol: true, lineStyle: dashed ? { type: 'dashed' } : undefined });
  const option = {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 50, right: 60, top: 40, bottom: 30 },
    xAxis: { type: 'category', data: x, name: t('details.epoch') },
    yAxis: [{ type: 'value', name: t('details.loss') }, { type: 'value', name: t('details.accuracy'), min: 0, max: 1 }],
    series: [
      line(t('details.loss'), e.map((r) => r.train_loss)),
      line(t('details.val_loss'), e.map((r) => r.val_loss), 0, true),
      line(t('details.accuracy'), e.map((r) => r.train_accuracy), 1),
      line(t('details.val_accuracy'), e.map((r) => r.val_accuracy), 1, true),
    ],
  };
  return (
    <Box>
      <EChart option={option} height={260} ariaLabel={`${t('details.curve')} ${model.model_key}`} />
      <Typography variant="caption" color="text.secondary" data-testid={`epochs-${model.model_key}`}>
        {e.length ? `${t('details.epoch')} ${e[e.length - 1].epoch} · ${t('details.learning_rate')} ${learningRate(e[e.length - 1].learning_rate)}` : t('details.noEpochs')}
      </Typography>
    </Box>
  );
}

/** A learning rate as it is set (1.00e-3); a schedule's end at exactly 0 as 0, a missing one as —. */
const learningRate = (lr: number | null) => (lr === null ? '—' : lr === 0 ? '0' : lr.toExponential(2));

/** /training/details/{project_id} for image projects: settings, Train / Stop, live epoch curves, models and links to results. */
export default function DetailsPage() {
  const { t, i18n } = useTranslation(NS);
  const { t: tt } = useTranslation(TRAINING_NS);
  const { project_id: id } = useParams();
  const qc = useQueryClient();
  const { data: p } = useImageProject(id);
  const [confirmStop, setConfirmStop] = useState(false);
  const actions = useProjectActions(imageProjects, id ?? '', p);
  usePageTitle(p?.name);
  if (!p) return <PageLoading />;
  const refresh = (v: unknown) => qc.setQueryData(imageKeys.project(p.project_id), v);
  const training = p.training_state === 'training';
  const resultPath = (m: ImageModel) => `/training/result/${p.project_type}/details/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`;
  const lang = i18n.language.startsWith('ja') ? 'ja' : 'en';
  return (
    <Box sx={{ maxWidth: 1200 }}>
      <ProjectFrame
        name={p.name}
        typeLabel={t(`type.${p.project_type}`)}
        state={<StateChip state={p.training_state} />}
        facts={[p.parent_dataset_name, `${t('details.images')}: ${p.number_of_data}`, `${t('details.classes')}: ${p.classes.join(', ')}`]}
        actions={
          training ? (
            <Button variant="outlined" color="warning" disabled={p.stopping} onClick={() => setConfirmStop(true)}>
              {p.stopping ? t('details.stopping') : t('details.stop')}
            </Button>
          ) : (
            <Button variant="contained" startIcon={<PlayArrowIcon />} onClick={() => trainImageProject(p.project_id).then(refresh).catch(() => undefined)}>
              {p.training_state === 'ready' ? t('details.train') : t('details.retrain')}
            </Button>
          )
        }
        {...actions}
      >
        {training && p.job && (
          <Box sx={{ mb: 2 }}>
            <LinearProgress variant="determinate" value={Math.round(p.job.progress * 100)} aria-label={t('details.progress')} />
            <Typography variant="caption" color="text.secondary">
              {Math.round(p.job.progress * 100)} % · {p.job.message}
            </Typography>
          </Box>
        )}
        <RunErrorAlert error={p.error} jobState={p.job?.state} />
        {p.models.map((m) => (
          <Paper key={m.model_key} variant="outlined" sx={{ p: 2, mb: 2 }}>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
              <Typography variant="h6" sx={{ flex: 1 }}>
                {t(`algo.${m.algorithm}`)} <Typography component="span" color="text.secondary">({m.model_key})</Typography>
              </Typography>
              <StateChip state={m.state} />
              {m.state === 'done' && (
                <>
                  <Button size="small" variant="outlined" component={RouterLink} to={resultPath(m)}>
                    {t('details.results')}
                  </Button>
                  {p.project_type === 'analysis' && (
                    <Button size="small" variant="outlined" component={RouterLink} to={`/training/result/threshold/${encodeURIComponent(p.project_id)}/${encodeURIComponent(m.model_key)}`}>
                      {t('details.threshold')}
                    </Button>
                  )}
                </>
              )}
            </Box>
            {m.stopped && <Alert severity="info" sx={{ mb: 1 }}>{t('details.stopped')}</Alert>}
            {m.state === 'failed' &&
              (p.job?.state === 'cancelled' ? (
                <Alert severity="info" sx={{ mb: 1 }}>{tt('details.stoppedModel')}</Alert>
              ) : (
                <Alert severity="error" sx={{ mb: 1 }}>{m.error_message ? m.error_message[lang] : m.error}</Alert>
              ))}
            {m.algorithm !== 'patchcore' && <EpochChart model={m} />}
            {m.metrics && (
              <Table size="small" sx={{ width: 'auto' }}>
                <TableHead>
                  <TableRow>
                    {(['accuracy', 'precision', 'recall', 'f1', 'roc_auc'] as const).map((k) => (
                      <TableCell key={k}>{t(`metric.${k}`)}</TableCell>
                    ))}
                    {m.seconds !== null && <TableCell />}
                  </TableRow>
                </TableHead>
                <TableBody>
                  <TableRow>
                    {(['accuracy', 'precision', 'recall', 'f1', 'roc_auc'] as const).map((k) => (
                      <TableCell key={k}>{fmt(m.metrics?.[k])}</TableCell>
                    ))}
                    {m.seconds !== null && <TableCell>{t('details.seconds', { s: m.seconds.toFixed(1) })}</TableCell>}
                  </TableRow>
                </TableBody>
              </Table>
            )}
          </Paper>
        ))}
        <ConfirmDialog
          open={confirmStop}
          title={t('details.stop')}
          text={t('details.stopConfirm')}
          confirmLabel={t('details.stop')}
          onClose={() => setConfirmStop(false)}
          onConfirm={() => {
            setConfirmStop(false);
            stopTraining(p.project_id).then(refresh).catch(() => undefined);
          }}
        />
      </ProjectFrame>
    </Box>
  );
}
