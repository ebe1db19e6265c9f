import path from 'node:path';
import { z } from 'zod';
import type { TracingSettings } from './tracing/tracing.ts';
import { databaseUrlProblem } from './db/database-url.ts';
import { TRANSCRIPT_LIMITS } from './workspace/transcripts/parsers.ts';

/**
 * Every setting is an environment variable, parsed and validated here once, in the groups below.
 * Each variable's `.describe()` is its meaning in docs/configuration.md (Markdown; links relative to
 * docs/), whose table `npm run emit` generates from these groups with the defaults and allowed
 * values read from the schemas (server/configuration-table.ts); test/schema/configuration-doc.test.ts
 * fails when it is stale. `.meta({ valueKind })` tells that table what a schema cannot: a duration
 * or a boolean parsed from text, a count of bytes.
 */
const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes')
  .meta({ valueKind: 'boolean' });

const optionalUrl = z
  .string()
  .trim()
  .optional()
  .transform((value) => (value ? value : undefined))
  .pipe(z.url().optional());

const durationMs = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)?$/, 'expected a duration such as 500ms, 30s, 5m, 1h or 30d')
  .transform(parseDuration)
  .meta({ valueKind: 'duration' });

/**
 * The largest input an operation takes is a transcript's content (TRANSCRIPT_LIMITS, 5 MiB); in a
 * JSON body it may grow up to twice (escaped line breaks and quotes), and the rest of the request
 * gets a MiB. So a /graphql body of that size fits every valid operation, and nothing much larger.
 */
const GRAPHQL_DEFAULT_BODY_BYTES = 2 * TRANSCRIPT_LIMITS.contentBytes + 1024 * 1024;

const service = {
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('production')
    .describe(
      '`development` (set by `npm run dev`) serves GraphiQL at `/graphql`; `production` and `test` do not. When unset, the service sets it to `production` before loading its libraries (`server/node-env.ts`), so graphql-js and express run without their development-only checks, as the configuration assumes',
    ),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000).describe('HTTP port (`0`: any free port)'),
  HOST: z
    .string()
    .trim()
    .min(1)
    .default('127.0.0.1')
    .describe(
      'listen address: loopback only by default; `0.0.0.0` (or `::`) listens on every interface. The `service listening` log line gives the URL and the address',
    ),
  PUBLIC_URL: optionalUrl.describe(
    "the service's public address (behind a proxy); used for `return_to` when redirecting to `LOGIN_URL`, and its origin is the issuer of the MCP endpoint's OAuth server (without it OAuth works on loopback hosts only: [MCP authorization](mcp.md#authorization-oauth-21))",
  ),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s*]+$/, 'each origin must be scheme://host[:port], no path and no wildcard')))
    .describe(
      "comma-separated origins (`https://app.example.com,http://localhost:5173`: scheme, host and port, no path, no wildcard) whose pages may call every front (REST, `/graphql`, `/api/service`, the event streams) with credentials; empty: CORS off, no response carries `Access-Control-Allow-Origin`, so a page from any other origin (another port, a sibling subdomain that receives the session cookie) cannot read an answer. Those origins also pass the CSRF check and `/api/service`'s Origin check. Every front answers a preflight 204, granting `Access-Control-Allow-*` to listed origins only",
    ),
  DATA_DIR: z.string().default('./data').describe('embedded database, uploaded files, generated session secret'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('how much the JSON log says ([Logs and shutdown](operations.md#logs-and-shutdown))'),
  SHUTDOWN_TIMEOUT: durationMs
    .default(parseDuration('25s'))
    .describe('grace period for in-flight requests on SIGTERM/SIGINT (running summary generations get half of it)'),
  SHUTDOWN_DRAIN: durationMs
    .default(0)
    .describe(
      'on SIGTERM/SIGINT, how long the instance goes on serving everything (new connections, open event streams) with `/readyz` at 503 before it stops accepting and `SHUTDOWN_TIMEOUT` begins (`0`: at once); behind a load balancer set it to a few probe periods, e.g. `5s` ([Probes](operations.md#probes-livez-and-readyz))',
    ),
};

