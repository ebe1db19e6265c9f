/**
 * The ingest's outcome in the audit log: one event per file whose ingest ended (front `system`,
 * operation `ingest`), in the file's organization, about the user who uploaded it. The upload
 * itself is the mutation's own event; this one says what became of the file.
 */
import type { FileDone } from '../ingest/ingest-job.ts';
import type { AuditPool, AuditRecorder } from './recorder.ts';

/**
 * `ok` for a processed file; `BAD_USER_INPUT` for one its content failed (the file's listing in
 * `GET /api/storage/files` says why); `INTERNAL_SERVER_ERROR` for one that failed for another
 * reason (its attempts used up, its worker crashed).
 */
export function ingestOutcome(done: FileDone): string {
  if (done.status === 'processed') return 'ok';
  return done.byContent ? 'BAD_USER_INPUT' : 'INTERNAL_SERVER_ERROR';
}

/** A listener for the ingest worker: looks up the file's organization and uploader, then records. */
export function recordIngestOutcomes(audit: AuditRecorder, pool: Pick<AuditPool, 'query'>, onError: (error: unknown) => void) {
  return (done: FileDone): void => {
    pool
      .query<{ orgId: string; uploaderId: string | null; fileName: string; fileType: string }>(
        'SELECT "orgId", "uploaderId", "fileName", "fileType"::text AS "fileType" FROM "UploadedFile" WHERE id = $1',
        [done.fileId],
      )
      .then(({ rows: [file] }) => {
        // A file deleted while it was loaded has nobody to tell.
        if (!file) return;
        audit.record({
          front: 'system',
          operation: 'ingest',
          outcome: ingestOutcome(done),
          organizationId: file.orgId,
          subjectUserId: file.uploaderId,
          target: { type: 'UploadedFile', id: done.fileId },
          variables: { file: file.fileName, fileType: file.fileType, status: done.status, rowCount: done.rowCount, errorCount: done.errorCount },
        });
      })
      .catch(onError);
  };
}
