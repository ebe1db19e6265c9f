/**
 * How a worker holds a claimed job, and how the other workers notice that its holder died.
 *
 * Policy (docs/operations.md, job takeover): the holder renews the job's lock (`lockedAt`) every
 * `staleAfterMs / 5`; a lock older than `staleAfterMs` means the holder is gone; every worker
 * sweeps for such locks every `staleAfterMs / 5` (one indexed UPDATE). With the default
 * JOB_STALE_AFTER of 15 s a killed instance's jobs are taken over 12-18 s after it died, while a
 * live holder has to miss four renewals in a row before anyone touches its job.
 *
 * - `JobLease` is one claimed job: it renews the lock in the background, and aborts `signal` as
 *   soon as a renewal finds the job held by someone else (taken over after the lock went stale).
 *   `complete` and `fail` go through the lease so a holder that lost the job cannot finish it
 *   for the new holder. A renewal that errors (database unreachable) is logged at once, and
 *   logged as an error once renewals have failed for a whole `staleAfterMs` (another instance may
 *   take the job over then; the next renewal that reaches the database settles it).
 * - `StaleSweeper` is the periodic sweep of one queue; it never sweeps the jobs its own process
 *   holds (they are alive even when a renewal was delayed by a busy database).
 */
import type { Logger } from '../log.ts';
import type { FailOptions, FailResult, JobOwner, JobQueue, JobRow, StaleResult } from './job-queue.ts';

/** JOB_STALE_AFTER's default. */
export const DEFAULT_STALE_AFTER_MS = 15_000;

/** How often a held job's lock is renewed, and how often workers sweep for stale locks. */
export function renewIntervalMs(staleAfterMs: number): number {
  return Math.max(100, Math.floor(staleAfterMs / 5));
}

/** Thrown into `signal` when the job was taken over by another worker. */
export class JobLost extends Error {
  constructor(readonly jobId: string) {
    super(`Job ${jobId} was taken over by another worker (its lock went stale)`);
  }
}

export interface JobLeaseOptions {
  jobs: JobQueue;
  job: Pick<JobRow, 'id' | 'attempts' | 'lockedBy'>;
  staleAfterMs: number;
  log: Logger;
}

export class JobLease {
  private readonly controller = new AbortController();
  private readonly owner: JobOwner;
  private timer: NodeJS.Timeout | null = null;
  private renewing = false;
  private lastRenewedAt = Date.now();

  constructor(private readonly options: JobLeaseOptions) {
    this.owner = { workerId: options.job.lockedBy ?? '', attempt: options.job.attempts };
  }

  /** Aborted (with a JobLost reason) once the job is known to be held by another worker. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get lost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Starts renewing the lock in the background. */
  start(): this {
    this.timer ??= setInterval(() => void this.renew(), renewIntervalMs(this.options.staleAfterMs));
    this.timer.unref();
    return this;
  }

  /** Stops renewing (the job is finished, or this process gives it up). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Marks the job completed; false (and `lost`) when it was no longer ours. */
  async complete(): Promise<boolean> {
    this.stop();
    const done = await this.options.jobs.complete(this.options.job.id, this.owner);
    if (!done) this.markLost();
    return done;
  }

  /** Records a failed attempt; null (and `lost`) when the job was no longer ours: nothing changed. */
  async fail(error: unknown, opts: Omit<FailOptions, 'owner'>): Promise<FailResult | null> {
    this.stop();
    const outcome = await this.options.jobs.fail(this.options.job.id, error, { ...opts, owner: this.owner });
    if (!outcome) this.markLost();
    return outcome;
  }

  /** One renewal; skipped while the previous one is still waiting for the database. */
  private async renew(): Promise<void> {
    if (this.renewing || this.lost) return;
    this.renewing = true;
    const { jobs, job, log, staleAfterMs } = this.options;
    try {
      if (await jobs.heartbeat(job.id, this.owner)) this.lastRenewedAt = Date.now();
      else this.markLost();
    } catch (error) {
      const failingForMs = Date.now() - this.lastRenewedAt;
      if (failingForMs >= staleAfterMs) {
        log.error({ err: error, jobId: job.id, failingForMs }, 'job lock not renewed for longer than JOB_STALE_AFTER: another instance may take the job over');
      } else {
        log.warn({ err: error, jobId: job.id, failingForMs }, 'job lock renewal failed; retrying');
      }
    } finally {
      this.renewing = false;
    }
  }

  private markLost(): void {
    if (this.lost) return;
    this.stop();
    this.options.log.warn({ jobId: this.options.job.id, attempt: this.owner.attempt }, 'job was taken over by another worker; this worker stops writing to it');
    this.controller.abort(new JobLost(this.options.job.id));
  }
}

export interface StaleSweeperOptions {
  jobs: JobQueue;
  queue: string;
  staleAfterMs: number;
  /** A periodic sweep failed (it is tried again at the next tick). */
  onFailed(error: unknown): void;
  /** Ids of the jobs this process is running (never swept by it). */
  held(): Iterable<string>;
  /** Called after a sweep that requeued or failed jobs (before the next sweep starts). */
  onSwept(result: StaleResult): Promise<void>;
}

/** The periodic stale sweep of one queue (every `staleAfterMs / 5`). */
export class StaleSweeper {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly options: StaleSweeperOptions) {}

  /** One sweep with threshold `olderThanMs` (default `staleAfterMs`). */
  async sweep(olderThanMs = this.options.staleAfterMs): Promise<StaleResult> {
    const { jobs, queue } = this.options;
    const result = await jobs.requeueStale(olderThanMs, queue, { except: this.options.held() });
    if (result.requeued.length + result.failed.length > 0) await this.options.onSwept(result);
    return result;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), renewIntervalMs(this.options.staleAfterMs));
    this.timer.unref();
  }

  /** Stops sweeping; resolves once a sweep in progress has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  private tick(): void {
    if (this.sweeping) return;
    this.sweeping = this.sweep()
      .then(() => undefined)
      .catch((error: unknown) => this.options.onFailed(error))
      .finally(() => (this.sweeping = null));
  }
}