const database = {
  DATABASE_URL: optionalUrl.describe(
    'PostgreSQL URL, `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE`; unset: embedded PGlite in `DATA_DIR/pgdata`. `?schema=name` selects a schema. The database must exist (`createdb -h HOST -U USER DATABASE`); the service creates its tables. A URL of another form stops the start with `Invalid configuration: DATABASE_URL: ...` (exit 2); a server that does not answer, an unknown database or a refused user stops it with one line naming `DATABASE_URL`, what is wrong and the fix (exit 1)',
  ),
  PGLITE_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe("port of the embedded database's PostgreSQL socket (`0`: any free port; the address is in `DATA_DIR/pglite.lock`)"),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^\d+(kB|MB|GB)$/, 'expected a size such as 32MB')
    .default('32MB')
    .describe('PostgreSQL `shared_buffers` of the embedded database (PGlite holds it in the process)'),
  REDIS_URL: optionalUrl.describe(
    'Redis for shared rate-limit counters and the pub/sub of generation progress and cancels; it must answer at start, a later outage fails no request (see [Rate limits](authentication.md#when-redis-is-away))',
  ),
  SEED_DEMO_DATA: booleanString
    .optional()
    .describe(
      'seed demo data when the database has no users; unset: `true` without `DATABASE_URL`, `false` with it (on PostgreSQL: `npm run cli -- seed:demo`); a start without users and without seeding logs how to create the first admin',
    ),
  ANALYZE_AFTER_ROWS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5000)
    .describe(
      "on PostgreSQL, refresh the planner's statistics (`ANALYZE` of the returns tables) after an uploaded file of at least this many rows is loaded, so reads right after a large load do not run on the estimates of a smaller table until autovacuum catches up (the embedded database, which has no autovacuum, does it after every file)",
    ),
};

const signIn = {
  LOGIN_URL: optionalUrl.describe('external login host; browsers without a session go there with `return_to`'),
  SSO_DOMAIN: z.string().optional().describe('`Domain` of the `sso_token` cookie (the parent domain shared with the login host)'),
  SSO_JWT_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      'HS256 secret for session JWTs (`sso_token`); unset: generated and kept in `DATA_DIR/session-secret`. Set it when several instances share sessions',
    ),
  SSO_JWKS_URL: optionalUrl.describe('JWKS of an external identity backend that signs `sso_token`'),
  SSO_JWT_ISSUER: z.string().optional().describe('required `iss` of session JWTs'),
  SSO_JWT_AUDIENCE: z.string().optional().describe('required `aud` of session JWTs'),
  SESSION_TTL: durationMs.default(parseDuration('12h')).describe('lifetime of a session issued by `/login`'),
  COOKIE_SECURE: booleanString.default(true).describe('`Secure` attribute of the cookie (browsers accept it on `http://localhost`)'),
  MAX_API_KEYS_PER_USER: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(20)
    .describe('active (not revoked, not expired) API keys a user may hold at once'),
  MAX_ACCESS_TOKENS_PER_USER: z.coerce
    .number()
    .int()
    .positive()
    .max(10_000)
    .default(20)
    .describe('active (not revoked, not expired) access tokens a user may hold at once'),
};

