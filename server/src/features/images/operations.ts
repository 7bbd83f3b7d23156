import { z } from 'zod';
import { said } from '../../http/errors.js';
import { decimalsOk } from '@mitate/rules';

// Its own module so that a dataset's preprocess history (datasets/responses.ts) can declare an image run's operations.
const dec = (lo: number, hi: number) => z.number().min(lo).max(hi).refine(decimalsOk, { message: said('decimals_max') });

/** Image pre-processing (engine images/preprocess.py), applied in this order: crop, rotate, flip, resize, grayscale,
 * brightness, contrast, normalise. Crops are the share of each side removed. */
const cropSide = dec(0, 0.45).default(0);
export const imageOperations = z.object({
  crop: z.object({ left: cropSide, top: cropSide, right: cropSide, bottom: cropSide }).default({ left: 0, top: 0, right: 0, bottom: 0 }),
  rotate: z.number().int().min(-359).max(359).default(0).describe('Degrees clockwise; quarter turns are lossless'),
  hflip: z.boolean().default(false),
  vflip: z.boolean().default(false),
  resize: z.object({ width: z.number().int().min(8).max(4096), height: z.number().int().min(8).max(4096), mode: z.enum(['stretch', 'fit', 'pad']).default('stretch') }).nullable().default(null),
  grayscale: z.boolean().default(false),
  brightness: dec(0.1, 3).default(1),
  contrast: dec(0.1, 3).default(1),
  normalize: z.enum(['none', 'autocontrast', 'equalize']).default('none'),
}).meta({ id: 'ImageOperations' });
export type ImageOperations = z.infer<typeof imageOperations>;
