import path from 'node:path';
import type { S3Settings } from './storage/s3.js';
import { type AccountSettings, accountSettings } from './features/account/settings.js';
import { type BillingSettings, billingSettings } from './features/billing/settings.js';
import { loadPrices, type PriceList } from './features/platform/prices.js';
import type { StreamLimits } from './features/platform/timeseries-describe.js';
import type { SketchSettings } from './features/datasets/sketch.js';
import { platformAdmins } from './auth/platform-admins.js';

/** Every setting comes from the environment, each with an embedded default (README lists them). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  workers: number;
  maxUploadMb: number;
  /** CSV uploads of at least this many MB (by the request's length) are converted to Parquet while they stream in (issue 17). */
  streamIngestMinMb: number;
  smtpUrl: string | undefined;
  /** OIDC_*; scopes: MITATE_OIDC_SCOPES (default 'openid email profile'). */
  oidc: { issuer?: string; clientId?: string; clientSecret?: string; tenant: string; scopes: string };
  localLogin: boolean;
  requireEmailVerification: boolean;
  visualizerUrl: string | undefined;
  testSiteUrl: string | undefined;
  testSiteAllowlist: string[];
  pythonPath: string;
  webDist: string;
  accessTokenTtlS: number;
  refreshTokenTtlS: number;
  secret: string | undefined;
  publicUrl: string;
  queueName: string;
  /** Whose X-Forwarded-For to believe (Fastify trustProxy): nobody by default, so a client cannot pick its own address. */
  trustProxy: boolean | number | string;
  /** S3-compatible object storage (MITATE_S3_BUCKET set), else the local folder. */
  s3: S3Settings | undefined;
  /** Share of requests traced (SPEC §9: 0.25), MITATE_TRACE_SAMPLE; requests with a parent follow it. */
  traceSample: number;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: traces go there over OTLP/HTTP; unset, tracing is off. */
  otlpEndpoint: string | undefined;
  /** Hosted-API calls a second per client address and per API key (MITATE_SERVE_IP_RPS, MITATE_SERVE_KEY_RPS; bursts of
   * twice that; 0 turns a limit off). Counted in this server's memory: with N servers a client may get up to N times. */
  serveIpRps: number;
  serveKeyRps: number;
  /** MITATE_FIRST_ACCOUNT_ADMIN (default on): with no MITATE_PLATFORM_ADMINS, the installation's first account is its
   * platform administrator (as Grafana and GitLab do), so a fresh `npm start` can walk every flow. */
  firstAccountAdmin: boolean;
  /** MITATE_PLATFORM_REVIEW (default on): hosted APIs wait for a platform administrator's review; administrators may
   * switch it in the app (stored setting wins). Off, submitting approves at once. */
  platformReview: boolean;
  /** Input drift of hosted APIs (features/platform/drift): rows sampled per project per flush (MITATE_DRIFT_SAMPLE_CAP),
   * the flush period (MITATE_DRIFT_FLUSH_MS), and what is kept per project: the last MITATE_DRIFT_KEEP_ROWS rows, none
   * older than MITATE_DRIFT_KEEP_DAYS days. */
  drift: { sampleCap: number; flushMs: number; keepRows: number; keepDays: number };
  /** MITATE_JOB_OUTPUT_GRACE_H (default 24): hours a job's or dataset's orphan output is kept before the sweep removes it. */
  jobOutputGraceH: number;
  /** MITATE_PLATFORM_ADMINS: comma-separated e-mails of the platform administrators (they act across organisations). */
  platformAdmins: string[];
  /** The account area's settings (MITATE_VERIFY_LINK_TTL_H, MITATE_LOGIN_*, MITATE_ID_MAX_MB…; features/account/settings.ts). */
  account: AccountSettings;
  /** Invoices and payments (MITATE_INVOICE_DUE_DAYS, MITATE_BANK_*, MITATE_WALLET_MAX_TOPUP…; features/billing/settings.ts). */
  billing: BillingSettings;
  /** MITATE_BILLING_SWEEP=0 turns the scheduled billing sweep off (default on). */
  billingSweep: boolean;
  /** MITATE_TEST_CLOCK=1 (end-to-end tests only, never in production): the billing clock can be moved forward. */
  testClock: boolean;
  /** The price list of hosted APIs (MITATE_PLATFORM_PRICES: JSON text or a path to a JSON file). */
  prices: PriceList;
  /** Streams of hosted time-series detectors (MITATE_TSAD_STREAM_*; features/platform/timeseries-serving.ts). */
  tsadStream: StreamLimits;
  /** Hosted APIs: serving processes (MITATE_SERVE_WORKERS), sandbox key calls a second (MITATE_SANDBOX_RPS), the
   * statistics flush (MITATE_STATS_FLUSH_MS), the answer cache (MITATE_SERVE_CACHE_MS), and MITATE_SERVE_IN_PROCESS=0
   * to send every request to Python (else models whose serving plan checks out are evaluated in this process). */
  serving: { workers: number; sandboxRps: number; statsFlushMs: number; cacheMs: number; inProcess: boolean };
  /** MITATE_TUNE_HELPERS: caps the helper jobs sharing a training job's auto-tune trials (unset: workers − 1). */
  tuneHelpers: number | undefined;
  /** MITATE_TRAIN_TIME_BUDGET: seconds of auto-tune per model at most (unset: the number of trials alone decides). */
  trainTimeBudgetS: number | null;
  /** MITATE_ML_CATALOGUE: the engine's algorithm catalogue (default engine/mitate_engine/ml/catalogue.json). */
  mlCatalogue: string;
  /** MITATE_IMAGE_WEIGHTS_DIR: where image-model training finds pretrained weights (unset: none). */
  imageWeightsDir: string | null;
  /** MITATE_METRICS_TOKEN: a bearer token that may read /metrics (unset: platform administrators only). */
  metricsToken: string | undefined;
  /** MITATE_PREVIEW_TIMEOUT_MS (default 120 000): how long a preview job may run before the page gives up. */
  previewTimeoutMs: number;
  /** MITATE_DUCKDB_THREADS (at least 2) and MITATE_DUCKDB_MEMORY (default 768MB) of the server's DuckDB instance. */
  duckdb: { threads: number; memory: string };
  /** MITATE_STRICT_RESPONSES=1 (and always under vitest, VITEST set): refuse an answer that loses a key its response
   * schema does not declare. */
  strictResponses: boolean;
  /** MITATE_EXPLORE_CACHE_MB (default 64): memory for cached exploration answers. */
  exploreCacheMb: number;
  /** The exploration sketches' memory (features/datasets/sketch.ts): their numeric columns (MITATE_COLUMN_CACHE_MB,
   * default 512), each row's scatter bin of a column (MITATE_BIN_CACHE_MB, default 128), and how much of a new sketch
   * is read ahead into the column cache (MITATE_SKETCH_WARM_MB, default 256; 0 turns it off). */
  sketch: SketchSettings;
  /** MITATE_EXACT_UNIQUE_ROWS (default 1 000 000): up to this many rows a column's distinct values are counted
   * exactly at upload; beyond, estimated (HyperLogLog). */
  exactUniqueRows: number;
  /** MITATE_PYRAMID_MIN_ROWS (default 500 000): series longer than this keep a min/max summary per column. */
  pyramidMinRows: number;
  /** MITATE_TEST_HOLD_FILE: crash tests only (testhold.ts); unset in every deployment. */
  testHoldFile: string | undefined;
  /** OTEL_SERVICE_NAME (default mitate-server): the service name on exported traces. */
  otelServiceName: string;
}

