import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Config } from '../src/config.ts';
import { createLogger, type Logger } from '../src/log.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { DatabaseOutageLog } from '../src/db/outage-log.ts';
import { assertPortFree, PortInUseError } from './port-check.ts';
import { ClientQueues } from '../src/ratelimit/client-queues.ts';
import { KnownCredentials } from '../src/auth/known-credentials.ts';
import type { Services } from '../src/services.ts';
import { ApiKeyService } from '../src/auth/api-keys.ts';
import { OAuthService } from '../src/auth/oauth/oauth-service.ts';
import { SessionTokens } from '../src/auth/sessions.ts';
import { OrganizationService } from '../src/organizations.ts';
import { createRateLimitStore } from '../src/ratelimit/rate-limiter.ts';
import { connectRedis } from '../src/redis/redis-client.ts';
import { ReturnsService } from '../src/returns/returns-service.ts';
import { ReturnsAnalyticsService } from '../src/returns/analytics-service.ts';
import { EntityBenchmarks } from '../src/returns/benchmark-service.ts';
import { ReturnCurrencies } from '../src/returns/fx-currencies.ts';
import { BenchmarkLevels } from '../src/returns/benchmark-levels.ts';
import { LocalBlobStore, type BlobStore } from '../src/storage/blob-store.ts';
import { StorageService } from '../src/storage/storage-service.ts';
import { JobQueue } from '../src/jobs/job-queue.ts';
import { createIngestWorker } from '../src/ingest/ingest-worker.ts';
import { SelfTestScheduler } from '../src/scheduler/self-test-scheduler.ts';
import { builtInChecks } from '../src/scheduler/self-test-checks.ts';
import { HealthService } from '../src/health/health-service.ts';
import { Readiness } from '../src/health/readiness.ts';
import { BenchmarkService } from '../src/benchmark/benchmark-service.ts';
import { LinkService } from '../src/workspace/links/link-service.ts';
import { NewsService } from '../src/workspace/news/news-service.ts';
import { createHttpApp } from './http/http-app.ts';
import { attachGraphqlWs } from './http/graphql-ws.ts';
import type { GetEnvelopedFn } from '@envelop/core';
import { listeningUrl, prepareFirstStart } from '../src/seed/first-start.ts';
import { startMaintenance } from '../src/jobs/maintenance.ts';
import { createChatService } from '../src/workspace/chat/chat-service.ts';
import { createTaskService } from '../src/workspace/tasks/task-service.ts';
import { StickyService } from '../src/workspace/stickies/sticky-service.ts';
import { createTranscriptService } from '../src/workspace/transcripts/transcript-service.ts';
import { MemoryPubSub, RedisPubSub, type PubSub } from '../src/pubsub/pubsub.ts';
import { createGeneration } from '../src/generation/generation-worker.ts';
import { ReconciliationService } from '../src/returns/reconciliation.ts';
import { countingRefusals, createPrometheusMetrics, jobQueueStats, noopMetrics } from '../src/metrics/index.ts';
import { startMetricsListener, type MetricsListener } from './http/metrics.ts';
import { startTracing, tracePool } from '../src/tracing/index.ts';
import { AuditRecorder } from '../src/audit/recorder.ts';
import { AuditQueries } from '../src/audit/queries.ts';
import { DataVersions } from '../src/cache/data-versions.ts';
import { createResponseCache } from '../src/cache/response-cache.ts';
import { purgeAuditEvents } from '../src/audit/retention.ts';
import { operationLabels } from '../src/audit/operation-labels.ts';
import { recordIngestOutcomes } from '../src/audit/ingest-events.ts';
import { UsageService } from '../src/usage/usage-service.ts';
import { deprecationCatalog } from '../src/usage/deprecation-catalog.ts';
import { getSchema } from '../schema/index.ts';
import { restRoutes } from '../rest-compat/routes/index.ts';
import { TOOLS } from '../mcp/tools.ts';
import { createWebhookDelivery } from '../src/webhooks/delivery-worker.ts';
import { fileEvents, generationEvents, selfTestEvents } from '../src/webhooks/emitters.ts';
import { webhookSecretKey } from '../src/webhooks/secrets.ts';
import { WebhookEndpointService } from '../src/webhooks/endpoint-service.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface RunningService {
  services: Services;
  server: http.Server;
  url: string;
  /** The METRICS_PORT listener's URL (serves /metrics), when there is one. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/** Opens the database, migrates, wires the services, seeds demo data and listens. */
