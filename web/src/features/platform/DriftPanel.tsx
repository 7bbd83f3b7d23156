import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { alpha } from '@mui/material/styles';
import { useQueryClient } from '@tanstack/react-query';
import { LineChart } from 'echarts/charts';
import { LegendComponent, MarkLineComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import EChart from '../../charts/EChart';
import { formatDateTime, formatInteger } from '../../lib/format';
import { checkDrift, type Drift, driftKey, type DriftSettings, type PlatformProject, saveDriftSettings, useDrift } from './api';
import { NS } from './common';

// The PSI of each feature over the checks, with the project's threshold as a dashed line.
echarts.use([LineChart, LegendComponent, MarkLineComponent]);

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)} %`);
const fixed = (v: number | null | undefined, d = 3) => (v === null || v === undefined ? '—' : v.toFixed(d));
const pValue = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v < 1e-4 ? v.toExponential(1) : v.toFixed(4));

/** The settings a project's owner or admin may change, in the order shown. */
const FIELDS: { key: keyof DriftSettings; step: number }[] = [
  { key: 'psi', step: 0.05 },
  { key: 'p_value', step: 0.005 },
  { key: 'outside', step: 0.01 },
  { key: 'missing', step: 0.01 },
  { key: 'window_rows', step: 100 },
  { key: 'window_hours', step: 1 },
  { key: 'min_rows', step: 10 },
  { key: 'auto_every', step: 100 },
  { key: 'auto_minutes', step: 10 },
];

function SettingsForm({ project, drift, onSaved }: { project: PlatformProject; drift: Drift; onSaved: () => void }) {
  const { t } = useTranslation(NS);
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(FIELDS.map((f) => [f.key, String(drift.settings[f.key])])));
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    try {
      await saveDriftSettings(project.id, Object.fromEntries(FIELDS.map((f) => [f.key, Number(values[f.key])])));
      onSaved();
    } finally {
      setBusy(false);
    }
  }
  return (
    <Box component="form" sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', alignItems: 'flex-start', mt: 2 }} onSubmit={(e) => (e.preventDefault(), void save())}>
      {FIELDS.map((f) => (
        <TextField
          key={f.key}
          size="small"
          type="number"
          label={t(`drift.settings.${f.key}`)}
          value={values[f.key]}
          onChange={(e) => setValues({ ...values, [f.key]: e.target.value })}
          slotProps={{ htmlInput: { step: f.step, 'data-testid': `drift-${f.key}` } }}
          sx={{ width: 190 }}
        />
      ))}
      <Button type="submit" variant="outlined" disabled={busy}>
        {t('drift.save')}
      </Button>
    </Box>
  );
}

/** Input drift of a hosted API: the newest check per feature, the PSI over time, the thresholds, "Check drift". An
 * image model (`image`: its kind) is watched by its served scores against its validation images' scores. */
export default function DriftPanel({ project, canCheck, canManage, image }: { project: PlatformProject; canCheck: boolean; canManage: boolean; image?: 'analysis' | 'classification' }) {
  const { t } = useTranslation(NS);
  const name = (feature: string) => (image && feature === 'score' ? t('drift.image.score') : feature);
  const qc = useQueryClient();
  const drift = useDrift(project.id);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const d = drift.data;
  const refresh = () => qc.invalidateQueries({ queryKey: driftKey(project.id) });
  async function check() {
    setBusy(true);
    try {
      qc.setQueryData(driftKey(project.id), await checkDrift(project.id));
    } finally {
      setBusy(false);
    }
  }
  const latest = d?.latest;
  const features = d?.history.length ? Object.keys(d.history[d.history.length - 1].psi) : [];
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="drift-panel">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {t('drift.title')}
        </Typography>
        {canManage && d && (
          <Button size="small" onClick={() => setEditing(!editing)}>
            {t('drift.thresholds')}
          </Button>
        )}
        {canCheck && (
          <Button variant="contained" size="small" onClick={() => void check()} disabled={busy || !d || d.running} startIcon={d?.running ? <CircularProgress size={14} /> : undefined}>
            {d?.running ? t('drift.running') : t('drift.check')}
          </Button>
        )}
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {t(image ? `drift.image.about.${image}` : 'drift.about', { rows: d?.settings.window_rows ?? 1000, hours: d?.settings.window_hours ?? 24 })}{' '}
        {d?.settings.auto_every === 0 ? t('drift.manualOnly') : t('drift.auto', { every: d?.settings.auto_every ?? 1000, minutes: d?.settings.auto_minutes ?? 60 })}
      </Typography>
      {d && (
        <Typography variant="body2" sx={{ mb: 1 }}>
          {t(image ? 'drift.image.sampled' : 'drift.sampled', { rows: formatInteger(d.sampled_rows), fresh: formatInteger(d.new_rows) })}
          {latest && ` · ${t(image ? 'drift.image.last' : 'drift.last', { time: formatDateTime(latest.created_at), rows: formatInteger(latest.rows) })} (${t(`drift.trigger.${latest.trigger}`)})`}
        </Typography>
      )}
      {editing && d && <SettingsForm project={project} drift={d} onSaved={() => (setEditing(false), void refresh())} />}
      {d?.warning && (
        <Alert severity="warning" sx={{ my: 1 }} data-testid="drift-warning">
          {t('drift.warning', { features: d.warned_features.map(name).join(', ') })}
        </Alert>
      )}
      {latest?.state === 'failed' && (
        <Alert severity="error" sx={{ my: 1 }}>
          {latest.error}
        </Alert>
      )}
      {latest && latest.state === 'done' && !latest.enough_rows && (
        <Alert severity="info" sx={{ my: 1 }}>
          {t('drift.fewRows', { rows: latest.rows, min: d?.settings.min_rows })}
        </Alert>
      )}
      {drift.isError && !d && (
        <Alert severity="error" sx={{ my: 1 }}>
          {drift.error instanceof Error ? drift.error.message : t('drift.unreadable')}
        </Alert>
      )}
      {!latest ? (
        <Typography color="text.secondary">{t(image ? 'drift.image.empty' : 'drift.empty')}</Typography>
      ) : (
        <>
          {latest.features.length > 0 && (
            <Table size="small" sx={{ my: 2 }} aria-label={t('drift.table')}>
              <TableHead>
                <TableRow>
                  <TableCell>{t('drift.col.feature')}</TableCell>
                  <TableCell align="right">PSI</TableCell>
                  <TableCell>{t('drift.col.test')}</TableCell>
                  <TableCell align="right">{t('drift.col.p')}</TableCell>
                  <TableCell align="right">{t(image ? 'drift.image.outside' : 'drift.col.outside')}</TableCell>
                  <TableCell align="right">{t('drift.col.missing')}</TableCell>
                  <TableCell align="right">{t(image ? 'drift.image.mean' : 'drift.col.mean')}</TableCell>
                  <TableCell>{t('drift.col.status')}</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {latest.features.map((f) => (
                  <TableRow key={f.feature} data-testid={`drift-row-${f.feature}`} sx={f.warnings.length ? { bgcolor: (th) => alpha(th.palette.warning.main, 0.12) } : undefined}>
                    <TableCell>{name(f.feature)}</TableCell>
                    <TableCell align="right">{fixed(f.psi)}</TableCell>
                    <TableCell>{t(`drift.test.${f.test}`, { statistic: fixed(f.statistic) })}</TableCell>
                    <TableCell align="right">{pValue(f.p_value)}</TableCell>
                    <TableCell align="right">{pct(f.outside)}</TableCell>
                    <TableCell align="right">{pct(f.missing)}</TableCell>
                    <TableCell align="right">{f.mean === undefined || f.mean === null ? '—' : `${fixed(f.mean, 2)} / ${fixed(f.train_mean, 2)}`}</TableCell>
                    <TableCell>
                      {f.warnings.length ? (
                        f.warnings.map((w) => <Chip key={w} size="small" color="warning" label={t(`drift.warn.${w}`)} sx={{ mr: 0.5 }} />)
                      ) : (
                        <Chip size="small" variant="outlined" label={t('drift.ok')} />
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
          {d && d.history.length > 0 && (
            <EChart
              height={240}
              ariaLabel={t('drift.chart')}
              option={{
                animation: false,
                grid: { left: 50, right: 30, top: 30, bottom: 60 },
                tooltip: { trigger: 'axis' },
                legend: { bottom: 0, type: 'scroll' },
                // the checks' times in the app's time zone, as everywhere else on the page
                xAxis: { type: 'category', data: d.history.map((h) => formatDateTime(h.time)) },
                yAxis: { type: 'value', name: 'PSI' },
                series: features.map((f, i) => ({
                  type: 'line',
                  name: name(f),
                  showSymbol: true,
                  data: d.history.map((h) => h.psi[f] ?? null),
                  ...(i === 0 ? { markLine: { silent: true, symbol: 'none', lineStyle: { type: 'dashed', color: '#ed6c02' }, data: [{ yAxis: d.settings.psi, name: t('drift.threshold') }], label: { formatter: t('drift.threshold'), position: 'insideEndTop' } } } : {}),
                })),
              }}
            />
          )}
        </>
      )}
    </Paper>
  );
}
