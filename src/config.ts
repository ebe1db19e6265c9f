import path from 'node:path';
import { z } from 'zod';
import type { TracingSettings } from './tracing/tracing.ts';
import { databaseUrlProblem } from './db/database-url.ts';
import { TRANSCRIPT_LIMITS } from './workspace/transcripts/parsers.ts';

/**
 * Every setting is an environment variable, parsed and validated here once. The table in
 * docs/configuration.md documents each one with its default; keep the two in step.
 */
const booleanString = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined))
  .pipe(z.url().optional());

const durationMs = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)?$/, 'expected a duration such as 500ms, 30s, 5m, 1h or 30d')
  .transform(parseDuration);

/**
 * The largest input an operation takes is a transcript's content (TRANSCRIPT_LIMITS, 5 MiB); in a
 * JSON body it may grow up to twice (escaped line breaks and quotes), and the rest of the request
 * gets a MiB. So a /graphql body of that size fits every valid operation, and nothing much larger.
 */
const GRAPHQL_DEFAULT_BODY_BYTES = 2 * TRANSCRIPT_LIMITS.contentBytes + 1024 * 1024;

const envSchema = z.object({
  /** production unless told otherwise (`npm run dev` sets development: GraphiQL at /graphql). */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  /** Loopback unless HOST says otherwise (0.0.0.0 or :: for every interface). */
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalUrl,
  /** Port of the embedded database's PostgreSQL socket (0 = any free port, written to DATA_DIR). */
  PGLITE_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^\d+(kB|MB|GB)$/, 'expected a size such as 32MB')
    .default('32MB'),
  REDIS_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOGIN_URL: optionalUrl,
  SSO_DOMAIN: z.string().optional(),
  /** HS256 secret for sso_token JWTs; generated and kept in DATA_DIR when unset. */
  SSO_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SSO_JWKS_URL: optionalUrl,
  SSO_JWT_ISSUER: z.string().optional(),
  SSO_JWT_AUDIENCE: z.string().optional(),
  SESSION_TTL: durationMs.default(parseDuration('12h')),
  COOKIE_SECURE: booleanString.default(true),
  /** Origins (scheme://host[:port], comma-separated) whose pages may call the API with credentials; empty = no CORS. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s*]+$/, 'each origin must be scheme://host[:port], no path and no wildcard'))),
  /** Active (not revoked, not expired) API keys / access tokens a user may hold at once. */
  MAX_API_KEYS_PER_USER: z.coerce.number().int().positive().max(10_000).default(20),
  MAX_ACCESS_TOKENS_PER_USER: z.coerce.number().int().positive().max(10_000).default(20),
  SEED_DEMO_DATA: booleanString.optional(),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024),
  /** Where uploaded files live: `local` (DATA_DIR/blobs, one instance) or `s3` (a bucket every instance of a fleet shares). */
  BLOB_STORE: z.enum(['local', 's3']).default('local'),
  /** With BLOB_STORE=s3; credentials come from the AWS SDK's standard chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profile, role). */
  S3_BUCKET: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? value : undefined))
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/, 'expected a bucket name')
        .optional(),
    ),
  /** An S3-compatible server (MinIO, Ceph, ...); unset = AWS. */
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  /** true: http://endpoint/bucket/key addressing (most S3-compatible servers need it). */
  S3_FORCE_PATH_STYLE: booleanString.default(false),
  /** Prepended to every object key (e.g. `gateway/`), to share a bucket. */
  S3_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._/-]{0,200}$/, 'expected letters, digits and . _ - /')
    .default(''),
  RATE_LIMIT_RETURNS_PER_MINUTE: z.coerce.number().int().positive().default(100),
  RATE_LIMIT_UPLOAD_PER_MINUTE: z.coerce.number().int().positive().default(10),
  LOGIN_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Requests to the OAuth endpoints (register, authorize, token, revoke) per client address or user per minute. */
  OAUTH_REQUESTS_PER_MINUTE: z.coerce.number().int().positive().default(30),
  RATE_LIMIT_CHAT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  /** Namespace of the counters in Redis; instances sharing a budget share the prefix. */
  RATE_LIMIT_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/)
    .default('rl'),
  COMPARISON_MATCH_BPS: z.coerce.number().nonnegative().default(1),
  COMPARISON_REVIEW_BPS: z.coerce.number().nonnegative().default(10),
  SELF_TEST_CRON: z.string().default('*/15 * * * *'),
  SELF_TEST_ENABLED: booleanString.default(true),
  WORKER_ENABLED: booleanString.default(true),
  WORKER_POLL_INTERVAL: durationMs.default(parseDuration('1s')),
  /**
   * On PostgreSQL, refresh planner statistics (ANALYZE) after an uploaded file of at least this
   * many rows is loaded (the embedded database, which has no autovacuum, does it after every file).
   */
  ANALYZE_AFTER_ROWS: z.coerce.number().int().min(0).default(5000),
  /** A running job whose lock was not renewed for this long is taken over (renewed and swept every fifth of it). */
  JOB_STALE_AFTER: durationMs.refine((ms) => ms >= 1000, 'must be at least 1s').default(parseDuration('15s')),
  SHUTDOWN_TIMEOUT: durationMs.default(parseDuration('25s')),
  /** On SIGTERM/SIGINT: how long /readyz answers 503 while the instance still serves everything, before it stops accepting (0 = at once). */
  SHUTDOWN_DRAIN: durationMs.default(0),
  /** Prometheus metrics at GET /metrics (docs/operations.md, Metrics). */
  METRICS_ENABLED: booleanString.default(true),
  /** Empty: /metrics on the main port; a port number: /metrics on a listener of its own (and not on the main port). */
  METRICS_PORT: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? Number(value) : undefined))
    .pipe(z.number('expected a port number').int().min(0).max(65535).optional()),
  /** When set, /metrics answers only `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). */
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? value : undefined))
    .pipe(
      z
        .string()
        .min(16, 'must be at least 16 characters')
        .regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces')
        .optional(),
    ),
  /** Event streams and subscriptions of generation progress a user holds open at once on one instance, every transport together. */
  STREAMS_PER_USER: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Requests of one client (its credential, or its address without one) served at once; the rest wait their turn. */
  REQUESTS_IN_FLIGHT_PER_CLIENT: z.coerce.number().int().min(1).max(10_000).default(4),
  /** Requests of one client that may wait for their turn; past it 429. */
  REQUESTS_QUEUED_PER_CLIENT: z.coerce.number().int().min(0).max(100_000).default(100),
  /** Operations in flight on one graphql-ws socket (subscriptions included). */
  WS_OPERATIONS_PER_SOCKET: z.coerce.number().int().min(1).max(10_000).default(20),
  /** graphql-ws sockets one credential (API key, access token, session) holds open at once on one instance. */
  WS_SOCKETS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(100_000).default(10),
  /** graphql-ws sockets without a valid credential (before connection_init, or without one) per client address. */
  WS_ANONYMOUS_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(10),
  /** The largest /graphql request body (JSON, a form, a GET query string) and graphql-ws message, in bytes; uploads have UPLOAD_MAX_BYTES. */
  GRAPHQL_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(GRAPHQL_DEFAULT_BODY_BYTES),
  /** Every request's headers must arrive within this (Node's headersTimeout). */
  HEADERS_TIMEOUT: durationMs.refine((ms) => ms >= 1000, 'must be at least 1s').default(parseDuration('10s')),
  /** A request without a valid credential must have sent its whole body within this; one with a credential has REQUEST_TIMEOUT. */
  ANONYMOUS_BODY_TIMEOUT: durationMs.refine((ms) => ms >= 1000, 'must be at least 1s').default(parseDuration('10s')),
  /** The longest any request may take to arrive, headers and body (Node's requestTimeout): a large upload on a slow link. */
  REQUEST_TIMEOUT: durationMs.refine((ms) => ms >= 1000, 'must be at least 1s').default(parseDuration('300s')),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(12),
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().positive().default(2000),
  /** false: /graphql (and every front) refuses `__schema` and `__type`, for a public endpoint that does not describe itself. */
  GRAPHQL_INTROSPECTION: booleanString.default(true),
  /** Operations per batched /graphql request (a JSON array); each one counts toward the limits and budgets like a request of its own. */
  GRAPHQL_MAX_BATCH: z.coerce.number().int().min(1).max(100).default(10),
  /** A JSON object of id -> document: /graphql then runs only those operations (and automatic persisted queries are off). */
  TRUSTED_DOCUMENTS_FILE: z.string().trim().default(''),
  /** Tools per tools/list page: all of them by default (some MCP clients read only the first page). */
  MCP_TOOLS_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  BENCHMARK_FAST_MS: z.coerce.number().positive().default(50),
  BENCHMARK_GOOD_MS: z.coerce.number().positive().default(200),
  BENCHMARK_SLOW_MS: z.coerce.number().positive().default(1000),
  /** Days a sticky stays in the trash before the hourly purge deletes it with its versions. */
  STICKY_TRASH_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(30),
  /** OpenAI-compatible chat endpoint base (e.g. http://host/v1); unset = the offline assistant. */
  CHAT_API_URL: optionalUrl,
  CHAT_API_KEY: z.string().optional(),
  CHAT_MODEL: z.string().trim().min(1).max(200).default('gpt-4o-mini'),
  CHAT_TIMEOUT: durationMs.refine((ms) => ms > 0, 'must be more than 0').default(parseDuration('30s')),
  /** Task provider: the built-in database tables or a project-management tool's HTTP API. */
  TASK_PROVIDER: z.enum(['builtin', 'http']).default('builtin'),
  PM_API_URL: optionalUrl,
  PM_API_KEY: z.string().optional(),
  PM_API_TIMEOUT: durationMs.refine((ms) => ms > 0, 'must be more than 0').default(parseDuration('10s')),
  /** Transcript provider: the built-in database (imports) or a meeting-transcription service's HTTP API (read-only). */
  TRANSCRIPT_PROVIDER: z.enum(['builtin', 'http']).default('builtin'),
  TRANSCRIPT_API_URL: optionalUrl,
  TRANSCRIPT_API_KEY: z.string().optional(),
  TRANSCRIPT_API_TIMEOUT: durationMs.default(parseDuration('10s')),
  /** Summary generation: runs executed at once per instance, the bound on each agent, the heartbeat of progress streams. */
  GENERATION_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  GENERATION_AGENT_TIMEOUT: durationMs.refine((ms) => ms > 0, 'must be more than 0').default(parseDuration('60s')),
  GENERATION_HEARTBEAT: durationMs.refine((ms) => ms >= 100, 'must be at least 100ms').default(parseDuration('15s')),
  /** A pause before each progress step: for demos and progress-UI work; 0 in production. */
  GENERATION_STEP_DELAY: durationMs.default(0),
  RATE_LIMIT_GENERATE_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Tracing (OpenTelemetry): off unless OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint is set. */
  OTEL_SDK_DISABLED: booleanString.default(false),
  OTEL_TRACES_EXPORTER: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['otlp', 'console', 'none'], 'expected otlp, console or none (comma-separated)'))),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json'], 'expected http/protobuf or http/json (grpc is not supported)').optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(['http/protobuf', 'http/json'], 'expected http/protobuf or http/json (grpc is not supported)').optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).default('graphql-gateway'),
  /** key=value pairs, comma-separated (values percent-encoded). */
  OTEL_RESOURCE_ATTRIBUTES: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const attributes: Record<string, string> = {};
      for (const pair of value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)) {
        const at = pair.indexOf('=');
        if (at <= 0) {
          ctx.addIssue({ code: 'custom', message: `expected key=value, got "${pair}"` });
          return z.NEVER;
        }
        try {
          attributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
        } catch {
          ctx.addIssue({ code: 'custom', message: `malformed percent-encoding in "${pair}"` });
          return z.NEVER;
        }
      }
      return attributes;
    }),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
});

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const raw = parsed.data;
  const databaseUrl = raw.DATABASE_URL === undefined ? null : databaseUrlProblem(raw.DATABASE_URL);
  if (databaseUrl) throw new ConfigError(`Invalid configuration:\n  ${databaseUrl}`);
  if (raw.COMPARISON_MATCH_BPS > raw.COMPARISON_REVIEW_BPS) {
    throw new ConfigError('Invalid configuration:\n  COMPARISON_MATCH_BPS: must not exceed COMPARISON_REVIEW_BPS');
  }
  if (!(raw.BENCHMARK_FAST_MS < raw.BENCHMARK_GOOD_MS && raw.BENCHMARK_GOOD_MS < raw.BENCHMARK_SLOW_MS)) {
    throw new ConfigError('Invalid configuration:\n  BENCHMARK_*_MS: need FAST < GOOD < SLOW');
  }
  if (raw.TASK_PROVIDER === 'http' && !raw.PM_API_URL) {
    throw new ConfigError('Invalid configuration:\n  PM_API_URL: required when TASK_PROVIDER=http');
  }
  for (const [name, url] of [
    ['CHAT_API_URL', raw.CHAT_API_URL],
    ['PM_API_URL', raw.PM_API_URL],
  ] as const) {
    if (url && !/^https?:$/.test(new URL(url).protocol)) throw new ConfigError(`Invalid configuration:\n  ${name}: must be an http or https URL`);
  }
  if (raw.TRANSCRIPT_PROVIDER === 'http') {
    if (!raw.TRANSCRIPT_API_URL || !/^https?:$/.test(new URL(raw.TRANSCRIPT_API_URL).protocol)) {
      throw new ConfigError('Invalid configuration:\n  TRANSCRIPT_API_URL: an http(s) URL is required when TRANSCRIPT_PROVIDER=http');
    }
    if (!raw.TRANSCRIPT_API_KEY?.trim()) {
      throw new ConfigError('Invalid configuration:\n  TRANSCRIPT_API_KEY: required when TRANSCRIPT_PROVIDER=http');
    }
  }
  if (raw.BLOB_STORE === 's3' && !raw.S3_BUCKET) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET: required when BLOB_STORE=s3');
  }
  if (raw.S3_ENDPOINT && !/^https?:$/.test(new URL(raw.S3_ENDPOINT).protocol)) {
    throw new ConfigError('Invalid configuration:\n  S3_ENDPOINT: must be an http or https URL');
  }
  if (raw.METRICS_PORT !== undefined && raw.METRICS_PORT !== 0 && raw.METRICS_PORT === raw.PORT) {
    throw new ConfigError('Invalid configuration:\n  METRICS_PORT: must differ from PORT (leave it empty to serve /metrics on the main port)');
  }
  const dataDir = path.resolve(raw.DATA_DIR);
  return {
    env: raw.NODE_ENV,
    port: raw.PORT,
    host: raw.HOST,
    publicUrl: raw.PUBLIC_URL,
    dataDir,
    databaseUrl: raw.DATABASE_URL,
    pglitePort: raw.PGLITE_PORT,
    pgliteSharedBuffers: raw.PGLITE_SHARED_BUFFERS,
    redisUrl: raw.REDIS_URL,
    logLevel: raw.LOG_LEVEL,
    auth: {
      loginUrl: raw.LOGIN_URL,
      ssoDomain: raw.SSO_DOMAIN,
      jwtSecret: raw.SSO_JWT_SECRET,
      jwksUrl: raw.SSO_JWKS_URL,
      jwtIssuer: raw.SSO_JWT_ISSUER,
      jwtAudience: raw.SSO_JWT_AUDIENCE,
      sessionTtlMs: raw.SESSION_TTL,
      cookieSecure: raw.COOKIE_SECURE,
      maxActiveCredentials: { api_key: raw.MAX_API_KEYS_PER_USER, access_token: raw.MAX_ACCESS_TOKENS_PER_USER },
    },
    /** Demo data is seeded on first start of the embedded database unless turned off. */
    seedDemoData: raw.SEED_DEMO_DATA ?? raw.DATABASE_URL === undefined,
    storage: { dir: path.join(dataDir, 'blobs'), maxUploadBytes: raw.UPLOAD_MAX_BYTES },
    blobStore:
      raw.BLOB_STORE === 's3' && raw.S3_BUCKET
        ? {
            kind: 's3' as const,
            bucket: raw.S3_BUCKET,
            endpoint: raw.S3_ENDPOINT,
            region: raw.S3_REGION,
            forcePathStyle: raw.S3_FORCE_PATH_STYLE,
            prefix: raw.S3_PREFIX,
          }
        : { kind: 'local' as const },
    rateLimits: {
      returnsPerMinute: raw.RATE_LIMIT_RETURNS_PER_MINUTE,
      uploadPerMinute: raw.RATE_LIMIT_UPLOAD_PER_MINUTE,
      keyPrefix: raw.RATE_LIMIT_KEY_PREFIX,
      loginPerMinute: raw.LOGIN_ATTEMPTS_PER_MINUTE,
      oauthPerMinute: raw.OAUTH_REQUESTS_PER_MINUTE,
      chatPerMinute: raw.RATE_LIMIT_CHAT_PER_MINUTE,
      generatePerMinute: raw.RATE_LIMIT_GENERATE_PER_MINUTE,
    },
    comparison: { matchBps: raw.COMPARISON_MATCH_BPS, reviewBps: raw.COMPARISON_REVIEW_BPS },
    selfTest: { cron: raw.SELF_TEST_CRON, enabled: raw.SELF_TEST_ENABLED },
    worker: { enabled: raw.WORKER_ENABLED, pollIntervalMs: raw.WORKER_POLL_INTERVAL, staleAfterMs: raw.JOB_STALE_AFTER },
    ingest: { analyzeAfterRows: raw.ANALYZE_AFTER_ROWS },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT,
    shutdownDrainMs: raw.SHUTDOWN_DRAIN,
    /** `port` undefined: /metrics on the main port. The token is never logged. */
    metrics: { enabled: raw.METRICS_ENABLED, port: raw.METRICS_PORT, token: raw.METRICS_TOKEN },
    cors: { origins: raw.CORS_ORIGINS },
    mcp: { toolsPageSize: raw.MCP_TOOLS_PAGE_SIZE },
    /** Fair share between clients (docs/limits.md). */
    limits: {
      streamsPerUser: raw.STREAMS_PER_USER,
      requestsInFlightPerClient: raw.REQUESTS_IN_FLIGHT_PER_CLIENT,
      requestsQueuedPerClient: raw.REQUESTS_QUEUED_PER_CLIENT,
      wsOperationsPerSocket: raw.WS_OPERATIONS_PER_SOCKET,
      wsSocketsPerCredential: raw.WS_SOCKETS_PER_CREDENTIAL,
      wsAnonymousSocketsPerAddress: raw.WS_ANONYMOUS_SOCKETS_PER_ADDRESS,
      headersTimeoutMs: raw.HEADERS_TIMEOUT,
      anonymousBodyTimeoutMs: raw.ANONYMOUS_BODY_TIMEOUT,
      requestTimeoutMs: raw.REQUEST_TIMEOUT,
    },
    graphql: {
      maxBodyBytes: raw.GRAPHQL_MAX_BODY_BYTES,
      maxDepth: raw.GRAPHQL_MAX_DEPTH,
      maxComplexity: raw.GRAPHQL_MAX_COMPLEXITY,
      introspection: raw.GRAPHQL_INTROSPECTION,
      maxBatch: raw.GRAPHQL_MAX_BATCH,
      trustedDocumentsFile: raw.TRUSTED_DOCUMENTS_FILE || undefined,
    },
    benchmark: { fastMs: raw.BENCHMARK_FAST_MS, goodMs: raw.BENCHMARK_GOOD_MS, slowMs: raw.BENCHMARK_SLOW_MS },
    stickies: { trashRetentionDays: raw.STICKY_TRASH_RETENTION_DAYS },
    chat: { apiUrl: raw.CHAT_API_URL, apiKey: raw.CHAT_API_KEY || undefined, model: raw.CHAT_MODEL, timeoutMs: raw.CHAT_TIMEOUT },
    tasks: { provider: raw.TASK_PROVIDER, apiUrl: raw.PM_API_URL, apiKey: raw.PM_API_KEY || undefined, timeoutMs: raw.PM_API_TIMEOUT },
    generation: {
      concurrency: raw.GENERATION_CONCURRENCY,
      agentTimeoutMs: raw.GENERATION_AGENT_TIMEOUT,
      heartbeatMs: raw.GENERATION_HEARTBEAT,
      stepDelayMs: raw.GENERATION_STEP_DELAY,
    },
    transcripts: {
      provider: raw.TRANSCRIPT_PROVIDER,
      apiUrl: raw.TRANSCRIPT_API_URL,
      apiKey: raw.TRANSCRIPT_API_KEY?.trim() || undefined,
      timeoutMs: raw.TRANSCRIPT_API_TIMEOUT,
    },
    tracing: tracingSettings(raw),
  };
}

