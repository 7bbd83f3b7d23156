import { z } from 'zod';
import { DATA_TYPES, DATASET_TYPES, TRAINING_TYPES } from '@mitate/rules';
import { said } from '../../http/errors.js';

export { DATA_TYPES, DATASET_TYPES, TRAINING_TYPES };

const text = (max: number) => z.string().trim().max(max);

export const registerFields = z.object({
  name: text(200).min(1, said('name_required')),
  category: text(100).default(''),
  training_type: z.enum(TRAINING_TYPES).default('regression'),
  data_type: z.enum(DATA_TYPES).default('training_data'),
  type: z.enum(DATASET_TYPES).default('supervised'),
  comment: text(2000).default(''),
  datetime_column: text(500).optional().transform((v) => (v ? v : null)),
});
export type RegisterFields = z.infer<typeof registerFields>;

export const updateBody = z
  .object({
    name: text(200).min(1, said('name_required')),
    category: text(100),
    training_type: z.enum(TRAINING_TYPES),
    data_type: z.enum(DATA_TYPES),
    type: z.enum(DATASET_TYPES),
    comment: text(2000),
  })
  .partial();

export const listQuery = z.object({
  query: z.string().max(200).optional().default(''),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
  data_type: z.enum(DATA_TYPES).or(z.literal('')).optional(),
  type: z.enum(DATASET_TYPES).or(z.literal('')).optional(),
  training_type: z.string().max(100).optional(),
  category: z.string().max(100).optional(),
  sort: z.enum(['created_at_desc', 'created_at_asc', 'name_asc', 'name_desc']).default('created_at_desc'),
});

export const previewQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
});

export const idParams = z.object({ id: z.string().min(1).max(64) });
