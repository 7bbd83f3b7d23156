import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { columnTypeLabel } from './labels';
import type { ColumnStatistics } from '../../api/types';
import { lazyWithTimeout } from '../../app/lazy';
import { formatInteger, formatNumber } from '../../lib/format';
import { fullTime } from '../../lib/timeAxis';
import { chartKind } from './chartKind';

// The chart code (ECharts) loads only when statistics are shown.
const ColumnChart = lazyWithTimeout(() => import('./ColumnChart'));

const NUMERIC_KEYS = ['mean', 'std', 'min', 'q1', 'median', 'q3', 'max', 'skewness', 'kurtosis', 'zeros'] as const;

export default function ColumnStatsCard({ column }: { column: ColumnStatistics }) {
  const { t } = useTranslation();
  const rows: [string, string][] = [
    [t('stats.count'), formatInteger(column.count)],
    [t('stats.missing'), formatInteger(column.missing)],
    [t('stats.unique'), formatInteger(column.unique)],
  ];
  // A numeric column has every figure; a datetime column its first and last time; a category none of them.
  const figures: Partial<Record<(typeof NUMERIC_KEYS)[number], number | string | null>> =
    column.kind === 'numeric' ? column : column.kind === 'datetime' ? { min: column.min, max: column.max } : {};
  for (const k of NUMERIC_KEYS) {
    const v = figures[k];
    if (v === null || v === undefined) continue;
    const text = column.kind === 'datetime' ? fullTime(String(v)) : k === 'zeros' ? formatInteger(v as number) : formatNumber(v as number | string);
    rows.push([t(`stats.${k}`), text]);
  }
  const top = column.kind === 'categorical' || column.kind === 'boolean' ? column.top : [];
  const hasChart = chartKind(column) !== null;
  const percentMissing = column.count + column.missing > 0 ? column.missing / (column.count + column.missing) : 0;
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="column-stats" data-column={column.name}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, wordBreak: 'break-all' }}>
          {column.name}
        </Typography>
        <Chip size="small" color={column.kind === 'numeric' ? 'primary' : 'secondary'} variant="outlined" label={t(`stats.kinds.${column.kind}`, { defaultValue: column.kind })} />
        <Typography variant="caption" color="text.secondary">
          {columnTypeLabel(t, column.dtype)}
        </Typography>
        {percentMissing > 0 && (
          <Chip size="small" color="warning" variant="outlined" label={t('stats.missingPercent', { percent: (percentMissing * 100).toFixed(1) })} />
        )}
      </Box>
      <Box
        sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: hasChart ? 'minmax(200px, 0.8fr) 1.2fr' : 'minmax(200px, 420px)' }, gap: 2, alignItems: 'start' }}
      >
        <Box>
          <Table size="small" aria-label={t('stats.tableOf', { name: column.name })}>
            <TableBody>
              {rows.map(([label, value]) => (
                <TableRow key={label} sx={{ '&:last-child td': { borderBottom: 0 } }}>
                  <TableCell component="th" scope="row" sx={{ color: 'text.secondary', pl: 0, width: '45%' }}>
                    {label}
                  </TableCell>
                  <TableCell align="right" sx={{ fontVariantNumeric: 'tabular-nums', pr: 0 }}>
                    {value}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          {top.length > 0 && (
            <Box sx={{ mt: 1 }}>
              <Typography variant="caption" color="text.secondary">
                {t('stats.top')}
              </Typography>
              <Box component="ol" sx={{ m: 0, pl: 2.5 }}>
                {top.slice(0, 5).map((v, i) => (
                  <Typography component="li" variant="body2" key={i} sx={{ wordBreak: 'break-all' }}>
                    {v.value === null || v.value === '' ? <em>{t('stats.empty')}</em> : String(v.value)}{' '}
                    <Box component="span" sx={{ color: 'text.secondary' }}>
                      ({formatInteger(v.count)})
                    </Box>
                  </Typography>
                ))}
              </Box>
            </Box>
          )}
        </Box>
        {hasChart && (
          <Box sx={{ minWidth: 0 }}>
            <Suspense fallback={<Box sx={{ height: 190 }} />}>
              <ColumnChart column={column} countLabel={t('stats.count')} emptyLabel={t('stats.empty')} />
            </Suspense>
          </Box>
        )}
      </Box>
    </Paper>
  );
}
