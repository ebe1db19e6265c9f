/**
 * The one job runner: a worker for one queue of the durable job table that runs up to
 * `concurrency` jobs at a time. What a queue's jobs do is a `JobDefinition` kept beside its
 * service (src/ingest/ingest-job.ts: the ingest; src/generation/generation-worker.ts: the
 * summary generations); this file knows nothing about either.
 *
 * - Polls every `pollIntervalMs` while idle and without pause while it has work and room; a poll
 *   claims as many jobs as there is room for, in one statement (JobQueue.claimMany);
 *   `wake()` makes it poll at once (a job enqueued by this process starts without waiting for
 *   the next poll). A failing poll (database down) is logged and retried after the poll
 *   interval; the loop never dies.
 * - Each running job is held through a JobLease (job-lease.ts): its lock is renewed every
 *   `staleAfterMs / 5`; jobs of other workers whose lock is older than `staleAfterMs` (their
 *   worker died) are swept at start (threshold `staleOnStartMs`) and then every
 *   `staleAfterMs / 5`, and handed to `onAbandoned` with what the sweep made of them
 *   (`requeued`, or `failed` when their attempts were used up).
 * - The signal a handler gets aborts when the worker stops (after the grace period) or when the
 *   job was taken over by another worker (JobLost reason); a job taken over is then neither
 *   completed nor failed by this worker, and none of its hooks run.
 * - A handler that returns completes the job; one that returns 'completed' has completed it itself,
 *   in the statement that recorded its outcome (JobQueue's completeJobSql), and is not completed
 *   again. A handler that throws fails the attempt: when the
 *   definition's `retry` says so and the job has attempts left, the job is queued again after an
 *   exponential backoff (`backoff`, or the JobQueue's) and `onRetry` runs; otherwise the job is
 *   failed for good and `onFailure` runs. A hook that throws is logged; it changes nothing.
 * - `stop(graceMs)` stops claiming, gives running handlers `graceMs` to finish, then aborts the
 *   signal they were given and waits for them (a handler that ignores its signal is awaited).
 * - `runOnce()` claims and runs at most one job, for callers (and tests) that drive the worker.
 */
import { classifyDatabaseError } from '../db/db-errors.ts';
import type { DatabaseOutageLog } from '../db/outage-log.ts';
import type { Logger } from '../log.ts';
import type { FailResult, JobQueue, JobRow } from './job-queue.ts';
import { DEFAULT_STALE_AFTER_MS, JobLease, StaleSweeper } from './job-lease.ts';
import { traceJob } from '../tracing/jobs.ts';

/** Whether, and how soon, a failed attempt is tried again. */
export interface RetryPolicy {
  /** True (or true for this error): retry while the job has attempts left (its `maxAttempts`). */
  retry: boolean | ((error: unknown) => boolean);
  /** Backoff after failed attempt n: min(maxMs, baseMs * 2^(n-1)); default: the JobQueue's. */
  backoff?: { baseMs: number; maxMs: number };
}

/** What the jobs of one queue do; run by a JobWorker. */
export interface JobDefinition<P> {
  queue: string;
  /** 'completed': the handler completed the job itself (completeJobSql, with its own writes). */
  handle(job: JobRow<P>, signal: AbortSignal): Promise<void | 'completed'>;
  /** Default: no retry (a handler that throws fails its job). */
  retryPolicy?: RetryPolicy;
  /** A failed attempt was queued again (`outcome.runAt` says when it runs). */
  onRetry?(job: JobRow<P>, error: unknown, outcome: FailResult): Promise<void>;
  /** A failed attempt was the last one: the job is failed for good. */
  onFailure?(job: JobRow<P>, error: unknown, outcome: FailResult): Promise<void>;
  /** A job abandoned by a dead worker, requeued or failed by the sweep. */
  onAbandoned?(job: { id: string; payload: P }, outcome: 'requeued' | 'failed'): Promise<void>;
}

