import path from 'node:path';
import type { S3Settings } from './storage/s3.js';

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
  oidc: { issuer?: string; clientId?: string; clientSecret?: string; tenant: string };
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
    ...overrides,
  };
}

export const repoRoot = root;
