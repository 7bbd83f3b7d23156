import type { Lang } from '../../i18n/messages.js';
import {
  type BoxData,
  boxesOf,
  decisionSentence,
  descriptiveRows,
  methodName,
  num,
  percent,
  type ProjectInfo,
  pText,
  type ReferenceCurve,
  referenceOf,
  statText,
  type TestResult,
  warningText,
} from './interpret.js';
import { alternativeNames, effectNames, estimateNames, labels, magnitudes } from './messages.js';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const W = 640;
const H = 240;
const PAD = { l: 48, r: 16, t: 16, b: 32 };

function scale(lo: number, hi: number, a: number, b: number) {
  const span = hi - lo || 1;
  return (v: number) => a + ((v - lo) / span) * (b - a);
}

/** The reference distribution with the critical region(s) shaded and the observed statistic marked. */
function referenceSvg(ref: ReferenceCurve): string {
  if (!ref?.x?.length) return '';
  const xs: number[] = ref.x;
  const ys: number[] = ref.y;
  const X = scale(xs[0], xs[xs.length - 1], PAD.l, W - PAD.r);
  const Y = scale(0, Math.max(...ys) * 1.05, H - PAD.b, PAD.t);
  const line = xs.map((x, i) => `${X(x).toFixed(1)},${Y(ys[i]).toFixed(1)}`).join(' ');
  const area = (from: number, to: number) => {
    const pts = xs.map((x, i) => [x, ys[i]] as const).filter(([x]) => x >= from && x <= to);
    if (!pts.length) return '';
    const d = pts.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
    return `<polygon points="${X(pts[0][0]).toFixed(1)},${Y(0)} ${d} ${X(pts[pts.length - 1][0]).toFixed(1)},${Y(0)}" fill="#d32f2f" fill-opacity="0.35"/>`;
  };
  let shaded = '';
  if (ref.critical_low !== null && ref.critical_low !== undefined) shaded += area(-Infinity, ref.critical_low);
  if (ref.critical_high !== null && ref.critical_high !== undefined) shaded += area(ref.critical_high, Infinity);
  const obs =
    ref.observed !== null && ref.observed !== undefined && !ref.observed_off_chart
      ? `<line x1="${X(ref.observed).toFixed(1)}" x2="${X(ref.observed).toFixed(1)}" y1="${PAD.t}" y2="${H - PAD.b}" stroke="#1565c0" stroke-width="2"/><text x="${X(ref.observed).toFixed(1)}" y="${PAD.t + 10}" font-size="11" fill="#1565c0" text-anchor="middle">${esc(num(ref.observed))}</text>`
      : '';
  const off =
    ref.observed_off_chart && ref.observed !== null
      ? `<text x="${ref.observed < xs[0] ? PAD.l : W - PAD.r}" y="${PAD.t + 10}" font-size="11" fill="#1565c0" text-anchor="${ref.observed < xs[0] ? 'start' : 'end'}">${ref.observed < xs[0] ? '← ' : ''}${esc(num(ref.observed))}${ref.observed < xs[0] ? '' : ' →'}</text>`
      : '';
  const ticks = [xs[0], (xs[0] + xs[xs.length - 1]) / 2, xs[xs.length - 1]]
    .map((v) => `<text x="${X(v).toFixed(1)}" y="${H - 10}" font-size="11" text-anchor="middle">${esc(num(Number(v.toPrecision(3))))}</text>`)
    .join('');
  return `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="reference distribution"><line x1="${PAD.l}" x2="${W - PAD.r}" y1="${Y(0)}" y2="${Y(0)}" stroke="#999"/>${shaded}<polyline points="${line}" fill="none" stroke="#333" stroke-width="1.5"/>${obs}${off}${ticks}</svg>`;
}

