/**
 * Wiring of the ingest: the IngestService and the worker that runs its `ingest` jobs, one at a
 * time (ingest-job.ts says what a job does; StorageService enqueues one per uploaded file).
 */
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DatabaseOutageLog } from '../db/outage-log.ts';
import { JobWorker } from '../jobs/job-worker.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import { workerOptionsFor } from '../jobs/worker-options.ts';
import type { Logger } from '../log.ts';
import { measuredIngester, type Metrics } from '../metrics/index.ts';
import { ingestJob, type FileDoneListener, type IngestJobPayload } from './ingest-job.ts';
import { IngestService, type IngestBlobs } from './ingest-service.ts';

export interface IngestWiring {
  config: Config;
  db: Database;
  jobs: JobQueue;
  blobs: IngestBlobs;
  metrics: Metrics;
  log: Logger;
  /** Polls that meet an unavailable database are logged once per outage. */
  databaseOutage?: DatabaseOutageLog;
  /** Told how each file's ingest ended (the audit log, webhooks). */
  onFileDone?: FileDoneListener;
}

export function createIngestWorker(wiring: IngestWiring): JobWorker<IngestJobPayload> {
  const { config, db, log } = wiring;
  const ingest = new IngestService({
    pool: db.pool,
    blobs: wiring.blobs,
    log: log.child({ component: 'ingest' }),
    // The embedded database has no autovacuum: its statistics are refreshed after every load.
    analyzeAfterRows: db.kind === 'pglite' ? 0 : config.ingest.analyzeAfterRows,
    comparisonThresholds: config.comparison,
  });
  return new JobWorker({
    ...ingestJob({ ingest: measuredIngester(ingest, wiring.metrics), log, onFileDone: wiring.onFileDone }),
    ...workerOptionsFor(config, db, wiring.databaseOutage),
    jobs: wiring.jobs,
    log: log.child({ component: 'worker' }),
    concurrency: 1,
  });
}
