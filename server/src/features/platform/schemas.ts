import { z } from 'zod';
import { decimalsOk } from '@mitate/rules';
import { AnyMetrics } from '../training/responses.js';
import { storedEnum } from '../../http/responses.js';
import { M as B } from '../billing/messages.js';
import { M } from './messages.js';
import { IM } from './image-messages.js';
import { hostedImagePrediction, imageServingView } from './image-serving.js';

/** The refusals of an image model's request (image-serving.ts), besides the engine's image_unreadable. */
const IMAGE_REFUSALS = [IM.imageMissing.code, IM.imageOnePerRequest.code, IM.imageNotBase64.code, IM.imageNotImage.code, IM.imageFormat.code, IM.imageHeatmapFlag.code, 'image_unreadable'];

const MAX_COUNT = 2_147_483_647;
const decimal = (max: number) => z.coerce.number().min(0).max(max).refine(decimalsOk, M.decimals.en);
const count = z.coerce.number().int().min(0).lt(MAX_COUNT, M.requestCount.en);
const url = z.union([z.literal(''), z.url(M.badUrl.en).max(500)]).default('');

/** SPEC §3 'Platform project' fields a person fills in (prices come from the price list, status from the life cycle). */
export const settingsFields = z.object({
  content_language: z.string().trim().min(1, M.contentLanguageRequired.en).max(20),
  industry: z.string().trim().max(100).default(''),
  use_case: z.string().trim().max(500).default(''),
  language: z.string().trim().max(50).default(''),
  version: z.string().trim().max(30).default('1.0'),
  documentation_url: url,
  tutorial_url: url,
  source_code_url: url,
  sandbox_url: url,
  cover_image_url: url,
  cpu_cores: decimal(256).default(1),
  memory_gb: decimal(4096).default(1),
  gpu_gb: decimal(1024).default(0),
  expected_requests_per_month: count.default(0),
  expected_rps: decimal(1_000_000).default(0),
  expected_unique_users: count.default(0),
  expected_item_count: count.default(0),
  subscription_type: z.enum(['free', 'standard', 'premium']).default('standard'),
  billing_cycle: z.enum(['monthly', 'yearly']).default('monthly'),
  auto_scaling: z.boolean().default(false),
  cloud_provider: z.string().trim().max(50).default('mitate'),
  region: z.string().trim().max(50).default('ap-northeast-1'),
});
export type Settings = z.infer<typeof settingsFields>;

export const createBody = settingsFields.extend({
  name: z.string().trim().min(1, M.nameRequired.en).max(200),
  key: z.string().trim().regex(/^[a-z0-9](?:[a-z0-9-]{1,38})[a-z0-9]$/, M.keyFormat.en),
  project_id: z.string().max(64),
  model_key: z.string().max(100),
});
type SettingsShape = typeof settingsFields.shape;
type Undefaulted = { [K in keyof SettingsShape]: z.ZodOptional<SettingsShape[K] extends z.ZodDefault<infer I> ? I : SettingsShape[K]> };
/** An edit changes only the fields it names: each is optional and without its default (zod's partial() keeps the
 * defaults, so fields left out would be reset). */
const editedFields = z.object(Object.fromEntries(Object.entries(settingsFields.shape).map(([k, f]) => [k, (f instanceof z.ZodDefault ? f.unwrap() : f).optional()])) as Undefaulted);
export const updateBody = editedFields.extend({ name: z.string().trim().min(1, M.nameRequired.en).max(200).optional() });
export const quoteBody = settingsFields.pick({ subscription_type: true, billing_cycle: true, cpu_cores: true, memory_gb: true, gpu_gb: true, auto_scaling: true, expected_requests_per_month: true });
export const credentialBody = z.object({ name: z.string().trim().min(1, M.credentialNameRequired.en).max(100), kind: z.enum(['production', 'sandbox']).default('production') });
export const reviewBody = z.object({ decision: z.enum(['approve', 'reject']), reason: z.string().trim().max(500).optional() });
export const listQuery = z.object({
  status: z.enum(['all', 'draft', 'under_review', 'approved', 'rejected', 'running', 'stopped']).default('all'),
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(200).default(50),
});
export const statsQuery = z.object({ bucket: z.enum(['hour', 'day']).default('hour'), days: z.coerce.number().int().min(1).max(366).default(7) });
export const idParams = z.object({ id: z.string().max(64) });

