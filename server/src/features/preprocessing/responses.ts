import { z } from 'zod';
import { EngineJson } from '../../http/responses.js';
import { Cell, DatasetView } from '../datasets/responses.js';
import { PROCESS_TYPES, type ProcessType } from './schemas.js';

/** Answers of the preprocessing calls. Previews, summaries and fitted parameters are the engine's (EngineJson). */

export const StepView = z
  .object({
    process_type: z.enum(PROCESS_TYPES as [ProcessType, ...ProcessType[]]),
    method: z.string(),
    columns: z.array(z.string()),
    params: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'PreprocessStepSettings' });

export const ConditionView = z
  .object({
    id: z.string(),
    name: z.string(),
    steps: z.array(StepView),
    datetime_column: z.string().nullable(),
    source_dataset_id: z.string().nullable(),
    fitted: EngineJson.describe('The condition with its fitted parameters (null until a run is registered)'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Condition' });

export const ConditionFile = z.object({ name: z.string(), steps: z.array(StepView) });

export const LoadedDataset = z.object({
  dataset: DatasetView,
  columns: z.array(z.record(z.string(), z.unknown())).describe('Each column with its statistics, as DatasetColumn'),
  rows: z.array(z.array(Cell)), row_count: z.number() });

export const PreviewView = EngineJson.describe('Rows removed and changed, affected rows, before/after chart data (engine task preprocess_preview)');

export const RunStarted = z.object({ temp_id: z.string(), job_id: z.string(), state: z.string(), condition_id: z.string().nullable(), condition_name: z.string().nullable() });

export const RunResult = z
  .object({
    temp_id: z.string(),
    source_dataset_id: z.string(),
    condition_id: z.string().nullable(),
    condition_name: z.string().nullable(),
    steps: z.array(StepView),
    state: z.string(),
    progress: z.number(),
    message: z.string(),
    error: z.string().nullable(),
    dataset_id: z.string().nullable(),
    result: z
      .object({
        row_count: EngineJson,
        column_count: EngineJson,
        rows_before: EngineJson,
        columns_before: EngineJson,
        columns: EngineJson,
        datetime_column: EngineJson,
        history: EngineJson,
        head: EngineJson,
        condition: EngineJson,
        timings: EngineJson.nullable().describe('Where the time went: read, each step, write (seconds); the engine peak memory (MB)'),
      })
      .nullable(),
  })
  .meta({ id: 'PreprocessRun' });
