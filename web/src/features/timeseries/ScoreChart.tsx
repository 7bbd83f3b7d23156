import Box from '@mui/material/Box';
import { useMemo, useRef, useState } from 'react';
import type { Bucket } from './api';
import { axisNote, formatFor, formatTime, tickLabel } from '../../lib/timeAxis';

const W = 1000;
const H = 300;
const PAD = { l: 56, r: 12, t: 10, b: 24 };

export interface ScoreChartProps {
  points: Bucket[];
  start: number;
  end: number;
  threshold: number;
  spans: [number, number][];
  events?: [number, number][];
  trainPart?: { start: number; end: number }[];
  times?: (string | number | null)[];
  label: string;
  /** the accessible name of the draggable threshold line (in the reader's language) */
  thresholdLabel?: string;
  onThreshold?: (v: number) => void;
  onThresholdEnd?: (v: number) => void;
  onZoom?: (range: [number, number] | null) => void;
  onSpanClick?: (span: [number, number]) => void;
  selected?: [number, number] | null;
}

/** Whether a span [first, last] shows in the rows drawn. */
const visibleIn = (p: ScoreChartProps) => (s: [number, number]) => s[1] >= p.start && s[0] <= p.end;

/** The training part (blue), labelled events (grey) and alarms (red, a click selects one) over the rows drawn. */
function Bands({ p, x }: { p: ScoreChartProps; x: (pos: number) => number }) {
  const visible = visibleIn(p);
  const band = (s: [number, number]) => ({ x: x(Math.max(s[0], p.start)), w: Math.max(1.5, x(Math.min(s[1], p.end) + 1) - x(Math.max(s[0], p.start))) });
  return (
    <>
      {(p.trainPart ?? []).filter((s) => visible([s.start, s.end])).map((s) => {
        const b = band([s.start, s.end]);
        return <rect key={`t${s.start}`} x={b.x} y={PAD.t} width={b.w} height={H - PAD.t - PAD.b} fill="#e3f2fd" />;
      })}
      {(p.events ?? []).filter(visible).map((s) => {
        const b = band(s);
        return <rect key={`e${s[0]}`} data-testid="event-span" x={b.x} y={PAD.t} width={b.w} height={H - PAD.t - PAD.b} fill="#9e9e9e" opacity={0.25} />;
      })}
      {p.spans.filter(visible).map((s) => {
        const b = band(s);
        const sel = p.selected && p.selected[0] === s[0];
        return (
          <rect
            key={`a${s[0]}`}
            data-testid="alarm-span"
            x={b.x}
            y={H - PAD.b - 14}
            width={b.w}
            height={14}
            fill={sel ? '#b71c1c' : '#e53935'}
            opacity={0.85}
            style={{ cursor: 'pointer' }}
            onPointerDown={(e) => e.stopPropagation()}
            onClick={() => p.onSpanClick?.(s)}
          />
        );
      })}
    </>
  );
}

/** The score axis (five ticks) and the time axis: each row's time (or order number), shortened to what changes. */
function Axes({ p, x, y, lo, hi }: { p: ScoreChartProps; x: (pos: number) => number; y: (v: number) => number; lo: number; hi: number }) {
  const ticks = Array.from({ length: 5 }, (_, i) => lo + ((hi - lo) * i) / 4);
  const xTicks = Array.from({ length: 6 }, (_, i) => Math.round(p.start + ((p.end - p.start) * i) / 5));
  const format = useMemo(() => formatFor(p.times ?? []), [p.times]);
  const note = axisNote(p.times ?? [], format);
  const timeOf = (pos: number) => {
    const i = p.points.findIndex((b) => b[0] >= pos);
    const tv = p.times?.[i < 0 ? p.points.length - 1 : i];
    return tv === null || tv === undefined ? String(pos) : formatTime(tv, format);
  };
  return (
    <>
      {ticks.map((v) => (
        <g key={v}>
          <line x1={PAD.l - 4} x2={PAD.l} y1={y(v)} y2={y(v)} stroke="#999" />
          <text x={PAD.l - 6} y={y(v) + 4} fontSize={11} textAnchor="end" fill="#555">
            {tickLabel(v, (hi - lo) / 4)}
          </text>
        </g>
      ))}
      {xTicks.map((v, i) => (
        <text key={v} data-testid="time-tick" x={x(v)} y={H - 6} fontSize={10} textAnchor={i === 0 ? 'start' : i === xTicks.length - 1 ? 'end' : 'middle'} fill="#555">
          {timeOf(v)}
        </text>
      ))}
      {note && (
        <text data-testid="time-note" x={PAD.l + 4} y={PAD.t + 12} fontSize={10} fill="#777">
          {note}
        </text>
      )}
    </>
  );
}

const fmt = (v: number) => (Math.abs(v) >= 1000 || (v !== 0 && Math.abs(v) < 0.01) ? v.toExponential(1) : v.toFixed(Math.abs(v) >= 10 ? 1 : 2));

/**
 * The anomaly score (min/max per bucket, drawn by the server's downsample) with the threshold as a line a person
 * drags, alarms as red bands, labelled anomalies as grey bands. Plain SVG so every pixel maps to a value exactly.
 */