/** The OTEL_* variables this service honours (docs/configuration.md, Tracing in docs/operations.md). */
function tracingSettings(raw: z.infer<typeof envSchema>): TracingSettings {
  const named = raw.OTEL_TRACES_EXPORTER.filter((name): name is 'otlp' | 'console' => name !== 'none');
  const endpoint =
    raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (raw.OTEL_EXPORTER_OTLP_ENDPOINT ? `${raw.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
  // Unlike the SDK default (otlp), nothing is exported unless asked: an exporter named, or an endpoint given.
  const exporters = raw.OTEL_TRACES_EXPORTER.includes('none') ? [] : raw.OTEL_TRACES_EXPORTER.length > 0 ? named : endpoint ? (['otlp'] as const) : [];
  for (const url of [raw.OTEL_EXPORTER_OTLP_ENDPOINT, raw.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT]) {
    if (url && !/^https?:$/.test(new URL(url).protocol))
      throw new ConfigError('Invalid configuration:\n  OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL');
  }
  return {
    enabled: !raw.OTEL_SDK_DISABLED && exporters.length > 0,
    exporters,
    otlpUrl: endpoint,
    otlpProtocol: raw.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? raw.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    serviceName: raw.OTEL_SERVICE_NAME,
    resourceAttributes: raw.OTEL_RESOURCE_ATTRIBUTES,
    sampler: raw.OTEL_TRACES_SAMPLER,
    samplerArg: raw.OTEL_TRACES_SAMPLER_ARG,
  };
}

export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text);
  if (!match) throw new ConfigError(`not a duration: ${text}`);
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(match[1]) * units[match[2] ?? 'ms'];
}
