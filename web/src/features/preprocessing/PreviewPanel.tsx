import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import { formatAxisNumber, formatInteger, formatNumber } from '../../lib/format';
import { CsvButton, Panel } from '../visualization/sections';
import { downloadCsv } from '../visualization/csv';
import type { EChartsCoreOption } from '../visualization/echarts';
import { PRIMARY, SECONDARY } from '../visualization/options';
import VisChart from '../visualization/VisChart';
import type { Preview } from './api';
import { RowsTable } from './tables';

const show = (v: unknown) => (v === null || v === undefined ? '–' : typeof v === 'number' ? formatNumber(v) : String(v));

function histOption(h: NonNullable<NonNullable<Preview['chart']>['histogram']>, labels: { before: string; after: string }): EChartsCoreOption {
  // Bin starts as short labels (3 significant digits); the tooltip gives the exact bin.
  const names = h.before.map((_, i) => formatAxisNumber(Number(h.edges[i].toPrecision(3))));
  return {
    animation: false,
    legend: { top: 0, left: 0 },
    grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    xAxis: { type: 'category', data: names, axisLabel: { fontSize: 10, hideOverlap: true } },
    yAxis: { type: 'value', axisLabel: { fontSize: 10 } },
    series: [
      { type: 'bar', name: labels.before, data: h.before, itemStyle: { color: '#94a3b8' }, barGap: '0%' },
      { type: 'bar', name: labels.after, data: h.after, itemStyle: { color: PRIMARY } },
    ],
  };
}

function seriesOption(s: NonNullable<Preview['chart']>['series'], labels: { before: string; after: string }): EChartsCoreOption {
  const time = s.x === 'datetime';
  // The engine's times carry no zone; they are shown as stored (UTC axis), like the visualization charts.
  const asUtc = (x: unknown) => (/(Z|[+-]\d\d:\d\d)$/.test(String(x)) ? String(x) : `${String(x)}Z`);
  const conv = (p: (string | number | null)[][] | null) => (p ?? []).map(([x, y]) => [time ? asUtc(x) : x, y]); // [x, value] pairs
  return {
    animation: false,
    useUTC: true,
    legend: { top: 0, left: 0 },
    grid: { left: 8, right: 24, top: 36, bottom: 40, containLabel: true },
    tooltip: { trigger: 'axis' },
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 20, bottom: 8 }],
    xAxis: { type: time ? 'time' : 'value', scale: true },
    yAxis: { type: 'value', scale: true },
    series: [
      { type: 'line', name: labels.before, data: conv(s.before), showSymbol: false, lineStyle: { width: 1, color: '#94a3b8' }, itemStyle: { color: '#94a3b8' } },
      { type: 'line', name: labels.after, data: conv(s.after), showSymbol: false, lineStyle: { width: 1.2, color: SECONDARY }, itemStyle: { color: SECONDARY } },
    ],
  };
}

