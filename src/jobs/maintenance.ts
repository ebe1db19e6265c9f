import type { Logger } from '../log.ts';
import type { JobQueue } from './job-queue.ts';
import type { BlobStore } from '../storage/blob-store.ts';

/** Finished jobs are kept this long for inspection, then deleted. Failed ones are kept. */
export const FINISHED_JOB_RETENTION_MS = 7 * 24 * 3_600_000;
const INTERVAL_MS = 3_600_000;

/**
 * Housekeeping that keeps the embedded defaults tidy over months of running: partial blob
 * writes left by a crash, the completed rows of the job table, and OAuth client registrations
 * that no user approved within a day (registration is open). Runs at start, then hourly.
 */
export function startMaintenance(deps: { jobs: JobQueue; blobs: BlobStore; oauth: { deleteUnusedClients(): Promise<number> }; log: Logger }): () => void {
  const run = async () => {
    try {
      const [jobs, partials, oauthClients] = await Promise.all([
        deps.jobs.deleteFinished(FINISHED_JOB_RETENTION_MS),
        deps.blobs.sweepIncoming(),
        deps.oauth.deleteUnusedClients(),
      ]);
      if (jobs + partials + oauthClients > 0)
        deps.log.info({ jobs, partials, oauthClients }, 'maintenance: removed finished jobs, partial uploads and unused OAuth clients');
    } catch (error) {
      deps.log.warn({ err: error }, 'maintenance failed; will retry');
    }
  };
  void run();
  const timer = setInterval(() => void run(), INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
