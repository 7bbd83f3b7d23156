import { type Duck, sqlString, withConnection } from '../../duck/index.js';
import { type Scores, SPLIT_CODES } from './scores.js';

// A trained detector's series.parquet (engine: timeseries/trainer.py write_series) read into typed arrays.

/** The time column's value of each row as the views show it (ISO text without the Z for a date/time, else the
 * number), made when a row is asked for: `values` are epoch ms or the numbers; NaN is an empty value. */
function timeTexts(values: Float64Array, datetime: boolean): Scores['time'] {
  const at = (i: number) => {
    const v = values[i];
    if (v === undefined || Number.isNaN(v)) return null;
    return datetime ? new Date(v).toISOString().replace('Z', '') : v;
  };
  return new Proxy({} as Scores['time'], { get: (_t, k) => (typeof k === 'string' && /^\d+$/.test(k) ? at(Number(k)) : undefined) });
}

/** Every row's position, time, score, label, part and signal contributions. `datetime`: the time column is a date/time. */
export function readSeriesFile(duck: Duck, file: string, datetime: boolean): Promise<Scores> {
  return withConnection(duck, async (c) => {
    // column by column into typed arrays, a chunk of rows at a time: no JS value per cell (a 10 M-row series is
    // ~100 M cells), and the time column kept as numbers, said as text only for the rows a view shows. Streamed and
    // unsorted: each row goes to its own position (`pos` is 0..n-1, written in order by the engine), so DuckDB
    // neither sorts nor materialises the whole table first (a 10 M-row series: ~30 s before, a few seconds now).
    const src = `read_parquet(${sqlString(file)})`;
    const names = (await c.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${src})`)).getRows().map((r) => String(r[0]));
    const contribNames = names.filter((k) => /^c_\d+$/.test(k)).sort((a, b) => Number(a.slice(2)) - Number(b.slice(2)));
    const n = Number((await c.runAndReadAll(`SELECT count(*) FROM ${src}`)).getRows()[0][0]);
    const time = datetime ? 'epoch_ms(CAST("time" AS TIMESTAMP))' : 'CAST("time" AS DOUBLE)';
    const split = `CASE "split" ${SPLIT_CODES.map((code, i) => `WHEN '${code}' THEN ${i}`).join(' ')} ELSE 0 END`;
    const cols = ['CAST(pos AS DOUBLE)', `CAST(${time} AS DOUBLE)`, 'CAST(score AS DOUBLE)', 'CAST(coalesce(label, -1) AS DOUBLE)', `CAST(${split} AS DOUBLE)`, ...contribNames.map((k) => `CAST("${k}" AS DOUBLE)`)];
    const out = cols.map(() => new Float64Array(n));
    const result = await c.stream(`SELECT ${cols.join(', ')} FROM ${src}`);
    const at = new Int32Array(2048);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      const m = chunk.rowCount;
      const posVector = chunk.getColumnVector(0);
      const slots = m <= at.length ? at : new Int32Array(m);
      for (let i = 0; i < m; i++) {
        const k = posVector.getItem(i) as number | null;
        if (k === null || !(k >= 0 && k < n)) throw new Error(`series.parquet: row position ${k} outside 0..${n - 1}`);
        slots[i] = k;
      }
      for (let j = 0; j < cols.length; j++) {
        const v = chunk.getColumnVector(j);
        const a = out[j];
        for (let i = 0; i < m; i++) a[slots[i]] = (v.getItem(i) as number | null) ?? NaN;
      }
    }
    const [pos, times, score, label, parts, ...contrib] = out;
    const s: Scores = {
      n,
      pos,
      score,
      label: Int8Array.from(label),
      split: Uint8Array.from(parts),
      timeMs: datetime ? times : null,
      time: timeTexts(times, datetime),
      contrib,
    };
    return s;
  });
}