export async function startService(config: Config, options: { log?: Logger } = {}): Promise<RunningService> {
  const log = options.log ?? createLogger(config.logLevel);
  // Before the database is opened, migrated or seeded: a taken port is said at once, naming PORT.
  await assertPortFree(config.host, config.port);
  const drainMs = config.shutdownDrainMs;
  // One warning per database outage, whoever meets it first: a request, a worker's poll, the pool.
  const databaseOutage = new DatabaseOutageLog(log.child({ component: 'database' }));
  // Tracing (OTEL_* variables; off by default): installed before anything runs a query.
  const tracing = await startTracing(config.tracing, { version: VERSION });
  if (tracing) log.info({ exporters: config.tracing.exporters, serviceName: config.tracing.serviceName }, 'tracing on');
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pglitePort: config.pglitePort,
    pgliteSharedBuffers: config.pgliteSharedBuffers,
    onConnectionError: (error) => databaseOutage.failed(error),
  }).catch(async (error: unknown) => {
    await tracing?.shutdown();
    throw error;
  });
  if (tracing) tracePool(db.pool);
  let redis: Redis | undefined;
  try {
    await migrate(db.pool, { log: (message, extra) => log.info(extra ?? {}, message) });
    redis = config.redisUrl ? await connectRedis(config.redisUrl, log.child({ component: 'redis' })) : undefined;
    const services = buildServices(config, db, log, { redis, databaseOutage, blobs: await createBlobStore(config, log) });
    for (const { orgId, changed } of await services.reconciliation.reclassifyStale()) {
      log.info({ orgId, changed }, 'comparison thresholds changed: organization re-classified');
    }
    const announceFirstStart = await prepareFirstStart(services);

    const lifecycle: { stopping: boolean; readiness?: Readiness } = { stopping: false };
    // The service migrates before it listens, so /readyz never sees the migrations running.
    lifecycle.readiness = new Readiness({
      db,
      redis,
      blobs: services.blobs,
      shuttingDown: () => lifecycle.stopping,
      log: log.child({ component: 'readiness' }),
    });
    lifecycle.readiness.markMigrated();
    const app = createHttpApp(services, lifecycle);
    const server = http.createServer(
      {
        // Headers from everyone, and whole requests, within these (docs/limits.md); a body sent
        // without a credential has ANONYMOUS_BODY_TIMEOUT (server/http/body-deadline.ts).
        headersTimeout: config.limits.headersTimeoutMs,
        requestTimeout: config.limits.requestTimeoutMs,
        // How often Node checks those two (its default, 30 s, would let a header deadline slip by that much).
        connectionsCheckingInterval: 1_000,
      },
      app.listener,
    );
    const closeWebSockets = attachGraphqlWs(server, services, app.locals.getEnveloped as GetEnvelopedFn<object>);
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    await new Promise<void>((resolve, reject) => {
      // Taken since the check at the start (another process was quicker): the same message.
      server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(config.host, config.port) : error));
      server.listen(config.port, config.host, resolve);
    });
    const address = server.address() as AddressInfo;
    const url = listeningUrl(address);
    services.listening.url = url;
    const metricsListener =
      config.metrics.enabled && config.metrics.port !== undefined
        ? await startMetricsListener({
            metrics: services.metrics,
            token: config.metrics.token,
            host: config.host,
            port: config.metrics.port,
            log: log.child({ component: 'metrics' }),
          }).catch(async (error: unknown) => {
            server.close();
            await closeWebSockets();
            throw error;
          })
        : undefined;
    if (metricsListener) log.info({ url: `${metricsListener.url}/metrics` }, 'metrics listening');
    if (config.worker.enabled) {
      services.ingestWorker.start();
      services.generationWorker.start();
      services.webhookWorker.start();
    }
    services.scheduler.start();
    // A key's or token's first use, in the audit log (the request that used it follows with the same credential).
    services.apiKeys.onFirstUse = (key) =>
      services.audit.record({
        front: 'system',
        operation: 'credential.first-use',
        outcome: 'ok',
        actorId: key.userId,
        credential: key,
        target: { type: 'ApiKey', id: key.id },
      });
    services.oauth.onFirstUse = (grant) =>
      services.audit.record({
        front: 'system',
        operation: 'credential.first-use',
        outcome: 'ok',
        actorId: grant.userId,
        credential: { kind: 'oauth_app', id: grant.id },
        target: { type: 'OAuthGrant', id: grant.id },
      });
    services.usage.start();
    const stopMaintenance = startMaintenance({
      jobs: services.jobs,
      blobs: services.blobs,
      oauth: services.oauth,
      audit: { purge: () => purgeAuditEvents(db.pool, config.audit.retentionMs) },
      log: log.child({ component: 'maintenance' }),
    });
    const stopStickyPurge = services.stickies.startPurging();
    log.info({ url, address: address.address, port: address.port, database: db.kind, redis: Boolean(redis), env: config.env }, 'service listening');
    announceFirstStart(url);

    let stopping: Promise<void> | undefined;
    const stop = () => {
      lifecycle.stopping = true;
      stopMaintenance();
      stopStickyPurge();
      return (stopping ??= drain(services, drainMs)
        .then(() => shutdown(services, server, closeWebSockets, redis, metricsListener))
        .finally(() => tracing?.shutdown()));
    };
    return { services, server, url, metricsUrl: metricsListener?.url, stop };
  } catch (error) {
    redis?.disconnect();
    await db.close();
    await tracing?.shutdown();
    throw error;
  }
}

