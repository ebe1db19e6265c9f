/**
 * Job ownership after a takeover (issue 11, defect 7d), in process on the test database: a worker
 * whose job was taken over (its lock went stale and another worker claimed it) must stop
 * working on it and must not complete or fail it for the new holder; a live holder keeps its job
 * however long it runs. The two-process takeover is in takeover.test.ts.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobQueue, type JobRow } from '../../src/jobs/job-queue.ts';
import { JobWorker, type JobWorkerOptions } from '../../src/jobs/job-worker.ts';
import type { Logger } from '../../src/log.ts';
import { JobLost } from '../../src/jobs/job-lease.ts';
import { ingestJob } from '../../src/ingest/ingest-job.ts';
import type { FileIngester } from '../../src/ingest/ingest-service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/** The ingest worker as server/app.ts builds it: the generic JobWorker running the ingest job. */
function ingestWorker(
  deps: { jobs: JobQueue; ingest: FileIngester; log: Logger } & Pick<
    JobWorkerOptions<unknown>,
    'pollIntervalMs' | 'workerId' | 'staleAfterMs' | 'staleOnStartMs'
  >,
) {
  const { ingest, ...options } = deps;
  return new JobWorker({ ...ingestJob({ ingest, log: deps.log }), concurrency: 1, ...options });
}

let db: TestDatabase;
let jobs: JobQueue;

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  return { log, lines };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What another instance does when it finds the job's lock stale: requeue it and claim it. */
async function takeOver(jobId: string, queue: string, newWorker: string): Promise<JobRow> {
  // A live holder may renew its lock between the two statements (it renews every 200 ms here):
  // then the lock is aged again, as it would be by the time another instance's sweep runs.
  let requeued: string[] = [];
  for (let tries = 0; tries < 20 && requeued.length === 0; tries++) {
    await db.pool.query(`UPDATE "Job" SET "lockedAt" = now() - interval '1 hour' WHERE id = $1`, [jobId]);
    requeued = (await jobs.requeueStale(60_000, queue)).requeued.map((job) => job.id);
  }
  expect(requeued).toEqual([jobId]);
  const claimed = await jobs.claim(queue, newWorker);
  expect(claimed?.id).toBe(jobId);
  return claimed!;
}

beforeAll(async () => {
  db = await createTestDatabase();
  jobs = new JobQueue(db.pool);
}, 120_000);
afterAll(() => db?.cleanup());
beforeEach(async () => {
  await db.pool.query('DELETE FROM "Job"');
});

