/**
 * Small SVG charts for PDF documents (drawn as vectors by the renderer; text in the document's font, so Japanese
 * labels work). Scatter, lines, horizontal bars and a heat map: what reports need, no interaction.
 */

export const PALETTE = ['#1976d2', '#e65100', '#2e7d32', '#6a1b9a', '#c62828', '#00838f', '#f9a825', '#4e342e', '#37474f', '#ad1457'];

const W = 520;
const H = 300;
const L = 62;
const R = 14;
const T = 14;
const B = 44;

export const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function tick(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(2);
  if (Number.isInteger(v)) return String(v);
  return Number(v.toPrecision(4)).toString();
}

type Num = number | null | undefined;
const finite = (v: Num): v is number => typeof v === 'number' && Number.isFinite(v);

function range(values: Num[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) if (finite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  if (lo === Infinity) return [0, 1];
  if (lo === hi) return [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.04;
  return [lo - pad, hi + pad];
}

/** Every n-th point so a PDF stays small; charts of more points than a page can show look the same. */
function thin<T>(items: T[], max = 2500): T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}

function frame(body: string, xr: [number, number], yr: [number, number], xLabel: string, yLabel: string, legend: Array<[string, string]> = []): string {
  const sx = (v: number) => L + ((v - xr[0]) / (xr[1] - xr[0])) * (W - L - R);
  const sy = (v: number) => H - B - ((v - yr[0]) / (yr[1] - yr[0])) * (H - B - T);
  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const xv = xr[0] + ((xr[1] - xr[0]) * i) / 4;
    const yv = yr[0] + ((yr[1] - yr[0]) * i) / 4;
    ticks.push(`<line x1="${sx(xv).toFixed(1)}" y1="${H - B}" x2="${sx(xv).toFixed(1)}" y2="${H - B + 4}" stroke="#888"/>`);
    ticks.push(`<text x="${sx(xv).toFixed(1)}" y="${H - B + 14}" font-size="9" text-anchor="middle" fill="#444">${tick(xv)}</text>`);
    ticks.push(`<line x1="${L}" y1="${sy(yv).toFixed(1)}" x2="${W - R}" y2="${sy(yv).toFixed(1)}" stroke="#eee"/>`);
    ticks.push(`<text x="${L - 5}" y="${(sy(yv) + 3).toFixed(1)}" font-size="9" text-anchor="end" fill="#444">${tick(yv)}</text>`);
  }
  const leg = legend
    .slice(0, 10)
    .map(([name, color], i) => `<rect x="${L + 6 + (i % 4) * 115}" y="${T + 2 + Math.floor(i / 4) * 12}" width="8" height="8" fill="${color}"/><text x="${L + 18 + (i % 4) * 115}" y="${T + 9 + Math.floor(i / 4) * 12}" font-size="9">${esc(name.slice(0, 22))}</text>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">` +
    ticks.join('') +
    body +
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#888"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#888"/>` +
    `<text x="${(L + W - R) / 2}" y="${H - 8}" font-size="10" text-anchor="middle">${esc(xLabel)}</text>` +
    `<text x="12" y="${(T + H - B) / 2}" font-size="10" text-anchor="middle" transform="rotate(-90 12 ${(T + H - B) / 2})">${esc(yLabel)}</text>` +
    leg +
    `</svg>`
  );
}

function scales(xr: [number, number], yr: [number, number]) {
  return {
    sx: (v: number) => L + ((v - xr[0]) / (xr[1] - xr[0])) * (W - L - R),
    sy: (v: number) => H - B - ((v - yr[0]) / (yr[1] - yr[0])) * (H - B - T),
  };
}

/** Points, optionally coloured by group, with an optional y = x line. */
export function scatterSvg(x: Num[], y: Num[], opts: { xLabel: string; yLabel: string; groups?: Array<string | number | null> | null; diagonal?: boolean; zeroLine?: boolean }): string {
  const idx = thin(x.map((_, i) => i).filter((i) => finite(x[i]) && finite(y[i])));
  const xr = range(idx.map((i) => x[i]));
  const yr = range(idx.map((i) => y[i]));
  const { sx, sy } = scales(xr, yr);
  const keys = opts.groups ? [...new Set(opts.groups.map(String))].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b)) : [];
  const color = (i: number) => (opts.groups ? PALETTE[keys.indexOf(String(opts.groups[i])) % PALETTE.length]! : PALETTE[0]!);
  let body = '';
  if (opts.diagonal) {
    const lo = Math.max(xr[0], yr[0]);
    const hi = Math.min(xr[1], yr[1]);
    if (hi > lo) body += `<line x1="${sx(lo).toFixed(1)}" y1="${sy(lo).toFixed(1)}" x2="${sx(hi).toFixed(1)}" y2="${sy(hi).toFixed(1)}" stroke="#999" stroke-dasharray="4 3"/>`;
  }
  if (opts.zeroLine && yr[0] < 0 && yr[1] > 0) body += `<line x1="${L}" y1="${sy(0).toFixed(1)}" x2="${W - R}" y2="${sy(0).toFixed(1)}" stroke="#999"/>`;
  body += idx.map((i) => `<circle cx="${sx(x[i] as number).toFixed(1)}" cy="${sy(y[i] as number).toFixed(1)}" r="1.8" fill="${color(i)}" fill-opacity="0.65"/>`).join('');
  return frame(body, xr, yr, opts.xLabel, opts.yLabel, keys.length > 1 ? keys.map((k, i) => [k, PALETTE[i % PALETTE.length]!]) : []);
}

