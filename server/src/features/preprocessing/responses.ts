import { z } from 'zod';
import { JobStateEnum } from '../../jobs/responses.js';
import { Cell, DatasetColumn, DatasetView } from '../datasets/responses.js';
import { PreprocessStep } from '../datasets/history.js';
import { KIND_PARAMS } from './schemas.js';
import { StepFitted, type ProcessType } from '../datasets/history.js';

/**
 * Answers of the preprocessing calls. Previews and run summaries are the engine's (preprocessing/condition.py
 * preview_step, tasks/preprocess.py); a step's fitted parameters are the engine's (Step.fit in preprocessing/steps/).
 */

/**
 * Steps as stored or as the engine echoes them, told apart by kind (process_type), each kind with its parameters.
 * Lenient on purpose: every parameter optional and a key the kind does not read dropped, so a condition saved before
 * requests were checked against the engine's catalogue (schemas.ts READS) still loads.
 */
function stepViews<E extends z.ZodRawShape>(extra: E) {
  const of = <K extends ProcessType, S extends z.ZodRawShape>(kind: K, params: S) =>
    z.object({ process_type: z.literal(kind), method: z.string(), columns: z.array(z.string()), params: z.object(params).partial(), ...extra });
  return z.discriminatedUnion('process_type', [
    of('outliers', KIND_PARAMS.outliers),
    of('missing', KIND_PARAMS.missing),
    of('scaling', KIND_PARAMS.scaling),
    of('computed', KIND_PARAMS.computed),
    of('window', KIND_PARAMS.window),
    of('columns', KIND_PARAMS.columns),
    of('filter', KIND_PARAMS.filter),
    of('sort', KIND_PARAMS.sort),
  ]);
}

export const StepView = stepViews({}).meta({ id: 'PreprocessStepSettings' });
export type StepSettings = z.infer<typeof StepView>;
const FittedStepView = stepViews({ fitted: StepFitted.nullable().describe('The fitted parameters of the step (means, scales, bounds)') }).meta({ id: 'PreprocessFittedStep' });

/** A condition with every step's fitted parameters (engine Condition.to_dict; as condition.json the server adds where it came from). */
export const FittedCondition = z
  .object({
    name: z.string(),
    datetime_column: z.string().nullable(),
    output_datetime_column: z.string().nullable(),
    steps: z.array(FittedStepView),
    dataset_id: z.string().optional().describe('Once registered: the dataset it produced'),
    source_dataset_id: z.string().optional().describe('Once registered: the dataset it was fitted on'),
    condition_id: z.string().nullable().optional().describe('Once registered: the saved condition it ran, if any'),
  })
  .meta({ id: 'FittedCondition' });

export const ConditionView = z
  .object({
    id: z.string(),
    name: z.string(),
    steps: z.array(StepView),
    datetime_column: z.string().nullable(),
    source_dataset_id: z.string().nullable(),
    fitted: FittedCondition.nullable().describe('The condition with its fitted parameters (null until a run is registered)'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Condition' });

export const ConditionFile = z.object({ name: z.string(), steps: z.array(StepView) }).meta({ id: 'ConditionFile' });

export const LoadedDataset = z
  .object({ dataset: DatasetView, columns: z.array(DatasetColumn).describe('Each column with its statistics'), rows: z.array(z.array(Cell)), row_count: z.number() })
  .meta({ id: 'PreprocessLoadedDataset' });

/** [x, value]: x is the datetime column's value (ISO text or epoch number) or the row position. */
const SeriesPoint = z.tuple([z.union([z.string(), z.number(), z.null()]), z.number().nullable()]);
const Values = z.record(z.string(), Cell).describe('Column → value');

export const PreviewView = z
  .object({
    step: FittedStepView,
    step_label: z.string(),
    rows_before: z.number(),
    rows_after: z.number(),
    rows_removed: z.number(),
    rows_changed: z.number(),
    cells_changed: z.record(z.string(), z.number()).describe('Changed cells per column'),
    columns_before: z.number(),
    columns_after: z.number(),
    columns_added: z.array(z.string()),
    columns_dropped: z.array(z.string()),
    order_changed: z.boolean(),
    target_columns: z.array(z.string()),
    affected_rows: z.array(z.object({ row: z.union([z.number(), z.string()]), status: z.enum(['removed', 'changed']), before: Values.nullable(), after: Values.nullable() })),
    affected_columns: z.array(z.string()),
    chart: z
      .object({
        column: z.string(),
        histogram: z.object({ edges: z.array(z.number()), before: z.array(z.number()), after: z.array(z.number()) }).nullable(),
        series: z.object({ x: z.enum(['datetime', 'row']), before: z.array(SeriesPoint).nullable(), after: z.array(SeriesPoint).nullable() }),
      })
      .nullable()
      .describe('Before/after histogram and series of the first affected numeric column'),
    datetime_column: z.string().nullable(),
    sample: z.boolean().describe('Computed on a leading sample of the rows'),
    sample_rows: z.number(),
    total_rows: z.number(),
  })
  .meta({ id: 'PreprocessPreview' });

export const RunStarted = z.object({ temp_id: z.string(), job_id: z.string(), state: JobStateEnum, condition_id: z.string().nullable(), condition_name: z.string().nullable() }).meta({ id: 'PreprocessRunStarted' });

export const RunResult = z
  .object({
    temp_id: z.string(),
    source_dataset_id: z.string(),
    condition_id: z.string().nullable(),
    condition_name: z.string().nullable(),
    steps: z.array(StepView),
    state: JobStateEnum,
    progress: z.number(),
    message: z.string(),
    error: z.string().nullable(),
    dataset_id: z.string().nullable(),
    result: z
      .object({
        row_count: z.number(),
        column_count: z.number(),
        rows_before: z.number(),
        columns_before: z.number(),
        columns: z.array(z.string()),
        datetime_column: z.string().nullable(),
        history: z.array(PreprocessStep),
        head: z.array(Values).describe('The first 20 rows of the result'),
        condition: FittedCondition.describe('The condition with its fitted parameters (as condition.json)'),
        timings: z
          .object({
            read_s: z.number(),
            steps_s: z.array(z.number()),
            statistics_s: z.number().nullable().optional().describe("the changed columns' statistics, computed while writing"),
            write_s: z.number(),
            peak_rss_mb: z.number().nullable(),
            columns_read: z.number(),
            untouched_columns: z
              .string()
              .nullable()
              .optional()
              .describe('how the columns a condition leaves alone reached the new file: spliced (chunks copied byte for byte), re-encoded, or whole table'),
          })
          .nullable()
          .describe('Where the time went: read, each step, statistics, write (seconds); the engine peak memory (MB)'),
      })
      .nullable(),
  })
  .meta({ id: 'PreprocessRun' });

export type RunResultView = z.infer<typeof RunResult>;
