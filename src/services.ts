import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Database } from './db/database.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import type { ApiKeyService } from './auth/api-keys.ts';
import type { SessionTokens } from './auth/sessions.ts';
import type { OrganizationService } from './organizations.ts';
import type { RateLimitStore } from './ratelimit/rate-limiter.ts';
import type { ReturnsService } from './returns/returns-service.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { StorageService } from './storage/storage-service.ts';
import type { JobQueue } from './jobs/job-queue.ts';
import type { IngestWorker } from './ingest/ingest-worker.ts';
import type { SelfTestScheduler } from './scheduler/self-test-scheduler.ts';
import type { HealthService } from './health/health-service.ts';
import type { BenchmarkService } from './benchmark/benchmark-service.ts';

/** The process's domain services and infrastructure adapters, wired once in src/app.ts. */
export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  prisma: PrismaClient;
  startedAt: Date;
  version: string;
  apiKeys: ApiKeyService;
  sessions: SessionTokens;
  organizations: OrganizationService;
  rateLimits: RateLimitStore;
  returns: ReturnsService;
  blobs: BlobStore;
  storage: StorageService;
  jobs: JobQueue;
  ingestWorker: IngestWorker;
  scheduler: SelfTestScheduler;
  health: HealthService;
  benchmark: BenchmarkService;
}
