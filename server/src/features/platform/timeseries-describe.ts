/**
 * What a client of a hosted time-series detector must know, read from the published model's manifest.json (pure
 * rules, no I/O): the time column and its type, the signals, the rows of history a score needs, the alarm rule, the
 * outputs, example requests and the API's own OpenAPI document. The history rule is the engine's
 * (engine/mitate_engine/platform/timeseries.py `shape`); every served answer carries the engine's figures too, and the
 * server tests check both agree.
 */

import type { HostedManifest } from './stored.js';

export interface TsShape {
  warmup_rows: number;
  detector_rows: number;
  history_rows: number;
  /** The longest time-span window ('30s', '5min'), or null: its rows are history too. */
  span: string | null;
  alarm_rule: { k: number; n: number };
}

const int = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : d);
const isRows = (w: number | string) => typeof w === 'number' || /^\d+$/.test(String(w));
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

/** A window text such as '30s' or '5min' in milliseconds (NaN when it is not one). */
export function spanMs(w: string): number {
  const m = /^(\d+(?:\.\d+)?)?\s*(ms|s|min|h|d)$/.exec(w.trim());
  return m ? Number(m[1] ?? 1) * UNIT_MS[m[2]] : NaN;
}

/** The rows a score reads back: the warm-up of the lags, row windows and drifting signals' changes, plus the rows
 * the detector reads (a sequence window and its persistence, or the k-of-n alarm rule of the last n rows). */
export function tsShape(m: HostedManifest): TsShape {
  const tf = m.time_features ?? {};
  const windows = tf.windows ?? [];
  const drift = tf.drift_signals?.length ? int(tf.drift_rows, 0) : 0;
  const warm = Math.max(0, ...(tf.lags ?? []).map((l) => int(l, 0)), ...windows.filter(isRows).map((w) => Number(w) - 1), drift);
  const hp = m.hyperparameters ?? {};
  let k = 1;
  let n = 1;
  let back = 0;
  if (m.algorithm === 'sequence_autoencoder') {
    const p = Math.max(1, int(hp.persistence, 1));
    back = int(hp.window, 1) - 1 + (p - 1);
    k = n = p;
  } else if (!String(m.project_type).endsWith('_supervised') && int(hp.alarm_n, 1) > 1) {
    k = int(hp.alarm_k, 1);
    n = int(hp.alarm_n, 1);
    back = n - 1;
  }
  const spans = windows.filter((w) => !isRows(w)).map(String);
  const span = spans.length ? spans.reduce((a, b) => (spanMs(b) > spanMs(a) ? b : a)) : null;
  return { warmup_rows: warm, detector_rows: back, history_rows: warm + back, span, alarm_rule: { k, n } };
}

export interface TsDescription extends TsShape {
  time_column: string;
  time_type: 'datetime' | 'number' | null;
  signals: { name: string; type: 'number' }[];
  resample: string | null;
  threshold: number | null;
  trained_threshold: number | null;
  threshold_source: 'saved' | 'trained';
  outputs: { name: string; type: string; description: string }[];
  stream: { exact_rows: number; max_rows: number; max_series: number; idle_minutes: number; kept_in: string };
  examples: { block: { rows: Record<string, number | string>[] }; stream: { series: string; rows: Record<string, number | string>[] } };
}

export interface StreamLimits {
  exactRows: number;
  maxRows: number;
  maxSeries: number;
  idleMinutes: number;
}

/** The answer's columns, in order (engine/mitate_engine/platform/timeseries.py `_records`). */
export function tsOutputs(signals: string[]): TsDescription['outputs'] {
  return [
    { name: 'time', type: 'string | number', description: 'the row\'s time as sent' },
    { name: 'status', type: 'string', description: 'scored | partial_history (a score, but fewer than history_rows rows before it) | warming_up (no score: fewer rows than the lags and windows need) | history_exceeds_limit (a stream whose time-span window needed more rows than a series keeps: no score)' },
    { name: 'anomaly_score', type: 'number | null', description: 'the detector\'s score, read through the alarm rule (k of the last n rows)' },
    { name: 'alarm', type: 'boolean | null', description: 'anomaly_score above the threshold in force' },
    { name: 'top_signal', type: 'string | null', description: 'the signal contributing most' },
    ...signals.map((s) => ({ name: `contribution_${s}`, type: 'number | null', description: `the contribution of ${s} to the score (its lags and windows summed)` })),
  ];
}

/** `count` example rows: times one second (or one sample) apart, every signal 0. */
function exampleRows(d: { time_column: string; time_type: string | null; signals: { name: string }[] }, count: number, first = 0) {
  const base = Date.UTC(2026, 0, 1, 8, 0, 0);
  return Array.from({ length: count }, (_, i) => ({
    [d.time_column]: d.time_type === 'number' ? first + i + 1 : new Date(base + (first + i) * 1000).toISOString().replace('T', ' ').slice(0, 19),
    ...Object.fromEntries(d.signals.map((s) => [s.name, 0])),
  }));
}

