/**
 * The generic JobWorker's retry policy, backoff, hooks and status, on the test database.
 * Nothing here asserts how long anything took: backoffs are checked as the `runAt` the database
 * stored (an hour ahead is unmistakable), and waits are polls with generous ceilings.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { completeJobSql, JobQueue, type FailResult, type JobRow } from '../../src/jobs/job-queue.ts';
import { JobWorker, type JobWorkerOptions } from '../../src/jobs/job-worker.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

let db: TestDatabase;
let jobs: JobQueue;

type Payload = { n: number };

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Array<{ level: number; msg: string; hook?: string }> = [];
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

function worker(options: Partial<JobWorkerOptions<Payload>> & Pick<JobWorkerOptions<Payload>, 'queue' | 'handle'>): JobWorker<Payload> {
  return new JobWorker<Payload>({ jobs, log: pino({ level: 'silent' }), workerId: 'w-test', pollIntervalMs: 20, ...options });
}

/** Makes the queue's waiting jobs due now (instead of waiting out their backoff). */
async function makeDue(queue: string): Promise<void> {
  await db.pool.query(`UPDATE "Job" SET "runAt" = now() - interval '1 second' WHERE queue = $1 AND state = 'queued'`, [queue]);
}

beforeAll(async () => {
  db = await createTestDatabase();
  jobs = new JobQueue(db.pool, { backoffBaseMs: 1000, backoffMaxMs: 4000 });
}, 120_000);
afterAll(() => db?.cleanup());
beforeEach(async () => {
  await db.pool.query('DELETE FROM "Job"');
});

