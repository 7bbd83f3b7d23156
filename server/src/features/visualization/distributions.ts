import type { AuthContext } from '../../auth/guard.js';
import { ident } from '../../duck/index.js';
import { histogramOfSorted, lowerBound, quantileOfSorted, upperBound } from '../datasets/sketch.js';
import { datasetStats } from '../datasets/stored.js';
import { isNumericType, num } from './figures.js';
import { asNumber } from './sample.js';
import type { BoxplotView, HistogramView } from './responses.js';
import type { z } from 'zod';
import { column, rows, type Explore } from './explore.js';

// Histograms (bar counts for non-numeric columns) and box plots of a dataset's columns.

/** Histogram (numeric, datetime: equal-width bins, last bin closed as numpy) or bar counts (others). */
export async function histogram(x: Explore, auth: AuthContext, id: string, names: string[], bins: number, top: number): Promise<z.infer<typeof HistogramView>> {
  const { open, withConn } = x;
  const { row, schema, src, sketch } = await open(auth, id);
  const cols = names.map((n) => column(schema, n, 'columns'));
  return withConn(async (c) => {
    const out: z.infer<typeof HistogramView>['columns'] = [];
    for (const col of cols) {
      const q = ident(col.name);
      const sorted = isNumericType(col.type) ? sketch?.sorted(col.name) : null;
      if (sorted) {
        // Binary searches of the edges in the sorted values: the same counts as the scan below.
        const total = Number(row.row_count);
        try {
          out.push({ name: col.name, type: col.type, kind: 'numeric', ...histogramOfSorted(sorted, bins), count: sorted.length, missing: total - sorted.length });
        } finally {
          sorted.close();
        }
      } else if (isNumericType(col.type) || col.type === 'datetime' || col.type === 'date') {
        const v = asNumber(col);
        const [lo, hi, n, total] = (await rows(c, `SELECT min(${v}), max(${v}), count(${q}), count(*) FROM ${src}`))[0].map(num);
        const counts = new Array<number>(bins).fill(0);
        let edges: number[] = [];
        if (lo !== null && hi !== null) {
          const width = hi > lo ? (hi - lo) / bins : 1;
          edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? (hi > lo ? hi : lo + 1) : lo + i * width));
          // numpy.histogram's rule: index from (x - lo) * n / (hi - lo), then moved one bin down (or up) where
          // rounding put a value on the wrong side of an edge; the moves are counted in the same scan.
          const norm = hi > lo ? bins / (hi - lo) : 1;
          const r = await rows(
            c,
            `SELECT __b0, count(*)::DOUBLE, count(*) FILTER (WHERE __x < ${lo}::DOUBLE + __b0 * ${width}::DOUBLE)::DOUBLE,
               count(*) FILTER (WHERE __b0 <> ${bins - 1} AND __x >= ${lo}::DOUBLE + (__b0 + 1) * ${width}::DOUBLE)::DOUBLE
             FROM (SELECT ${v} AS __x, least(floor((${v} - ${lo}::DOUBLE) * ${norm}::DOUBLE), ${bins - 1})::INTEGER AS __b0 FROM ${src} WHERE ${q} IS NOT NULL) GROUP BY 1`,
          );
          for (const [b, k, down, up] of r) {
            const i = Number(b);
            counts[i] += Number(k) - Number(down) - Number(up);
            if (Number(down)) counts[i - 1] += Number(down);
            if (Number(up)) counts[i + 1] += Number(up);
          }
        }
        out.push({ name: col.name, type: col.type, kind: isNumericType(col.type) ? 'numeric' : 'datetime', edges, counts, count: n ?? 0, missing: (total ?? 0) - (n ?? 0) });
      } else {
        const r = await rows(
          c,
          `SELECT ${q}::VARCHAR, count(*)::DOUBLE FROM ${src} WHERE ${q} IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${top + 1}`,
        );
        const [n, total, distinct] = (await rows(c, `SELECT count(${q}), count(*), count(DISTINCT ${q}) FROM ${src}`))[0].map(num);
        const values = r.slice(0, top).map(([v, k]) => ({ value: String(v), count: Number(k) }));
        const shown = values.reduce((a, b) => a + b.count, 0);
        out.push({ name: col.name, type: col.type, kind: 'categorical', values, other: (n ?? 0) - shown, distinct: distinct ?? 0, count: n ?? 0, missing: (total ?? 0) - (n ?? 0) });
      }
    }
    return { columns: out };
  });
}

