import { z } from 'zod';

/** Answers about jobs and the engine worker pool (SPEC §4 Services). */

export const JobStateEnum = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']).meta({ id: 'JobState' });

// The job itself (with its result per kind) is job-view.ts: it reads the areas' schemas, which read this file.

/** A project's latest job as its page shows it (progress and message while it runs, the error when it failed). */
export const JobBrief = z
  .object({ id: z.string(), state: z.string(), progress: z.number(), message: z.string(), error: z.string().nullable(), started_at: z.string().nullable(), finished_at: z.string().nullable() })
  .nullable();

export const ServiceStatus = z
  .object({
    mode: z.enum(['local', 'bullmq']),
    running: z.boolean(),
    workers: z.number().int(),
    busy: z.number().int(),
    queued: z.number().int(),
    active: z.number().int(),
    max_upload_mb: z.number(),
  })
  .meta({ id: 'ServiceStatus' });

/** A tenant's compute service: its own share of the shared pool (issue 18). */
export const OrgServiceStatus = z
  .object({
    mode: z.enum(['local', 'bullmq']),
    running: z.boolean().describe("The organisation's jobs run: the pool runs and the organisation has not paused its share"),
    paused: z.boolean(),
    pool_running: z.boolean(),
    workers: z.number().int(),
    queued: z.number().int(),
    active: z.number().int(),
    max_upload_mb: z.number(),
    pool: ServiceStatus.omit({ max_upload_mb: true }).optional().describe('The whole pool (platform administrators only)'),
  })
  .meta({ id: 'OrgServiceStatus' });

export const JobCount = z.object({ count: z.number().int(), active: z.number().int(), queued: z.number().int(), workers: z.number().int(), running: z.boolean() });

/** The platform administrators' operations view: the pool, the queue across organisations, recent failures. */
export const Operations = z
  .object({
    pool: ServiceStatus.omit({ max_upload_mb: true }),
    queue: z.array(z.object({ kind: z.string(), queued: z.number().int(), running: z.number().int() })).describe('Jobs waiting and running, by kind, every organisation'),
    oldest_queued_at: z.string().nullable().describe('When the longest-waiting job was queued'),
    finished_24h: z.object({ succeeded: z.number().int(), failed: z.number().int(), cancelled: z.number().int() }),
    recent_failures: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        organisation_name: z.string().nullable(),
        error: z.string().nullable(),
        attempts: z.number().int(),
        finished_at: z.string().nullable(),
        request_id: z.string().nullable().describe('The request that created the job (its X-Request-Id): finds its records in the server and engine logs'),
      }),
    ),
  })
  .meta({ id: 'Operations' });
