import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { LegendComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import EChart from '../../charts/EChart';
import Figure from '../../components/Figure';
import { MONO_FONT_STACK } from '../../lib/fonts';
import { formatInteger } from '../../lib/format';
import { downloadStats, type PlatformProject, type Ratio, useStats } from './api';
import { NS } from './common';
import { statsTimeAxis } from './statsAxis';

// The legend tells answered and refused calls apart in the stacked bars.
echarts.use([LegendComponent]);

/** Why calls were refused (none of them is billed), in the order the server declares them. */
const REASONS = ['key', 'locked', 'input', 'rate_limit', 'server'] as const;

function RatioChart({ title, items }: { title: string; items: Ratio[] }) {
  return (
    <Box sx={{ flex: 1, minWidth: 220 }}>
      <Typography variant="subtitle2">{title}</Typography>
      <EChart
        height={Math.max(120, items.length * 28 + 40)}
        ariaLabel={title}
        option={{
          animation: false,
          grid: { left: 110, right: 40, top: 10, bottom: 20 },
          tooltip: { trigger: 'axis', valueFormatter: (v: unknown) => `${(Number(v) * 100).toFixed(1)} %` },
          xAxis: { type: 'value', max: 1, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
          yAxis: { type: 'category', data: items.map((i) => i.name), inverse: true },
          series: [{ type: 'bar', data: items.map((i) => i.ratio), label: { show: true, position: 'right', formatter: (p: { value: number }) => `${(p.value * 100).toFixed(0)}%` } }],
        }}
      />
    </Box>
  );
}

export default function StatsPanel({ project }: { project: PlatformProject }) {
  const { t } = useTranslation(NS);
  const [bucket, setBucket] = useState<'hour' | 'day'>('hour');
  const stats = useStats(project.id, bucket);
  const s = stats.data;
  const axis = statsTimeAxis(s?.series.map((x) => x.time) ?? [], bucket);
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1, flexWrap: 'wrap' }}>
        <Typography variant="h6" component="h2" sx={{ flex: 1 }}>
          {t('stats.title')}
        </Typography>
        <ToggleButtonGroup size="small" exclusive value={bucket} onChange={(_, v) => v && setBucket(v)}>
          <ToggleButton value="hour">{t('stats.hour')}</ToggleButton>
          <ToggleButton value="day">{t('stats.day')}</ToggleButton>
        </ToggleButtonGroup>
        <Button variant="outlined" size="small" onClick={() => downloadStats(project, bucket)}>
          {t('stats.download')}
        </Button>
      </Box>
      {!s || (s.total === 0 && s.refused === 0) ? (
        <Typography color="text.secondary">{t('stats.empty')}</Typography>
      ) : (
        <>
          <Box sx={{ display: 'flex', gap: 4, mb: 2 }}>
            <Figure label={t('stats.total')} value={formatInteger(s.total)} testId="stats-total" />
            <Figure label={t('stats.refused')} value={formatInteger(s.refused)} testId="stats-refused" />
            <Figure label={t('stats.avg')} value={s.average_ms === null ? '—' : `${s.average_ms.toFixed(1)} ms`} />
          </Box>
          <EChart
            height={220}
            ariaLabel={t('stats.count')}
            option={{
              animation: false,
              grid: { left: 50, right: 50, top: 30, bottom: 72 },
              tooltip: { trigger: 'axis' },
              xAxis: { type: 'category', data: axis.labels, name: axis.zone, nameLocation: 'middle', nameGap: 28 },
              yAxis: [{ type: 'value', name: t('stats.count') }, { type: 'value', name: 'ms' }],
              legend: { bottom: 0 },
              series: [
                { type: 'bar', name: t('stats.count'), stack: 'calls', data: s.series.map((x) => x.count) },
                { type: 'bar', name: t('stats.refusedSeries'), stack: 'calls', data: s.series.map((x) => x.refused) },
                { type: 'bar', name: t('stats.avgMs'), yAxisIndex: 1, data: s.series.map((x) => x.average_ms) },
              ],
            }}
          />
          <Table size="small" sx={{ my: 2 }} aria-label={t('stats.path')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('stats.path')}</TableCell>
                <TableCell align="right">{t('stats.count')}</TableCell>
                <TableCell align="right">{t('stats.avgMs')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {s.paths.map((p) => (
                <TableRow key={p.path}>
                  <TableCell sx={{ fontFamily: MONO_FONT_STACK }}>{p.path}</TableCell>
                  <TableCell align="right">{formatInteger(p.count)}</TableCell>
                  <TableCell align="right">{p.average_ms.toFixed(2)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <Table size="small" sx={{ my: 2, maxWidth: 640 }} aria-label={t('stats.refusals')}>
            <TableHead>
              <TableRow>
                <TableCell>{t('stats.refusals')}</TableCell>
                <TableCell align="right">{t('stats.count')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {REASONS.map((r) => (
                <TableRow key={r} data-testid={`refusals-${r}`}>
                  <TableCell>{t(`stats.reasons.${r}`)}</TableCell>
                  <TableCell align="right">{formatInteger(s.refusals[r])}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
            <RatioChart title={t('stats.devices')} items={s.devices} />
            <RatioChart title={t('stats.browsers')} items={s.browsers} />
            <RatioChart title={t('stats.os')} items={s.os} />
          </Box>
        </>
      )}
    </Paper>
  );
}