/** Box plots with Tukey whiskers and the sampled points beside each box. */
function boxSvg(boxes: BoxData[]): string {
  if (!boxes?.length) return '';
  const all = boxes.flatMap((b) => [b.low, b.high, ...(b.outliers ?? [])]).filter((v) => Number.isFinite(v));
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const Y = scale(lo, hi, H - PAD.b, PAD.t);
  const step = (W - PAD.l - PAD.r) / boxes.length;
  const parts = boxes.map((b, i) => {
    const cx = PAD.l + step * (i + 0.5);
    const w = Math.min(60, step * 0.35);
    const pts = (b.points ?? [])
      .slice(0, 150)
      .map((v: number, j: number) => `<circle cx="${(cx + w * 0.9 + ((j * 37) % 23) - 4).toFixed(1)}" cy="${Y(v).toFixed(1)}" r="1.8" fill="#1565c0" fill-opacity="0.45"/>`)
      .join('');
    const outs = (b.outliers ?? []).map((v: number) => `<circle cx="${cx.toFixed(1)}" cy="${Y(v).toFixed(1)}" r="2.5" fill="none" stroke="#d32f2f"/>`).join('');
    return `<line x1="${cx}" x2="${cx}" y1="${Y(b.low)}" y2="${Y(b.high)}" stroke="#333"/><rect x="${cx - w / 2}" y="${Y(b.q3)}" width="${w}" height="${Math.max(1, Y(b.q1) - Y(b.q3))}" fill="#e3f2fd" stroke="#333"/><line x1="${cx - w / 2}" x2="${cx + w / 2}" y1="${Y(b.median)}" y2="${Y(b.median)}" stroke="#333" stroke-width="2"/>${outs}${pts}<text x="${cx}" y="${H - 10}" font-size="11" text-anchor="middle">${esc(String(b.label).slice(0, 24))}</text>`;
  });
  const axis = [lo, (lo + hi) / 2, hi].map((v) => `<text x="${PAD.l - 6}" y="${Y(v) + 4}" font-size="11" text-anchor="end">${esc(num(Number(v.toPrecision(3))))}</text>`).join('');
  return `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="box plot">${axis}${parts.join('')}</svg>`;
}