/** Lines over a shared x axis (nulls break nothing: those points are skipped). */
export function linesSvg(series: Array<{ name: string; x: Num[]; y: Num[]; dashed?: boolean }>, opts: { xLabel: string; yLabel: string; yRange?: [number, number]; xRange?: [number, number] }): string {
  const xr = opts.xRange ?? range(series.flatMap((s) => s.x));
  const yr = opts.yRange ?? range(series.flatMap((s) => s.y));
  const { sx, sy } = scales(xr, yr);
  const body = series
    .map((s, k) => {
      const pts = thin(s.x.map((xv, i) => [xv, s.y[i]] as const).filter(([a, b]) => finite(a) && finite(b)), 3000)
        .map(([a, b]) => `${sx(a as number).toFixed(1)},${sy(b as number).toFixed(1)}`)
        .join(' ');
      return pts ? `<polyline points="${pts}" fill="none" stroke="${PALETTE[k % PALETTE.length]}" stroke-width="1.1"${s.dashed ? ' stroke-dasharray="4 3"' : ''}/>` : '';
    })
    .join('');
  const legend = series.filter((s) => s.name).map((s) => [s.name, PALETTE[series.indexOf(s) % PALETTE.length]!] as [string, string]);
  return frame(body, xr, yr, opts.xLabel, opts.yLabel, legend);
}

/** Horizontal bars, largest first as given, value written at the bar's end. */
export function barsSvg(labels: string[], values: Num[]): string {
  const n = Math.max(1, labels.length);
  const h = 16 * n + 16;
  const vmax = Math.max(1e-12, ...values.map((v) => (finite(v) ? Math.abs(v) : 0)));
  const left = 170;
  const span = W - left - 60;
  const body = labels
    .map((lab, i) => {
      const v = finite(values[i]) ? (values[i] as number) : 0;
      const w = (Math.abs(v) / vmax) * span;
      const y = 8 + i * 16;
      return (
        `<text x="${left - 6}" y="${y + 10}" font-size="9" text-anchor="end">${esc(String(lab).slice(0, 30))}</text>` +
        `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="12" fill="${v >= 0 ? PALETTE[0] : PALETTE[4]}"/>` +
        `<text x="${(left + w + 4).toFixed(1)}" y="${y + 10}" font-size="9" fill="#444">${tick(v)}</text>`
      );
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}">${body}</svg>`;
}

/** A matrix of counts (e.g. a confusion matrix): rows and columns labelled, each cell shaded and numbered. */
export function heatmapSvg(rowLabels: string[], colLabels: string[], matrix: number[][], opts: { rowTitle: string; colTitle: string }): string {
  const n = Math.max(rowLabels.length, colLabels.length, 1);
  const cell = Math.max(16, Math.min(48, Math.floor(360 / n)));
  const left = 120;
  const top = 40;
  const vmax = Math.max(1, ...matrix.flat());
  let body = '';
  matrix.forEach((row, i) => {
    body += `<text x="${left - 5}" y="${top + i * cell + cell / 2 + 3}" font-size="9" text-anchor="end">${esc(String(rowLabels[i] ?? '').slice(0, 18))}</text>`;
    row.forEach((v, j) => {
      const a = 0.06 + 0.9 * (v / vmax);
      body += `<rect x="${left + j * cell}" y="${top + i * cell}" width="${cell - 1}" height="${cell - 1}" fill="#1976d2" fill-opacity="${a.toFixed(2)}"/>`;
      body += `<text x="${left + j * cell + cell / 2}" y="${top + i * cell + cell / 2 + 3}" font-size="${cell < 24 ? 7 : 9}" text-anchor="middle" fill="${a > 0.55 ? '#fff' : '#222'}">${v}</text>`;
    });
  });
  colLabels.forEach((lab, j) => {
    body += `<text x="${left + j * cell + cell / 2}" y="${top - 5}" font-size="8" text-anchor="middle">${esc(String(lab).slice(0, 8))}</text>`;
  });
  const width = Math.max(left + n * cell + 10, 260);
  const height = top + rowLabels.length * cell + 24;
  body += `<text x="${left + (colLabels.length * cell) / 2}" y="14" font-size="10" text-anchor="middle">${esc(opts.colTitle)}</text>`;
  body += `<text x="12" y="${top + (rowLabels.length * cell) / 2}" font-size="10" text-anchor="middle" transform="rotate(-90 12 ${top + (rowLabels.length * cell) / 2})">${esc(opts.rowTitle)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
}
