/** What every job worker of one service shares, whatever its queue (ingest, generation). */
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DatabaseOutageLog } from '../db/outage-log.ts';
import type { JobWorkerOptions } from './job-worker.ts';

export type SharedWorkerOptions = Pick<JobWorkerOptions<unknown>, 'workerId' | 'pollIntervalMs' | 'staleAfterMs' | 'staleOnStartMs' | 'databaseOutage'>;

/**
 * This process's worker id, the polling and lease timings (WORKER_POLL_INTERVAL, JOB_STALE_AFTER),
 * and the outage log polls report to. On the embedded database the first sweep takes every
 * running job (`staleOnStartMs: 0`): one process owns an embedded database, so a job found
 * running at start was left by a process that is gone, and its lease is stale however recent.
 * On PostgreSQL other instances may hold those jobs: the first sweep waits `staleAfterMs`.
 */
export function workerOptionsFor(config: Config, db: Pick<Database, 'kind'>, databaseOutage?: DatabaseOutageLog): SharedWorkerOptions {
  return {
    workerId: `${hostname()}:${process.pid}`,
    pollIntervalMs: config.worker.pollIntervalMs,
    staleAfterMs: config.worker.staleAfterMs,
    ...(db.kind === 'pglite' ? { staleOnStartMs: 0 } : {}),
    databaseOutage,
  };
}