const root = path.resolve(import.meta.dirname, '..', '..');

function int(v: string | undefined, d: number): number {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) ? n : d;
}
function bool(v: string | undefined, d: boolean): boolean {
  if (v === undefined || v === '') return d;
  return ['1', 'true', 'yes', 'on'].includes(v.toLowerCase());
}

/** A positive number, else null (unset, empty, 0 or not a number). */
function positive(v: string | undefined): number | null {
  const n = Number(v);
  return v && Number.isFinite(n) && n > 0 ? n : null;
}

/** MITATE_TSAD_STREAM_*: the engine reads the exact-rows and max-rows settings too (platform/timeseries.py EXACT_ROWS, MAX_KEEP). */
function streamLimits(env: NodeJS.ProcessEnv): StreamLimits {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) >= 0 ? Number(v) : d);
  return {
    exactRows: num(env.MITATE_TSAD_STREAM_EXACT_ROWS, 1000),
    maxRows: num(env.MITATE_TSAD_STREAM_MAX_ROWS, 10000),
    maxSeries: num(env.MITATE_TSAD_STREAM_SERIES, 1000),
    idleMinutes: num(env.MITATE_TSAD_STREAM_IDLE_MINUTES, 24 * 60),
  };
}

function servingSettings(env: NodeJS.ProcessEnv): Config['serving'] {
  const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
  return {
    workers: num(env.MITATE_SERVE_WORKERS, 2),
    sandboxRps: num(env.MITATE_SANDBOX_RPS, 5),
    statsFlushMs: num(env.MITATE_STATS_FLUSH_MS, 2000),
    cacheMs: num(env.MITATE_SERVE_CACHE_MS, 1000),
    inProcess: env.MITATE_SERVE_IN_PROCESS !== '0',
  };
}

