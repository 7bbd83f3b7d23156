import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import EChart from '../../charts/EChart';
import type { EChartsCoreOption } from '../../charts/echarts';
import { PALETTE } from './charts';
import { formatMetric } from './labels';

/** The building blocks of a model report's sections: a titled panel, a chart, a plain table. */

export function Section({ title, children, help, wide }: { title: string; children: ReactNode; help?: string; wide?: boolean }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, gridColumn: wide ? '1 / -1' : undefined, minWidth: 0 }} component="section" aria-label={title}>
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
        {title}
      </Typography>
      {help && (
        <Typography variant="caption" color="text.secondary">
          {help}
        </Typography>
      )}
      <Box sx={{ mt: 1 }}>{children}</Box>
    </Paper>
  );
}

export const chart = (title: string, option: EChartsCoreOption, height = 320) => <EChart option={{ animation: false, ...option }} height={height} ariaLabel={title} />;

export const bars = (labels: string[], values: number[], errors?: number[]): EChartsCoreOption => ({
  grid: { left: 150, right: 30, top: 10, bottom: 30 },
  tooltip: { trigger: 'axis' },
  xAxis: { type: 'value' },
  yAxis: { type: 'category', data: [...labels].reverse(), axisLabel: { width: 140, overflow: 'truncate' } },
  series: [{ type: 'bar', data: [...values].reverse(), itemStyle: { color: PALETTE[0] }, label: { show: false } }],
  ...(errors ? {} : {}),
});

export function SimpleTable({ head, rows }: { head: string[]; rows: (string | number | null | undefined)[][] }) {
  return (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small">
        <TableHead>
          <TableRow>
            {head.map((h) => (
              <TableCell key={h}>{h}</TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r, i) => (
            <TableRow key={i}>
              {r.map((c, j) => (
                <TableCell key={j}>{typeof c === 'number' ? formatMetric(c) : (c ?? '—')}</TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}

export function groupsScatter(x: (number | null)[], y: (number | null)[], groups: (string | number | null)[] | null, name: string): EChartsCoreOption {
  const keys = groups ? [...new Set(groups.map(String))].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b)) : [name];
  const series = keys.map((k, i) => ({
    name: k,
    type: 'scatter',
    symbolSize: 4,
    itemStyle: { color: PALETTE[i % PALETTE.length], opacity: 0.7 },
    data: x.map((v, j) => [v, y[j]]).filter((_, j) => !groups || String(groups[j]) === k),
  }));
  return {
    grid: { left: 50, right: 20, top: 40, bottom: 40 },
    tooltip: { trigger: 'item' },
    legend: { type: 'scroll', top: 0 },
    xAxis: { type: 'value', scale: true },
    yAxis: { type: 'value', scale: true },
    series,
  };
}
