import { z } from 'zod';
import { EngineJson, page, storedEnum } from '../../http/responses.js';
import { Cell } from '../datasets/responses.js';

/** Answers of the prediction calls (SPEC §7 'Inference' and each type's prediction calls). */

export const Prediction = z
  .object({
    id: z.string(),
    name: z.string(),
    project_id: z.string(),
    project_name: z.string(),
    project_type: z.string(),
    report_type: z.string(),
    model_key: z.string(),
    dataset_id: z.string(),
    test_dataset: z.string(),
    state: storedEnum(['queued', 'running', 'done', 'failed']),
    progress: z.number(),
    message: z.string(),
    error: z.string().nullable(),
    log: z.string(),
    result: EngineJson.describe('Summary of the predictions (engine task predict) when done'),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'Prediction' });

export const PredictionPage = page(Prediction);
export const PredictionProgress = Prediction.pick({ id: true, state: true, progress: true, message: true, error: true });
export const PredictionRows = z
  .object({ columns: z.array(z.string()), outputs: z.array(z.string()), rows: z.array(z.array(Cell)), total: z.number(), page: z.number(), page_size: z.number() })
  .meta({ id: 'PredictionRows' });
