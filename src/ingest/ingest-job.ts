/**
 * The ingest job: what a job of the `ingest` queue does, run by the generic JobWorker
 * (src/jobs/job-worker.ts), one at a time. StorageService enqueues one per uploaded file, in the
 * transaction that records the file.
 *
 * - The handler runs IngestService.ingestFile on the job's file. A file that fails validation is
 *   not an error of the job: the ingest marks the file failed and the job completes.
 * - Any other error (database, storage) fails the attempt and the job is retried with the
 *   queue's backoff while it has attempts left; the file stays `processing` and its detail says
 *   why (onRetry). When its attempts are used up the file is marked failed (onFailure).
 * - A job whose payload has no file id fails at once, without retry.
 * - A job taken over by another worker (this process stalled past JOB_STALE_AFTER) is left to
 *   its new holder: this worker neither completes nor fails it and never marks its file. (The
 *   load in progress cannot be interrupted, but loads are idempotent and serialised per
 *   organization, so a second load of the same file changes nothing.)
 * - A job abandoned by a crashed worker is requeued by the sweep; when it had no attempts left
 *   its file is marked failed.
 */
import type { Logger } from '../log.ts';
import type { JobDefinition } from '../jobs/job-worker.ts';
import type { FileIngester } from './ingest-service.ts';
import type { InvestigateChange } from '../returns/reconciliation.ts';

export const INGEST_QUEUE = 'ingest';

export interface IngestJobPayload {
  fileId: string;
}

/**
 * How a file's ingest ended, told to whoever listens (the audit log, webhooks) once per file:
 * `processed` or `failed` by its content (`byContent`), or `failed` after its attempts were used up
 * or its worker crashed. A file another worker took over is told by that worker.
 */
export interface FileDone {
  fileId: string;
  status: 'processed' | 'failed';
  /** false when the file failed for a reason other than its content (database, storage, crash) */
  byContent: boolean;
  rowCount: number;
  errorCount: number;
  detail: string | null;
  /** Per account, the comparison rows the load made `investigate` (new or changed): the `reconciliation.investigate` webhook. */
  investigate?: InvestigateChange[];
}

export type FileDoneListener = (done: FileDone) => void;

/** The payload names no file: failing again would not help. */
class NoFileId extends Error {
  constructor() {
    super('payload has no fileId');
  }
}

export function ingestJob(deps: { ingest: FileIngester; log: Logger; onFileDone?: FileDoneListener }): JobDefinition<IngestJobPayload> {
  const { ingest } = deps;
  const log = deps.log.child({ component: 'ingest-job' });
  // A listener's failure is its own: it never fails the job or the file.
  const tell = (done: FileDone) => {
    try {
      deps.onFileDone?.(done);
    } catch (error) {
      log.error({ err: error, fileId: done.fileId }, 'a listener of ingest outcomes failed');
    }
  };
  const failedWithout = (fileId: string, detail: string): FileDone => ({ fileId, status: 'failed', byContent: false, rowCount: 0, errorCount: 0, detail });
  return {
    queue: INGEST_QUEUE,
    retryPolicy: { retry: (error) => !(error instanceof NoFileId) },
    async handle(job) {
      const fileId = job.payload?.fileId;
      if (typeof fileId !== 'string') throw new NoFileId();
      const result = await ingest.ingestFile(fileId);
      log.info(
        {
          jobId: job.id,
          fileId,
          attempt: job.attempts,
          status: result.status,
          rowCount: result.rowCount,
          errorCount: result.errorCount,
          ms: result.timings.totalMs,
        },
        'ingest job done',
      );
      if (result.status !== 'skipped') {
        const { status, rowCount, errorCount, detail, investigate } = result;
        tell({ fileId, status, byContent: true, rowCount, errorCount, detail, investigate });
      }
    },
    async onRetry(job, error, outcome) {
      // The file stays `processing`; its detail says why.
      await ingest.markRetrying?.(
        job.payload.fileId,
        `Attempt ${outcome.attempts} failed (${errorMessage(error)}); retrying at ${outcome.runAt?.toISOString()}`,
      );
    },
    async onFailure(job, error) {
      if (error instanceof NoFileId) return;
      const detail = `Ingest failed after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}: ${errorMessage(error)}`;
      await ingest.markFailed(job.payload.fileId, detail);
      tell(failedWithout(job.payload.fileId, detail));
    },
    async onAbandoned(job, outcome) {
      const fileId = (job.payload as IngestJobPayload | null)?.fileId;
      if (outcome !== 'failed' || !fileId) return;
      const detail = 'Ingest was interrupted repeatedly (worker crashed); upload the file again';
      await ingest.markFailed(fileId, detail);
      tell(failedWithout(fileId, detail));
    },
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
