import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Database } from './db/database.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { ApiKeyService } from './auth/api-keys.ts';
import type { OAuthService } from './auth/oauth/oauth-service.ts';
import type { SessionTokens } from './auth/sessions.ts';
import type { OrganizationService } from './organizations.ts';
import type { RateLimitStore } from './ratelimit/rate-limiter.ts';
import type { ReturnsService } from './returns/returns-service.ts';
import type { ReturnsAnalyticsService } from './returns/analytics-service.ts';
import type { EntityBenchmarks } from './returns/benchmark-service.ts';
import type { ReturnCurrencies } from './returns/fx-currencies.ts';
import type { BenchmarkLevels } from './returns/benchmark-levels.ts';
import type { ReconciliationService } from './returns/reconciliation.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { StorageService } from './storage/storage-service.ts';
import type { JobQueue } from './jobs/job-queue.ts';
import type { IngestJobPayload } from './ingest/ingest-job.ts';
import type { SelfTestScheduler } from './scheduler/self-test-scheduler.ts';
import type { HealthService } from './health/health-service.ts';
import type { BenchmarkService } from './benchmark/benchmark-service.ts';
import type { LinkService } from './workspace/links/link-service.ts';
import type { NewsService } from './workspace/news/news-service.ts';
import type { ChatService } from './workspace/chat/chat-service.ts';
import type { TaskService } from './workspace/tasks/task-service.ts';
import type { StickyService } from './workspace/stickies/sticky-service.ts';
import type { TranscriptService } from './workspace/transcripts/transcript-service.ts';
import type { PubSub } from './pubsub/pubsub.ts';
import type { GenerationService } from './generation/generation-service.ts';
import type { ProgressHub } from './generation/progress-hub.ts';
import type { DatabaseOutageLog } from './db/outage-log.ts';
import type { StreamSlots } from './ratelimit/stream-slots.ts';
import type { ClientQueues } from './ratelimit/client-queues.ts';
import type { KnownCredentials } from './auth/known-credentials.ts';
import type { JobWorker } from './jobs/job-worker.ts';
import type { GenerationJobPayload } from './generation/generation-worker.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { AuditRecorder } from './audit/recorder.ts';
import type { AuditQueries } from './audit/queries.ts';
import type { UsageService } from './usage/usage-service.ts';
import type { WebhookDispatcher, WebhookJobPayload } from './webhooks/dispatch.ts';
import type { WebhookEndpointService } from './webhooks/endpoint-service.ts';
import type { DataVersions } from './cache/data-versions.ts';
import type { ResponseCache } from './cache/response-cache.ts';

/** The process's domain services and infrastructure adapters, wired once in server/app.ts. */
export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  prisma: PrismaClient;
  startedAt: Date;
  version: string;
  apiKeys: ApiKeyService;
  /** The MCP endpoint's built-in OAuth 2.1 authorization server. */
  oauth: OAuthService;
  sessions: SessionTokens;
  organizations: OrganizationService;
  rateLimits: RateLimitStore;
  returns: ReturnsService;
  /** periods, calendar and money-weighted returns over the daily returns */
  returnsAnalytics: ReturnsAnalyticsService;
  /** assigning an entity's benchmark and listing the organizations' benchmark series */
  entityBenchmarks: EntityBenchmarks;
  /** the currencies an entity's returns can be reported in (one uploaded pair away) */
  returnCurrencies: ReturnCurrencies;
  /** an entity's assigned benchmark's levels and cumulative return over a range */
  benchmarkLevels: BenchmarkLevels;
  /** the comparison's classification: thresholds changes re-classify */
  reconciliation: ReconciliationService;
  blobs: BlobStore;
  storage: StorageService;
  jobs: JobQueue;
  /** Runs the `ingest` jobs (src/ingest/ingest-job.ts); `GET /status` reports its state. */
  ingestWorker: JobWorker<IngestJobPayload>;
  scheduler: SelfTestScheduler;
  health: HealthService;
  benchmark: BenchmarkService;
  links: LinkService;
  news: NewsService;
  chat: ChatService;
  tasks: TaskService;
  stickies: StickyService;
  transcripts: TranscriptService;
  pubsub: PubSub;
  progress: ProgressHub;
  /** Where this instance listens, once it does (set by server/app.ts; its self-test's HTTP checks call it). */
  listening: { url?: string };
  /** One warning per database outage, not a stack trace per refused request. */
  databaseOutage: DatabaseOutageLog;
  /** Which user a presented credential is (by its hash), to refuse a client at a cap before looking it up again. */
  knownCredentials: KnownCredentials;
  /** Each client's requests served at once and waiting (REQUESTS_IN_FLIGHT_PER_CLIENT, REQUESTS_QUEUED_PER_CLIENT). */
  clientQueues: ClientQueues;
  /** Open event streams per user (STREAMS_PER_USER), every transport together. */
  streams: StreamSlots;
  generation: GenerationService;
  generationWorker: JobWorker<GenerationJobPayload>;
  /** Prometheus metrics (src/metrics; noopMetrics when METRICS_ENABLED=false). */
  metrics: Metrics;
  /** The audit log's writer (src/audit): every front's mutations, credential and sign-in events, refusals. */
  audit: AuditRecorder;
  /** Reading the audit log (GET /api/audit-events, auditEvents, the export). */
  auditEvents: AuditQueries;
  /** Per-client usage and the callers of deprecated fields and routes (src/usage; flushed every USAGE_FLUSH_INTERVAL and on close). */
  usage: UsageService;
  /** Emits webhook events: writes each subscribed endpoint's delivery and its job (src/webhooks/dispatch.ts). */
  webhookDispatcher: WebhookDispatcher;
  /** Sends the webhook deliveries, attempt by attempt (src/webhooks/delivery-worker.ts). */
  webhookWorker: JobWorker<WebhookJobPayload>;
  /** Webhook endpoints: who manages which, caps, secrets (src/webhooks/endpoint-service.ts). */
  webhooks: WebhookEndpointService;
  /** The data versions cached reads are keyed by (src/cache/data-versions.ts, docs/caching.md). */
  dataVersions: DataVersions;
  /** This instance's cached answers (RESPONSE_CACHE_MAX_BYTES; disabled at 0). */
  responseCache: ResponseCache;
}