describe('JobWorker retry policy and hooks', () => {
  it('retries a failed attempt with the policy backoff, calls onRetry, then onFailure when the attempts are used up', async () => {
    const retries: Array<{ n: number; error: string; outcome: FailResult }> = [];
    const failures: Array<{ n: number; attempts: number; error: string; outcome: FailResult }> = [];
    const w = worker({
      queue: 'retry',
      retryPolicy: { retry: true, backoff: { baseMs: 3_600_000, maxMs: 7_200_000 } },
      handle: async (job) => {
        throw new Error(`attempt ${job.attempts} broke`);
      },
      onRetry: async (job, error, outcome) => void retries.push({ n: job.payload.n, error: (error as Error).message, outcome }),
      onFailure: async (job, error, outcome) => void failures.push({ n: job.payload.n, attempts: job.attempts, error: (error as Error).message, outcome }),
    });
    const { id } = await jobs.enqueue('retry', { n: 7 }, { maxAttempts: 2 });

    expect(await w.runOnce()).toBe(true);
    expect(retries).toEqual([{ n: 7, error: 'attempt 1 broke', outcome: { state: 'queued', attempts: 1, runAt: expect.any(Date) } }]);
    expect(failures).toEqual([]);
    // the policy's backoff (1 h for the first retry), not the queue's (1 s): the database says when it runs
    const { rows } = await db.pool.query<{ aheadMs: number }>(`SELECT extract(epoch FROM "runAt" - now()) * 1000 AS "aheadMs" FROM "Job" WHERE id = $1`, [id]);
    expect(Number(rows[0].aheadMs)).toBeGreaterThan(30 * 60_000);
    expect(await jobs.get(id)).toMatchObject({ state: 'queued', attempts: 1, lastError: 'Error: attempt 1 broke' });
    expect(await w.runOnce()).toBe(false); // not due yet

    await makeDue('retry');
    expect(await w.runOnce()).toBe(true);
    expect(retries).toHaveLength(1);
    expect(failures).toEqual([{ n: 7, attempts: 2, error: 'attempt 2 broke', outcome: { state: 'failed', attempts: 2, runAt: null } }]);
    expect(await jobs.get(id)).toMatchObject({ state: 'failed', attempts: 2, lastError: 'Error: attempt 2 broke' });
    expect(w.status()).toMatchObject({ state: 'stopped', processed: 0, failed: 2, running: 0, currentJobId: null });
  });

  it('without a retry policy, or when the policy declines the error, the first failure is final', async () => {
    const calls: string[] = [];
    const hooks = {
      onRetry: async (job: JobRow<Payload>) => void calls.push(`retry ${job.payload.n}`),
      onFailure: async (job: JobRow<Payload>) => void calls.push(`failure ${job.payload.n}`),
    };
    class Permanent extends Error {}
    const noPolicy = worker({
      queue: 'no-policy',
      ...hooks,
      handle: async () => {
        throw new Error('broken');
      },
    });
    const declines = worker({
      queue: 'declines',
      ...hooks,
      retryPolicy: { retry: (error) => !(error instanceof Permanent) },
      handle: async (job) => {
        throw job.payload.n === 2 ? new Permanent('bad payload') : new Error('transient');
      },
    });
    const a = await jobs.enqueue('no-policy', { n: 1 }, { maxAttempts: 3 });
    const b = await jobs.enqueue('declines', { n: 2 }, { maxAttempts: 3 });
    const c = await jobs.enqueue('declines', { n: 3 }, { maxAttempts: 3 });

    expect(await noPolicy.runOnce()).toBe(true);
    expect(await declines.runOnce()).toBe(true);
    expect(await declines.runOnce()).toBe(true);
    expect(calls).toEqual(['failure 1', 'failure 2', 'retry 3']);
    expect(await jobs.get(a.id)).toMatchObject({ state: 'failed', attempts: 1 });
    expect(await jobs.get(b.id)).toMatchObject({ state: 'failed', attempts: 1, lastError: 'Error: bad payload' });
    expect(await jobs.get(c.id)).toMatchObject({ state: 'queued', attempts: 1 });
  });

  it('a hook that throws is logged and changes nothing: the job outcome stands and the worker goes on', async () => {
    const { log, lines } = capturingLogger();
    const w = worker({
      queue: 'bad-hook',
      log,
      retryPolicy: { retry: true },
      handle: async (job) => {
        if (job.payload.n === 1) throw new Error('fails');
      },
      onRetry: async () => {
        throw new Error('hook broke');
      },
    });
    const failing = await jobs.enqueue('bad-hook', { n: 1 }, { maxAttempts: 2 });
    expect(await w.runOnce()).toBe(true);
    expect(lines.some((line) => line.msg === 'job hook failed' && line.hook === 'onRetry')).toBe(true);
    expect(await jobs.get(failing.id)).toMatchObject({ state: 'queued', attempts: 1 });
    const fine = await jobs.enqueue('bad-hook', { n: 2 }, { runAt: new Date(Date.now() - 60_000) });
    expect(await w.runOnce()).toBe(true);
    expect(await jobs.get(fine.id)).toMatchObject({ state: 'completed' });
    expect(w.status()).toMatchObject({ processed: 1, failed: 1 });
  });

  it('a started worker retries on its own after the backoff and completes the job', async () => {
    const attempts: number[] = [];
    const w = worker({
      queue: 'flaky',
      retryPolicy: { retry: true, backoff: { baseMs: 1, maxMs: 1 } },
      handle: async (job) => {
        attempts.push(job.attempts);
        if (job.attempts < 3) throw new Error('not yet');
      },
    });
    const { id } = await jobs.enqueue('flaky', { n: 1 }, { maxAttempts: 5 });
    w.start();
    try {
      await until(async () => (await jobs.get(id))?.state === 'completed', 'the job to complete on its third attempt');
      await until(() => w.status().running === 0, 'the worker to let go of the job');
      expect(['idle', 'running']).toContain(w.status().state);
      expect(w.status()).toMatchObject({ processed: 1, failed: 2, currentJobId: null, lastPollAt: expect.any(Date) });
    } finally {
      await w.stop();
    }
    expect(attempts).toEqual([1, 2, 3]);
    expect(await jobs.get(id)).toMatchObject({ state: 'completed', attempts: 3, lastError: null });
    expect(w.status().state).toBe('stopped');
  });

  it("onAbandoned hears whether the sweep requeued a dead worker's job or failed it for good", async () => {
    const abandoned: Array<[number, string]> = [];
    const ran: number[] = [];
    const w = worker({
      queue: 'orphans',
      staleAfterMs: 60_000,
      staleOnStartMs: 0,
      handle: async (job) => void ran.push(job.payload.n),
      onAbandoned: async (job, outcome) => void abandoned.push([job.payload.n, outcome]),
    });
    const left = await jobs.enqueue('orphans', { n: 1 }, { maxAttempts: 2 });
    const spent = await jobs.enqueue('orphans', { n: 2 }, { maxAttempts: 1 });
    expect((await jobs.claim('orphans', 'dead-worker'))?.id).toBe(left.id);
    expect((await jobs.claim('orphans', 'dead-worker'))?.id).toBe(spent.id);
    w.start();
    try {
      await until(async () => (await jobs.get(left.id))?.state === 'completed', 'the requeued job to run');
    } finally {
      await w.stop();
    }
    expect(abandoned.sort()).toEqual([
      [1, 'requeued'],
      [2, 'failed'],
    ]);
    expect(ran).toEqual([1]);
    expect(await jobs.get(spent.id)).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/abandoned by worker dead-worker/) });
  });

  it('claims as many jobs as it has room for at once, and a handler that completed its job itself (completeJobSql) is not completed again', async () => {
    for (let n = 0; n < 5; n++) await jobs.enqueue('batch', { n });
    const running: number[] = [];
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = worker({
      queue: 'batch',
      concurrency: 3,
      handle: async (job) => {
        running.push(job.payload.n);
        most = Math.max(most, running.length);
        await gate;
        running.splice(running.indexOf(job.payload.n), 1);
        if (job.payload.n % 2 === 1) return; // the worker completes it
        // The handler's own statement completes the job, as the webhook sender's record does.
        const { rowCount } = await db.pool.query(completeJobSql('$1', '$2', '$3'), [job.id, job.lockedBy, job.attempts]);
        expect(rowCount).toBe(1);
        return 'completed';
      },
    });
    w.start();
    try {
      await until(() => running.length === 3, 'three jobs running at once');
      expect(await jobs.depths('batch')).toMatchObject({ queued: 2, running: 3 });
      release();
      await until(async () => (await jobs.depths('batch')).completed === 5, 'every job completed');
      expect(most).toBe(3);
      expect(w.status().processed).toBe(5);
      expect(w.status().failed).toBe(0);
    } finally {
      await w.stop();
    }
  });
});
