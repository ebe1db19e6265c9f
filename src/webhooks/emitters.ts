/**
 * Where the webhook events come from (docs/webhooks.md#events): listeners that the wiring
 * (server/app.ts) hangs on the ingest, summary generation and the self-test, each turning what
 * happened into `publish` calls of the WebhookDispatcher.
 *
 * A listener never fails or slows what it listens to: it returns at once, reads what it needs and
 * publishes in the background, and an error is logged (publish itself never throws). The `data`
 * of each event is snake_case, like every REST body.
 */
import type { SqlClient } from '../db/sql-client.ts';
import type { FileDone } from '../ingest/ingest-job.ts';
import type { Logger } from '../log.ts';
import type { GenerationEventRecord } from '../generation/run-store.ts';
import { isFinalEvent } from '../generation/run-store.ts';
import type { RunSummary } from '../scheduler/self-test-scheduler.ts';
import type { WebhookDispatcher } from './dispatch.ts';

export interface EmitterDeps {
  dispatcher: Pick<WebhookDispatcher, 'publish'>;
  pool: SqlClient;
  log: Logger;
  /** The service's public address (PUBLIC_URL, else where it listens), for the links in events. */
  baseUrl: () => string | undefined;
}

interface FileRow {
  id: string;
  orgId: string;
  uploaderId: string | null;
  fileName: string;
  fileType: string;
  status: string;
  statusDetail: string | null;
  rowCount: number | null;
  errorCount: number;
  warningCount: number;
  createdAt: Date;
  processedAt: Date | null;
}

/** file.processed / file.failed, and reconciliation.investigate when the load left rows to investigate. */
export function fileEvents(deps: EmitterDeps): (done: FileDone) => void {
  return (done) => {
    void publishFileDone(deps, done).catch((error: unknown) =>
      deps.log.error({ err: error, fileId: done.fileId }, 'could not emit the webhook events of a file'),
    );
  };
}

async function publishFileDone(deps: EmitterDeps, done: FileDone): Promise<void> {
  const { rows } = await deps.pool.query<FileRow>(
    `SELECT id, "orgId", "uploaderId", "fileName", "fileType"::text AS "fileType", status::text AS status, "statusDetail",
            "rowCount", "errorCount", "warningCount", "createdAt", "processedAt"
       FROM "UploadedFile" WHERE id = $1`,
    [done.fileId],
  );
  const file = rows[0];
  if (!file) return; // deleted while it was loaded: nobody to tell
  const base = deps.baseUrl();
  const summary = {
    id: file.id,
    org_id: file.orgId,
    uploader_id: file.uploaderId,
    file_name: file.fileName,
    file_type: file.fileType,
    status: done.status,
    status_detail: file.statusDetail ?? done.detail,
    row_count: file.rowCount ?? done.rowCount,
    error_count: done.errorCount,
    warning_count: file.warningCount,
    created_at: file.createdAt.toISOString(),
    processed_at: file.processedAt?.toISOString() ?? null,
  };
  const filesUrl = base ? `${base}/api/storage/files?org_id=${file.orgId}&status=${done.status}` : null;
  await deps.dispatcher.publish({
    type: done.status === 'processed' ? 'file.processed' : 'file.failed',
    organizationId: file.orgId,
    data: { file: summary, row_errors_count: done.errorCount, failed_by_content: done.status === 'failed' ? done.byContent : null, files_url: filesUrl },
  });
  const investigate = done.investigate ?? [];
  const rowsToInvestigate = investigate.reduce((sum, account) => sum + account.rows, 0);
  if (done.status !== 'processed' || rowsToInvestigate === 0) return;
  const comparison = (accountCode?: string) =>
    base ? `${base}/api/returns/comparison?status=investigate${accountCode ? `&account_code=${encodeURIComponent(accountCode)}` : ''}` : null;
  await deps.dispatcher.publish({
    type: 'reconciliation.investigate',
    organizationId: file.orgId,
    data: {
      file: { id: file.id, file_name: file.fileName, file_type: file.fileType },
      org_id: file.orgId,
      rows: rowsToInvestigate,
      accounts: investigate.map((account) => ({
        account_code: account.accountCode,
        rows: account.rows,
        from: account.from,
        to: account.to,
        comparison_url: comparison(account.accountCode),
      })),
      comparison_url: comparison(),
    },
  });
}

/** generation.completed / generation.failed (failed or cancelled), to the run's user, from the run's final event. */
export function generationEvents(deps: EmitterDeps): (event: GenerationEventRecord) => void {
  return (event) => {
    if (!isFinalEvent(event)) return;
    void publishRunEnded(deps, event).catch((error: unknown) =>
      deps.log.error({ err: error, runId: event.runId }, 'could not emit the webhook event of a generation'),
    );
  };
}

async function publishRunEnded(deps: EmitterDeps, event: GenerationEventRecord): Promise<void> {
  const { rows } = await deps.pool.query<{ userId: string; state: string; options: unknown; error: string | null; createdAt: Date; finishedAt: Date | null }>(
    `SELECT "userId", state::text AS state, options, error, "createdAt", "finishedAt" FROM "GenerationRun" WHERE id = $1`,
    [event.runId],
  );
  const run = rows[0];
  if (!run) return;
  const base = deps.baseUrl();
  const completed = run.state === 'completed';
  await deps.dispatcher.publish({
    type: completed ? 'generation.completed' : 'generation.failed',
    userId: run.userId,
    data: {
      run_id: event.runId,
      state: run.state,
      options: run.options,
      error: run.error,
      failed_agents: event.data.failed_agents ?? [],
      message: event.message,
      created_at: run.createdAt.toISOString(),
      finished_at: run.finishedAt?.toISOString() ?? event.createdAt.toISOString(),
      run_url: base ? `${base}/api/generate?run_id=${event.runId}` : null,
    },
  });
}

/** selftest.failed, to every organization endpoint subscribed (a service-wide event). */
export function selfTestEvents(deps: EmitterDeps): (run: RunSummary) => void {
  return (run) => {
    if (run.status !== 'failed') return;
    void deps.dispatcher.publish({
      type: 'selftest.failed',
      data: {
        run_id: run.id,
        trigger: run.trigger,
        started_at: run.startedAt.toISOString(),
        finished_at: run.finishedAt?.toISOString() ?? null,
        duration_ms: run.durationMs,
        failed_checks: run.checks.filter((check) => !check.passed).map((check) => ({ name: check.name, detail: check.detail, duration_ms: check.durationMs })),
        history_url: deps.baseUrl() ? `${deps.baseUrl()}/test-scheduler/history` : null,
      },
    });
  };
}
