import { z } from 'zod';
import { AUDIT_ACTIONS } from './classify.js';

/** GET /api/audit: the query and the answer. */
export const AuditQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
  action: z.enum(AUDIT_ACTIONS).optional(),
});
export const AuditEvent = z.object({
  id: z.string(),
  created_at: z.string(),
  actor_email: z.string(),
  user_id: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  method: z.string(),
  route: z.string(),
  subject_id: z.string().nullable(),
  status: z.number(),
  ip: z.string(),
});
export const AuditPage = z.object({ total: z.number(), page: z.number(), page_size: z.number(), items: z.array(AuditEvent) });
