/**
 * The ingest worker: takes `ingest` jobs from the durable job table one at a time and runs
 * IngestService.ingestFile on them.
 *
 * - start(): jobs left `running` by a crashed process (lock older than `staleOnStartMs`, which
 *   defaults to `staleAfterMs`; pass 0 on the single-process embedded database) are requeued,
 *   then the loop polls every `pollIntervalMs` while the queue is empty and without pause while
 *   it has work. The stale sweep is repeated every `staleAfterMs / 5` on its own timer (another
 *   instance may have died; it runs while this worker is busy too), and the running job is held
 *   through a JobLease whose lock is renewed every `staleAfterMs / 5`, so a long ingest is never
 *   mistaken for an abandoned one (see src/jobs/job-lease.ts).
 * - A job taken over by another worker (this process stalled past JOB_STALE_AFTER) is left to
 *   its new holder: this worker neither completes nor fails it and never marks its file. (The
 *   load in progress cannot be interrupted, but loads are idempotent and serialised per
 *   organization, so a second load of the same file changes nothing.)
 * - A file that fails validation is not an error of the job: the file is marked failed by the
 *   ingest and the job completes. Any other error (database, storage) fails the attempt and the
 *   job is retried with backoff; when its attempts are used up the file is marked failed too.
 * - stop(): stops polling and resolves once the in-flight job (if any) has finished; graceful
 *   shutdown awaits it before closing the database.
 * - A failing poll (database down) is logged and retried after the poll interval; the loop
 *   never dies.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from '../log.ts';
import type { JobQueue, JobRow, StaleResult } from '../jobs/job-queue.ts';
import { DEFAULT_STALE_AFTER_MS, JobLease, StaleSweeper } from '../jobs/job-lease.ts';
import { INGEST_QUEUE, type IngestJobPayload } from '../storage/storage-service.ts';
import type { FileIngester } from './ingest-service.ts';

export type WorkerState = 'running' | 'stopped' | 'idle' | 'busy';

export interface IngestWorkerStatus {
  /** stopped: not started or stopped; running: polling the queue; idle: waiting for the next poll; busy: running a job */
  state: WorkerState;
  currentJobId: string | null;
  /** jobs finished (file processed or rejected) since start */
  processed: number;
  /** attempts that ended with an error (retried or not) since start */
  failed: number;
  lastPollAt: Date | null;
}

export interface IngestWorkerDeps {
  jobs: JobQueue;
  ingest: FileIngester;
  log: Logger;
  pollIntervalMs: number;
  /** unique per process; default `ingest-<hostname>-<pid>-<random>` */
  workerId?: string;
  /** false (WORKER_ENABLED=false): start() does nothing and the status stays `stopped` (default true) */
  enabled?: boolean;
  /** a running job whose lock is older than this is considered abandoned (JOB_STALE_AFTER, default 15 s; renewed and swept every fifth of it) */
  staleAfterMs?: number;
  /**
   * The threshold of the sweep at start (default staleAfterMs). On the embedded database only
   * this process can be running jobs, so every `running` job is abandoned: pass 0 to requeue at once.
   */
  staleOnStartMs?: number;
}

export class IngestWorker {
  private readonly jobs: JobQueue;
  private readonly ingest: FileIngester;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly staleAfterMs: number;
  private readonly staleOnStartMs: number;
  readonly workerId: string;
  readonly enabled: boolean;

  private started = false;
  private stopping = false;
  private polling = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private currentJobId: string | null = null;
  private processed = 0;
  private failed = 0;
  private lastPollAt: Date | null = null;
  private readonly sweeper: StaleSweeper;

