/**
 * A worker for one queue of the durable job table that runs up to `concurrency` jobs at a time
 * (the generation runs; the ingest has its own one-at-a-time worker with file bookkeeping).
 *
 * - Polls every `pollIntervalMs` while idle; `wake()` makes it poll at once (a job enqueued by
 *   this process starts without waiting for the next poll).
 * - Each running job is held through a JobLease (job-lease.ts): its lock is renewed every
 *   `staleAfterMs / 5`; jobs of other workers whose lock is older than `staleAfterMs` (their
 *   worker died) are swept at start and then every `staleAfterMs / 5` and handed to
 *   `onAbandoned`, which decides what the job's record becomes.
 * - The signal a handler gets aborts when the worker stops (after the grace period) or when the
 *   job was taken over by another worker (JobLost reason); a job taken over is then neither
 *   completed nor failed by this worker.
 * - `stop(graceMs)` stops claiming, gives running handlers `graceMs` to finish, then aborts the
 *   signal they were given and waits for them.
 * - A handler that throws fails the job without retry (handlers record their own outcome).
 */
import type { Logger } from '../log.ts';
import type { JobQueue, JobRow } from './job-queue.ts';
import { JobLease, StaleSweeper } from './job-lease.ts';

export interface JobWorkerOptions<P> {
  queue: string;
  jobs: JobQueue;
  log: Logger;
  workerId: string;
  concurrency: number;
  pollIntervalMs: number;
  staleAfterMs: number;
  /** Threshold of the first sweep (0 on the embedded database: only this process runs jobs). */
  staleOnStartMs?: number;
  handle(job: JobRow<P>, signal: AbortSignal): Promise<void>;
  /** A job abandoned by a dead worker (requeued or failed by the sweep). */
  onAbandoned(job: { id: string; payload: P }): Promise<void>;
}

export interface JobWorkerStatus {
  state: 'stopped' | 'idle' | 'busy';
  running: number;
  processed: number;
  failed: number;
}

export class JobWorker<P> {
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopController = new AbortController();
  private started = false;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private processed = 0;
  private failed = 0;
  private readonly sweeper: StaleSweeper;

  constructor(private readonly options: JobWorkerOptions<P>) {
    this.sweeper = new StaleSweeper({
      jobs: options.jobs,
      queue: options.queue,
      staleAfterMs: options.staleAfterMs,
      log: options.log,
      held: () => this.running.keys(),
      onSwept: async ({ requeued, failed }) => {
        for (const job of [...requeued, ...failed]) await this.options.onAbandoned({ id: job.id, payload: job.payload as P });
        if (requeued.length > 0) this.wake();
      },
    });
  }

  start(): void {
    if (this.started) return;
    this.started = true;
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
  }

  status(): JobWorkerStatus {
    const state = !this.started || this.stopping ? 'stopped' : this.running.size > 0 ? 'busy' : 'idle';
    return { state, running: this.running.size, processed: this.processed, failed: this.failed };
  }

  private async run(): Promise<void> {
    const { log } = this.options;
    let first = true;
    while (!this.stopping) {
      let claimed = false;
      try {
        if (first) {
          await this.sweeper.sweep(this.options.staleOnStartMs ?? this.options.staleAfterMs);
          first = false;
          this.sweeper.start();
        }
        if (this.running.size < this.options.concurrency) {
          const job = await this.options.jobs.claim<P>(this.options.queue, this.options.workerId);
          if (job) {
            claimed = true;
            this.launch(job);
          }
        }
      } catch (error) {
        log.error({ err: error }, 'job worker poll failed');
      }
      const full = this.running.size >= this.options.concurrency;
      if ((!claimed || full) && !this.stopping) await this.sleep(this.options.pollIntervalMs);
    }
  }

  private launch(job: JobRow<P>): void {
    const { jobs, log, staleAfterMs } = this.options;
    const lease = new JobLease({ jobs, job, staleAfterMs, log }).start();
    const signal = AbortSignal.any([this.stopController.signal, lease.signal]);
    const done = this.options
      .handle(job, signal)
      .then(async () => {
        if (lease.lost || !(await lease.complete())) return; // the new holder records the outcome
        this.processed++;
      })
      .catch(async (error: unknown) => {
        if (lease.lost) return;
        this.failed++;
        log.error({ err: error, jobId: job.id }, 'job failed');
        await lease.fail(error, { retry: false }).catch(() => undefined);
      })
      .finally(() => {
        lease.stop();
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, done);
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
