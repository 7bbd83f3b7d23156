import type { AuthContext } from '../../auth/guard.js';
import { AppError } from '../../http/errors.js';
import { ident, sqlString } from '../../duck/index.js';
import { datasetStats } from '../datasets/stored.js';
import { addToCells, cellCounts, cellsOf, isNumericType, num, packedCells, packedPoints, Phases, SchemaColumn } from './figures.js';
import { M } from './messages.js';
import { asNumber, sampleColumns } from './sample.js';
import { packColumn } from './packed.js';
import type { ScatterView } from './responses.js';
import type { z } from 'zod';
import { column, rows, type Explore } from './explore.js';

// Scatter plots (points, or density cells when many) and the scatter matrix.

/**
 * Scatter of x against y (optionally coloured by a third column). Up to `maxPoints` complete rows are sent
 * as they are; beyond that a reproducible random sample (`sample: true`) or, in `bin` mode, a 2-D grid of
 * counts (with the mean colour per cell for a numeric colour).
 */
export async function scatter(
  x: Explore,
  auth: AuthContext,
  id: string,
  b: { x: string; y: string; color?: string | null; max_points: number; mode: 'sample' | 'bin'; bins: number; format?: 'arrays' | 'packed' },
  phases = new Phases(),
): Promise<z.infer<typeof ScatterView>> {
  const { open, withConn } = x;
  const packed = b.format === 'packed';
  const { row, schema, src, sketch } = await open(auth, id);
  phases.lap('open');
  const xc = column(schema, b.x, 'x');
  const yc = column(schema, b.y, 'y');
  const cc = b.color ? column(schema, b.color, 'color') : null;
  for (const [col, f] of [[xc, 'x'], [yc, 'y']] as const) {
    if (!isNumericType(col.type) && col.type !== 'datetime' && col.type !== 'date') throw new AppError(422, M.columnNotNumeric, { name: col.name }, f);
  }
  const colorNumeric = !!cc && isNumericType(cc.type);
  const where = `${ident(xc.name)} IS NOT NULL AND ${ident(yc.name)} IS NOT NULL`;
  const colorExpr = cc ? (colorNumeric ? `${ident(cc.name)}::DOUBLE` : `${ident(cc.name)}::VARCHAR`) : 'NULL';
  // Answers are kept by the route as written bytes (answer-cache.ts).
  const view = await withConn(async (c): Promise<z.infer<typeof ScatterView>> => {
    // Complete columns (known from the dataset's statistics) need no counting scan.
    const statsOf = new Map(datasetStats(row).map((s) => [s.name, s]));
    const [total, rowsAll] =
      statsOf.get(xc.name)?.missing === 0 && statsOf.get(yc.name)?.missing === 0
        ? [Number(row.row_count), Number(row.row_count)]
        : (await rows(c, `SELECT count(*) FILTER (WHERE ${where}), count(*) FROM ${src}`))[0].map((v) => Number(v));
    const base = { x: xc.name, y: yc.name, color: cc?.name ?? null, color_kind: cc ? (colorNumeric ? 'numeric' : 'categorical') : null, x_type: xc.type, y_type: yc.type, total, rows: rowsAll };
    if (b.mode === 'bin' && total > 0) {
      // Complete numeric columns: the ranges are in the dataset's statistics already, no scan needed.
      const known = (col: SchemaColumn): [number, number] | null => {
        const st = statsOf.get(col.name);
        return isNumericType(col.type) && st?.missing === 0 && typeof st.min === 'number' && typeof st.max === 'number' ? [st.min, st.max] : null;
      };
      const kx = known(xc);
      const ky = known(yc);
      const wOf = (k: [number, number]) => (k[1] > k[0] ? (k[1] - k[0]) / b.bins : 1);
      const binsOf = (x0: number, wx: number, y0: number, wy: number) => ({ nx: b.bins, ny: b.bins, x0, x1: x0 + wx * b.bins, y0, y1: y0 + wy * b.bins });
      // The pair's density grid, counted by the statistics job on these same cells (binIndexOf's arithmetic).
      const grid = kx && ky ? (sketch?.grid(xc.name, yc.name, b.bins, kx, ky) ?? null) : null;
      if (grid && kx && ky && !colorNumeric) {
        // No colour to average: the grid is the answer, no pass over the rows.
        const cells = cellsOf(grid, null, b.bins);
        phases.lap('grid');
        return { ...base, mode: 'bin', sample: false, returned: cells.length, bins: binsOf(kx[0], wOf(kx), ky[0], wOf(ky)), cells };
      }
      // Complete numeric columns of the sketch: each row's bin of x and of y (kept per column in the bin cache), in
      // memory; the same cells and counts as the GROUP BY below.
      const ix = kx && ky ? await sketch?.binIndex(xc.name, kx[0], wOf(kx), b.bins) : null;
      const iy = ix ? await sketch?.binIndex(yc.name, ky![0], wOf(ky!), b.bins) : null;
      phases.lap('read_columns');
      if (sketch && kx && ky && ix && iy) {
        // The counts from the grid when there is one (as the uncoloured answer), else one pass over the bins;
        // a numeric colour's sums per cell in one pass over its values in row order (from memory or streamed
        // from its file), so the means are those of a pass over whole rows.
        const counts = grid ?? cellCounts(ix, iy, b.bins);
        let sums: Float64Array | null = null;
        if (colorNumeric) {
          const s = new Float64Array(b.bins * b.bins);
          if (await sketch.eachValue(cc!.name, (chunk, first) => addToCells(s, ix, iy, chunk, first, b.bins))) sums = s;
        }
        if (!colorNumeric || sums) {
          const cells = cellsOf(counts, sums, b.bins);
          phases.lap('bin_rows');
          return { ...base, mode: 'bin', sample: false, returned: cells.length, bins: binsOf(kx[0], wOf(kx), ky[0], wOf(ky)), cells };
        }
      }
      const [x0, x1, y0, y1] =
        kx && ky
          ? [kx[0], kx[1], ky[0], ky[1]]
          : (await rows(c, `SELECT min(${asNumber(xc)}), max(${asNumber(xc)}), min(${asNumber(yc)}), max(${asNumber(yc)}) FROM ${src} WHERE ${where}`))[0].map((v) => Number(v));
      const wx = x1 > x0 ? (x1 - x0) / b.bins : 1;
      const wy = y1 > y0 ? (y1 - y0) / b.bins : 1;
      const r = await rows(
        c,
        `SELECT least(floor((${asNumber(xc)} - ${x0}) / ${wx}), ${b.bins - 1})::INTEGER, least(floor((${asNumber(yc)} - ${y0}) / ${wy}), ${b.bins - 1})::INTEGER,
           count(*)::DOUBLE, ${colorNumeric ? `avg(${colorExpr})` : 'NULL'} FROM ${src} WHERE ${where} GROUP BY 1, 2`,
      );
      phases.lap('scan');
      return {
        ...base,
        mode: 'bin',
        sample: false,
        returned: r.length,
        bins: binsOf(x0, wx, y0, wy),
        cells: r.map(([i, j, k, m]) => [Number(i), Number(j), Number(k), num(m)]),
      };
    }
    const sample = total > b.max_points;
    const inner = `SELECT ${asNumber(xc)} AS __x, ${asNumber(yc)} AS __y, ${colorExpr} AS __c FROM ${src} WHERE ${where}`;
    let r: unknown[][] | null = null;
    let method: 'stratified_rows' | 'random' = 'random';
    if (sample && sketch && sketch.manifest.sample_rows >= b.max_points && (!cc || colorNumeric)) {
      // The sketch's sample, its columns held in memory (read once each): the same rows as the query below,
      // its first max_points rows where x and y are present.
      const cols = await sampleColumns(c, sketch, cc ? [xc, yc, cc] : [xc, yc]);
      phases.lap('read_sample');
      if (cols) {
        const [sx, sy, sc] = cols;
        const at = new Int32Array(b.max_points);
        let n = 0;
        for (let i = 0; i < sx.length && n < b.max_points; i++) if (sx[i] === sx[i] && sy[i] === sy[i]) at[n++] = i;
        if (n === b.max_points) {
          const pick = (v: Float64Array) => {
            const o = new Float64Array(n);
            for (let k = 0; k < n; k++) o[k] = v[at[k]];
            return o;
          };
          const [xs, ys, cs] = [pick(sx), pick(sy), sc ? pick(sc) : null];
          const head = { ...base, mode: 'sample', sample, sample_method: sketch.manifest.sample_strata ? ('stratified_rows' as const) : ('random' as const), returned: n };
          if (packed) {
            const p = { x: packColumn(xs), y: packColumn(ys), color: cs ? packColumn(cs) : null, color_categories: null };
            phases.lap('points');
            return { ...head, packed_points: p };
          }
          const points = Array.from(xs, (x, k) => (cs ? [x, ys[k], cs[k] === cs[k] ? cs[k] : null] : [x, ys[k]]));
          phases.lap('points');
          return { ...head, points };
        }
      }
    }
    if (sample && sketch && sketch.manifest.sample_rows >= b.max_points) {
      // The sketch's sample: whole rows drawn with the same chance each, stratified over row ranges, stored so
      // that its first rows are such a sample too; its first complete rows are a sample of the complete rows.
      const fromSample = await rows(c, `SELECT ${asNumber(xc)} AS __x, ${asNumber(yc)} AS __y, ${colorExpr} AS __c FROM read_parquet(${sqlString(sketch.samplePath)}) WHERE ${where} LIMIT ${b.max_points}`);
      if (fromSample.length === b.max_points) {
        r = fromSample;
        if (sketch.manifest.sample_strata) method = 'stratified_rows';
      }
      phases.lap('read_sample');
    }
    r ??= await rows(c, sample ? `SELECT * FROM (${inner}) USING SAMPLE reservoir(${b.max_points} ROWS) REPEATABLE (42)` : inner);
    phases.lap('scan');
    const head = { ...base, mode: 'sample', sample, ...(sample ? { sample_method: method } : {}), returned: r.length };
    if (packed) {
      const p = packedPoints(r, cc ? (colorNumeric ? 'numeric' : 'categorical') : null);
      phases.lap('points');
      return { ...head, packed_points: p };
    }
    const points = r.map(([x, y, col]) => (cc ? [Number(x), Number(y), colorNumeric ? num(col) : (col as string | null)] : [Number(x), Number(y)]));
    phases.lap('points');
    return { ...head, points };
  });
  if (!packed || !view.cells || !view.bins) return view;
  const { cells, ...rest } = view;
  const out = { ...rest, packed_cells: packedCells(cells, view.bins.nx, view.bins.ny, colorNumeric) };
  phases.lap('points');
  return out;
}

/** Scatter-plot matrix: a sample of complete rows of up to 8 numeric columns. */
export async function matrix(x: Explore, auth: AuthContext, id: string, names: string[], maxPoints: number) {
  const { open, withConn } = x;
  const { schema, src } = await open(auth, id);
  const cols = names.map((n) => column(schema, n, 'columns', true));
  const where = cols.map((c) => `${ident(c.name)} IS NOT NULL`).join(' AND ');
  return withConn(async (c) => {
    const total = Number((await rows(c, `SELECT count(*) FROM ${src} WHERE ${where}`))[0][0]);
    const inner = `SELECT ${cols.map((c) => `${ident(c.name)}::DOUBLE`).join(', ')} FROM ${src} WHERE ${where}`;
    const sample = total > maxPoints;
    const r = await rows(c, sample ? `SELECT * FROM (${inner}) USING SAMPLE reservoir(${maxPoints} ROWS) REPEATABLE (42)` : inner);
    return { columns: cols.map((c) => c.name), rows: r.map((row) => row.map(num)), total, returned: r.length, sample };
  });
}