export function describeTs(
  m: HostedManifest,
  opts: { timeIsDatetime: boolean | null; savedThreshold: number | null; limits: StreamLimits },
): TsDescription {
  const shape = tsShape(m);
  const signals = (m.features ?? []).map((name) => ({ name, type: 'number' as const }));
  const needsDatetime = !!shape.span || !!m.time_features?.resample;
  const time_type: TsDescription['time_type'] = opts.timeIsDatetime === null ? (needsDatetime ? 'datetime' : null) : opts.timeIsDatetime ? 'datetime' : 'number';
  const trained = typeof m.threshold === 'number' ? m.threshold : null;
  const base = { time_column: m.time_column ?? '', time_type, signals };
  const blockRows = Math.min(shape.history_rows + 1, 3);
  return {
    ...shape,
    ...base,
    resample: m.time_features?.resample ?? null,
    threshold: opts.savedThreshold ?? trained,
    trained_threshold: trained,
    threshold_source: opts.savedThreshold === null ? 'trained' : 'saved',
    outputs: tsOutputs(signals.map((s) => s.name)),
    stream: {
      exact_rows: opts.limits.exactRows,
      max_rows: opts.limits.maxRows,
      max_series: opts.limits.maxSeries,
      idle_minutes: opts.limits.idleMinutes,
      kept_in: 'the memory of the server that answered (lost on restart; not shared between servers)',
    },
    examples: { block: { rows: exampleRows(base, blockRows) }, stream: { series: 'line-1', rows: exampleRows(base, 1) } },
  };
}

/** The hosted API's own OpenAPI 3.0 document: the request with the time column and signals, the answer per row. */
export function tsOpenApi(d: TsDescription, p: { name: string; version: string; endpoint: string; key: string }) {
  const row = {
    type: 'object',
    required: [d.time_column, ...d.signals.map((s) => s.name)],
    properties: {
      [d.time_column]: d.time_type === 'number' ? { type: 'number' } : d.time_type === 'datetime' ? { type: 'string', format: 'date-time', example: '2026-01-01 08:00:00' } : { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'number' }] },
      ...Object.fromEntries(d.signals.map((s) => [s.name, { type: 'number', nullable: true, description: 'null: a gap, filled with the last value before it' }])),
    },
  };
  const history = `${d.history_rows} rows before a row${d.span ? ` and the rows of the last ${d.span}` : ''}`;
  const answerRow = {
    type: 'object',
    properties: Object.fromEntries(d.outputs.map((o) => [o.name, { description: `${o.type}: ${o.description}` }])),
  };
  return {
    openapi: '3.0.3',
    info: { title: p.name, version: p.version, description: `A time-series anomaly detector. Each row needs the time column "${d.time_column}" and every signal. A row's score reads ${history} (history_rows ${d.history_rows}; the first ${d.warmup_rows} rows of a series have no score). Send a block of rows (ordered or not), or a stream: {"series": id, "rows": [...]}, whose recent rows this server keeps. Alarm: ${d.alarm_rule.k} of the last ${d.alarm_rule.n} rows over the threshold ${d.threshold}.` },
    servers: [{ url: p.endpoint.replace(/\/serve\/.*$/, '') }],
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    security: [{ apiKey: [] }],
    paths: {
      [`/serve/${p.key}/predict`]: {
        post: {
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['rows'],
                  properties: {
                    series: { type: 'string', minLength: 1, maxLength: 100, description: 'a stream\'s id of your choice: its rows must come in time order; the server keeps its recent rows' },
                    rows: { type: 'array', minItems: 1, items: row },
                  },
                },
                examples: { block: { value: d.examples.block }, stream: { value: d.examples.stream } },
              },
              'text/csv': { schema: { type: 'string', description: `a block with a header: ${[d.time_column, ...d.signals.map((s) => s.name)].join(',')}` } },
            },
          },
          responses: {
            '200': {
              description: 'detail.response: model, version, outputs (the column names), predictions (one per row, in the order sent), time_series (time_column, signals, threshold, trained_threshold, alarm_rule, history_rows, warmup_rows, series, kept_rows)',
              content: { 'application/json': { schema: { type: 'object', properties: { detail: { type: 'object', properties: { response: { type: 'object', properties: { predictions: { type: 'array', items: answerRow } } } } } } } } },
            },
            '401': { description: 'missing, wrong or revoked key' },
            '402': { description: 'the project is locked for an unpaid invoice' },
            '422': { description: 'a missing column (inference_feature_missing, tsad_time_missing), a value that is not a number, an unreadable time (tsad_time_unreadable), duplicate times (tsad_time_duplicates), a stream row not after the last (tsad_stream_order); loc names the column' },
            '429': { description: 'rate limit; wait Retry-After seconds' },
            '503': { description: 'the API is stopped or busy' },
          },
        },
      },
    },
  };
}
