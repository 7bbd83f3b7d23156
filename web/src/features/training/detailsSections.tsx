import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import AssessmentIcon from '@mui/icons-material/AssessmentOutlined';
import DownloadIcon from '@mui/icons-material/Download';
import ReceiptLongIcon from '@mui/icons-material/ReceiptLongOutlined';
import TimelineIcon from '@mui/icons-material/Timeline';
import StarIcon from '@mui/icons-material/Star';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import InfoGrid from '../../components/InfoGrid';
import { formatInteger } from '../../lib/format';
import { downloadModel, metricOf, type Model, type Project, reportPath, useCatalogue } from './api';
import { formatMetric, ModelStateCell, NS, PRIMARY_METRICS } from './labels';

/** What the project was set up with: dataset, target, split, cross-validation, tuning, features. */
export function SettingsSection({ p }: { p: Project }) {
  const { t } = useTranslation(NS);
  return (
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
  );
}

/** A failed model's error and log. */
function LogDialog({ log, onClose }: { log: Model | null; onClose: () => void }) {
  const { t } = useTranslation(NS);
  return (
    <Dialog open={!!log} onClose={onClose} maxWidth="md" fullWidth aria-labelledby="log-title">
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
        <Button onClick={onClose}>{t('details.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** The models with their metrics and what can be done with each: report, download, predict, optimise, or the log. */
export function ModelsSection({ p }: { p: Project }) {
  const { t } = useTranslation(NS);
  const navigate = useNavigate();
  const catalogue = useCatalogue();
  const [log, setLog] = useState<Model | null>(null);
  const metrics = PRIMARY_METRICS[p.project_type];
  // each model's algorithm in the reader's language, beside its key
  const names = new Map((catalogue.data?.types.find((x) => x.type === p.project_type)?.algorithms ?? []).map((a) => [a.key, a.label]));
  const supervised = p.project_type !== 'clustering' && p.project_type !== 'dimensional_compression';
  return (
    <>
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
                <ModelStateCell state={m.state} error={m.error} stopped={p.job?.state === 'cancelled'} />
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
      <LogDialog log={log} onClose={() => setLog(null)} />
    </>
  );
}