  constructor(deps: IngestWorkerDeps) {
    this.jobs = deps.jobs;
    this.ingest = deps.ingest;
    this.workerId = deps.workerId ?? `ingest-${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.enabled = deps.enabled ?? true;
    this.log = deps.log.child({ component: 'ingest-worker', workerId: this.workerId });
    this.pollIntervalMs = deps.pollIntervalMs;
    this.staleAfterMs = deps.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.staleOnStartMs = deps.staleOnStartMs ?? this.staleAfterMs;
    this.sweeper = new StaleSweeper({
      jobs: this.jobs,
      queue: INGEST_QUEUE,
      staleAfterMs: this.staleAfterMs,
      log: this.log,
      held: () => (this.currentJobId ? [this.currentJobId] : []),
      onSwept: (result) => this.onSwept(result),
    });
  }

  start(): void {
    if (this.started || !this.enabled) return;
    this.started = true;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Stops polling; resolves when the in-flight job has finished. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await this.sweeper.stop();
    this.loop = null;
    this.started = false;
  }

  status(): IngestWorkerStatus {
    let state: WorkerState = 'stopped';
    if (this.started && !this.stopping) state = this.currentJobId ? 'busy' : this.polling ? 'running' : 'idle';
    else if (this.started && this.currentJobId) state = 'busy'; // stopping, finishing its job
    return {
      state,
      currentJobId: this.currentJobId,
      processed: this.processed,
      failed: this.failed,
      lastPollAt: this.lastPollAt,
    };
  }

  /** Requeues abandoned jobs; their files are marked failed when the job has no attempts left. */
  async sweepStale(olderThanMs = this.staleAfterMs): Promise<void> {
    await this.sweeper.sweep(olderThanMs);
  }

  private async onSwept({ requeued, failed }: StaleResult): Promise<void> {
    if (requeued.length > 0) {
      this.log.warn({ jobs: requeued.map((j) => j.id) }, 'requeued abandoned ingest jobs');
      this.wake?.();
    }
    for (const job of failed) {
      const fileId = (job.payload as IngestJobPayload | null)?.fileId;
      if (fileId) await this.ingest.markFailed(fileId, 'Ingest was interrupted repeatedly (worker crashed); upload the file again');
    }
  }

  /** Claims and runs at most one job. True when a job was run. */
  async runOnce(): Promise<boolean> {
    this.polling = true;
    let job: JobRow<IngestJobPayload> | null;
    try {
      job = await this.jobs.claim<IngestJobPayload>(INGEST_QUEUE, this.workerId);
      this.lastPollAt = new Date();
    } finally {
      this.polling = false;
    }
    if (!job) return false;
    await this.runJob(job);
    return true;
  }

  private async runJob(job: JobRow<IngestJobPayload>): Promise<void> {
    this.currentJobId = job.id;
    const log = this.log.child({ jobId: job.id, fileId: job.payload?.fileId, attempt: job.attempts });
    const lease = new JobLease({ jobs: this.jobs, job, staleAfterMs: this.staleAfterMs, log }).start();
    try {
      const fileId = job.payload?.fileId;
      if (typeof fileId !== 'string') {
        await lease.fail(new Error('payload has no fileId'), { retry: false });
        this.failed++;
        return;
      }
      try {
        const result = await this.ingest.ingestFile(fileId);
        if (!(await lease.complete())) return; // taken over: its new holder reports the outcome
        this.processed++;
        log.info({ status: result.status, rowCount: result.rowCount, errorCount: result.errorCount, ms: result.timings.totalMs }, 'ingest job done');
      } catch (error) {
        if (lease.lost) return; // the new holder's attempt decides what becomes of the file
        this.failed++;
        const outcome = await lease.fail(error, { retry: true });
        if (!outcome) return;
        if (outcome.state === 'queued') {
          log.warn({ err: error, retryAt: outcome.runAt }, 'ingest attempt failed; will retry');
          // The file stays `processing`; its detail says why.
          await this.ingest.markRetrying?.(fileId, `Attempt ${outcome.attempts} failed (${errorMessage(error)}); retrying at ${outcome.runAt?.toISOString()}`);
        } else {
          log.error({ err: error }, 'ingest job failed for good');
          await this.ingest.markFailed(fileId, `Ingest failed after ${job.attempts} attempt${job.attempts === 1 ? '' : 's'}: ${errorMessage(error)}`);
        }
      }
    } finally {
      lease.stop();
      this.currentJobId = null;
    }
  }

  private async run(): Promise<void> {
    let first = true;
    while (!this.stopping) {
      let ranJob = false;
      try {
        if (first) {
          await this.sweepStale(this.staleOnStartMs);
          first = false;
          this.sweeper.start();
        }
        ranJob = await this.runOnce();
      } catch (error) {
        this.log.error({ err: error }, 'ingest worker poll failed');
      }
      if (!ranJob && !this.stopping) await this.sleep(this.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