export default function ScoreChart(p: ScoreChartProps) {
  const svg = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<'line' | { from: number; to: number } | null>(null);
  const [local, setLocal] = useState<number | null>(null);
  const threshold = local ?? p.threshold;
  const hasLine = Number.isFinite(threshold);
  const ref = Number.isFinite(p.threshold) ? p.threshold : 0;

  const [lo, hi] = useMemo(() => {
    const maxes = p.points.map((b) => b[2]).filter((v): v is number => v !== null).sort((a, b) => a - b);
    const mins = p.points.map((b) => b[1]).filter((v): v is number => v !== null);
    if (!maxes.length) return [0, Math.max(1, ref * 2)];
    const q = maxes[Math.floor(maxes.length * 0.98)] ?? maxes[maxes.length - 1];
    // very large excursions (a fault far past the limit) are clipped so the threshold stays movable
    const top = Number.isFinite(p.threshold) ? Math.max(Math.min(maxes[maxes.length - 1], Math.max(ref * 4, q)), ref * 1.5) : maxes[maxes.length - 1];
    const bottom = Number.isFinite(p.threshold) ? Math.min(0, ...mins) : Math.min(...mins);
    const span = top - bottom || Math.abs(top) || 1;
    return [bottom, bottom + span * 1.05];
  }, [p.points, p.threshold, ref]);

  const x = (pos: number) => PAD.l + ((pos - p.start) / Math.max(1, p.end - p.start)) * (W - PAD.l - PAD.r);
  const y = (v: number) => PAD.t + (1 - (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo)) * (H - PAD.t - PAD.b);
  const toValue = (py: number) => lo + (1 - (py - PAD.t) / (H - PAD.t - PAD.b)) * (hi - lo);
  const toPos = (px: number) => Math.round(p.start + ((px - PAD.l) / (W - PAD.l - PAD.r)) * (p.end - p.start));
  const local2svg = (e: React.PointerEvent) => {
    const r = svg.current!.getBoundingClientRect();
    return { sx: ((e.clientX - r.left) / r.width) * W, sy: ((e.clientY - r.top) / r.height) * H };
  };

  const path = useMemo(() => {
    const up: string[] = [];
    const down: string[] = [];
    for (const [pos, mn, mx] of p.points) {
      if (mn === null || mx === null) continue;
      up.push(`${x(pos).toFixed(1)},${y(mx).toFixed(1)}`);
      down.unshift(`${x(pos).toFixed(1)},${y(mn).toFixed(1)}`);
    }
    return up.length ? `M${up.join('L')}L${down.join('L')}Z` : '';
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [p.points, lo, hi, p.start, p.end]);

  return (
    <Box sx={{ width: '100%', userSelect: 'none' }}>
      <svg
        ref={svg}
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label={p.label}
        style={{ touchAction: 'none', cursor: drag === 'line' ? 'ns-resize' : 'crosshair', display: 'block' }}
        onPointerDown={(e) => {
          if (!p.onZoom) return;
          const { sx } = local2svg(e);
          if (sx < PAD.l) return;
          (e.target as Element).setPointerCapture?.(e.pointerId);
          setDrag({ from: sx, to: sx });
        }}
        onPointerMove={(e) => {
          if (!drag) return;
          const { sx, sy } = local2svg(e);
          if (drag === 'line') {
            const v = toValue(sy);
            setLocal(v);
            p.onThreshold?.(v);
          } else setDrag({ from: drag.from, to: sx });
        }}
        onPointerUp={(e) => {
          if (drag === 'line') {
            const v = toValue(local2svg(e).sy);
            setLocal(null);
            p.onThresholdEnd?.(v);
          } else if (drag && Math.abs(drag.to - drag.from) > 8) {
            const a = toPos(Math.min(drag.from, drag.to));
            const b = toPos(Math.max(drag.from, drag.to));
            p.onZoom?.([Math.max(0, a), b]);
          }
          setDrag(null);
        }}
        onDoubleClick={() => p.onZoom?.(null)}
      >
        <rect x={PAD.l} y={PAD.t} width={W - PAD.l - PAD.r} height={H - PAD.t - PAD.b} fill="#fafafa" stroke="#ddd" />
        <Bands p={p} x={x} />
        {path && <path d={path} fill="#1565c0" stroke="#1565c0" strokeWidth={0.8} />}
        <Axes p={p} x={x} y={y} lo={lo} hi={hi} />
        {drag && drag !== 'line' && <rect x={Math.min(drag.from, drag.to)} y={PAD.t} width={Math.abs(drag.to - drag.from)} height={H - PAD.t - PAD.b} fill="#1565c0" opacity={0.12} />}
        {hasLine && <line x1={PAD.l} x2={W - PAD.r} y1={y(threshold)} y2={y(threshold)} stroke="#c62828" strokeWidth={2} strokeDasharray="6 3" />}
        {hasLine && p.onThreshold && (
          <rect
            data-testid="threshold-line"
            aria-label={p.thresholdLabel ?? p.label}
            x={PAD.l}
            y={y(threshold) - 7}
            width={W - PAD.l - PAD.r}
            height={14}
            fill="transparent"
            style={{ cursor: 'ns-resize' }}
            onPointerDown={(e) => {
              e.stopPropagation();
              svg.current?.setPointerCapture?.(e.pointerId);
              setDrag('line');
            }}
          />
        )}
        {hasLine && (
          // a white halo so the value reads above the score line it may sit on
          <text x={W - PAD.r - 4} y={y(threshold) - 6} fontSize={12} textAnchor="end" fill="#c62828" stroke="#fff" strokeWidth={4} paintOrder="stroke" fontWeight={600}>
            {fmt(threshold)}
          </text>
        )}
      </svg>
    </Box>
  );
}
