import { z } from 'zod';
import { jobKind, jobSpec } from '../../jobs/kind.js';
import { modelOutcome, modelsSpec } from '../training/jobs.js';
import { driftSuggestionView, tsModelMetrics } from './schemas.js';

/** tasks/tsad_train.py: the models of a time-series project. */
export const tsadTrainJob = jobKind('tsad_train', {
  spec: jobSpec({ project_type: z.string(), parquet: z.string(), time_column: z.string(), features: z.array(z.string()), models: modelsSpec }),
  result: z
    .object({
      models: z.array(modelOutcome(tsModelMetrics)),
      rows: z.number().int(),
      notes: z.array(z.string()).describe('What was done to the data (resampled, sorted), in the language of the person who started it'),
      seconds: z.number(),
      profile: z.record(z.string(), z.number()).optional().describe('Seconds of each step of reading and preparing the series (read, order, features, ...), for the benchmarks'),
    })
    .meta({ id: 'TsadTrainJobResult' }),
});

/** tasks/tsad_drift_suggest.py: the suggestion as the engine wrote it, each reason a catalogue code with its parameters
 * (the route puts it in the caller's language). */
export const tsadDriftSuggestJob = jobKind('tsad_drift_suggest', {
  spec: jobSpec({ project_type: z.string(), parquet: z.string(), time_column: z.string(), features: z.array(z.string()) }),
  result: driftSuggestionView
    .extend({
      signals: z.array(
        driftSuggestionView.shape.signals.element.extend({
          reason: z.object({ code: z.string(), params: z.record(z.string(), z.union([z.string(), z.number(), z.object({ code: z.string(), params: z.object({}) })])).optional() }),
        }),
      ),
    })
    .meta({ id: 'TsadDriftSuggestJobResult' }),
});
