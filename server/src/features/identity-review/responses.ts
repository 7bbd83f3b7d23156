import { z } from 'zod';
import { page } from '../../http/responses.js';

/** Answers of the platform administrators' identity review (/account/api/admin/identity...). */

export const IdentityReviewItem = z.object({
  id: z.string(),
  state: z.string(),
  reason: z.string().nullable(),
  submitted_at: z.string(),
  reviewed_at: z.string().nullable(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  organisation_name: z.string(),
});

export const IdentityReviewPage = page(IdentityReviewItem);

export const IdentityReviewed = z.object({ id: z.string(), state: z.string(), reason: z.string().nullable() });