export interface JobWorkerOptions<P> extends JobDefinition<P> {
  jobs: JobQueue;
  log: Logger;
  workerId: string;
  /** Jobs run at once (default 1). */
  concurrency?: number;
  pollIntervalMs: number;
  /** A running job whose lock is older than this was abandoned (JOB_STALE_AFTER, default 15 s). */
  staleAfterMs?: number;
  /** Threshold of the first sweep (0 on the embedded database: only this process runs jobs). */
  staleOnStartMs?: number;
  /** Told of a poll that met an unavailable database (logged once per outage, not per poll). */
  databaseOutage?: Pick<DatabaseOutageLog, 'failed'>;
}

/** What `GET /status` reports (the ingest worker's). */
export interface JobWorkerStatus {
  /** stopped: not started or stopped; running: polling the queue; idle: waiting for the next poll; busy: running a job (also while stopping) */
  state: 'stopped' | 'running' | 'idle' | 'busy';
  /** jobs running now */
  running: number;
  /** the job running now (the oldest one, when several are) */
  currentJobId: string | null;
  /** jobs completed since start */
  processed: number;
  /** attempts that ended with an error (retried or not) since start */
  failed: number;
  lastPollAt: Date | null;
}

export class JobWorker<P> {
  readonly queue: string;
  readonly workerId: string;
  private readonly running = new Map<string, Promise<void>>();
  private readonly concurrency: number;
  private readonly staleAfterMs: number;
  private stopController = new AbortController();
  private started = false;
  private stopping = false;
  private polling = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private processed = 0;
  private failed = 0;
  private lastPollAt: Date | null = null;
  private readonly sweeper: StaleSweeper;

