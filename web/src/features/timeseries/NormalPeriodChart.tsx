import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useTimeSeries } from '../visualization/api';

const W = 1000;
const H = 260;
const PAD = { l: 12, r: 12, t: 10, b: 24 };
const COLORS = ['#1565c0', '#2e7d32', '#ef6c00', '#6a1b9a'];

/** Epoch ms of the dataset's naive datetimes (read as UTC by the server) back to the text the engine parses. */
export const msToText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const textToMs = (s: string) => {
  const v = Date.parse(`${s.trim().replace(' ', 'T')}${/Z|[+-]\d\d:?\d\d$/.test(s.trim()) ? '' : 'Z'}`);
  return Number.isFinite(v) ? v : null;
};

/**
 * The chosen signals over the whole series (each in its own lane, downsampled on the server), on which a
 * person drags across the normal period; the selection is shown as a blue band and given back as from/to texts:
 * date-times, or whole numbers when the series is ordered by a number column (a sample number).
 */
export default function NormalPeriodChart({
  datasetId,
  columns,
  from,
  to,
  firstRowsEnd = null,
  onRange,
}: {
  datasetId: string;
  columns: string[];
  from: string;
  to: string;
  /** The normal period given as the first rows: the time of its last row, shaded from the start of the series. */
  firstRowsEnd?: string | number | null;
  onRange: (from: string, to: string) => void;
}) {
  const { t } = useTranslation('timeseries');
  const shown = columns.slice(0, 4);
  const q = useTimeSeries(datasetId, { columns: shown, start: null, end: null, method: 'minmax', buckets: 600 });
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ a: number; b: number } | null>(null);
  const data = q.data;
  const order = data?.time_kind === 'order';
  const toText = (v: number) => (order ? String(Math.round(v)) : msToText(v));
  const fromText = (s: string) => (order ? (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : null) : textToMs(s));
  const t0 = data?.full_start ?? data?.start ?? 0;
  const t1 = data?.full_end ?? data?.end ?? 1;
  const x = (ms: number) => PAD.l + ((ms - t0) / Math.max(1, t1 - t0)) * (W - PAD.l - PAD.r);
  const toMs = (sx: number) => Math.round(t0 + Math.min(1, Math.max(0, (sx - PAD.l) / (W - PAD.l - PAD.r))) * (t1 - t0));
  const svgX = (e: React.PointerEvent) => {
    const r = svg.current!.getBoundingClientRect();
    return ((e.clientX - r.left) / r.width) * W;
  };

  const paths = useMemo(
    () =>
      (data?.series ?? []).map((s, i, all) => {
        const vals = s.points.map((p) => p[1]).filter((v): v is number => v !== null);
        const lo = Math.min(...vals);
        const hi = Math.max(...vals);
        // one lane per signal, so the signals do not hide each other
        const lane = (H - PAD.t - PAD.b) / all.length;
        const y = (v: number) => PAD.t + lane * i + 2 + (1 - (hi > lo ? (v - lo) / (hi - lo) : 0.5)) * (lane - 4);
        const pts = s.points.filter((p) => p[1] !== null).map((p) => `${x(p[0]).toFixed(1)},${y(p[1] as number).toFixed(1)}`);
        return { name: s.name, d: pts.length ? `M${pts.join('L')}` : '' };
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [data],
  );

  if (q.isError) return <Typography color="text.secondary">{t('wizard.chartUnavailable')}</Typography>;
  if (!data) return <Box sx={{ height: 120 }} />;
  const a = fromText(from);
  const b = fromText(to);
  const rowsEnd = firstRowsEnd === null ? null : fromText(String(firstRowsEnd));
  const sel = drag
    ? [Math.min(drag.a, drag.b), Math.max(drag.a, drag.b)]
    : a !== null && b !== null && b > a
      ? [x(a), x(b)]
      : rowsEnd !== null && rowsEnd > t0
        ? [x(t0), x(Math.min(rowsEnd, t1))]
        : null;
  const ticks = Array.from({ length: 5 }, (_, i) => t0 + ((t1 - t0) * i) / 4);

  return (
    <Box sx={{ userSelect: 'none' }}>
      <svg
        ref={svg}
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label={t('wizard.chartLabel')}
        data-testid="normal-period-chart"
        style={{ touchAction: 'none', cursor: 'crosshair', display: 'block' }}
        onPointerDown={(e) => {
          (e.target as Element).setPointerCapture?.(e.pointerId);
          const sx = svgX(e);
          setDrag({ a: sx, b: sx });
        }}
        onPointerMove={(e) => drag && setDrag({ a: drag.a, b: svgX(e) })}
        onPointerUp={() => {
          if (drag && Math.abs(drag.b - drag.a) > 4) onRange(toText(toMs(Math.min(drag.a, drag.b))), toText(toMs(Math.max(drag.a, drag.b))));
          setDrag(null);
        }}
        onDoubleClick={() => onRange('', '')}
      >
        <rect x={PAD.l} y={PAD.t} width={W - PAD.l - PAD.r} height={H - PAD.t - PAD.b} fill="#fafafa" stroke="#ddd" />
        {sel && <rect data-testid="normal-period-band" x={sel[0]} y={PAD.t} width={Math.max(1, sel[1] - sel[0])} height={H - PAD.t - PAD.b} fill="#1565c0" opacity={0.15} />}
        {paths.map((p, i) => (
          <path key={p.name} d={p.d} fill="none" stroke={COLORS[i % COLORS.length]} strokeWidth={0.8} />
        ))}
        {ticks.map((v) => (
          <text key={v} x={Math.min(Math.max(x(v), 70), W - 70)} y={H - 6} fontSize={10} textAnchor="middle" fill="#555">
            {toText(v)}
          </text>
        ))}
      </svg>
      <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap', fontSize: 12, color: 'text.secondary' }}>
        {paths.map((p, i) => (
          <span key={p.name} style={{ color: COLORS[i % COLORS.length] }}>
            ― {p.name}
          </span>
        ))}
        {sel && <span style={{ color: '#1565c0' }}>▮ {t('wizard.shadedLegend')}</span>}
        <span>{t('wizard.dragHint')}</span>
      </Box>
    </Box>
  );
}
