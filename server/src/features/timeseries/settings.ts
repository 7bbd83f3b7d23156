export const SPAN = /^(\d+)\s*(ms|s|min|h|d|D)$/;
/** The engine's timeseries.model.RESAMPLE_RULE: a fixed period pandas floors timestamps to. */
export const RESAMPLE = /^(\d{1,6})?(ms|s|min|h)$/;
const INTERVAL_UNIT = { ms: 'milliseconds', s: 'seconds', min: 'minutes', h: 'hours' } as const;
/** The DuckDB time bucket of a resampling rule, aligned as pandas' floor (from the epoch). */
export const bucketSql = (rule: string, column: string) => {
  const m = RESAMPLE.exec(rule)!;
  return `time_bucket(INTERVAL '${Number(m[1] ?? 1)} ${INTERVAL_UNIT[m[2] as keyof typeof INTERVAL_UNIT]}', CAST(${column} AS TIMESTAMP), TIMESTAMP '1970-01-01')`;
};
/** The engine's timeseries/features.py warmup: the longest lag, window (rows) - 1 and change of drifting signals. */
export const warmupOf = (lags: number[], windows: (number | string)[], driftRows = 0) =>
  Math.max(0, ...lags, ...windows.filter((w): w is number => typeof w === 'number').map((w) => w - 1), driftRows);