const uploads = {
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024)
    .meta({ valueKind: 'bytes' })
    .describe('upload size limit'),
  BLOB_STORE: z
    .enum(['local', 's3'])
    .default('local')
    .describe(
      'where uploaded files are kept: `local` (`DATA_DIR/blobs`, for one instance) or `s3` (an S3-compatible bucket, for a fleet: the instance whose worker ingests a file need not be the one that accepted it). With `s3`, uploads stream into a multipart upload (5 MiB parts, two at a time: a few parts in memory whatever the file size); a file over the limit, or a client that goes away, aborts it. An object store that cannot be reached answers an upload `503 {"error": "Object storage is unavailable; retry shortly"}` (after the SDK\'s 3 attempts, a 5 s connect timeout each) and fails the detailed health check. Hourly maintenance aborts multipart uploads under `S3_PREFIX` left unfinished for 24 h (a crash mid-upload). Credentials come from the AWS SDK\'s standard chain ([below](#read-by-libraries-not-by-the-service))',
    ),
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
    )
    .describe('the bucket; required when `BLOB_STORE=s3` (the service does not create it)'),
  S3_ENDPOINT: optionalUrl.describe(
    "URL of an S3-compatible server (MinIO, Ceph RGW, ...); unset: AWS. With it set, the SDK's newer default request checksums are only sent when an operation requires them (many such servers reject them); the upload's SHA-256 is recorded either way",
  ),
  S3_REGION: z.string().trim().min(1).default('us-east-1').describe("the bucket's region (signing region for S3-compatible servers)"),
  S3_FORCE_PATH_STYLE: booleanString
    .default(false)
    .describe(
      '`true`: path-style addressing (`http://endpoint/bucket/key`), which most S3-compatible servers need; `false`: virtual-hosted (`http://bucket.endpoint/key`)',
    ),
  S3_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._/-]{0,200}$/, 'expected letters, digits and . _ - /')
    .default('')
    .describe('prefix of every object key (`gateway` or `gateway/` -> `gateway/<org id>/<file id>`), to share a bucket'),
};

const rateBudgets = {
  RATE_LIMIT_RETURNS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(100)
    .describe('the `returns` budget ([Rate limits](authentication.md#rate-limits))'),
  RATE_LIMIT_UPLOAD_PER_MINUTE: z.coerce.number().int().positive().default(10).describe('the `upload` budget'),
  RATE_LIMIT_CHAT_PER_MINUTE: z.coerce.number().int().positive().default(30).describe('the `chat` budget (`POST /api/chat`, `chat`, `sendChatMessage`)'),
  RATE_LIMIT_GENERATE_PER_MINUTE: z.coerce.number().int().positive().default(10).describe('the `generate` budget (starts of summary generations)'),
  RATE_LIMIT_WEBHOOKS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(20)
    .describe('the `webhooks` budget (webhook test events and redeliveries: each makes the service send a request)'),
  LOGIN_ATTEMPTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .describe(
      'sign-in attempts per client address and, separately, password guesses per account (the sign-in page and a session confirming `currentPassword`), whatever credential is sent ([Sign-in limits](authentication.md#sign-in-limits))',
    ),
  OAUTH_REQUESTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe(
      "the `oauth` budget: requests to the MCP endpoint's OAuth server (`/oauth/register`, `/oauth/authorize`, `/oauth/token`, `/oauth/revoke`) per credential, or per client address without one; registrations (`/oauth/register`) always per client address, whatever credential is sent",
    ),
  RATE_LIMIT_KEY_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/)
    .default('rl')
    .describe('Redis key prefix of the counters (instances sharing budgets share it)'),
};

