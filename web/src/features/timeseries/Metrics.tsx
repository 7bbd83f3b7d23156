import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { formatMetric } from '../training/labels';
import type { ThresholdStats } from './api';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)} %`);

/** Metrics at a threshold: first the false alarms on held-back normal rows (not learned from), then confusion counts
 * on the evaluated part, the rates, alarms (per day when times are dates, else per 1,000 rows). A figure that cannot
 * be computed (F1, recall with no anomalous row) says so instead of 0. */
export function MetricCards({ s }: { s: ThresholdStats }) {
  const { t } = useTranslation('timeseries');
  const none = s.labelled && s.counts !== null && s.counts.tp + s.counts.fn === 0;
  const na = (v: string) => (none ? t('metrics.notAvailable') : v);
  const items: [string, string][] = [
    ...(s.heldout_far !== null && s.heldout_far !== undefined ? ([['heldout_far', pct(s.heldout_far)]] as [string, string][]) : []),
    ['alarms', formatMetric(s.alarms)],
    s.alarms_per_day !== null
      ? ['alarms_per_day', s.alarms_per_day.toFixed(2)]
      : ['alarms_per_1000_rows', s.alarms_per_1000_rows === null || s.alarms_per_1000_rows === undefined ? '—' : s.alarms_per_1000_rows.toFixed(2)],
    ...(s.labelled
      ? ([
          ['precision', pct(s.precision)],
          ['recall', na(pct(s.recall))],
          ['f1', na(s.f1 === null ? '—' : s.f1.toFixed(3))],
          ['far', pct(s.far)],
          ['mar', na(pct(s.mar))],
          ['tp', formatMetric(s.counts?.tp)],
          ['fp', formatMetric(s.counts?.fp)],
          ['fn', formatMetric(s.counts?.fn)],
          ['tn', formatMetric(s.counts?.tn)],
        ] as [string, string][])
      : []),
  ];
  return (
    <Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(130px, 1fr))', gap: 1 }}>
        {items.map(([k, v]) => (
          <Paper key={k} variant="outlined" sx={{ p: 1 }} data-testid={`metric-${k}`}>
            <Typography variant="caption" color="text.secondary">
              {t(`metrics.${k}`)}
            </Typography>
            <Typography variant="h6">{v}</Typography>
          </Paper>
        ))}
      </Box>
      {none && (
        <Typography variant="caption" color="text.secondary" data-testid="metric-not-available">
          {t('metrics.noAnomalies')}
        </Typography>
      )}
    </Box>
  );
}

/** Signed contributions as horizontal bars, largest first. */
export function ContributionBars({ items }: { items: { signal: string; value: number }[] }) {
  const max = Math.max(1e-12, ...items.map((i) => Math.abs(i.value)));
  return (
    <Box role="list" aria-label="contributions">
      {items.map((i) => (
        <Box key={i.signal} role="listitem" sx={{ display: 'grid', gridTemplateColumns: '160px 1fr 70px', alignItems: 'center', gap: 1, fontSize: 13, py: 0.25 }}>
          <Box sx={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} title={i.signal}>
            {i.signal}
          </Box>
          <Box sx={{ height: 12, bgcolor: '#eee', position: 'relative' }}>
            <Box sx={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: `${(Math.abs(i.value) / max) * 100}%`, bgcolor: i.value >= 0 ? '#e65100' : '#1565c0' }} />
          </Box>
          <Box sx={{ textAlign: 'right' }}>{formatMetric(i.value)}</Box>
        </Box>
      ))}
    </Box>
  );
}