/** The chi-square table: observed / expected count in each cell. */
function contingencyHtml(t: Extract<TestResult, { test_type: 'chi_square' }>['table'], title: string): string {
  const head = `<tr><th>${esc(t.row_variable)} \\ ${esc(t.column_variable)}</th>${t.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
  const body = t.rows
    .map((name, i) => `<tr><th>${esc(name)}</th>${t.observed[i].map((o, j) => `<td class="n">${esc(o)} / ${esc(num(Number(t.expected[i][j].toFixed(2))))}</td>`).join('')}</tr>`)
    .join('');
  return `<h2>${title}</h2><table>${head}${body}</table>`;
}

/** A self-contained HTML report (no scripts, no external files): opens anywhere and prints well. */
export function reportHtml(p: ProjectInfo, r: TestResult, lang: Lang): string {
  const L = (k: keyof typeof labels) => esc(labels[k][lang]);
  const row = (k: string, v: unknown) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`;
  const summary = [
    row(labels.dataset[lang], p.dataset_name),
    row(labels.test[lang], methodName(r, lang)),
    row(labels.variables[lang], [r.variables.variable1, r.variables.variable2, r.variables.category].filter(Boolean).join(' / ')),
    row(labels.alternative[lang], alternativeNames[r.alternative]?.[lang] ?? r.alternative),
    row(labels.alpha[lang], r.alpha),
    row(labels.statistic[lang], statText(r)),
    row(labels.p_value[lang], `p ${pText(r.p_value)} (${num(r.p_value)})`),
    row(labels.decision[lang], r.reject ? labels.reject[lang] : labels.keep[lang]),
    r.estimate ? row(`${labels.estimate[lang]}: ${estimateNames[r.estimate.kind]?.[lang] ?? r.estimate.kind}`, num(r.estimate.value)) : '',
    r.ci ? row(`${labels.ci[lang]} (${percent(r.ci.level)})`, `[${num(r.ci.low)}, ${num(r.ci.high)}]`) : '',
    r.effect_size
      ? row(
          `${labels.effect[lang]}: ${effectNames[r.effect_size.kind]?.[lang] ?? r.effect_size.kind}`,
          `${num(r.effect_size.value)}${r.effect_size.magnitude ? ` (${magnitudes[r.effect_size.magnitude]?.[lang] ?? ''})` : ''}`,
        )
      : '',
  ].join('');
  const groups = descriptiveRows(r)
    .map((g) => `<tr><td>${esc(g.label)}</td>${[g.n, g.missing, g.mean, g.sd, g.median, g.q1, g.q3, g.min, g.max, g.ci_low, g.ci_high].map((v) => `<td class="n">${esc(num(v))}</td>`).join('')}</tr>`)
    .join('');
  const checks = r.assumptions
    .map((a) => `<tr><td>${esc(a.check)}</td><td>${esc(a.method)}</td><td>${esc(a.target)}</td><td class="n">${esc(num(a.statistic))}</td><td class="n">${esc(num(a.p_value))}</td><td>${a.passed ? L('passed') : `<b class="warn">${L('failed')}</b>`}</td></tr>`)
    .join('');
  const tukey =
    r.test_type === 'anova'
      ? `<h2>${L('post_hoc')}</h2><table><tr><th></th><th></th><th>diff</th><th>low</th><th>high</th><th>p adj</th></tr>${r.post_hoc.pairs
        .map((x) => `<tr><td>${esc(x.a)}</td><td>${esc(x.b)}</td><td class="n">${esc(num(x.difference))}</td><td class="n">${esc(num(x.low))}</td><td class="n">${esc(num(x.high))}</td><td class="n">${esc(num(x.p_value))}</td></tr>`)
        .join('')}</table>`
      : '';
  const table = r.test_type === 'chi_square' ? contingencyHtml(r.table, L('table')) : '';
  const boxes = boxesOf(r);
  const reference = referenceOf(r);
  const warnings = r.warnings.length ? `<h2>${L('warnings')}</h2><ul>${r.warnings.map((w) => `<li>${esc(warningText(w, lang, r.test_type))}</li>`).join('')}</ul>` : '';
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>${esc(p.name)} — ${esc(methodName(r, lang))}</title>
<style>
body{font-family:"Noto Sans JP",system-ui,-apple-system,"Segoe UI","Hiragino Sans",sans-serif;max-width:900px;margin:24px auto;padding:0 16px;color:#222}
h1{font-size:22px;margin-bottom:4px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd;padding-bottom:4px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.decision{padding:12px 16px;border-radius:6px;background:${r.reject ? '#fff3e0' : '#e8f5e9'};border:1px solid ${r.reject ? '#ffb74d' : '#81c784'};font-size:15px}
.warn{color:#c62828}.muted{color:#666;font-size:12px}
</style></head><body>
<h1>${esc(p.name)}</h1><div class="muted">${esc(methodName(r, lang))} · ${L('generated')}: ${esc(p.finished_at ?? '')}</div>
<h2>${L('decision')}</h2><p class="decision">${esc(decisionSentence(r, lang))}</p>
<table>${summary}</table>
${warnings}
<h2>${L('descriptives')}</h2><table><tr><th>${L('group')}</th><th>n</th><th>missing</th><th>mean</th><th>sd</th><th>median</th><th>Q1</th><th>Q3</th><th>min</th><th>max</th><th>CI low</th><th>CI high</th></tr>${groups}</table>
${boxes ? boxSvg(boxes.boxes) : ''}
${reference ? `<h2>${esc(lang === 'ja' ? '参照分布と棄却域' : 'Reference distribution and critical region')}</h2>${referenceSvg(reference)}` : ''}
${checks ? `<h2>${L('assumptions')}</h2><table><tr><th></th><th>method</th><th>target</th><th>statistic</th><th>p</th><th></th></tr>${checks}</table>` : ''}
${tukey}${table}
</body></html>
`;
}
