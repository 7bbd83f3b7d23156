import type { AuthContext } from '../../auth/guard.js';
import type { AppContext } from '../../context.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type DuckConnection, ident, sqlString, withConnection } from '../../duck/index.js';
import type { DatasetService } from '../datasets/service.js';
import { histogramOfSorted, lowerBound, quantileOfSorted, readSketch, upperBound } from '../datasets/sketch.js';
import { addToCells, cellCounts, cellsOf, exploreCacheBytes, fromPyramids, isNumericType, lttb, num, packedCells, packedPoints, Phases, Pyramid, PYRAMID_BUCKETS, pyramidMinRows, SchemaColumn, SPEARMAN_MAX_ROWS } from './figures.js';
import { M } from './messages.js';
import { asNumber, sampleColumns } from './sample.js';
import { packColumn } from './packed.js';
import type { BoxplotView, HistogramView, ScatterView, TimeseriesView } from './responses.js';
import type { z } from 'zod';

export function makeVisualizationService(ctx: AppContext, { datasets }: { datasets: DatasetService }) {
  // Least-recently-used results of this app instance, keyed by dataset and question; the dataset is looked up
  // (and its organisation checked) before the cache is asked, so a deleted or foreign dataset is never answered.
  const cache = new Map<string, { value: unknown; size: number }>();
  let cacheBytes = 0;
  const limit = exploreCacheBytes();
  async function cached<T>(key: string, compute: () => Promise<T>, sizeOf?: (v: T) => number): Promise<T> {
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit.value as T;
    }
    const value = await compute();
    const size = sizeOf ? sizeOf(value) : JSON.stringify(value).length;
    if (size <= limit / 4) {
      // Kept answers are shared by every later request: frozen, so none changes them and the serializer may keep
      // their text (http/responses.ts).
      if (value && typeof value === 'object') Object.freeze(value);
      cache.set(key, { value, size });
      cacheBytes += size;
      for (const [k, v] of cache) {
        if (cacheBytes <= limit) break;
        cache.delete(k);
        cacheBytes -= v.size;
      }
    }
    return value;
  }

  async function open(auth: AuthContext, id: string) {
    const row = await datasets.getRow(auth, id);
    const schema = JSON.parse(row.schema_json) as SchemaColumn[];
    const parquet = datasets.parquetPath(row);
    const src = `read_parquet(${sqlString(parquet)})`;
    // The exploration sketch (sorted and row-order values of numeric columns, correlations, a sample), when the
    // statistics job has written it; every answer below is the same with or without it.
    const sketch = readSketch(row.id, parquet);
    return { row, schema, src, sketch };
  }

  function column(schema: SchemaColumn[], name: string, field: string, numeric = false): SchemaColumn {
    const c = schema.find((s) => s.name === name);
    if (!c) throw new AppError(422, M.columnMissing, { name }, field);
    if (numeric && !isNumericType(c.type)) throw new AppError(422, M.columnNotNumeric, { name }, field);
    return c;
  }

  const withConn = <T>(fn: (c: DuckConnection) => Promise<T>): Promise<T> => withConnection(ctx.duckdb, fn);

  const rows = async (c: DuckConnection, sql: string) => (await c.runAndReadAll(sql)).getRows() as unknown[][];

  return {
    /**
     * The dataset's id and the version its answers are kept under (the build of its sketch: a sampled scatter
     * differs with and without it), once the caller's access to the dataset is checked (404 otherwise).
     */
    async version(auth: AuthContext, id: string): Promise<{ id: string; version: string }> {
      const row = await datasets.getRow(auth, id);
      return { id: row.id, version: readSketch(row.id, datasets.parquetPath(row))?.manifest.build_id ?? '-' };
    },

    /** Histogram (numeric, datetime: equal-width bins, last bin closed as numpy) or bar counts (others). */
    async histogram(auth: AuthContext, id: string, names: string[], bins: number, top: number): Promise<z.infer<typeof HistogramView>> {
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
    },

    /** Tukey box plots: quartiles (linear interpolation, as pandas), whiskers at 1.5 IQR, a sample of outliers. */
    async boxplot(auth: AuthContext, id: string, names: string[]) {
      const { row, schema, src, sketch } = await open(auth, id);
      const cols = names.map((n) => column(schema, n, 'columns', true));
      const statsOf = new Map((JSON.parse(row.stats_json) as { name: string; mean: number | null }[]).map((s) => [s.name, s]));
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
    },

    /**
     * Scatter of x against y (optionally coloured by a third column). Up to `maxPoints` complete rows are sent
     * as they are; beyond that a reproducible random sample (`sample: true`) or, in `bin` mode, a 2-D grid of
     * counts (with the mean colour per cell for a numeric colour).
     */
    async scatter(
      auth: AuthContext,
      id: string,
      b: { x: string; y: string; color?: string | null; max_points: number; mode: 'sample' | 'bin'; bins: number; format?: 'arrays' | 'packed' },
      phases = new Phases(),
    ): Promise<z.infer<typeof ScatterView>> {
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
        const statsOf = new Map((JSON.parse(row.stats_json) as { name: string; missing: number; min: unknown; max: unknown }[]).map((s) => [s.name, s]));
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
          // Complete numeric columns of the sketch: each row's bin of x and of y (kept per column, binCache), in
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
    },

    /** Scatter-plot matrix: a sample of complete rows of up to 8 numeric columns. */
    async matrix(auth: AuthContext, id: string, names: string[], maxPoints: number) {
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
    },

    /** Pearson (pairwise complete rows, as pandas) or Spearman (average ranks; on a sample above SPEARMAN_MAX_ROWS). */
    async correlation(auth: AuthContext, id: string, names: string[] | undefined, method: 'pearson' | 'spearman') {
      const { row, schema, src, sketch } = await open(auth, id);
      const cols = names?.length ? names.map((n) => column(schema, n, 'columns', true)) : schema.filter((s) => isNumericType(s.type)).slice(0, 50);
      if (cols.length < 2) throw new AppError(422, M.tooFewColumns, { min: 2 }, 'columns');
      const spearman = sketch?.manifest.spearman;
      if (method === 'spearman' && spearman && cols.every((col) => spearman.names.includes(col.name))) {
        // Spearman on all rows of complete columns, computed by the statistics job from the sorted values.
        const at = cols.map((col) => spearman.names.indexOf(col.name));
        const matrix = at.map((i) => at.map((j) => (i === j ? 1 : spearman.matrix[i][j])));
        const total = Number(row.row_count);
        return { method, columns: cols.map((x) => x.name), matrix, rows: total, sample: false, sample_rows: total };
      }
      return withConn(async (c) => {
        let from = src;
        let sample = false;
        const total = Number(row.row_count);
        if (method === 'spearman') sample = total > SPEARMAN_MAX_ROWS;
        if (method === 'spearman') {
          const base = `SELECT ${cols.map((c) => `${ident(c.name)}::DOUBLE AS ${ident(c.name)}`).join(', ')} FROM ${src}`;
          const picked = sample ? `SELECT * FROM (${base}) USING SAMPLE reservoir(${SPEARMAN_MAX_ROWS} ROWS) REPEATABLE (42)` : base;
          const ranks = cols
            .map((col) => {
              const q = ident(col.name);
              return `CASE WHEN ${q} IS NULL THEN NULL ELSE rank() OVER (ORDER BY ${q} NULLS LAST) + (count(*) OVER (PARTITION BY ${q}) - 1) / 2.0 END AS ${q}`;
            })
            .join(', ');
          from = `(SELECT ${ranks} FROM (${picked}))`;
        }
        const matrix = cols.map((_, i) => cols.map((__, j) => (i === j ? 1 : null as number | null)));
        const stats = new Map((JSON.parse(row.stats_json) as { name: string; missing: number; mean: number | null }[]).map((s) => [s.name, s]));
        const complete = cols.every((col) => stats.get(col.name)?.missing === 0 && typeof stats.get(col.name)?.mean === 'number');
        if (method === 'spearman' && !complete) {
          // With missing values pandas ranks each pair within its complete rows; so do we, one pair per branch.
          const base = `SELECT ${cols.map((c) => `${ident(c.name)}::DOUBLE AS ${ident(c.name)}`).join(', ')} FROM ${src}`;
          const picked = sample ? `SELECT * FROM (${base}) USING SAMPLE reservoir(${SPEARMAN_MAX_ROWS} ROWS) REPEATABLE (42)` : base;
          const rk = (q: string) => `rank() OVER (ORDER BY ${q}) + (count(*) OVER (PARTITION BY ${q}) - 1) / 2.0`;
          const branches: string[] = [];
          const pairs: [number, number][] = [];
          for (let i = 0; i < cols.length; i++) {
            for (let j = i + 1; j < cols.length; j++) {
              const a = ident(cols[i].name);
              const b = ident(cols[j].name);
              branches.push(`SELECT ${pairs.length} AS k, corr(ra, rb) FROM (SELECT ${rk(a)} AS ra, ${rk(b)} AS rb FROM __p WHERE ${a} IS NOT NULL AND ${b} IS NOT NULL)`);
              pairs.push([i, j]);
            }
          }
          const r = await rows(c, `WITH __p AS MATERIALIZED (${picked}) ${branches.join(' UNION ALL ')}`);
          for (const [k, v] of r) {
            const [i, j] = pairs[Number(k)];
            matrix[i][j] = matrix[j][i] = num(v);
          }
        } else if (method === 'pearson' && complete) {
          // No missing value: one pass of sums of centred values and their products over every complete numeric
          // column (3× faster than corr() per pair); kept, so any later choice of columns is answered at once.
          const usable = (s: SchemaColumn) => isNumericType(s.type) && stats.get(s.name)?.missing === 0 && typeof stats.get(s.name)?.mean === 'number';
          const all = schema.filter(usable).slice(0, 60);
          const basis = cols.every((col) => all.some((a) => a.name === col.name)) ? all : cols;
          const pearson = sketch?.manifest.pearson;
          const fromSketch = pearson && cols.every((col) => pearson.names.includes(col.name)) ? pearson : null;
          const mom = fromSketch ?? await cached(`${row.id}:moments:${JSON.stringify(basis.map((b) => b.name))}`, async () => {
            const d = basis.map((col) => `(${ident(col.name)}::DOUBLE - ${stats.get(col.name)!.mean}::DOUBLE)`);
            const prods: [number, number][] = [];
            for (let i = 0; i < basis.length; i++) for (let j = i; j < basis.length; j++) prods.push([i, j]);
            const v = (await rows(c, `SELECT count(*)::DOUBLE, ${d.map((x) => `sum(${x})`).join(', ')}, ${prods.map(([i, j]) => `sum(${d[i]} * ${d[j]})`).join(', ')} FROM ${src}`))[0].map((x) => Number(x));
            const n = v[0];
            const sx = v.slice(1, 1 + basis.length);
            const cov: number[][] = basis.map(() => basis.map(() => 0));
            prods.forEach(([i, j], k) => {
              cov[i][j] = cov[j][i] = v[1 + basis.length + k] - (sx[i] * sx[j]) / n;
            });
            return { names: basis.map((b) => b.name), cov };
          });
          const at = cols.map((col) => mom.names.indexOf(col.name));
          for (let i = 0; i < cols.length; i++) {
            for (let j = i + 1; j < cols.length; j++) {
              const r = mom.cov[at[i]][at[j]] / Math.sqrt(mom.cov[at[i]][at[i]] * mom.cov[at[j]][at[j]]);
              matrix[i][j] = matrix[j][i] = Number.isFinite(r) ? Math.max(-1, Math.min(1, r)) : null;
            }
          }
        } else {
          const parts: string[] = [];
          const pairs: [number, number][] = [];
          for (let i = 0; i < cols.length; i++) {
            for (let j = i + 1; j < cols.length; j++) {
              pairs.push([i, j]);
              parts.push(`corr(${ident(cols[i].name)}::DOUBLE, ${ident(cols[j].name)}::DOUBLE)`);
            }
          }
          const vals = (await rows(c, `SELECT ${parts.join(', ')} FROM ${from}`))[0].map(num);
          pairs.forEach(([i, j], k) => {
            matrix[i][j] = vals[k];
            matrix[j][i] = vals[k];
          });
        }
        return { method, columns: cols.map((c) => c.name), matrix, rows: total, sample, sample_rows: sample ? SPEARMAN_MAX_ROWS : total };
      });
    },

    /**
     * Time series of chosen columns against the datetime column, for the window [start, end] (epoch ms):
     * the raw rows when few, else per bucket the minimum and maximum with their times (`minmax`, so no spike is
     * lost) or LTTB over a 4× finer min/max pre-aggregation (`lttb`).
     */
    async timeseries(
      auth: AuthContext,
      id: string,
      b: { columns?: string[]; start?: number | null; end?: number | null; buckets: number; method: 'minmax' | 'lttb' },
    ): Promise<z.infer<typeof TimeseriesView>> {
      const { row, schema, src } = await open(auth, id);
      return timeseriesOf(row, schema, src, b);
    },
  };

  /**
   * The min/max pyramid of one column: PYRAMID_BUCKETS equal time buckets over the whole series, each with its
   * row count and its minimum and maximum (with their times). Built by one scan, then kept in the cache.
   */
  function pyramid(c: DuckConnection, row: DatasetTable, src: string, ts: string, col: SchemaColumn, fullStart: number, wp: number): Promise<Pyramid> {
    return cached(`${row.id}:pyramid:${col.name}`, async () => {
      const v = `${ident(col.name)}::DOUBLE`;
      const r = await rows(
        c,
        `SELECT least(floor((__tms - ${fullStart}) / ${wp}), ${PYRAMID_BUCKETS - 1})::INTEGER, count(*)::DOUBLE, arg_min(__tms, ${v}), min(${v}), arg_max(__tms, ${v}), max(${v})
         FROM (SELECT ${ts}::DOUBLE AS __tms, ${ident(col.name)} FROM ${src}) GROUP BY 1 ORDER BY 1`,
      );
      const p: Pyramid = { idx: [], cnt: [], tmin: [], vmin: [], tmax: [], vmax: [] };
      for (const x of r) {
        p.idx.push(Number(x[0]));
        p.cnt.push(Number(x[1]));
        p.tmin.push(num(x[2]));
        p.vmin.push(num(x[3]));
        p.tmax.push(num(x[4]));
        p.vmax.push(num(x[5]));
      }
      return p;
    }, (p) => p.idx.length * 6 * 12);
  }

  async function timeseriesOf(
    row: DatasetTable,
    schema: SchemaColumn[],
    src: string,
    b: { columns?: string[]; start?: number | null; end?: number | null; buckets: number; method: 'minmax' | 'lttb' },
  ) {
    if (!row.datetime_column) throw new AppError(422, M.notTimeSeries, {}, 'dataset_id');
    const t = schema.find((s) => s.name === row.datetime_column);
    if (!t) throw new AppError(422, M.columnMissing, { name: row.datetime_column }, 'datetime_column');
    const cols = b.columns?.length ? b.columns.map((n) => column(schema, n, 'columns', true)) : schema.filter((s) => isNumericType(s.type) && s.name !== t.name).slice(0, 4);
    if (cols.length > 12) throw new AppError(422, M.tooManyColumns, { max: 12 }, 'columns');
    // A date/time column gives epoch ms; a whole-number order column (a sample number) is its own axis.
    const order = t.type === 'integer';
    const ts = order ? `${ident(t.name)}::DOUBLE` : `epoch_ms(${ident(t.name)}::TIMESTAMP)`;
    return withConn(async (c) => {
      // The ends of the series: on a TIMESTAMP/DATE (or number) column, min and max of the column itself come from the
      // Parquet footers (~3 ms); min of epoch_ms(...) reads every row (~100 ms at 10 M rows). Text dates keep the scan.
      const native = order || /^(TIMESTAMP|DATE)/i.test(t.dtype ?? '');
      const ends = native
        ? order
          ? `SELECT min(${ident(t.name)})::DOUBLE, max(${ident(t.name)})::DOUBLE FROM ${src}`
          : `SELECT epoch_ms(min(${ident(t.name)})::TIMESTAMP)::DOUBLE, epoch_ms(max(${ident(t.name)})::TIMESTAMP)::DOUBLE FROM ${src}`
        : `SELECT min(${ts})::DOUBLE, max(${ts})::DOUBLE FROM ${src}`;
      const [fullStart, fullEnd] = (await rows(c, ends))[0].map(num);
      const start = b.start ?? fullStart ?? 0;
      const end = b.end ?? fullEnd ?? 0;
      if (end < start) throw new AppError(422, M.badWindow, {}, 'end');
      // On the timestamp itself (not epoch_ms of it), so Parquet row-group statistics skip what lies outside.
      const range = order
        ? `${ident(t.name)} BETWEEN ${Math.floor(start)} AND ${Math.ceil(end)}`
        : `${ident(t.name)}::TIMESTAMP BETWEEN make_timestamp(${Math.floor(start) * 1000}::BIGINT) AND make_timestamp(${Math.ceil(end) * 1000}::BIGINT)`;
      const target = b.buckets;
      const nb = b.method === 'lttb' ? target * 4 : target;
      const width = Math.max(1e-9, (end - start) / nb);
      const aggs = cols
        .map((col) => {
          const v = `${ident(col.name)}::DOUBLE`;
          return `arg_min(__tms, ${v}), min(${v}), arg_max(__tms, ${v}), max(${v})`;
        })
        .join(', ');
      const total = Number(row.row_count);
      const pyramidWidth = fullStart !== null && fullEnd !== null ? (fullEnd - fullStart) / PYRAMID_BUCKETS : 0;
      let r: unknown[][];
      if (total >= pyramidMinRows() && pyramidWidth > 0 && width >= 4 * pyramidWidth) {
        // A wide window of a long series: from the kept min/max pyramid of each column, no scan at all.
        const pyramids = [];
        for (const col of cols) pyramids.push(await pyramid(c, row, src, ts, col, fullStart!, pyramidWidth));
        r = fromPyramids(pyramids, fullStart!, pyramidWidth, start, end, width, nb);
      } else {
        // One scan of the window (row groups outside it are skipped) gives the buckets and the row count.
        r = await rows(
          c,
          `SELECT least(floor((__tms - ${start}) / ${width}), ${nb - 1})::INTEGER, count(*)::DOUBLE, ${aggs}
           FROM (SELECT ${ts}::DOUBLE AS __tms, ${cols.map((col) => ident(col.name)).join(', ')} FROM ${src} WHERE ${range}) GROUP BY 1 ORDER BY 1`,
        );
      }
      const windowRows = r.reduce((a, x) => a + Number(x[1]), 0);
      const base = { datetime_column: t.name, time_kind: order ? ('order' as const) : ('datetime' as const), full_start: fullStart, full_end: fullEnd, start, end, total_rows: Number(row.row_count), window_rows: windowRows, method: b.method };
      if (windowRows <= target * 2) {
        const raw = await rows(c, `SELECT ${ts}::DOUBLE, ${cols.map((col) => `${ident(col.name)}::DOUBLE`).join(', ')} FROM ${src} WHERE ${range} ORDER BY 1`);
        return {
          ...base,
          downsampled: false,
          series: cols.map((col, k) => ({ name: col.name, points: raw.map((x): [number, number | null] => [Number(x[0]), num(x[k + 1])]) })),
        };
      }
      const series = cols.map((col, k) => {
        const pts: [number, number][] = [];
        for (const rowv of r) {
          const [t1, v1, t2, v2] = [rowv[2 + k * 4], rowv[3 + k * 4], rowv[4 + k * 4], rowv[5 + k * 4]].map(num);
          if (t1 === null || v1 === null || t2 === null || v2 === null) continue;
          if (t1 === t2) pts.push([t1, v1]);
          else if (t1 < t2) pts.push([t1, v1], [t2, v2]);
          else pts.push([t2, v2], [t1, v1]);
        }
        return { name: col.name, points: b.method === 'lttb' ? lttb(pts, target) : pts };
      });
      return { ...base, downsampled: true, buckets: nb, series };
    });
  }
}