const fairShare = {
  STREAMS_PER_USER: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(20)
    .describe(
      'open event streams of generation progress a user may hold at once on one instance, every transport together (REST SSE, graphql-sse, graphql-ws, multipart, MCP progress); past it 429 / `RATE_LIMITED` ([Limits](limits.md))',
    ),
  STREAM_UNSENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(16 * 1024)
    .max(1024 * 1024 * 1024)
    .default(1024 * 1024)
    .meta({ valueKind: 'bytes' })
    .describe(
      "bytes a REST event stream (GET /api/generate) may leave unread in its connection before it is closed: EventSource reconnects with Last-Event-ID and gets what it missed from the run's log ([Live progress](subscriptions.md#slow-followers))",
    ),
  REQUESTS_IN_FLIGHT_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(4)
    .describe(
      "requests of one client (its credential as presented, or its address without one) served at once on one instance; the rest wait their turn in the client's own queue ([Limits](limits.md#fair-share-between-clients))",
    ),
  REQUESTS_QUEUED_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(100)
    .describe('requests of one client that may wait for their turn; past it 429 with `Retry-After: 1`'),
  WS_OPERATIONS_PER_SOCKET: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(20)
    .describe('operations in flight (subscriptions included) on one graphql-ws socket (an `error` message for the one past it)'),
  WS_SOCKETS_PER_CREDENTIAL: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(10)
    .describe(
      'graphql-ws sockets one credential (API key, access token, session) may hold open on one instance (429 at the upgrade, or close 4429 at `connection_init`)',
    ),
  WS_ANONYMOUS_SOCKETS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(10)
    .describe('graphql-ws sockets without a valid credential (and those before `connection_init`) per client address on one instance (429 at the upgrade)'),
  HEADERS_TIMEOUT: durationMs
    .refine((ms) => ms >= 1000, 'must be at least 1s')
    .default(parseDuration('10s'))
    .describe("every request's headers must arrive within this (Node's `headersTimeout`; 408, connection closed); at least `1s`"),
  ANONYMOUS_BODY_TIMEOUT: durationMs
    .refine((ms) => ms >= 1000, 'must be at least 1s')
    .default(parseDuration('10s'))
    .describe(
      'a request without a valid credential must have sent its whole body within this (408 `{"error": ...}`, connection closed); a valid credential has `REQUEST_TIMEOUT`; at least `1s`',
    ),
  REQUEST_TIMEOUT: durationMs
    .refine((ms) => ms >= 1000, 'must be at least 1s')
    .default(parseDuration('300s'))
    .describe("the longest any request may take to arrive, headers and body (Node's `requestTimeout`): a large upload on a slow link; at least `1s`"),
};

const graphqlAndMcp = {
  GRAPHQL_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(GRAPHQL_DEFAULT_BODY_BYTES)
    .meta({ valueKind: 'bytes' })
    .describe(
      'the largest `/graphql` request body (JSON, a form, a GET query string) and graphql-ws message (413 `REQUEST_ENTITY_TOO_LARGE`; graphql-ws closes with 1009); uploads have `UPLOAD_MAX_BYTES`. The default is twice the largest input (a 5 MiB transcript, escaped in JSON) and 1 MiB for the rest',
    ),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(12).describe('the deepest selection an operation may have'),
  GRAPHQL_MAX_COMPLEXITY: z.coerce
    .number()
    .int()
    .positive()
    .default(2000)
    .describe('the largest cost an operation may have (each field 1, what a list selects counted 10 times)'),
  GRAPHQL_INTROSPECTION: booleanString
    .default(true)
    .describe(
      '`false` refuses `__schema` and `__type` on every front (a public endpoint that does not describe itself); introspection is otherwise bounded on its own (depth 20), so the standard introspection query of GraphiQL, code generators and API tools passes',
    ),
  GRAPHQL_MAX_BATCH: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe('operations per batched `/graphql` request (a JSON array); each counts toward the limits and budgets like a request of its own'),
  TRUSTED_DOCUMENTS_FILE: z
    .string()
    .trim()
    .default('')
    .describe(
      'a JSON object of id -> document: `/graphql` then runs only those operations, and automatic persisted queries are off ([GraphQL](graphql.md#batching-persisted-queries-and-trusted-documents))',
    ),
  MCP_TOOLS_PAGE_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('tools per `tools/list` page at `POST /api/service`; the default lists every tool on one page (some MCP clients read only the first)'),
};

