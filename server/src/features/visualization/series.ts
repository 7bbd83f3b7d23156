import type { AuthContext } from '../../auth/guard.js';
import type { DatasetTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type DuckConnection, ident } from '../../duck/index.js';
import { fromPyramids, isNumericType, lttb, num, Pyramid, PYRAMID_BUCKETS, SchemaColumn } from './figures.js';
import { M } from './messages.js';
import type { TimeseriesView } from './responses.js';
import type { z } from 'zod';
import { column, rows, type Explore } from './explore.js';

// Time-series views: min/max pyramids per column and the downsampled series.

/**
 * Time series of chosen columns against the datetime column, for the window [start, end] (epoch ms):
 * the raw rows when few, else per bucket the minimum and maximum with their times (`minmax`, so no spike is
 * lost) or LTTB over a 4× finer min/max pre-aggregation (`lttb`).
 */
export async function timeseries(
  x: Explore,
  auth: AuthContext,
  id: string,
  b: { columns?: string[]; start?: number | null; end?: number | null; buckets: number; method: 'minmax' | 'lttb' },
): Promise<z.infer<typeof TimeseriesView>> {
  const { open } = x;
  const { row, schema, src } = await open(auth, id);
  return timeseriesOf(x, row, schema, src, b);
}

/**
 * The min/max pyramid of one column: PYRAMID_BUCKETS equal time buckets over the whole series, each with its
 * row count and its minimum and maximum (with their times). Built by one scan, then kept in the cache.
 */
export function pyramid(x: Explore, c: DuckConnection, row: DatasetTable, src: string, ts: string, col: SchemaColumn, fullStart: number, wp: number): Promise<Pyramid> {
  const { cached } = x;
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

export async function timeseriesOf(
  x: Explore,
  row: DatasetTable,
  schema: SchemaColumn[],
  src: string,
  b: { columns?: string[]; start?: number | null; end?: number | null; buckets: number; method: 'minmax' | 'lttb' },
) {
  const { withConn } = x;
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
    if (total >= x.config.pyramidMinRows && pyramidWidth > 0 && width >= 4 * pyramidWidth) {
      // A wide window of a long series: from the kept min/max pyramid of each column, no scan at all.
      const pyramids = [];
      for (const col of cols) pyramids.push(await pyramid(x, c, row, src, ts, col, fullStart!, pyramidWidth));
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
