import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Slider from '@mui/material/Slider';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import DownloadIcon from '@mui/icons-material/Download';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Dataset, DatasetColumn, StatisticsJob } from '../../api/types';
import { formatInteger, formatNumber } from '../../lib/format';
import { datasetKeys, fetchStatistics } from '../datasets/api';
import { useBoxplot, useCorrelation, useHistogram, useMatrix, useScatter, useTimeSeries } from './api';
import { ColumnSelect, ColumnsSelect } from './ColumnPicker';
import { downloadCsv } from './csv';
import { boxplotOption, correlationOption, histogramOption, matrixOption, scatterOption, timeseriesOption } from './options';
import VisChart from './VisChart';

export const numericColumns = (cols: DatasetColumn[]) => cols.filter((c) => c.type === 'integer' || c.type === 'float').map((c) => c.name);

export function Panel({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flex: 1 }}>
          {title}
        </Typography>
        {actions}
      </Box>
      {children}
    </Paper>
  );
}

export function CsvButton({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation('visualization');
  return (
    <Button size="small" variant="outlined" startIcon={<DownloadIcon />} onClick={onClick}>
      {t('downloadCsv')}
    </Button>
  );
}

function Loading({ active }: { active: boolean }) {
  return <Box sx={{ height: 4, mb: 1 }}>{active && <LinearProgress />}</Box>;
}

// ---- statistics table (from the engine's statistics job) ----------------------------------------

/** Every figure per column of the statistics job in one table, downloadable as CSV. */
export function StatisticsTable({ dataset }: { dataset: Dataset }) {
  const { t } = useTranslation('visualization');
  const job = useQuery({
    queryKey: datasetKeys.statistics(dataset.id),
    queryFn: ({ signal }) => fetchStatistics(dataset.id, signal),
    meta: { background: true },
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.state === 'queued' || q.state.data?.state === 'running' ? 1000 : false),
  });
  const result = (job.data as StatisticsJob | undefined)?.result;
  if (!result) return null;
  const header = ['column', 'type', 'count', 'missing', 'unique', 'mean', 'std', 'min', 'q1', 'median', 'q3', 'max', 'skewness', 'kurtosis', 'most_frequent'];
  const rows = result.columns.map((c) => {
    const n = c.kind === 'numeric' ? c : null;
    const top = c.kind === 'categorical' || c.kind === 'boolean' ? c.top : [];
    return [
      c.name,
      c.kind,
      c.count,
      c.missing,
      c.unique,
      n?.mean,
      n?.std,
      'min' in c ? c.min : null,
      n?.q1,
      n?.median,
      n?.q3,
      'max' in c ? c.max : null,
      n?.skewness,
      n?.kurtosis,
      top.slice(0, 3).map((v) => `${v.value} (${v.count})`).join('; '),
    ];
  });
  return (
    <Panel title={t('statsTable')} actions={<CsvButton onClick={() => downloadCsv(`${dataset.name}_statistics.csv`, header, rows)} />}>
      <Box sx={{ overflowX: 'auto' }}>
        <Table size="small" aria-label={t('statsTable')}>
          <TableHead>
            <TableRow>
              {header.map((h) => (
                <TableCell key={h} sx={{ whiteSpace: 'nowrap', fontWeight: 600 }}>
                  {t(`stat.${h}`)}
                </TableCell>
              ))}
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.map((r) => (
              <TableRow key={String(r[0])}>
                {r.map((v, i) => (
                  <TableCell key={header[i]} sx={{ whiteSpace: 'nowrap', maxWidth: 260, overflow: 'hidden', textOverflow: 'ellipsis' }} align={typeof v === 'number' ? 'right' : 'left'}>
                    {typeof v === 'number' ? formatNumber(v) : String(v ?? '–')}
                  </TableCell>
                ))}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Box>
    </Panel>
  );
}

// ---- distributions ------------------------------------------------------------------------------

export function DistributionSection({ dataset, columns }: { dataset: Dataset; columns: DatasetColumn[] }) {
  const { t } = useTranslation('visualization');
  const names = columns.map((c) => c.name);
  const numeric = numericColumns(columns);
  const [col, setCol] = useState<string | null>(numeric[0] ?? names[0] ?? null);
  const [bins, setBins] = useState(30);
  const [boxCols, setBoxCols] = useState<string[]>(numeric.slice(0, 6));
  const hist = useHistogram(dataset.id, col ? [col] : [], bins);
  const box = useBoxplot(dataset.id, boxCols);
  const h = hist.data?.columns[0];
  const histCsv = () => {
    if (!h) return;
    if (h.kind === 'categorical') downloadCsv(`${dataset.name}_${h.name}_counts.csv`, ['value', 'count'], [...h.values.map((v) => [v.value, v.count]), ...(h.other ? [[t('other'), h.other]] : [])]);
    else downloadCsv(`${dataset.name}_${h.name}_histogram.csv`, ['bin_start', 'bin_end', 'count'], h.counts.map((c, i) => [h.edges[i], h.edges[i + 1], c]));
  };
  const boxCsv = () =>
    box.data &&
    downloadCsv(
      `${dataset.name}_boxplot.csv`,
      ['column', 'count', 'min', 'lower_whisker', 'q1', 'median', 'q3', 'upper_whisker', 'max', 'mean', 'outliers'],
      box.data.columns.map((c) => [c.name, c.count, c.min, c.lower_whisker, c.q1, c.median, c.q3, c.upper_whisker, c.max, c.mean, c.outlier_count]),
    );
  return (
    <>
      <Panel title={t('histogram')} actions={<CsvButton onClick={histCsv} />}>
        <Box sx={{ display: 'flex', gap: 3, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
          <ColumnSelect label={t('column')} options={names} value={col} onChange={setCol} />
          {h?.kind !== 'categorical' && (
            <Box sx={{ width: 220 }}>
              <Typography variant="caption" color="text.secondary" id="bins-label">
                {t('bins', { n: bins })}
              </Typography>
              <Slider size="small" min={5} max={100} step={5} value={bins} onChange={(_, v) => setBins(v as number)} aria-labelledby="bins-label" />
            </Box>
          )}
          {h && (
            <Typography variant="body2" color="text.secondary">
              {t('countMissing', { count: formatInteger(h.count), missing: formatInteger(h.missing) })}
            </Typography>
          )}
        </Box>
        <Loading active={hist.isFetching} />
        {h && (
          <VisChart
            testId="histogram-chart"
            data={h.kind === 'categorical' ? { column: h.name, kind: h.kind, values: h.values, other: h.other } : { column: h.name, kind: h.kind, edges: h.edges, counts: h.counts }}
            option={histogramOption(h, { count: t('count'), other: t('other') })}
            fileName={`${dataset.name}_${h.name}_histogram`}
            ariaLabel={t('histogramOf', { name: h.name })}
          />
        )}
      </Panel>
      <Panel title={t('boxplot')} actions={<CsvButton onClick={boxCsv} />}>
        <ColumnsSelect label={t('columns')} options={numeric} value={boxCols} onChange={setBoxCols} max={20} />
        <Loading active={box.isFetching} />
        {box.data?.columns
          .filter((c) => c.outlier_count > c.outliers.length)
          .map((c) => (
            <Typography key={c.name} variant="body2" color="text.secondary" data-testid="boxplot-outliers-note">
              {t('outliersNote', { name: c.name, shown: formatInteger(c.outliers.length), count: formatInteger(c.outlier_count) })}
            </Typography>
          ))}
        {box.data && box.data.columns.length > 0 && (
          <VisChart
            testId="boxplot-chart"
            data={box.data.columns.map((c) => ({ name: c.name, q1: c.q1, median: c.median, q3: c.q3 }))}
            option={boxplotOption(box.data.columns, { outliers: t('outliers') })}
            height={Math.ceil(box.data.columns.length / 6) * 300 + 20}
            fileName={`${dataset.name}_boxplot`}
            ariaLabel={t('boxplot')}
          />
        )}
      </Panel>
    </>
  );
}

// ---- scatter ------------------------------------------------------------------------------------

export function ScatterSection({ dataset, columns }: { dataset: Dataset; columns: DatasetColumn[] }) {
  const { t } = useTranslation('visualization');
  const numeric = columns.filter((c) => ['integer', 'float', 'datetime', 'date'].includes(c.type)).map((c) => c.name);
  const plain = numericColumns(columns);
  const [x, setX] = useState<string | null>(plain[0] ?? numeric[0] ?? null);
  const [y, setY] = useState<string | null>(plain[1] ?? plain[0] ?? numeric[0] ?? null);
  const [color, setColor] = useState<string | null>(null);
  const [mode, setMode] = useState<'sample' | 'bin'>('sample');
  const q = useScatter(dataset.id, { x: x ?? '', y: y ?? '', color, mode });
  const r = q.data;
  const csv = () => {
    if (!r) return;
    if (r.mode === 'bin' && r.cells && r.bins) {
      const { x0, y0, x1, y1, nx, ny } = r.bins;
      downloadCsv(`${dataset.name}_density.csv`, [`${r.x}_from`, `${r.y}_from`, 'count'], r.cells.map(([i, j, k]) => [x0 + ((x1 - x0) * i) / nx, y0 + ((y1 - y0) * j) / ny, k]));
    } else downloadCsv(`${dataset.name}_scatter.csv`, r.color ? [r.x, r.y, r.color] : [r.x, r.y], r.points ?? []);
  };
  return (
    <Panel title={t('scatter')} actions={<CsvButton onClick={csv} />}>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center', mb: 1 }}>
        <ColumnSelect label={t('xAxis')} options={numeric} value={x} onChange={setX} />
        <ColumnSelect label={t('yAxis')} options={numeric} value={y} onChange={setY} />
        <ColumnSelect label={t('colorBy')} options={columns.map((c) => c.name)} value={color} onChange={setColor} clearable />
        <ToggleButtonGroup size="small" exclusive value={mode} onChange={(_, v) => v && setMode(v)} aria-label={t('scatterMode')}>
          <ToggleButton value="sample">{t('points')}</ToggleButton>
          <ToggleButton value="bin">{t('density')}</ToggleButton>
        </ToggleButtonGroup>
      </Box>
      <Loading active={q.isFetching} />
      {r && (
        <>
          {r.sample ? (
            <Alert severity="info" sx={{ mb: 1 }} data-testid="scatter-sample-note">
              {t(r.sample_method === 'stratified_rows' ? 'sampleNoteStratified' : 'sampleNote', { shown: formatInteger(r.returned), total: formatInteger(r.total) })}
            </Alert>
          ) : r.mode === 'bin' ? (
            <Alert severity="info" sx={{ mb: 1 }}>
              {t('densityNote', { total: formatInteger(r.total) })}
            </Alert>
          ) : (
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {t('allPoints', { total: formatInteger(r.total) })}
            </Typography>
          )}
          <VisChart
            testId="scatter-chart"
            data={{ x: r.x, y: r.y, color: r.color, mode: r.mode, sample: r.sample, total: r.total, returned: r.returned, head: (r.points ?? r.cells ?? []).slice(0, 5) }}
            option={scatterOption(r, { count: t('count'), other: t('other') })}
            height={460}
            fileName={`${dataset.name}_${r.x}_${r.y}_scatter`}
            ariaLabel={t('scatterOf', { x: r.x, y: r.y })}
          />
        </>
      )}
    </Panel>
  );
}

// ---- scatter matrix -----------------------------------------------------------------------------

export function MatrixSection({ dataset, columns }: { dataset: Dataset; columns: DatasetColumn[] }) {
  const { t } = useTranslation('visualization');
  const numeric = numericColumns(columns);
  const [cols, setCols] = useState<string[]>(numeric.slice(0, 4));
  const q = useMatrix(dataset.id, cols);
  const m = q.data;
  return (
    <Panel title={t('matrix')} actions={<CsvButton onClick={() => m && downloadCsv(`${dataset.name}_matrix_sample.csv`, m.columns, m.rows)} />}>
      <ColumnsSelect label={t('matrixColumns')} options={numeric} value={cols} onChange={setCols} max={8} />
      <Loading active={q.isFetching} />
      {cols.length < 2 && <Alert severity="info">{t('chooseTwo')}</Alert>}
      {m && cols.length >= 2 && (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            {m.sample ? t('sampleNote', { shown: formatInteger(m.returned), total: formatInteger(m.total) }) : t('allPoints', { total: formatInteger(m.total) })}
          </Typography>
          <VisChart
            testId="matrix-chart"
            data={{ columns: m.columns, returned: m.returned, sample: m.sample }}
            option={matrixOption(m)}
            height={Math.max(420, m.columns.length * 130)}
            fileName={`${dataset.name}_scatter_matrix`}
            ariaLabel={t('matrix')}
          />
        </>
      )}
    </Panel>
  );
}

// ---- correlation --------------------------------------------------------------------------------

export function CorrelationSection({ dataset, columns }: { dataset: Dataset; columns: DatasetColumn[] }) {
  const { t } = useTranslation('visualization');
  const numeric = numericColumns(columns);
  const [cols, setCols] = useState<string[]>(numeric.slice(0, 20));
  const [method, setMethod] = useState<'pearson' | 'spearman'>('pearson');
  const q = useCorrelation(dataset.id, cols, method);
  const c = q.data;
  const csv = () => c && downloadCsv(`${dataset.name}_${c.method}_correlation.csv`, ['', ...c.columns], c.matrix.map((row, i) => [c.columns[i], ...row]));
  return (
    <Panel title={t('correlation')} actions={<CsvButton onClick={csv} />}>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center', mb: 1 }}>
        <ColumnsSelect label={t('columns')} options={numeric} value={cols} onChange={setCols} max={50} />
        <ToggleButtonGroup size="small" exclusive value={method} onChange={(_, v) => v && setMethod(v)} aria-label={t('method')}>
          <ToggleButton value="pearson">{t('pearson')}</ToggleButton>
          <ToggleButton value="spearman">{t('spearman')}</ToggleButton>
        </ToggleButtonGroup>
      </Box>
      <Loading active={q.isFetching} />
      {cols.length < 2 && <Alert severity="info">{t('chooseTwo')}</Alert>}
      {c && cols.length >= 2 && (
        <>
          {c.sample && (
            <Alert severity="info" sx={{ mb: 1 }}>
              {t('spearmanSample', { shown: formatInteger(c.sample_rows), total: formatInteger(c.rows) })}
            </Alert>
          )}
          <VisChart
            testId="correlation-chart"
            data={{ method: c.method, columns: c.columns, matrix: c.matrix }}
            option={correlationOption(c, c.method === 'pearson' ? t('pearson') : t('spearman'))}
            height={Math.max(360, c.columns.length * 34 + 120)}
            fileName={`${dataset.name}_${c.method}_correlation`}
            ariaLabel={t('correlation')}
          />
        </>
      )}
    </Panel>
  );
}

// ---- time series --------------------------------------------------------------------------------

interface ZoomState {
  start: number | null;
  end: number | null;
}

/**
 * Lines of chosen columns against the datetime column. Zooming or panning asks the server for the visible
 * window again (debounced), so the detail grows as the window narrows while the browser never holds all rows.
 */
export function TimeSeriesSection({ dataset, columns }: { dataset: Dataset; columns: DatasetColumn[] }) {
  const { t } = useTranslation('visualization');
  // a whole-number order column (a sample number) is the axis, not a line to draw
  const numeric = numericColumns(columns).filter((c) => c !== dataset.datetime_column);
  const [cols, setCols] = useState<string[]>(numeric.slice(0, 3));
  const [method, setMethod] = useState<'minmax' | 'lttb'>('minmax');
  const [zoom, setZoom] = useState<ZoomState>({ start: null, end: null });
  const [panels, setPanels] = useState(false);
  const q = useTimeSeries(dataset.id, { columns: cols, start: zoom.start, end: zoom.end, method, buckets: 1000 });
  const r = q.data;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const onZoom = useCallback(
    (_e: unknown, chart: unknown) => {
      const c = chart as { getOption: () => { dataZoom: { startValue: number; endValue: number }[] } };
      const dz = c.getOption().dataZoom[0];
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        const full = r && r.full_start !== null && r.full_end !== null && dz.startValue <= r.full_start && dz.endValue >= r.full_end;
        setZoom(full ? { start: null, end: null } : { start: Math.floor(dz.startValue), end: Math.ceil(dz.endValue) });
      }, 200);
    },
    [r],
  );
  const onEvents = useMemo(() => ({ datazoom: onZoom }), [onZoom]);
  const option = useMemo(() => (r ? timeseriesOption(r, zoom, panels) : null), [r, zoom, panels]);
  const csv = () => {
    if (!r) return;
    const times = Array.from(new Set(r.series.flatMap((s) => s.points.map((p) => p[0])))).sort((a, b) => a - b);
    const maps = r.series.map((s) => new Map(s.points.map((p) => [p[0], p[1]])));
    downloadCsv(`${dataset.name}_timeseries.csv`, [r.datetime_column, ...r.series.map((s) => s.name)], times.map((tm) => [r.time_kind === 'order' ? tm : new Date(tm).toISOString(), ...maps.map((m) => m.get(tm) ?? null)]));
  };
  return (
    <Panel title={t('timeseries')} actions={<CsvButton onClick={csv} />}>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', alignItems: 'center', mb: 1 }}>
        <ColumnsSelect label={t('columns')} options={numeric} value={cols} onChange={setCols} max={12} />
        <ToggleButtonGroup size="small" exclusive value={method} onChange={(_, v) => v && setMethod(v)} aria-label={t('downsampling')}>
          <ToggleButton value="minmax">{t('minmax')}</ToggleButton>
          <ToggleButton value="lttb">LTTB</ToggleButton>
        </ToggleButtonGroup>
        <ToggleButtonGroup size="small" exclusive value={panels ? 'panels' : 'overlay'} onChange={(_, v) => v && setPanels(v === 'panels')} aria-label={t('layout')}>
          <ToggleButton value="overlay">{t('overlay')}</ToggleButton>
          <ToggleButton value="panels">{t('panels')}</ToggleButton>
        </ToggleButtonGroup>
        <Button size="small" onClick={() => setZoom({ start: null, end: null })} disabled={zoom.start === null}>
          {t('resetZoom')}
        </Button>
      </Box>
      <Loading active={q.isFetching} />
      {r && option && (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="timeseries-note">
            {r.downsampled
              ? t('tsDownsampled', { rows: formatInteger(r.window_rows), points: formatInteger(r.series[0]?.points.length ?? 0) })
              : t('tsRaw', { rows: formatInteger(r.window_rows) })}
          </Typography>
          <VisChart
            testId="timeseries-chart"
            data={{ columns: r.series.map((s) => s.name), window_rows: r.window_rows, downsampled: r.downsampled, points: r.series[0]?.points.length ?? 0, start: r.start, end: r.end }}
            option={option}
            height={panels ? Math.max(420, r.series.length * 160 + 90) : 420}
            onEvents={onEvents}
            fileName={`${dataset.name}_timeseries`}
            ariaLabel={t('timeseries')}
          />
        </>
      )}
    </Panel>
  );
}