const jobs = {
  WORKER_ENABLED: booleanString
    .default(true)
    .describe('whether this instance runs the job workers (ingest and summary generation, [Job workers](operations.md#job-workers))'),
  WORKER_POLL_INTERVAL: durationMs.default(parseDuration('1s')).describe('how often an idle job worker looks for jobs'),
  JOB_STALE_AFTER: durationMs
    .refine((ms) => ms >= 1000, 'must be at least 1s')
    .default(parseDuration('15s'))
    .describe(
      'a running job (ingest, summary generation) whose lock has not been renewed for this long was abandoned by its instance and is taken over; locks are renewed and swept every fifth of it (at least `1s`; the same on every instance)',
    ),
  SELF_TEST_ENABLED: booleanString.default(true).describe('whether the scheduled self-test runs ([Operations endpoints](operations.md#operations-endpoints))'),
  SELF_TEST_CRON: z.string().default('*/15 * * * *').describe('the self-test schedule (cron syntax)'),
};

const audit = {
  AUDIT_RETENTION: durationMs
    .refine((ms) => ms >= 86_400_000, 'must be at least 1d')
    .default(parseDuration('400d'))
    .describe('how long audit events are kept; the hourly maintenance deletes older ones ([Audit log](audit.md#retention))'),
  AUDIT_QUEUE_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe('audit events held in memory before they are written; while it is full, mutations wait for room ([Audit log](audit.md#cost))'),
  AUDIT_FLUSH_INTERVAL: durationMs
    .refine((ms) => ms >= 1 && ms <= 1000, 'must be between 1ms and 1s')
    .optional()
    .describe(
      "how long an audit event may wait before its batch is written: the most a crash can lose; unset: `1s` on the embedded database, where each batch costs milliseconds of the service's own thread and larger batches are measurably cheaper; `250ms` on PostgreSQL, where the interval made no difference the benchmark could tell and a crash then loses less ([Audit log](audit.md#cost))",
    ),
};

const caching = {
  RESPONSE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024)
    .meta({ valueKind: 'bytes' })
    .describe(
      "memory for this instance's cached answers of cached reads (their JSON's length), the least recently used dropped first; an answer over an eighth of it is not kept; `0` turns the cache off (conditional GETs still answer 304) ([Caching](caching.md))",
    ),
};

const metrics = {
  METRICS_ENABLED: booleanString
    .default(true)
    .describe('Prometheus metrics at `GET /metrics` ([Metrics](operations.md#metrics)); `false`: nothing is measured or served'),
  METRICS_PORT: z
    .string()
    .trim()
    .optional()
    .transform((value) => (value ? Number(value) : undefined))
    .pipe(z.number('expected a port number').int().min(0).max(65535).optional())
    .describe(
      'empty: `/metrics` on the main port; a port number: `/metrics` on a listener of its own (on `HOST`), and not on the main port (404 there); `0`: any free port. Must differ from `PORT`',
    ),
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
    )
    .describe(
      'when set, `/metrics` answers only `Authorization: Bearer <METRICS_TOKEN>` (401 `{"error":...}` otherwise), on either port; never logged. On the main port without it the page is public, so in production (`NODE_ENV=production`) it is then **not served** (404, warning at start): set a token or `METRICS_PORT`',
    ),
};

const usage = {
  USAGE_ENABLED: booleanString
    .default(true)
    .describe(
      'per-client usage: requests, errors, latency and rate-limit refusals per credential, operation and front, and the callers of deprecated fields and routes ([Usage and deprecation](usage-and-deprecation.md))',
    ),
  USAGE_FLUSH_INTERVAL: durationMs
    .refine((ms) => ms >= 100, 'must be at least 100ms')
    .default(parseDuration('10s'))
    .describe(
      "how often an instance adds the usage it counted in memory to the database (and at shutdown); a crash loses at most this much of the instance's counts",
    ),
  USAGE_HOURLY_RETENTION: durationMs
    .refine((ms) => ms >= 3_600_000, 'must be at least 1h')
    .default(parseDuration('14d'))
    .describe('how long hourly usage rows are kept'),
  USAGE_DAILY_RETENTION: durationMs
    .refine((ms) => ms >= 86_400_000, 'must be at least 1d')
    .default(parseDuration('400d'))
    .describe('how long daily usage rows (and the record of calls of deprecated fields and routes) are kept'),
};