describe('job ownership', () => {
  it('after a takeover only the new holder can renew, complete or fail the job', async () => {
    const { id } = await jobs.enqueue('own', {});
    const first = (await jobs.claim('own', 'w-old'))!;
    const oldOwner = { workerId: 'w-old', attempt: first.attempts };
    // its own process never sweeps a job it holds, however old the lock
    await db.pool.query(`UPDATE "Job" SET "lockedAt" = now() - interval '1 hour' WHERE id = $1`, [id]);
    expect(await jobs.requeueStale(1000, 'own', { except: [id] })).toEqual({ requeued: [], failed: [] });

    const second = await takeOver(id, 'own', 'w-new');
    const newOwner = { workerId: 'w-new', attempt: second.attempts };
    expect(await jobs.heartbeat(id, oldOwner)).toBe(false);
    expect(await jobs.complete(id, oldOwner)).toBe(false);
    expect(await jobs.fail(id, new Error('late failure'), { retry: true, owner: oldOwner })).toBeNull();
    expect(await jobs.get(id)).toMatchObject({
      state: 'running',
      lockedBy: 'w-new',
      attempts: 2,
      lastError: expect.stringMatching(/abandoned by worker w-old/),
    });

    // the same worker id claiming again is a new attempt: the earlier attempt's owner still does not match
    expect(await jobs.heartbeat(id, newOwner)).toBe(true);
    expect(await jobs.complete(id, newOwner)).toBe(true);
  });

  it('a JobWorker whose job was taken over aborts its handler and leaves the job to the new holder', async () => {
    const { log, lines } = capturingLogger();
    let abortedWith: unknown;
    const worker = new JobWorker<{ n: number }>({
      queue: 'lease',
      jobs,
      log,
      workerId: 'w-old',
      concurrency: 1,
      pollIntervalMs: 20,
      staleAfterMs: 1000,
      async handle(_job, signal) {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        abortedWith = signal.reason;
        // returns normally: an old worker would now mark the job completed for its new holder
      },
      onAbandoned: async () => {},
    });
    const { id } = await jobs.enqueue('lease', { n: 1 });
    worker.start();
    try {
      await until(async () => (await jobs.get(id))?.lockedBy === 'w-old', 'the worker to claim the job');
      const claimed = await takeOver(id, 'lease', 'w-new');
      await until(() => abortedWith !== undefined, "the old holder's handler to be told");
      await until(() => worker.status().running === 0, 'the old holder to let go of the job');
      expect(abortedWith).toBeInstanceOf(JobLost);
      expect(lines.some((line) => line.msg.includes('taken over by another worker'))).toBe(true);
      expect(worker.status()).toMatchObject({ processed: 0, failed: 0 });
      expect(await jobs.get(id)).toMatchObject({ state: 'running', lockedBy: 'w-new', attempts: claimed.attempts });
    } finally {
      await worker.stop();
    }
  });

  it('an IngestWorker whose job was taken over neither fails the job nor touches the file', async () => {
    const { log, lines } = capturingLogger();
    const fileMarks: string[] = [];
    let release: (() => void) | undefined;
    const ingester: FileIngester = {
      // a load that outlives its lease, then fails (say the database connection broke)
      async ingestFile() {
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error('connection terminated');
      },
      async markFailed(fileId) {
        fileMarks.push(`failed ${fileId}`);
      },
      async markRetrying(fileId) {
        fileMarks.push(`retrying ${fileId}`);
      },
    };
    const worker = ingestWorker({ jobs, ingest: ingester, log, pollIntervalMs: 20, workerId: 'w-old', staleAfterMs: 1000 });
    const { id } = await jobs.enqueue('ingest', { fileId: '00000000-0000-4000-8000-0000000000aa' });
    worker.start();
    try {
      await until(() => release !== undefined, 'the ingest to start');
      await takeOver(id, 'ingest', 'w-new');
      await until(() => lines.some((line) => line.msg.includes('taken over by another worker')), 'the old holder to notice the takeover');
      release!();
      await until(() => worker.status().currentJobId === null, 'the old holder to finish its attempt');
      expect(fileMarks).toEqual([]);
      expect(await jobs.get(id)).toMatchObject({ state: 'running', lockedBy: 'w-new', attempts: 2 });
    } finally {
      release?.();
      await worker.stop();
    }
  });

  it('a job whose holder renews its lock is never taken over, however long it runs', async () => {
    const staleAfterMs = 3000;
    const abandoned: string[] = [];
    const aborted: string[] = [];
    const ran: string[] = [];
    const workers = ['w-a', 'w-b'].map(
      (workerId) =>
        new JobWorker<{ n: number }>({
          queue: 'long',
          jobs,
          log: pino({ level: 'silent' }),
          workerId,
          concurrency: 1,
          pollIntervalMs: 20,
          staleAfterMs,
          async handle(job, signal) {
            ran.push(workerId);
            // runs until its lock has been renewed to more than twice the stale threshold after the claim
            const claimedAt = job.lockedAt!.getTime();
            await until(
              async () => (await jobs.get(job.id))!.lockedAt!.getTime() - claimedAt > 2 * staleAfterMs || signal.aborted,
              'the lock to be renewed',
              60_000,
            );
            if (signal.aborted) aborted.push(workerId);
          },
          onAbandoned: async (job) => void abandoned.push(job.id),
        }),
    );
    const { id } = await jobs.enqueue('long', { n: 1 });
    for (const worker of workers) worker.start();
    try {
      await until(async () => (await jobs.get(id))?.state === 'completed', 'the long job to complete', 60_000);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    expect(ran).toHaveLength(1);
    expect(aborted).toEqual([]);
    expect(abandoned).toEqual([]);
    expect(await jobs.get(id)).toMatchObject({ state: 'completed', attempts: 1, lastError: null });
  }, 90_000);
});