/** Two listeners of the same outcome, each told even when the other throws. */
function bothListeners<T>(first: (value: T) => void, second: (value: T) => void): (value: T) => void {
  return (value) => {
    try {
      first(value);
    } finally {
      second(value);
    }
  };
}

/** An idle keep-alive connection is closed after this; the client opens a new one when it needs it. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Where uploaded files go (BLOB_STORE): the S3 store's module, with the AWS SDK, is loaded only
 * when it is configured (most of a second of every start otherwise).
 */
export async function createBlobStore(config: Config, log: Logger): Promise<BlobStore> {
  if (config.blobStore.kind !== 's3') return new LocalBlobStore(config.storage.dir);
  const { S3BlobStore } = await import('../src/storage/s3-blob-store.ts');
  return new S3BlobStore({ ...config.blobStore, log: log.child({ component: 'blobs' }) });
}

export interface ServiceParts {
  redis?: Redis;
  databaseOutage?: DatabaseOutageLog;
  /** From createBlobStore (required when BLOB_STORE=s3; the local store otherwise). */
  blobs?: BlobStore;
}

export function buildServices(config: Config, db: Database, log: Logger, parts: ServiceParts = {}): Services {
  const { redis } = parts;
  const databaseOutage = parts.databaseOutage ?? new DatabaseOutageLog(log.child({ component: 'database' }));
  const prisma = db.prisma;
  // One registry per service instance (several services can run in one process: the tests).
  const metrics = config.metrics.enabled
    ? createPrometheusMetrics({ pool: db.pool, poolMax: db.pool.options.max, jobStats: () => jobQueueStats(db.pool) })
    : noopMetrics;
  if (!parts.blobs && config.blobStore.kind === 's3') throw new Error('BLOB_STORE=s3: create the store with createBlobStore() and pass it');
  const blobs = parts.blobs ?? new LocalBlobStore(config.storage.dir);
  const jobs = new JobQueue(db.pool);
  const rateLimits = createRateLimitStore(
    {
      returns: { points: config.rateLimits.returnsPerMinute, windowSeconds: 60 },
      upload: { points: config.rateLimits.uploadPerMinute, windowSeconds: 60 },
      login: { points: config.rateLimits.loginPerMinute, windowSeconds: 60 },
      chat: { points: config.rateLimits.chatPerMinute, windowSeconds: 60 },
      generate: { points: config.rateLimits.generatePerMinute, windowSeconds: 60 },
      oauth: { points: config.rateLimits.oauthPerMinute, windowSeconds: 60 },
      webhooks: { points: config.rateLimits.webhooksPerMinute, windowSeconds: 60 },
    },
    { redis, keyPrefix: config.rateLimits.keyPrefix, log: log.child({ component: 'ratelimit' }) },
  );
  const startedAt = new Date();
  const audit = new AuditRecorder({
    pool: db.pool,
    database: db.kind,
    embeddedDataDir: db.embeddedDataDir,
    log: log.child({ component: 'audit' }),
    queueMax: config.audit.queueMax,
    flushMs: config.audit.flushMs,
    labels: operationLabels(restRoutes, TOOLS),
  });
  // This instance's own address once it listens (its self-test probes it; several services in one process each probe their own).
  const listening: Services['listening'] = {};
  const pubsub: PubSub = redis ? new RedisPubSub(redis, log.child({ component: 'pubsub' })) : new MemoryPubSub();
  // Webhooks (src/webhooks): the key of the stored signing secrets, what emits events and what sends them.
  const webhookKey = webhookSecretKey(config.webhooks.secretKey, config.dataDir);
  const webhookDelivery = createWebhookDelivery({ config, db, jobs, log, secretKey: webhookKey, userAgent: `gateway-webhooks/${VERSION}`, databaseOutage });
  const emitting = {
    dispatcher: webhookDelivery.dispatcher,
    pool: db.pool,
    log: log.child({ component: 'webhooks' }),
    baseUrl: () => config.publicUrl ?? listening.url,
  };
  const generationWebhooks = generationEvents(emitting);
  const workspace = {
    links: new LinkService(prisma),
    news: new NewsService(prisma),
    tasks: createTaskService(config.tasks, prisma, log.child({ component: 'tasks' })),
    stickies: new StickyService({ prisma, sql: db.pool, trashRetentionDays: config.stickies.trashRetentionDays, log: log.child({ component: 'stickies' }) }),
    transcripts: createTranscriptService({ config: config.transcripts, prisma, log: log.child({ component: 'transcripts' }) }),
  };
  const generation = createGeneration({
    config,
    db,
    jobs,
    pubsub,
    workspace,
    databaseOutage,
    progressObserver: {
      published: (event) => {
        metrics.generationEvent(event);
        generationWebhooks(event);
      },
      fannedOut: (ms) => metrics.fanOutDelay(ms / 1000),
    },
    log: log.child({ component: 'generation' }),
  });
  return {
    config,
    log,
    db,
    prisma,
    startedAt,
    version: VERSION,
    apiKeys: new ApiKeyService(prisma, config.auth.maxActiveCredentials, db.pool),
    oauth: new OAuthService(prisma),
    sessions: new SessionTokens(config.auth, config.dataDir),
    organizations: new OrganizationService(prisma),
    rateLimits: countingRefusals(rateLimits, metrics),
    returns: new ReturnsService(db.pool),
    returnsAnalytics: new ReturnsAnalyticsService(db.pool),
    entityBenchmarks: new EntityBenchmarks(db.pool),
    returnCurrencies: new ReturnCurrencies(db.pool),
    benchmarkLevels: new BenchmarkLevels(db.pool),
    reconciliation: new ReconciliationService(db.pool, config.comparison),
    blobs,
    storage: new StorageService({ prisma, blobs, jobs, config, log: log.child({ component: 'storage' }) }),
    jobs,
    ingestWorker: createIngestWorker({
      config,
      db,
      jobs,
      blobs,
      metrics,
      log,
      databaseOutage,
      onFileDone: bothListeners(
        recordIngestOutcomes(audit, db.pool, (error) => log.error({ err: error }, 'ingest outcome not recorded in the audit log')),
        fileEvents(emitting),
      ),
    }),
    scheduler: new SelfTestScheduler({
      db,
      prisma,
      log: log.child({ component: 'scheduler' }),
      cron: config.selfTest.cron,
      enabled: config.selfTest.enabled,
      audit,
      checks: builtInChecks({ db, blobs, baseUrl: () => listening.url, jobQueueDepths: () => jobs.depths() }),
      onRunFinished: selfTestEvents(emitting),
    }),
    health: new HealthService({
      db,
      blobs,
      queueDepths: () => jobs.depths(),
      startedAt,
      version: VERSION,
      rateLimitKind: rateLimits.kind,
      pubsubKind: pubsub.kind,
    }),
    benchmark: new BenchmarkService({ db, thresholds: config.benchmark }),
    ...workspace,
    chat: createChatService(config.chat, db, log.child({ component: 'chat' })),
    pubsub,
    progress: generation.hub,
    streams: generation.streams,
    knownCredentials: new KnownCredentials(),
    clientQueues: new ClientQueues({ inFlightPerClient: config.limits.requestsInFlightPerClient, queuedPerClient: config.limits.requestsQueuedPerClient }),
    databaseOutage,
    listening,
    generation: generation.service,
    generationWorker: generation.worker,
    metrics,
    audit,
    auditEvents: new AuditQueries(db.pool),
    dataVersions: new DataVersions(db.pool),
    responseCache: createResponseCache(config.cache.maxBytes),
    usage: new UsageService(db.pool, config.usage, log.child({ component: 'usage' }), () => deprecationCatalog(getSchema(), restRoutes, TOOLS)),
    webhookDispatcher: webhookDelivery.dispatcher,
    webhookWorker: webhookDelivery.worker,
    webhooks: new WebhookEndpointService({
      prisma,
      secretKey: webhookKey,
      maxEndpoints: config.webhooks.maxEndpoints,
      urlPolicy: { allowPrivate: config.webhooks.allowPrivate, production: config.env === 'production' },
      sender: () => webhookDelivery.dispatcher,
    }),
  };
}