const returns = {
  COMPARISON_MATCH_BPS: z.coerce
    .number()
    .nonnegative()
    .default(1)
    .describe(
      'default comparison threshold of `match` (inclusive, basis points; at most `COMPARISON_REVIEW_BPS`); a change re-classifies the stored comparison at the next start ([Returns](returns-and-csv.md#returns))',
    ),
  COMPARISON_REVIEW_BPS: z.coerce.number().nonnegative().default(10).describe('default comparison threshold of `review` (inclusive, basis points)'),
  BENCHMARK_FAST_MS: z.coerce
    .number()
    .positive()
    .default(50)
    .describe('benchmark rating: a time below this many milliseconds is `fast` (`FAST < GOOD < SLOW`)'),
  BENCHMARK_GOOD_MS: z.coerce.number().positive().default(200).describe('benchmark rating: below this (and not fast) is `good`'),
  BENCHMARK_SLOW_MS: z.coerce.number().positive().default(1000).describe('benchmark rating: below this (and not good) is `slow`; at or above it `critical`'),
};

const workspace = {
  STICKY_TRASH_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36500)
    .default(30)
    .describe('days a sticky stays in the trash before the hourly purge deletes it with its versions'),
  CHAT_API_URL: optionalUrl.describe('OpenAI-compatible API base URL (e.g. `https://api.openai.com/v1`); unset: the offline assistant'),
  CHAT_API_KEY: z.string().optional().describe('bearer key for that API'),
  CHAT_MODEL: z.string().trim().min(1).max(200).default('gpt-4o-mini').describe('model for that API'),
  CHAT_TIMEOUT: durationMs
    .refine((ms) => ms > 0, 'must be more than 0')
    .default(parseDuration('30s'))
    .describe('chat request timeout (504 after it)'),
  TASK_PROVIDER: z.enum(['builtin', 'http']).default('builtin').describe("`builtin` (the database's tables) or `http` (a project-management tool's HTTP API)"),
  PM_API_URL: optionalUrl.describe("the project-management tool's API (required with `TASK_PROVIDER=http`)"),
  PM_API_KEY: z.string().optional().describe("the project-management tool's API key"),
  PM_API_TIMEOUT: durationMs
    .refine((ms) => ms > 0, 'must be more than 0')
    .default(parseDuration('10s'))
    .describe('per-request timeout of that API (504 after it)'),
  TRANSCRIPT_PROVIDER: z
    .enum(['builtin', 'http'])
    .default('builtin')
    .describe('`builtin` (the database, imports) or `http` (a meeting-transcription service, read-only)'),
  TRANSCRIPT_API_URL: optionalUrl.describe('the transcription service (required with `TRANSCRIPT_PROVIDER=http`)'),
  TRANSCRIPT_API_KEY: z.string().optional().describe("the transcription service's key (required with `TRANSCRIPT_PROVIDER=http`)"),
  TRANSCRIPT_API_TIMEOUT: durationMs.default(parseDuration('10s')).describe('whole-response timeout of that service (504 after it)'),
};

const generation = {
  GENERATION_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2).describe('summary generation runs executed at once per instance'),
  GENERATION_AGENT_TIMEOUT: durationMs
    .refine((ms) => ms > 0, 'must be more than 0')
    .default(parseDuration('60s'))
    .describe('time allowed for each agent of a run (it fails `Timed out after 60 s` beyond)'),
  GENERATION_HEARTBEAT: durationMs
    .refine((ms) => ms >= 100, 'must be at least 100ms')
    .default(parseDuration('15s'))
    .describe("heartbeat interval of progress streams (at least `100ms`); also how often an unfinished run's log is re-read for missed events"),
  GENERATION_STEP_DELAY: durationMs
    .default(0)
    .describe('pause before each progress step, for demos and progress-UI work (e.g. `50ms` makes runs last); `0` in production'),
};