const nullableText = z.string().nullable();
const text = z.string();
const num = z.number();
/** The SPEC §3 fields as saved (every field present: the defaults were applied when they were given). */
export const settingsView = z
  .object({
    content_language: text,
    industry: text,
    use_case: text,
    language: text,
    version: text,
    documentation_url: text,
    tutorial_url: text,
    source_code_url: text,
    sandbox_url: text,
    cover_image_url: text,
    cpu_cores: num,
    memory_gb: num,
    gpu_gb: num,
    expected_requests_per_month: num,
    expected_rps: num,
    expected_unique_users: num,
    expected_item_count: num,
    subscription_type: z.enum(['free', 'standard', 'premium']),
    billing_cycle: z.enum(['monthly', 'yearly']),
    auto_scaling: z.boolean(),
    cloud_provider: text,
    region: text,
  })
  .meta({ id: 'PlatformSettings' });
export const projectView = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string(),
  status: storedEnum(['draft', 'under_review', 'approved', 'rejected', 'running', 'stopped'] as const),
  actions: z.array(z.enum(['submit', 'draft', 'start', 'stop'])),
  reason: nullableText,
  model: z.object({ project_id: z.string(), project_name: z.string(), model_key: z.string(), type: z.string() }),
  settings: settingsView,
  currency: z.string(),
  subscription_price: z.number(),
  infrastructure_price: z.number(),
  endpoint: z.string(),
  features: z.array(z.string()),
  outputs: z.array(z.string()),
  image: imageServingView.nullable().describe('an image model: what its API takes and answers (image-serving.ts); null for table models'),
  created_at: z.string(),
  updated_at: z.string(),
  reviewed_at: nullableText,
  organisation_name: z.string().optional(),
}).meta({ id: 'PlatformProject' });
export const credentialView = z.object({
  id: z.string(),
  name: z.string(),
  kind: storedEnum(['production', 'sandbox'] as const),
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: nullableText,
  revoked_at: nullableText,
  secret: z.string().optional(),
}).meta({ id: 'PlatformCredential' });

// ---- answers of the management operations (declared so the OpenAPI document and the web types carry them) ----
const amounts = z.record(z.string(), z.number());
export const priceListView = z.object({
  currency: z.string(),
  subscription: amounts.describe('Per subscription type, per month, in minor units of the currency'),
  infrastructure: z.object({ base: z.number(), cpu_core: z.number(), memory_gb: z.number(), gpu_gb: z.number(), auto_scaling: z.number(), per_million_requests: z.number() }),
  yearly_discount_percent: z.number(),
}).meta({ id: 'PlatformPriceList' });
export const quoteView = z.object({
  currency: z.string(),
  billing_cycle: z.enum(['monthly', 'yearly']),
  subscription_price: z.number(),
  infrastructure_price: z.number(),
  total: z.number(),
  lines: z.array(z.object({ item: z.string(), amount: z.number() })),
}).meta({ id: 'PlatformQuote' });
export const publishableView = z.object({
  project_id: z.string(),
  project_name: z.string(),
  project_type: z.string(),
  model_key: z.string(),
  algorithm: z.string(),
  metrics: AnyMetrics.nullable().describe("The training's scores (as the training model row has them)"),
  trained_at: nullableText,
}).meta({ id: 'PublishableModel' });
export const projectPage = z.object({ items: z.array(projectView), total: z.number().int() });
export const reviewPage = z.object({ items: z.array(projectView.extend({ identity_verified: z.boolean() }).meta({ id: 'PlatformProjectUnderReview' })), total: z.number().int() });
const share = z.object({ name: z.string(), count: z.number(), ratio: z.number() });
const reasonCount = (what: string) => z.number().describe(what);
export const statsView = z.object({
  total: z.number().describe('Answered predictions (2xx): the requests counted and billed'),
  refused: z.number().describe('Refused calls (never billed), all reasons together'),
  refusals: z
    .object({
      key: reasonCount('401: no API key, or a wrong or revoked one'),
      locked: reasonCount('402: the project is locked for an unpaid invoice'),
      input: reasonCount('other 4xx: a body that is not JSON or CSV, a wrong content type, rows the model cannot take, an API not yet approved'),
      rate_limit: reasonCount('429: over the per-address, per-key or sandbox rate'),
      server: reasonCount('5xx: the API stopped or busy, or a server fault'),
    })
    .describe('Refused calls by reason'),
  average_ms: z.number().nullable(),
  paths: z.array(z.object({ path: z.string(), count: z.number(), average_ms: z.number() })),
  devices: z.array(share),
  browsers: z.array(share),
  os: z.array(share),
  series: z.array(z.object({ time: z.string(), count: z.number(), average_ms: z.number(), refused: z.number() })),
  bucket: z.enum(['hour', 'day']),
}).meta({ id: 'PlatformStats' });
export const adminMeView = z.object({
  platform_admin: z.boolean(),
  first_account: z.boolean().describe('An administrator because this is the installation\'s first account (MITATE_PLATFORM_ADMINS empty)'),
  review_required: z.boolean().describe('Whether submitted APIs wait for a review; off, submitting approves at once (identity verified)'),
});

