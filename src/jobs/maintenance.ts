import type { Logger } from '../log.ts';
import type { JobQueue } from './job-queue.ts';
import type { BlobStore } from '../storage/blob-store.ts';

/** Finished jobs are kept this long for inspection, then deleted. Failed ones are kept. */
export const FINISHED_JOB_RETENTION_MS = 7 * 24 * 3_600_000;
const INTERVAL_MS = 3_600_000;

/**
 * Housekeeping that keeps the embedded defaults tidy over months of running: partial blob
 * writes left by a crash, the completed rows of the job table, OAuth client registrations
 * that no user approved within a day (registration is open), and audit events past AUDIT_RETENTION. Runs at start, then hourly.
 */
export function startMaintenance(deps: {
  jobs: JobQueue;
  blobs: BlobStore;
  oauth: { deleteUnusedClients(): Promise<number> };
  /** Audit events past AUDIT_RETENTION (src/audit/retention.ts); absent: none are purged. */
  audit?: { purge(): Promise<number> };
  log: Logger;
}): () => void {
  const run = async () => {
    try {
      const [jobs, partials, oauthClients, auditEvents] = await Promise.all([
        deps.jobs.deleteFinished(FINISHED_JOB_RETENTION_MS),
        deps.blobs.sweepIncoming(),
        deps.oauth.deleteUnusedClients(),
        deps.audit?.purge() ?? 0,
      ]);
      if (jobs + partials + oauthClients + auditEvents > 0)
        deps.log.info(
          { jobs, partials, oauthClients, auditEvents },
          'maintenance: removed finished jobs, partial uploads, unused OAuth clients and expired audit events',
        );
    } catch (error) {
      deps.log.warn({ err: error }, 'maintenance failed; will retry');
    }
  };
  void run();
  const timer = setInterval(() => void run(), INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