const webhooks = {
  WEBHOOK_SECRET_KEY: z
    .string()
    .min(32, 'must be at least 32 characters')
    .optional()
    .describe(
      "key that encrypts the webhook endpoints' signing secrets in the database (AES-256-GCM with its SHA-256); unset: generated and kept in `DATA_DIR/webhook-secret-key`. Set it, the same on every instance, when several instances share a database; changing it makes the stored secrets unreadable ([Webhooks](webhooks.md#endpoints))",
    ),
  WEBHOOK_MAX_ENDPOINTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(20)
    .describe(
      'webhook endpoints an organization may have, and a user may have of their own; one more is refused `409 CONFLICT` ([Webhooks](webhooks.md#endpoints))',
    ),
  WEBHOOK_ALLOW_PRIVATE: booleanString
    .default(false)
    .describe(
      '`true` lets webhooks go to loopback, private, link-local, CGNAT, unique-local and metadata addresses (tests, or receivers on a private network); `false` refuses them at registration and again at every delivery, after resolving the name ([Webhooks: safety](webhooks.md#safety))',
    ),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('0,5s,5m,30m,2h,5h,10h,10h')
    .transform((value) => value.split(',').map((part) => part.trim()))
    .pipe(
      z
        .array(z.string().regex(/^\d+(ms|s|m|h|d)?$/, 'each entry must be a duration such as 0, 5s, 5m or 10h'))
        .min(1)
        .max(20),
    )
    .transform((parts) => parts.map(parseDuration))
    .describe(
      "comma-separated delay before each attempt of a webhook delivery, the first one's counted from the event (Standard Webhooks' suggested schedule by default: 8 attempts over about 28 h); after the last attempt fails the delivery is `failed` ([Webhooks: retries](webhooks.md#retries))",
    ),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe(
      "webhook deliveries of one owner (an organization, or a user's own endpoints) one instance sends at once; more wait their turn, so one owner's slow receivers cannot take every sender ([Webhooks: limits](webhooks.md#limits))",
    ),
  WEBHOOK_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .default(32)
    .describe(
      'webhook deliveries one instance sends at once, every owner together; each waits at most 10 s for its receiver ([Webhooks: limits](webhooks.md#limits))',
    ),
};

const otlpProtocol = z.enum(['http/protobuf', 'http/json'], 'expected http/protobuf or http/json (grpc is not supported)');