  constructor(private readonly options: JobWorkerOptions<P>) {
    this.queue = options.queue;
    this.workerId = options.workerId;
    this.concurrency = options.concurrency ?? 1;
    this.staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    this.sweeper = new StaleSweeper({
      jobs: options.jobs,
      queue: options.queue,
      staleAfterMs: this.staleAfterMs,
      onFailed: (error) => this.reportFailure(error, 'stale job sweep failed; will retry'),
      held: () => this.running.keys(),
      onSwept: async ({ requeued, failed }) => {
        if (requeued.length > 0) options.log.warn({ queue: options.queue, jobs: requeued.map((job) => job.id) }, 'requeued abandoned jobs');
        const abandoned = [...requeued.map((job) => [job, 'requeued'] as const), ...failed.map((job) => [job, 'failed'] as const)];
        for (const [job, outcome] of abandoned) await options.onAbandoned?.({ id: job.id, payload: job.payload as P }, outcome);
        if (requeued.length > 0) this.wake();
      },
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    if (this.stopController.signal.aborted) this.stopController = new AbortController();
    this.loop = this.run();
  }

  /** Poll now (a job was just enqueued). */
  wake(): void {
    this.wakeUp?.();
  }

  /** Stops claiming; running jobs get `graceMs` to finish, then their signal aborts. */
  async stop(graceMs = 0): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    this.wakeUp?.();
    await this.loop;
    await this.sweeper.stop();
    const finished = Promise.allSettled(this.running.values());
    const grace = setTimeout(() => this.stopController.abort(), graceMs);
    await finished;
    clearTimeout(grace);
    this.stopController.abort();
    this.loop = null;
    this.started = false;
  }

  status(): JobWorkerStatus {
    const busy = this.running.size > 0;
    let state: JobWorkerStatus['state'] = 'stopped';
    if (this.started && !this.stopping) state = busy ? 'busy' : this.polling ? 'running' : 'idle';
    else if (busy) state = 'busy'; // stopping, or driven by runOnce: finishing its jobs
    return {
      state,
      running: this.running.size,
      currentJobId: this.running.keys().next().value ?? null,
      processed: this.processed,
      failed: this.failed,
      lastPollAt: this.lastPollAt,
    };
  }

  /** Claims and runs at most one job (to its end). True when a job was run. */
  async runOnce(): Promise<boolean> {
    const job = await this.claim();
    if (!job) return false;
    await this.launch(job);
    return true;
  }

  private async claim(): Promise<JobRow<P> | null> {
    return (await this.claimUpTo(1))[0] ?? null;
  }

  /** Up to `max` jobs in one claim: a worker with room for several asks once. */
  private async claimUpTo(max: number): Promise<JobRow<P>[]> {
    this.polling = true;
    try {
      const jobs = await this.options.jobs.claimMany<P>(this.options.queue, this.options.workerId, max);
      this.lastPollAt = new Date();
      return jobs;
    } finally {
      this.polling = false;
    }
  }

  private async run(): Promise<void> {
    let first = true;
    while (!this.stopping) {
      let claimed = false;
      try {
        if (first) {
          await this.sweeper.sweep(this.options.staleOnStartMs ?? this.staleAfterMs);
          first = false;
          this.sweeper.start();
        }
        const room = this.concurrency - this.running.size;
        if (room > 0) {
          const jobs = await this.claimUpTo(room);
          claimed = jobs.length > 0;
          for (const job of jobs) void this.launch(job);
        }
      } catch (error) {
        this.reportFailure(error, 'job worker poll failed');
      }
      const full = this.running.size >= this.concurrency;
      if ((!claimed || full) && !this.stopping) await this.sleep(this.options.pollIntervalMs);
    }
  }

  /**
   * A poll or a periodic sweep that failed: an unavailable database goes to the outage log (one
   * warning an outage, as every front logs it), anything else is an error with its stack.
   */
  private reportFailure(error: unknown, message: string): void {
    if (this.options.databaseOutage && classifyDatabaseError(error) === 'unavailable') this.options.databaseOutage.failed(error);
    else this.options.log.error({ err: error, queue: this.options.queue }, message);
  }

  /** Runs a claimed job to its end; never rejects. */
  private launch(job: JobRow<P>): Promise<void> {
    const { jobs, log } = this.options;
    const lease = new JobLease({ jobs, job, staleAfterMs: this.staleAfterMs, log }).start();
    const signal = AbortSignal.any([this.stopController.signal, lease.signal]);
    // The handler runs in the span `job <queue>`, in the trace that enqueued the job.
    const done = traceJob(job, () => this.options.handle(job, signal))
      .then(async (result) => {
        // 'completed': the handler's own statement completed it (the lease stops below, as for every job).
        if (result !== 'completed' && (lease.lost || !(await lease.complete()))) return; // the new holder records the outcome
        this.processed++;
      })
      .catch((error: unknown) => this.failedAttempt(job, lease, error))
      .catch((error: unknown) => log.error({ err: error, queue: job.queue, jobId: job.id }, 'could not record the outcome of a job'))
      .finally(() => {
        lease.stop();
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, done);
    return done;
  }

  private async failedAttempt(job: JobRow<P>, lease: JobLease, error: unknown): Promise<void> {
    if (lease.lost) return; // the new holder's attempt decides what becomes of the job
    const { log, retryPolicy } = this.options;
    this.failed++;
    const retry = typeof retryPolicy?.retry === 'function' ? retryPolicy.retry(error) : (retryPolicy?.retry ?? false);
    const outcome = await lease.fail(error, { retry, backoff: retryPolicy?.backoff });
    if (!outcome) return;
    const context = { err: error, queue: job.queue, jobId: job.id, attempt: job.attempts };
    if (outcome.state === 'queued') {
      log.warn({ ...context, retryAt: outcome.runAt }, 'job attempt failed; will retry');
      await this.hook('onRetry', () => this.options.onRetry?.(job, error, outcome));
    } else {
      log.error(context, retry ? 'job failed for good (no attempts left)' : 'job failed');
      await this.hook('onFailure', () => this.options.onFailure?.(job, error, outcome));
    }
  }

  private async hook(name: string, call: () => Promise<void> | undefined): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.options.log.error({ err: error, queue: this.options.queue, hook: name }, 'job hook failed');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      const finish = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      timer = setTimeout(finish, ms);
      this.wakeUp = finish;
    });
  }
}