/** MITATE_TRACE_SAMPLE: a ratio in [0, 1]; anything else keeps SPEC §9's error-trace sampling, 0.25. */
export function traceSample(v: string | undefined): number {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0.25;
}

/** MITATE_TRUST_PROXY: unset (trust nobody), 'true', a hop count, or proxy addresses/CIDRs separated by commas. */
function trustProxy(v: string | undefined): boolean | number | string {
  if (!v) return false;
  if (/^(true|yes|on)$/i.test(v)) return true;
  if (/^(false|no|off|0)$/i.test(v)) return false;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

/** MITATE_S3_*: only MITATE_S3_BUCKET is required; keys fall back to the AWS SDK's own chain (AWS_* variables, roles). */
export function s3Settings(env: NodeJS.ProcessEnv): S3Settings | undefined {
  if (!env.MITATE_S3_BUCKET) return undefined;
  return {
    endpoint: env.MITATE_S3_ENDPOINT || undefined,
    bucket: env.MITATE_S3_BUCKET,
    region: env.MITATE_S3_REGION || 'us-east-1',
    accessKeyId: env.MITATE_S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.MITATE_S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: bool(env.MITATE_S3_PATH_STYLE, Boolean(env.MITATE_S3_ENDPOINT)),
    prefix: env.MITATE_S3_PREFIX ? env.MITATE_S3_PREFIX.replace(/\/*$/, '/') : '',
    cacheMb: Math.max(0, int(env.MITATE_S3_CACHE_MB, 0)),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env.PORT, 8080);
  const host = env.HOST || '127.0.0.1';
  return {
    port,
    host,
    dataDir: path.resolve(env.MITATE_DATA_DIR || path.join(root, 'data')),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    // 0 is allowed with REDIS_URL (workers run on other hosts); the local pool always runs at least one.
    workers: Math.max(0, int(env.MITATE_WORKERS, 2)),
    maxUploadMb: int(env.MITATE_MAX_UPLOAD_MB, 1024),
    streamIngestMinMb: Math.max(0, int(env.MITATE_STREAM_INGEST_MIN_MB, 16)),
    smtpUrl: env.SMTP_URL || undefined,
    oidc: {
      issuer: env.OIDC_ISSUER || undefined,
      clientId: env.OIDC_CLIENT_ID || undefined,
      clientSecret: env.OIDC_CLIENT_SECRET || undefined,
      tenant: env.OIDC_TENANT || 'common',
      scopes: env.MITATE_OIDC_SCOPES || 'openid email profile',
    },
    localLogin: bool(env.MITATE_LOCAL_LOGIN, true),
    requireEmailVerification: bool(env.MITATE_REQUIRE_EMAIL_VERIFICATION, false),
    visualizerUrl: env.MITATE_VISUALIZER_URL || undefined,
    testSiteUrl: env.MITATE_TEST_SITE_URL || undefined,
    testSiteAllowlist: (env.MITATE_TEST_SITE_ALLOWLIST || '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    pythonPath: env.MITATE_PYTHON || path.join(root, '.venv', 'bin', 'python'),
    webDist: env.MITATE_WEB_DIST || path.join(root, 'web', 'dist'),
    accessTokenTtlS: int(env.MITATE_ACCESS_TOKEN_TTL_S, 900),
    refreshTokenTtlS: int(env.MITATE_REFRESH_TOKEN_TTL_S, 30 * 24 * 3600),
    secret: env.MITATE_SECRET || undefined,
    publicUrl: env.MITATE_PUBLIC_URL || `http://localhost:${port}`,
    queueName: env.MITATE_QUEUE_NAME || 'mitate-jobs',
    trustProxy: trustProxy(env.MITATE_TRUST_PROXY),
    s3: s3Settings(env),
    traceSample: traceSample(env.MITATE_TRACE_SAMPLE),
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined,
    serveIpRps: Math.max(0, int(env.MITATE_SERVE_IP_RPS, 1000)),
    serveKeyRps: Math.max(0, int(env.MITATE_SERVE_KEY_RPS, 2000)),
    firstAccountAdmin: bool(env.MITATE_FIRST_ACCOUNT_ADMIN, true),
    platformReview: bool(env.MITATE_PLATFORM_REVIEW, true),
    drift: {
      sampleCap: Math.max(0, int(env.MITATE_DRIFT_SAMPLE_CAP, 200)),
      flushMs: Math.max(50, int(env.MITATE_DRIFT_FLUSH_MS, 5000)),
      keepRows: Math.max(100, int(env.MITATE_DRIFT_KEEP_ROWS, 5000)),
      keepDays: Math.max(1, int(env.MITATE_DRIFT_KEEP_DAYS, 30)),
    },
    jobOutputGraceH: int(env.MITATE_JOB_OUTPUT_GRACE_H, 24),
    platformAdmins: platformAdmins(env),
    account: accountSettings(env),
    billing: billingSettings(env),
    billingSweep: env.MITATE_BILLING_SWEEP !== '0',
    testClock: env.MITATE_TEST_CLOCK === '1',
    prices: loadPrices(env),
    tsadStream: streamLimits(env),
    serving: servingSettings(env),
    tuneHelpers: env.MITATE_TUNE_HELPERS ? Math.max(0, Math.floor(Number(env.MITATE_TUNE_HELPERS)) || 0) : undefined,
    trainTimeBudgetS: positive(env.MITATE_TRAIN_TIME_BUDGET),
    mlCatalogue: env.MITATE_ML_CATALOGUE || path.join(root, 'engine', 'mitate_engine', 'ml', 'catalogue.json'),
    imageWeightsDir: env.MITATE_IMAGE_WEIGHTS_DIR || null,
    metricsToken: env.MITATE_METRICS_TOKEN || undefined,
    previewTimeoutMs: positive(env.MITATE_PREVIEW_TIMEOUT_MS) ?? 120_000,
    duckdb: { threads: Math.max(2, positive(env.MITATE_DUCKDB_THREADS) ?? 2), memory: env.MITATE_DUCKDB_MEMORY || '768MB' },
    strictResponses: !!env.VITEST || env.MITATE_STRICT_RESPONSES === '1',
    otelServiceName: env.OTEL_SERVICE_NAME || 'mitate-server',
    testHoldFile: env.MITATE_TEST_HOLD_FILE || undefined,
    exploreCacheMb: positive(env.MITATE_EXPLORE_CACHE_MB) ?? 64,
    sketch: {
      columnCacheMb: positive(env.MITATE_COLUMN_CACHE_MB) ?? 512,
      binCacheMb: positive(env.MITATE_BIN_CACHE_MB) ?? 128,
      // set but not a number (or empty): off, as 0
      warmMb: env.MITATE_SKETCH_WARM_MB === undefined ? 256 : Number(env.MITATE_SKETCH_WARM_MB) || 0,
    },
    exactUniqueRows: positive(env.MITATE_EXACT_UNIQUE_ROWS) ?? 1_000_000,
    pyramidMinRows: positive(env.MITATE_PYRAMID_MIN_ROWS) ?? 500_000,
    ...overrides,
  };
}

export const repoRoot = root;