const tracing = {
  OTEL_TRACES_EXPORTER: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['otlp', 'console', 'none'], 'expected otlp, console or none (comma-separated)')))
    .describe(
      '`otlp`, `console` or both (comma-separated), `none`: turns tracing on. Unlike the OpenTelemetry SDK default, nothing is traced unless this names an exporter or an OTLP endpoint is set ([Tracing](operations.md#tracing))',
    ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.describe(
    'OTLP/HTTP base URL (e.g. `http://collector:4318`); spans go to `<endpoint>/v1/traces`. Set alone, it turns tracing on with the `otlp` exporter',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl.describe('the full traces URL, used as given (wins over `OTEL_EXPORTER_OTLP_ENDPOINT`)'),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional().describe('the OTLP encoding; unset: `http/protobuf` (`grpc` is refused)'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional().describe('the OTLP encoding of traces (wins over `OTEL_EXPORTER_OTLP_PROTOCOL`)'),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).default('graphql-gateway').describe('`service.name` of the spans'),
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
    })
    .describe('more resource attributes, `key=value` comma-separated, values percent-encoded (e.g. `deployment.environment=prod`)'),
  OTEL_TRACES_SAMPLER: z
    .enum(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
    .default('parentbased_always_on')
    .describe('which spans are recorded'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional().describe("the sampler's ratio (unset: 1)"),
  OTEL_SDK_DISABLED: booleanString.default(false).describe('`true` turns tracing off whatever the other variables say'),
};

/** The groups in the order docs/configuration.md shows them; each variable in exactly one (a test checks it). */
export const CONFIGURATION_GROUPS = [
  { title: 'Service', variables: service },
  { title: 'Database and Redis', variables: database },
  { title: 'Sign-in and sessions', variables: signIn },
  { title: 'Uploads and file storage', variables: uploads },
  { title: 'Rate budgets', variables: rateBudgets },
  { title: 'Fair share and timeouts', variables: fairShare },
  { title: 'GraphQL and MCP', variables: graphqlAndMcp },
  { title: 'Jobs and self-tests', variables: jobs },
  { title: 'Audit log', variables: audit },
  { title: 'Caching', variables: caching },
  { title: 'Metrics', variables: metrics },
  { title: 'Usage', variables: usage },
  { title: 'Returns and benchmark', variables: returns },
  { title: 'Workspace', variables: workspace },
  { title: 'Summary generation', variables: generation },
  { title: 'Webhooks', variables: webhooks },
  { title: 'Tracing (OpenTelemetry)', variables: tracing },
] as const satisfies readonly { title: string; variables: z.ZodRawShape }[];

export const envSchema = z.object({
  ...service,
  ...database,
  ...signIn,
  ...uploads,
  ...rateBudgets,
  ...fairShare,
  ...graphqlAndMcp,
  ...jobs,
  ...audit,
  ...caching,
  ...metrics,
  ...usage,
  ...returns,
  ...workspace,
  ...generation,
  ...webhooks,
  ...tracing,
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
      webhooksPerMinute: raw.RATE_LIMIT_WEBHOOKS_PER_MINUTE,
    },
    comparison: { matchBps: raw.COMPARISON_MATCH_BPS, reviewBps: raw.COMPARISON_REVIEW_BPS },
    selfTest: { cron: raw.SELF_TEST_CRON, enabled: raw.SELF_TEST_ENABLED },
    worker: { enabled: raw.WORKER_ENABLED, pollIntervalMs: raw.WORKER_POLL_INTERVAL, staleAfterMs: raw.JOB_STALE_AFTER },
    ingest: { analyzeAfterRows: raw.ANALYZE_AFTER_ROWS },
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT,
    shutdownDrainMs: raw.SHUTDOWN_DRAIN,
    /** `port` undefined: /metrics on the main port. The token is never logged. */
    cache: { maxBytes: raw.RESPONSE_CACHE_MAX_BYTES },
    metrics: { enabled: raw.METRICS_ENABLED, port: raw.METRICS_PORT, token: raw.METRICS_TOKEN },
    usage: {
      enabled: raw.USAGE_ENABLED,
      flushIntervalMs: raw.USAGE_FLUSH_INTERVAL,
      hourlyRetentionMs: raw.USAGE_HOURLY_RETENTION,
      dailyRetentionMs: raw.USAGE_DAILY_RETENTION,
    },
    cors: { origins: raw.CORS_ORIGINS },
    mcp: { toolsPageSize: raw.MCP_TOOLS_PAGE_SIZE },
    /** Fair share between clients (docs/limits.md). */
    limits: {
      streamsPerUser: raw.STREAMS_PER_USER,
      streamUnsentMaxBytes: raw.STREAM_UNSENT_MAX_BYTES,
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
    audit: { retentionMs: raw.AUDIT_RETENTION, queueMax: raw.AUDIT_QUEUE_MAX, flushMs: raw.AUDIT_FLUSH_INTERVAL ?? (raw.DATABASE_URL ? 250 : 1000) },
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
    /** The secret key is never logged; unset: generated in DATA_DIR (src/webhooks/secrets.ts). */
    webhooks: {
      secretKey: raw.WEBHOOK_SECRET_KEY,
      maxEndpoints: raw.WEBHOOK_MAX_ENDPOINTS,
      allowPrivate: raw.WEBHOOK_ALLOW_PRIVATE,
      retryScheduleMs: raw.WEBHOOK_RETRY_SCHEDULE,
      maxInFlightPerOwner: raw.WEBHOOK_MAX_IN_FLIGHT,
      concurrency: raw.WEBHOOK_CONCURRENCY,
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