/** What a step changes: row counts, changed cells, the affected rows side by side, and before/after charts. */
export default function PreviewPanel({ preview, datasetName }: { preview: Preview; datasetName: string }) {
  const { t } = useTranslation('preprocessing');
  const labels = { before: t('before'), after: t('after') };
  const p = preview;
  const cols = p.affected_columns;
  const csv = () =>
    downloadCsv(
      `${datasetName}_preview_step.csv`,
      ['row', 'status', ...cols.map((c) => `${c} (${t('before')})`), ...cols.map((c) => `${c} (${t('after')})`)],
      p.affected_rows.map((r) => [r.row, r.status, ...cols.map((c) => r.before?.[c] ?? null), ...cols.map((c) => r.after?.[c] ?? null)]),
    );
  return (
    <Panel title={t('previewOf', { step: `${t(`types.${p.step.process_type}`)} — ${t(`methods.${p.step.process_type}.${p.step.method}`)}` })} actions={<CsvButton onClick={csv} />}>
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mb: 1.5 }} data-testid="preview-summary" data-preview={JSON.stringify({ rows_before: p.rows_before, rows_after: p.rows_after, rows_removed: p.rows_removed, rows_changed: p.rows_changed, cells_changed: p.cells_changed })}>
        <Chip label={t('rowsBeforeAfter', { before: formatInteger(p.rows_before), after: formatInteger(p.rows_after) })} />
        <Chip color={p.rows_removed ? 'warning' : 'default'} label={t('rowsRemoved', { n: formatInteger(p.rows_removed) })} />
        <Chip color={p.rows_changed ? 'primary' : 'default'} label={t('rowsChanged', { n: formatInteger(p.rows_changed) })} />
        {Object.entries(p.cells_changed).map(([c, n]) => (
          <Chip key={c} variant="outlined" label={t('cellsChanged', { column: c, n: formatInteger(n) })} />
        ))}
        {p.columns_added.length > 0 && <Chip variant="outlined" color="success" label={t('columnsAdded', { names: p.columns_added.join(', ') })} />}
        {p.columns_dropped.length > 0 && <Chip variant="outlined" color="warning" label={t('columnsDropped', { names: p.columns_dropped.join(', ') })} />}
        {p.order_changed && <Chip variant="outlined" label={t('orderChanged')} />}
      </Box>
      {p.sample && (
        <Alert severity="info" sx={{ mb: 1 }}>
          {t('previewSample', { n: formatInteger(p.sample_rows), total: formatInteger(p.total_rows) })}
        </Alert>
      )}
      {p.chart && (
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', lg: '1fr 1fr' }, gap: 2, mb: 2 }}>
          {p.chart.histogram && (
            <Box>
              <Typography variant="subtitle2">{t('distributionOf', { name: p.chart.column })}</Typography>
              <VisChart
                testId="preview-histogram"
                data={{ column: p.chart.column, before: p.chart.histogram.before, after: p.chart.histogram.after }}
                option={histOption(p.chart.histogram, labels)}
                height={280}
                fileName={`${datasetName}_${p.chart.column}_before_after`}
                ariaLabel={t('distributionOf', { name: p.chart.column })}
              />
            </Box>
          )}
          {p.chart.series.before && (
            <Box>
              <Typography variant="subtitle2">{t('seriesOf', { name: p.chart.column })}</Typography>
              <VisChart
                testId="preview-series"
                option={seriesOption(p.chart.series, labels)}
                height={280}
                fileName={`${datasetName}_${p.chart.column}_series_before_after`}
                ariaLabel={t('seriesOf', { name: p.chart.column })}
              />
            </Box>
          )}
        </Box>
      )}
      <Typography variant="subtitle2" sx={{ mb: 0.5 }}>
        {t('affectedRows', { n: formatInteger(p.affected_rows.length) })}
      </Typography>
      {p.affected_rows.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {t('noRowAffected')}
        </Typography>
      ) : (
        <RowsTable
          label={t('affectedRowsTable')}
          lead={
            <>
              <TableCell>{t('row')}</TableCell>
              <TableCell>{t('status')}</TableCell>
            </>
          }
          columns={cols}
          maxHeight={360}
        >
          {p.affected_rows.map((r) => (
            <TableRow key={`${r.status}-${r.row}`}>
              <TableCell>{typeof r.row === 'number' ? r.row + 1 : r.row}</TableCell>
              <TableCell>
                <Chip size="small" color={r.status === 'removed' ? 'warning' : 'primary'} variant="outlined" label={t(`statuses.${r.status}`)} />
              </TableCell>
              {cols.map((c) => {
                const b = r.before?.[c];
                const a = r.after?.[c];
                const changed = r.status === 'changed' && show(a) !== show(b);
                return (
                  <TableCell key={c} sx={{ whiteSpace: 'nowrap' }}>
                    {changed ? (
                      <>
                        <Box component="span" sx={{ color: 'text.secondary', textDecoration: 'line-through', mr: 0.5 }}>
                          {show(b)}
                        </Box>
                        <Box component="span" sx={{ fontWeight: 600 }}>
                          → {show(a)}
                        </Box>
                      </>
                    ) : (
                      show(r.status === 'removed' ? b : a ?? b)
                    )}
                  </TableCell>
                );
              })}
            </TableRow>
          ))}
        </RowsTable>
      )}
    </Panel>
  );
}