/** Tukey box plots: quartiles (linear interpolation, as pandas), whiskers at 1.5 IQR, a sample of outliers. */
export async function boxplot(x: Explore, auth: AuthContext, id: string, names: string[]) {
  const { open, withConn } = x;
  const { row, schema, src, sketch } = await open(auth, id);
  const cols = names.map((n) => column(schema, n, 'columns', true));
  const statsOf = new Map(datasetStats(row).map((s) => [s.name, s]));
  return withConn(async (c) => {
    const out: z.infer<typeof BoxplotView>['columns'] = [];
    for (const col of cols) {
      const q = ident(col.name);
      const s = sketch?.sorted(col.name);
      const knownMean = statsOf.get(col.name)?.mean;
      if (s && typeof knownMean !== 'number') s.close();
      if (s && typeof knownMean === 'number') {
        try {
        // Quartiles, whiskers and outliers are index reads and binary searches in the sorted values.
        const [q1, med, q3] = [0.25, 0.5, 0.75].map((p) => quantileOfSorted(s, p));
        const lo = q1 - 1.5 * (q3 - q1);
        const hi = q3 + 1.5 * (q3 - q1);
        const below = lowerBound(s, lo);
        const above = upperBound(s, hi);
        const oc = below + (s.length - above);
        // Up to 200 outliers spread evenly over their sorted order (all of them when fewer).
        const outliers: number[] = [];
        const take = Math.min(200, oc);
        for (let k = 0; k < take; k++) {
          const r = Math.floor((k * oc) / take);
          outliers.push(s.at(r < below ? r : above + r - below));
        }
        out.push({ name: col.name, count: s.length, min: s.at(0), q1, median: med, q3, max: s.at(s.length - 1), mean: knownMean, lower_whisker: s.at(below), upper_whisker: s.at(above - 1), outlier_count: oc, outliers });
        } finally {
          s.close();
        }
        continue;
      }
      const v = `${q}::DOUBLE`;
      const [qs, mn, mx, mean, n] = (await rows(c, `SELECT quantile_cont(${v}, [0.25, 0.5, 0.75]), min(${v}), max(${v}), avg(${v}), count(${q}) FROM ${src}`))[0];
      const quart = ((qs as { items?: unknown[] } | null)?.items ?? (qs as unknown[]) ?? []).map(num);
      if (!n || quart[0] === null) {
        out.push({ name: col.name, count: 0, min: null, q1: null, median: null, q3: null, max: null, mean: null, lower_whisker: null, upper_whisker: null, outlier_count: 0, outliers: [] });
        continue;
      }
      const [q1, med, q3] = quart as number[];
      const lo = q1 - 1.5 * (q3 - q1);
      const hi = q3 + 1.5 * (q3 - q1);
      const [lw, uw, oc] = (await rows(c, `SELECT min(${v}) FILTER (WHERE ${v} >= ${lo}), max(${v}) FILTER (WHERE ${v} <= ${hi}), count(*) FILTER (WHERE ${v} < ${lo} OR ${v} > ${hi}) FROM ${src}`))[0].map(num);
      const outliers = (await rows(c, `SELECT __v FROM (SELECT ${v} AS __v FROM ${src} WHERE ${v} < ${lo} OR ${v} > ${hi}) USING SAMPLE reservoir(200 ROWS) REPEATABLE (7)`)).map((r) => Number(r[0]));
      out.push({ name: col.name, count: Number(n), min: num(mn), q1, median: med, q3, max: num(mx), mean: num(mean), lower_whisker: lw, upper_whisker: uw, outlier_count: oc ?? 0, outliers });
    }
    return { columns: out };
  });
}
