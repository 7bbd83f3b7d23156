import './i18nBundle';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import TableCell from '@mui/material/TableCell';
import Typography from '@mui/material/Typography';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ProjectType } from './api';

export const NS = 'training';

/** The metrics shown in model tables, per type (SPEC §3 'Training results'). */
export const PRIMARY_METRICS: Record<ProjectType, string[]> = {
  regression: ['r2', 'rmse', 'mae', 'mape'],
  soft_sensor: ['r2', 'rmse', 'mae', 'mape'],
  discriminant_analysis: ['accuracy', 'precision', 'recall', 'f1', 'roc_auc'],
  clustering: ['n_clusters', 'silhouette', 'davies_bouldin', 'noise'],
  dimensional_compression: ['n_components', 'explained_variance', 'trustworthiness'],
};

export function formatMetric(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v)) return v.toLocaleString();
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3);
  return v.toFixed(a >= 100 ? 2 : 4);
}

const COLORS = { ready: 'default', training: 'info', failed: 'error', done: 'success' } as const;

export function StateChip({ state }: { state: string }) {
  const { t } = useTranslation(NS);
  return <Chip size="small" color={COLORS[state as keyof typeof COLORS] ?? 'default'} label={t(`states.${state}`, { defaultValue: state })} variant={state === 'ready' ? 'outlined' : 'filled'} />;
}

/** A model's state in a project page's models table (tabular and time-series projects): the chip, and under it why a
 * model failed, as the server says it in the reader's language — or, when the person stopped the run (`stopped`: the
 * project's last job was cancelled), that it was stopped (the stored reason is the job's English words). */
export function ModelStateCell({ state, error, stopped }: { state: string; error?: string | null; stopped?: boolean }) {
  const { t } = useTranslation(NS);
  const why = state === 'failed' && stopped ? t('details.stoppedModel') : error;
  return (
    <TableCell>
      <StateChip state={state} />
      {why && (
        <Typography variant="caption" color={stopped ? 'text.secondary' : 'error'} sx={{ display: 'block', maxWidth: 380 }}>
          {why}
        </Typography>
      )}
    </TableCell>
  );
}

/** A project's failed last run over its page (tabular, time-series and image projects): a run the person stopped reads as
 * stopped, in the reader's language, not as the failure the job's English words would make of it. */
export function RunErrorAlert({ error, jobState }: { error?: string | null; jobState?: string | null }) {
  const { t } = useTranslation(NS);
  if (jobState === 'cancelled') return <Alert severity="info" sx={{ mb: 2 }}>{t('details.stoppedRun')}</Alert>;
  return error ? <Alert severity="error" sx={{ mb: 2 }}>{error}</Alert> : null;
}

/** The Train button of a project page (tabular and time-series projects): off while the project trains and while the
 * request to start it is on its way. */
export function TrainButton({ label, training, onTrain }: { label: string; training: boolean; onTrain: () => Promise<unknown> }) {
  const [busy, setBusy] = useState(false);
  const train = async () => {
    setBusy(true);
    try {
      await onTrain();
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="contained" startIcon={<PlayArrowIcon />} disabled={training || busy} onClick={() => void train()}>
      {label}
    </Button>
  );
}
