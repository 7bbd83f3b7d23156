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
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link as RouterLink, useParams } from 'react-router';
import { usePageTitle } from '../../app/pageTitle';
import InfoGrid from '../../components/InfoGrid';
import PageLoading from '../../components/PageLoading';
import ProjectFrame from '../../components/ProjectFrame';
import { useProjectActions } from '../../components/useProjectActions';
import { ModelStateCell, RunErrorAlert, StateChip, TrainButton } from '../training/labels';
import { type TsProject, downloadTsModel, reportPath, thresholdPath, trainTs, tsKeys, tsProjects, useTsProject } from './api';

const pct = (v: unknown) => (typeof v === 'number' ? `${(v * 100).toFixed(1)} %` : '—');
const num = (v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(4)).toString() : '—');

/** What the project was set up with: time column, signals, label, windowing, drift, normal period or split. */
function SettingsSection({ p }: { p: TsProject }) {
  const { t } = useTranslation('timeseries');
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <InfoGrid
        items={[
          { label: t('details.timeColumn', { context: p.time_is_datetime ? 'datetime' : 'order' }), value: p.time_column },
          { label: t('details.signals'), value: `${p.feature_variables.length}: ${p.feature_variables.slice(0, 8).join(', ')}${p.feature_variables.length > 8 ? ' …' : ''}` },
          { label: t('details.label'), value: p.target_variables[0] ?? '—' },
          { label: t('details.lags'), value: p.lags.join(', ') || '—' },
          {
            label: t('details.windows'),
            value: p.windows.length ? `${(p.windows as (number | string)[]).join(', ')} (${p.window_stats.map((x) => t(`wizard.stat_${x}`)).join(', ')})` : '—',
          },
          { label: t('details.resample'), value: p.resample || t('details.noResample') },
          { label: t('details.drift'), value: p.drift_signals.length ? t('details.driftValue', { signals: p.drift_signals.join(', '), rows: p.drift_rows }) : t('details.noDrift'), wide: true },
          p.mode === 'unsupervised'
            ? { label: t('details.normal'), value: p.normal?.mode === 'rows' ? t('details.firstRows', { rows: p.normal.rows }) : p.normal ? `${p.normal.start} – ${p.normal.end}` : '—' }
            : { label: t('details.split'), value: `${Math.round((p.split_ratio ?? 0) * 100)} %` },
        ]}
      />
    </Paper>
  );
}

/** /training/time-series/details|result/{project_id}: settings, Train, progress, detectors with metrics and thresholds. */
export default function DetailsPage() {
  const { t } = useTranslation('timeseries');
  const { project_id: id = '' } = useParams();
  const qc = useQueryClient();
  const { data: p, isLoading } = useTsProject(id);
  const actions = useProjectActions(tsProjects, id, p);
  usePageTitle(p?.name);
  if (isLoading || !p) return <PageLoading />;
  const training = p.training_state === 'training';
  const labelled = p.target_variables.length > 0;
  const train = async () => qc.setQueryData(tsKeys.project(id), await trainTs(id));
  const sorted = p.notes.find((n) => n.startsWith('sorted:'));
  return (
    <ProjectFrame
      name={p.name}
      typeLabel={t(`types.${p.project_type}`)}
      state={<StateChip state={p.training_state} />}
      facts={[p.parent_dataset_name]}
      actions={
        <TrainButton label={p.models_done ? t('details.retrain') : t('details.train')} training={training} onTrain={train} />
      }
      {...actions}
    >
      {sorted && <Alert severity="info" sx={{ mb: 2 }}>{t('details.sorted', { column: sorted.slice(7) })}</Alert>}
      <RunErrorAlert error={p.error} jobState={p.job?.state} />
      {training && (
        <Box sx={{ mb: 2 }}>
          <LinearProgress variant="determinate" value={(p.job?.progress ?? 0) * 100} />
          <Typography variant="body2" color="text.secondary">
            {p.job?.message}
          </Typography>
        </Box>
      )}
      <SettingsSection p={p} />
      <Typography variant="h6" gutterBottom>
        {t('details.models')}
      </Typography>
      <Paper variant="outlined">
        <Table size="small" aria-label={t('details.models')}>
          <TableHead>
            <TableRow>
              <TableCell>{t('details.models')}</TableCell>
              <TableCell>{t('details.state')}</TableCell>
              <TableCell>{t('details.threshold')}</TableCell>
              <TableCell>{t('details.far')}</TableCell>
              {labelled && (
                <>
                  <TableCell>{t('metrics.f1')}</TableCell>
                  <TableCell>{t('metrics.mar')}</TableCell>
                  <TableCell>{t('metrics.event_f1')}</TableCell>
                </>
              )}
              <TableCell>{t('metrics.alarms')}</TableCell>
              <TableCell />
            </TableRow>
          </TableHead>
          <TableBody>
            {p.models.map((m) => {
              const mt = (m.metrics ?? {}) as Record<string, unknown>;
              const done = m.state === 'done';
              return (
                <TableRow key={m.model_key}>
                  <TableCell>{m.label}</TableCell>
                  <ModelStateCell state={m.state} error={m.error} stopped={p.job?.state === 'cancelled'} />
                  <TableCell>
                    {num(m.threshold)}
                    {m.saved_threshold !== null && ` (${t('details.saved')})`}
                  </TableCell>
                  <TableCell data-testid={`far-${m.model_key}`}>
                    {pct(mt.far)}
                    {typeof mt.far_basis === 'string' && (
                      <Typography variant="caption" color="text.secondary" sx={{ display: 'block' }}>
                        {t(`metrics.farBasis.${mt.far_basis}`)}
                      </Typography>
                    )}
                  </TableCell>
                  {labelled && (
                    <>
                      <TableCell title={mt.f1 === null && done ? t('metrics.noAnomalies') : undefined}>{mt.f1 === null && done ? t('metrics.notAvailable') : num(mt.f1)}</TableCell>
                      <TableCell>{pct(mt.mar)}</TableCell>
                      <TableCell title={mt.event_f1 === null && done ? t('metrics.noAnomalies') : undefined}>{mt.event_f1 === null && done ? t('metrics.notAvailable') : num(mt.event_f1)}</TableCell>
                    </>
                  )}
                  <TableCell>{num(mt.alarms)}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>
                    <Button size="small" disabled={!done} component={RouterLink} to={thresholdPath(id, m.model_key)}>
                      {t('details.thresholdPage')}
                    </Button>
                    <Button size="small" disabled={!done} component={RouterLink} to={reportPath(id, m.model_key)}>
                      {t('details.report')}
                    </Button>
                    <Button size="small" disabled={!done} component={RouterLink} to={`/training/prediction/register/${encodeURIComponent(id)}/${encodeURIComponent(m.model_key)}`}>
                      {t('details.predict')}
                    </Button>
                    <Button size="small" disabled={!done} onClick={() => downloadTsModel(p, m)}>
                      {t('details.download')}
                    </Button>
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </Paper>
      {p.best_model_key && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }} data-testid="best-basis">
          {t(`details.bestBasis.${p.best_model_basis}`)}
        </Typography>
      )}
    </ProjectFrame>
  );
}
