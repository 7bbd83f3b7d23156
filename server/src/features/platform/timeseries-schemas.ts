import { z } from 'zod';

/** A row of an example request: the time column and each signal. */
const exampleRow = z.record(z.string(), z.union([z.number(), z.string()]));

/** GET /api/platform/projects/{id}/time-series: what a client of a hosted time-series detector must send and gets
 * back (timeseries-describe.ts), and the API's own OpenAPI document. */
export const tsDescriptionView = z
  .object({
    time_column: z.string().describe('The column every row needs, besides the signals'),
    time_type: z.enum(['datetime', 'number']).nullable().describe('datetime: ISO 8601 text such as 2026-01-01 08:00:00; number: a sample number; null: either, as the training data had it'),
    signals: z.array(z.object({ name: z.string(), type: z.literal('number') })),
    resample: z.string().nullable().describe('Rows grouped into periods of this length before scoring (blocks only); null: none'),
    warmup_rows: z.number().int().describe('Rows at the start of a series without a score (lags, windows, changes of drifting signals)'),
    detector_rows: z.number().int().describe('Rows the detector reads back beyond that (k-of-n alarm rule, sequence window)'),
    history_rows: z.number().int().describe('Rows before a row that its score reads: send at least this many before the rows you want scored as in an unbroken series'),
    span: z.string().nullable().describe('The longest time-span window: its rows are history too'),
    alarm_rule: z.object({ k: z.number().int(), n: z.number().int() }).describe('An alarm when k of the last n rows are over the threshold (the score already reads this rule)'),
    threshold: z.number().nullable().describe('The threshold in force: the one saved for the model in its project, else training\'s'),
    trained_threshold: z.number().nullable(),
    threshold_source: z.enum(['saved', 'trained']),
    outputs: z.array(z.object({ name: z.string(), type: z.string(), description: z.string() })),
    stream: z.object({ exact_rows: z.number(), max_rows: z.number(), max_series: z.number(), idle_minutes: z.number(), kept_in: z.string() }),
    examples: z.object({ block: z.object({ rows: z.array(exampleRow) }), stream: z.object({ series: z.string(), rows: z.array(exampleRow) }) }),
    openapi: z.string().describe('The hosted API\'s own OpenAPI 3.0 document, as JSON text'),
  })
  .meta({ id: 'HostedTimeSeriesInterface' });

/** The answer of POST /serve/{key}/predict for a time-series detector (see timeseries-serving.ts). */
export const tsServeAnswer = z
  .object({
    detail: z.object({
      response: z.object({
        model: z.string(),
        version: z.string(),
        outputs: z.array(z.string()).describe('time, status, anomaly_score, alarm, top_signal, contribution_<signal> ...'),
        predictions: z.array(z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]))).describe('one object per row sent, in that order'),
        time_series: z.object({
          time_column: z.string(),
          signals: z.array(z.string()),
          threshold: z.number(),
          trained_threshold: z.number(),
          alarm_rule: z.object({ k: z.number(), n: z.number() }),
          history_rows: z.number(),
          warmup_rows: z.number(),
          series: z.string().nullable(),
          kept_rows: z.number().nullable().describe('A stream: the rows of the series this server now keeps (0 before a restart\'s first call); null for a block'),
        }),
      }),
    }),
  })
  .meta({ id: 'HostedTimeSeriesPrediction' });
