import { z } from 'zod';

export const ALGORITHMS = [
  'd_optimal', 'i_optimal', 'space_filling', 'full_factorial', 'fractional_factorial', 'central_composite', 'box_behnken',
  'simplex_lattice', 'simplex_centroid', 'bayesian',
] as const;
export const MODELS = ['linear', 'interactions', 'quadratic', 'scheffe_linear', 'scheffe_quadratic', 'scheffe_special_cubic', 'custom'] as const;
export const STATES = ['running', 'done', 'failed'] as const;

const name = z.string().trim().min(1).max(200);
const num = z.number().finite();

export const variable = z.object({
  name,
  type: z.enum(['continuous', 'discrete', 'categorical', 'mixture']),
  low: num.optional(),
  high: num.optional(),
  levels: z.array(z.union([z.string().max(200), num])).max(100).optional(),
  unit: z.string().max(50).optional(),
});

export const constraint = z.object({
  type: z.enum(['sum', 'linear']).default('linear'),
  coefficients: z.record(z.string(), num).describe('variable name → coefficient (a sum constraint: all 1)'),
  op: z.enum(['=', '<=', '>=']),
  total: num,
});

export const roundSettings = z.object({
  algorithm: z.enum(ALGORITHMS),
  n_runs: z.number().int().min(0).max(1000).default(0).describe('Number of output conditions (classical designs: their own size)'),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  starts: z.number().int().min(1).max(200).optional().describe('Random starts of the exchange algorithms (default 10)'),
  parameters: z
    .object({ resolution: z.number().int().min(3).max(8).optional(), center: z.number().int().min(0).max(20).optional(), degree: z.number().int().min(1).max(6).optional(), levels: z.number().int().min(2).max(11).optional(), factorial_levels: z.number().int().min(2).max(5).optional() })
    .default({}),
  bo: z
    .object({
      response: z.string().max(200),
      direction: z.enum(['maximize', 'minimize']).default('maximize'),
      model: z.object({ project_id: z.string(), model_key: z.string() }).nullish().describe('A trained Mitate regression model as the mean; a GP on its residuals gives the uncertainty'),
    })
    .nullish(),
});

/** SPEC §3 'Optimal design project' (the multipart field `settings`, JSON). */
export const registerSettings = roundSettings.extend({
  name,
  comment: z.string().max(2000).default(''),
  variables: z.array(variable).min(1).max(30),
  constraints: z.array(constraint).max(50).default([]),
  mixture_total: num.positive().optional(),
  model: z.object({ kind: z.enum(MODELS), terms: z.array(z.string().max(200)).max(500).optional() }).default({ kind: 'quadratic' }),
  responses: z.array(z.string().trim().min(1).max(200)).max(10).default(['result']),
  exclude_tolerance: z.number().min(0).max(0.999).default(0),
  existing_project_ids: z.array(z.string()).max(20).default([]),
});
export type RegisterSettings = z.infer<typeof registerSettings>;
export type RoundSettings = z.infer<typeof roundSettings>;

export const idParams = z.object({ id: z.string().min(1).max(100) });
export const listQuery = z.object({
  query: z.string().max(200).optional(),
  state: z.enum(STATES).or(z.literal('')).optional(),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(20),
});
export const stateQuery = z.object({ state: z.enum(STATES).or(z.literal('')).optional() });
export const roundQuery = z.object({ round: z.coerce.number().int().min(1).optional() });
export const experimentBody = z.object({ project_id: z.string().min(1), round: z.number().int().min(1).optional() });

// ---- responses ---------------------------------------------------------------------------------------------

const row = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
const criteria = z.object({
  runs: z.number(), terms: z.number(), det_xtx: z.number().nullable(), singular: z.boolean(),
  d_efficiency: z.number().nullable(), a_efficiency: z.number().nullable(), g_efficiency: z.number().nullable(),
  i_value: z.number().nullable(), i_efficiency: z.number().nullable().optional(), i_reference: z.number().nullable().optional(),
  max_variance: z.number().nullable(), vif: z.record(z.string(), z.number().nullable()),
  variance_profile: z.object({ fraction: z.array(z.number()), scaled_variance: z.array(z.number()), points: z.number() }).nullable(),
}).passthrough();
export const designResult = z.object({
  algorithm: z.string(), method: z.string(), model: z.object({ kind: z.string(), terms: z.array(z.string()) }),
  variables: z.array(z.object({ name: z.string(), type: z.string(), low: z.number(), high: z.number(), levels: z.array(z.union([z.string(), z.number()])) })),
  mixture_total: z.number().nullable(), existing: z.array(row), runs: z.array(row), criteria,
  min_distance: z.number().nullable(), candidates: z.number(), region_points: z.number(), excluded: z.number(),
  fits: z.record(z.string(), z.unknown()), seed: z.number(), seconds: z.number().optional(),
  bo: z.object({ mean: z.array(z.number()), sd: z.array(z.number()), ei: z.array(z.number()), best_observed: z.number(), response: z.string(), direction: z.string(), surrogate: z.string(), kernel: z.string() }).optional(),
}).passthrough();
export const roundView = z.object({
  round: z.number(), algorithm: z.string(), n_runs: z.number(), parameters: z.record(z.string(), z.unknown()), state: z.string(),
  job_id: z.string().nullable(), error: z.string().nullable(), result: designResult.nullable(), results: z.array(row).nullable(),
  created_at: z.string(), finished_at: z.string().nullable(),
});
export const projectView = z.object({
  id: z.string(), name: z.string(), comment: z.string(), state: z.string(), rounds: z.number(),
  settings: z.record(z.string(), z.unknown()), round_list: z.array(roundView), eval_state: z.string().nullable(), eval_error: z.string().nullable(),
  created_at: z.string(), updated_at: z.string(),
});
export const projectSummary = z.object({ id: z.string(), name: z.string(), state: z.string(), rounds: z.number(), variables: z.number(), created_at: z.string(), updated_at: z.string() });
const wrap = <T extends z.ZodTypeAny>(t: T) => z.object({ detail: z.object({ response: t }) });
export const responses = {
  project: wrap(projectView),
  list: wrap(z.object({ items: z.array(projectSummary), total: z.number() })),
  all: wrap(z.object({ items: z.array(projectSummary), counts: z.record(z.string(), z.number()) })),
  result: wrap(z.object({ project_id: z.string(), round: z.number(), state: z.string(), job_state: z.string(), progress: z.number(), message: z.string(), error: z.string().nullable(), result: designResult.nullable() })),
  evaluation: wrap(z.object({ project_id: z.string(), state: z.string().nullable(), error: z.string().nullable(), evaluation: z.record(z.string(), z.unknown()).nullable() })),
  deleted: wrap(z.object({ id: z.string() })),
};