// ---- POST /serve/{key}/predict: its answer and every refusal's stable code (the OpenAPI document lists them) ----

/** The codes a hosted API's refusal carries, by status: `detail.error`, or for 422 each item's `type`. */
export const SERVE_REFUSALS = {
  400: { codes: ['invalid_json', 'empty_json', 'bad_request'], what: 'the body is not the JSON its content type says' },
  401: { codes: [M.apiKeyMissing.code, M.apiKeyInvalid.code], what: 'no API key, or one that is wrong, revoked or of another API' },
  402: { codes: [B.projectLocked.code], what: 'the project is locked for an unpaid invoice' },
  403: { codes: [M.apiNotApproved.code], what: 'the API is not approved yet' },
  404: { codes: [M.apiNotFound.code], what: 'there is no API with this key' },
  413: { codes: ['json_too_large', IM.imageTooLarge.code, IM.imagePixels.code], what: 'the body is larger than the limit, or the image has more bytes or pixels than accepted' },
  415: { codes: ['unsupported_media_type'], what: 'the content type is neither JSON nor CSV text' },
  422: {
    codes: [
      M.badBody.code, 'serve_no_rows', 'serve_too_many_rows', 'serve_csv_unreadable', 'inference_feature_missing', 'inference_not_numeric', 'inference_unseen_category', 'value_error',
      ...IMAGE_REFUSALS,
      // a time-series detector (timeseries-serving.ts)
      'tsad_time_missing', 'tsad_time_unreadable', 'tsad_time_empty', 'tsad_time_duplicates', 'tsad_series_invalid', 'tsad_stream_needs_json', 'tsad_stream_order', 'tsad_stream_resampled', 'tsad_stream_condition',
    ],
    what: 'image models: no image, more than one, not an image, another image format or one that cannot be decoded (image_unreadable); table models: rows the model cannot take (the column in loc; quoted values cut to 80 characters; a number sent as text in a numeric column, "27", is read as that number, other text is inference_not_numeric); time-series detectors: the time column missing, unreadable or repeated, a stream out of order; a few other codes of the engine catalogue may appear for a preprocessing condition',
  },
  429: { codes: [M.rateLimitedAddress.code, M.rateLimitedKey.code, M.rateLimited.code], what: 'too many calls from this address, with this key, or with a sandbox key; wait the Retry-After seconds' },
  500: { codes: ['server_error'], what: 'a fault of the server' },
  503: { codes: [M.apiStopped.code, M.servingBusy.code], what: 'the API is stopped, or busy' },
} as const;

function refusal(status: keyof typeof SERVE_REFUSALS): z.ZodType {
  const r = SERVE_REFUSALS[status];
  const codes = `One of: ${r.codes.join(', ')}.`;
  const about = `${r.what[0].toUpperCase()}${r.what.slice(1)}. The message is in the caller's language (Accept-Language: en or ja).`;
  if (status === 422)
    return z.object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string().describe(codes) })) }).describe(about);
  return z.object({ detail: z.object({ response: z.string(), error: z.string().describe(codes) }) }).describe(about);
}

/** The prediction answer (written by hand, see gateway.answerOf) and every refusal, for the OpenAPI document. */
export const serveReplies = {
  200: z.union([hostedPrediction(), hostedImagePrediction]).describe('A table model answers HostedPrediction, an image model HostedImagePrediction'),
  ...(Object.fromEntries(Object.keys(SERVE_REFUSALS).map((k) => [k, refusal(Number(k) as keyof typeof SERVE_REFUSALS)])) as Record<number, z.ZodType>),
};

function hostedPrediction() {
  return z
    .object({
      detail: z.object({
        response: z.object({
          model: z.string(),
          version: z.string(),
          outputs: z.array(z.string()).describe("the prediction's columns"),
          predictions: z
            .array(z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])))
            .describe('one object per row: each output column (see outputs) with its value; null where a value cannot be given'),
        }),
      }),
    })
    .meta({ id: 'HostedPrediction' });
}
