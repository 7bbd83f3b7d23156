import { z } from 'zod';
import { IdView, storedEnum } from '../../http/responses.js';

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
// A round's result and an evaluation are the engine's (engine/mitate_engine/optimal_design/design.py make_design and compare,
// criteria.py, fit.py, bo.py). Engine floats that can be non-finite arrive as null (engine encoding.py).

const figure = z.number().nullable();
const row = z.record(z.string(), z.union([z.string(), z.number(), z.null()])).describe('variable or result name → value');
export const criteria = z
  .object({
    runs: z.number().int(),
    terms: z.number().int(),
    det_xtx: figure,
    singular: z.boolean().describe('The information matrix cannot be inverted: efficiencies are 0 and the rest null'),
    d_efficiency: figure.describe('Absolute: det(XᵀX/N)^(1/p) on coded factors (100 % only for an orthogonal design on the cube)'),
    a_efficiency: figure.describe('Absolute: p / trace(N (XᵀX)⁻¹) on coded factors'),
    d_relative: figure.optional().describe('D against the best design found for the same runs, model and region (this one or a D-/I-optimal reference)'),
    a_relative: figure.optional().describe('A against the best design found for the same runs, model and region'),
    g_efficiency: figure,
    i_value: figure.describe('Average scaled prediction variance over the region'),
    i_efficiency: figure.optional().describe('Against the best I-value found (this design or a reference)'),
    i_reference: figure.optional(),
    max_variance: figure,
    vif: z.record(z.string(), figure).describe('term → variance inflation factor'),
    variance_profile: z.object({ fraction: z.array(z.number()), scaled_variance: z.array(figure), points: z.number().int() }).nullable().describe('Fraction of design space plot'),
  })
  .meta({ id: 'DesignCriteria' });

export const designFit = z
  .object({
    terms: z.array(z.object({ term: z.string(), estimate: figure, std_error: figure, t: figure, p_value: figure })),
    r2: figure,
    r2_adj: figure,
    rmse: figure,
    error_df: z.number().int(),
    error_ss: figure,
    mean_response: figure,
    runs: z.number().int(),
  })
  .meta({ id: 'DesignFit' });

export const designResult = z
  .object({
    algorithm: z.enum(ALGORITHMS),
    method: z.string().describe('How the runs were chosen (e.g. coordinate_exchange, expected_improvement_kriging_believer)'),
    model: z.object({ kind: z.enum(MODELS), terms: z.array(z.string()) }),
    variables: z.array(z.object({ name: z.string(), type: z.enum(['continuous', 'discrete', 'categorical', 'mixture']), low: z.number(), high: z.number(), levels: z.array(z.union([z.string(), z.number()])) })),
    mixture_total: z.number().nullable(),
    existing: z.array(row).describe('Runs of earlier rounds and uploaded runs, the design builds on'),
    runs: z.array(row).describe('The proposed runs'),
    criteria,
    min_distance: figure,
    candidates: z.number().int(),
    region_points: z.number().int(),
    excluded: z.number().int(),
    fits: z.record(z.string(), designFit).describe('result name → least-squares fit of the design model to the measured results'),
    seed: z.number().int(),
    seconds: z.number().optional(),
    bo: z
      .object({
        mean: z.array(figure),
        sd: z.array(figure),
        ei: z.array(figure),
        best_observed: figure,
        response: z.string(),
        direction: z.enum(['maximize', 'minimize']),
        surrogate: z.enum(['gp', 'gp_residual']),
        kernel: z.string(),
      })
      .optional()
      .describe('Bayesian rounds: the surrogate’s mean, SD and expected improvement of each proposed run'),
  })
  .meta({ id: 'DesignResult' });

export const designEvaluation = z
  .object({
    user: criteria,
    ours: criteria.nullable(),
    user_runs: z.number().int(),
    user_outside: z.array(z.object({ row: z.number().int(), constraints: z.array(z.string()) })).describe('Runs of the file outside the region (at most 20)'),
    model: z.object({ terms: z.array(z.string()) }),
    seconds: z.number().optional(),
  })
  .meta({ id: 'DesignEvaluation' });

export const roundParameters = z
  .object({ seed: z.number().int(), starts: z.number().int(), parameters: roundSettings.shape.parameters, bo: roundSettings.shape.bo })
  .describe('The round’s settings');

export const roundView = z
  .object({
    round: z.number().int(),
    algorithm: storedEnum(ALGORITHMS),
    n_runs: z.number().int(),
    parameters: roundParameters,
    state: storedEnum(STATES),
    job_id: z.string().nullable(),
    error: z.string().nullable(),
    result: designResult.nullable(),
    results: z.array(row).nullable().describe('Measured results entered for the round'),
    created_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'DesignRound' });

export const projectSettingsView = registerSettings
  .pick({ variables: true, constraints: true, mixture_total: true, model: true, responses: true, exclude_tolerance: true, existing_project_ids: true })
  .extend({ exclude_count: z.number().int(), existing_rows: z.array(row).describe('Uploaded runs (the runs file)') })
  .meta({ id: 'DesignProjectSettings' });

export const projectView = z
  .object({
    id: z.string(),
    name: z.string(),
    comment: z.string(),
    state: storedEnum(STATES),
    rounds: z.number().int(),
    settings: projectSettingsView,
    round_list: z.array(roundView),
    eval_state: storedEnum(STATES).nullable(),
    eval_error: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'DesignProject' });
export const projectSummary = z
  .object({ id: z.string(), name: z.string(), state: storedEnum(STATES), rounds: z.number().int(), variables: z.number().int(), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'DesignProjectSummary' });
const wrap = <T extends z.ZodType>(t: T) => z.object({ detail: z.object({ response: t }) });
export const responses = {
  project: wrap(projectView),
  list: wrap(z.object({ items: z.array(projectSummary), total: z.number() }).meta({ id: 'DesignProjectPage' })),
  all: wrap(z.object({ items: z.array(projectSummary), counts: z.record(z.string(), z.number()) }).meta({ id: 'DesignProjectsByState' })),
  result: wrap(
    z
      .object({ project_id: z.string(), round: z.number().int(), state: storedEnum(STATES), job_state: z.string(), progress: z.number(), message: z.string(), error: z.string().nullable(), result: designResult.nullable() })
      .meta({ id: 'DesignRoundResult' }),
  ),
  evaluation: wrap(z.object({ project_id: z.string(), state: storedEnum(STATES).nullable(), error: z.string().nullable(), evaluation: designEvaluation.nullable() }).meta({ id: 'DesignEvaluationState' })),
  deleted: wrap(IdView),
};
