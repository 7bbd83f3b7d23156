import { z } from 'zod';
import { storedEnum } from '../../http/responses.js';

/** Answers of identity verification (/account/api/identity...). */

export const IdentityStatus = z
  .object({ state: storedEnum(['not_done', 'under_review', 'done', 'rejected']), reason: z.string().nullable(), submitted_at: z.string().nullable(), reviewed_at: z.string().nullable() })
  .meta({ id: 'IdentityStatus' });

export const PaymentCheck = z.object({ allowed: z.boolean(), state: z.string(), message: z.string().nullable() });