/**
 * The drain before the shutdown (SHUTDOWN_DRAIN): /readyz already answers 503 (the caller set
 * `stopping`), and for `drainMs` the instance goes on serving everything, new connections and
 * open event streams included, so a load balancer takes it out of rotation before anything is cut.
 */
async function drain(services: Services, drainMs: number): Promise<void> {
  if (drainMs <= 0) return;
  services.log.info({ drainMs }, 'draining: /readyz answers 503, still serving until the drain delay is over');
  await new Promise((resolve) => setTimeout(resolve, drainMs));
}

/** Stop accepting, let in-flight requests and the current job finish, then close the database. */
async function shutdown(
  services: Services,
  server: http.Server,
  closeWebSockets: () => Promise<void>,
  redis?: Redis,
  metricsListener?: MetricsListener,
): Promise<void> {
  const { log } = services;
  log.info('shutting down');
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections: responses now say `Connection: close` (http-app.ts), and each
  // connection is dropped as soon as it falls idle, so nothing new is served after the signal.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  const deadline = setTimeout(() => {
    log.warn('shutdown timeout: closing remaining connections');
    server.closeAllConnections();
  }, services.config.shutdownTimeoutMs);
  // Progress streams end now (clients reconnect, with their last event id, to another instance);
  // runs in progress get part of the shutdown time to finish before they are interrupted.
  services.progress.endStreams();
  // WebSocket clients are told the server is going away (1001) and reconnect elsewhere.
  await closeWebSockets().catch((error: unknown) => log.warn({ err: error }, 'could not close the WebSocket connections'));
  const runGraceMs = Math.floor(services.config.shutdownTimeoutMs / 2);
  await Promise.all([
    closed,
    services.ingestWorker.stop(),
    services.scheduler.stop(),
    services.generationWorker.stop(runGraceMs),
    // An attempt in progress gets its 10 s, within the same share; one cut short is sent again by another instance.
    services.webhookWorker.stop(runGraceMs),
  ]);
  clearTimeout(deadline);
  clearInterval(sweep);
  // Every request has ended: this instance's last usage counts are written before the pool closes.
  await services.usage.close();
  // A client that hung up mid-request closes its connection, but the handler may still be
  // querying: let the database pool fall quiet before closing it.
  await poolQuiet(services.db.pool, services.config.shutdownTimeoutMs);
  // Every event of the requests and jobs that just finished is written before the database closes.
  await services.audit.close(services.config.shutdownTimeoutMs);
  await services.progress.close();
  services.databaseOutage.close();
  await services.pubsub.close();
  redis?.disconnect();
  await services.db.close();
  await metricsListener?.close();
  log.info('stopped');
}

/** Resolves once no client has been checked out or waited for during 100 ms, or at the timeout. */
async function poolQuiet(pool: { totalCount: number; idleCount: number; waitingCount: number }, timeoutMs: number): Promise<void> {
  const busy = () => pool.totalCount > pool.idleCount || pool.waitingCount > 0;
  const giveUp = Date.now() + timeoutMs;
  let quietSince = busy() ? undefined : Date.now();
  while (Date.now() < giveUp && (quietSince === undefined || Date.now() - quietSince < 100)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (busy()) quietSince = undefined;
    else quietSince ??= Date.now();
  }
}
