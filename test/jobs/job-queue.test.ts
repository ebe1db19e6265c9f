import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JobQueue, enqueueSql } from '../../src/jobs/job-queue.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

let db: TestDatabase;
let jobs: JobQueue;

beforeAll(async () => {
  db = await createTestDatabase();
  jobs = new JobQueue(db.pool, { backoffBaseMs: 1000, backoffMaxMs: 4000 });
}, 120_000);
afterAll(() => db?.cleanup());
beforeEach(async () => {
  await db.pool.query('DELETE FROM "Job"');
});

describe('JobQueue', () => {
  it('enqueue -> claim -> complete', async () => {
    const { id } = await jobs.enqueue('ingest', { fileId: 'f1' });
    expect(await jobs.depths()).toEqual({ queued: 1, running: 0, completed: 0, failed: 0 });
    const job = await jobs.claim<{ fileId: string }>('ingest', 'w1');
    expect(job).toMatchObject({ id, queue: 'ingest', payload: { fileId: 'f1' }, state: 'running', attempts: 1, lockedBy: 'w1' });
    expect(job!.lockedAt).toBeInstanceOf(Date);
    expect(await jobs.claim('ingest', 'w2')).toBeNull();
    expect(await jobs.complete(id)).toBe(true);
    expect(await jobs.complete(id)).toBe(false);
    expect(await jobs.depths()).toEqual({ queued: 0, running: 0, completed: 1, failed: 0 });
    expect(await jobs.depths('other')).toEqual({ queued: 0, running: 0, completed: 0, failed: 0 });
  });

  it('claims in runAt order, only due jobs, only of its queue', async () => {
    const later = await jobs.enqueue('ingest', { n: 'later' }, { runAt: new Date(Date.now() + 60_000) });
    const second = await jobs.enqueue('ingest', { n: 2 }, { runAt: new Date(Date.now() - 1000) });
    const first = await jobs.enqueue('ingest', { n: 1 }, { runAt: new Date(Date.now() - 5000) });
    await jobs.enqueue('generation', { n: 'other queue' });
    expect((await jobs.claim('ingest', 'w'))!.id).toBe(first.id);
    expect((await jobs.claim('ingest', 'w'))!.id).toBe(second.id);
    expect(await jobs.claim('ingest', 'w')).toBeNull();
    expect((await jobs.get(later.id))!.state).toBe('queued');
  });

  it('concurrent claims never hand out the same job', async () => {
    for (let i = 0; i < 20; i++) await jobs.enqueue('ingest', { i });
    const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => jobs.claim('ingest', `w${i}`)));
    const ids = claims.filter((c) => c !== null).map((c) => c!.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });

  it('claimMany takes up to `max` due jobs of its queue in one statement, oldest first; concurrent ones never share a job', async () => {
    const due = [];
    for (let i = 0; i < 7; i++) due.push((await jobs.enqueue('ingest', { i }, { runAt: new Date(Date.now() - 10_000 + i * 1000) })).id);
    await jobs.enqueue('ingest', { n: 'later' }, { runAt: new Date(Date.now() + 60_000) });
    await jobs.enqueue('generation', { n: 'other queue' });
    const first = await jobs.claimMany('ingest', 'w1', 3);
    expect(first.map((job) => job.id)).toEqual(due.slice(0, 3));
    expect(first.every((job) => job.state === 'running' && job.lockedBy === 'w1' && job.attempts === 1)).toBe(true);
    const [a, b] = await Promise.all([jobs.claimMany('ingest', 'w2', 3), jobs.claimMany('ingest', 'w3', 3)]);
    const rest = [...a, ...b].map((job) => job.id);
    expect(new Set(rest).size).toBe(4);
    expect(rest.sort()).toEqual(due.slice(3).sort());
    expect(await jobs.claimMany('ingest', 'w1', 5)).toEqual([]);
    expect(await jobs.depths('ingest')).toEqual({ queued: 1, running: 7, completed: 0, failed: 0 });
  });

  it('fail with retry re-queues with exponential backoff until maxAttempts, then fails', async () => {
    const { id } = await jobs.enqueue('ingest', {}, { maxAttempts: 3 });
    await jobs.claim('ingest', 'w');
    const first = await jobs.fail(id, new Error('db down'), { retry: true });
    expect(first).toMatchObject({ state: 'queued', attempts: 1 });
    const delay1 = first!.runAt!.getTime() - Date.now();
    expect(delay1).toBeGreaterThan(500);
    expect(delay1).toBeLessThanOrEqual(1100);
    expect(await jobs.claim('ingest', 'w')).toBeNull(); // not due yet
    const row = await jobs.get(id);
    expect(row).toMatchObject({ state: 'queued', lastError: 'Error: db down', lockedBy: null, lockedAt: null });

    await db.pool.query(`UPDATE "Job" SET "runAt" = now() WHERE id = $1`, [id]);
    await jobs.claim('ingest', 'w');
    const second = await jobs.fail(id, 'again', { retry: true });
    expect(second!.state).toBe('queued');
    const delay2 = second!.runAt!.getTime() - Date.now();
    expect(delay2).toBeGreaterThan(1500); // 2 s
    expect(delay2).toBeLessThanOrEqual(2100);

    await db.pool.query(`UPDATE "Job" SET "runAt" = now() WHERE id = $1`, [id]);
    expect((await jobs.claim('ingest', 'w'))!.attempts).toBe(3);
    expect(await jobs.fail(id, 'third', { retry: true })).toEqual({ state: 'failed', runAt: null, attempts: 3 });
    expect(await jobs.depths()).toMatchObject({ failed: 1, queued: 0 });
  });

  it('fail without retry fails at once', async () => {
    const { id } = await jobs.enqueue('ingest', {}, { maxAttempts: 5 });
    await jobs.claim('ingest', 'w');
    expect(await jobs.fail(id, new Error('bad payload'), { retry: false })).toMatchObject({ state: 'failed', attempts: 1 });
    expect(await jobs.fail(id, 'not running any more', { retry: true })).toBeNull();
  });

  it('requeueStale puts abandoned running jobs back, fails those without attempts left, leaves fresh ones', async () => {
    const stale = await jobs.enqueue('ingest', { n: 'stale' });
    const exhausted = await jobs.enqueue('ingest', { n: 'exhausted' }, { maxAttempts: 1 });
    const fresh = await jobs.enqueue('ingest', { n: 'fresh' });
    for (let i = 0; i < 3; i++) await jobs.claim('ingest', 'crashed-worker');
    await db.pool.query(`UPDATE "Job" SET "lockedAt" = now() - interval '10 minutes' WHERE id = ANY($1::uuid[])`, [[stale.id, exhausted.id]]);

    const result = await jobs.requeueStale(5 * 60_000);
    expect(result.requeued.map((j) => j.id)).toEqual([stale.id]);
    expect(result.failed).toEqual([{ id: exhausted.id, queue: 'ingest', payload: { n: 'exhausted' } }]);
    expect(await jobs.get(stale.id)).toMatchObject({ state: 'queued', lockedBy: null, attempts: 1 });
    expect((await jobs.get(stale.id))!.lastError).toMatch(/abandoned by worker crashed-worker/);
    expect((await jobs.get(fresh.id))!.state).toBe('running');
    expect((await jobs.claim('ingest', 'w2'))!.id).toBe(stale.id);
  });

  it('heartbeat keeps a long job from being taken as stale', async () => {
    const { id } = await jobs.enqueue('ingest', {});
    await jobs.claim('ingest', 'w');
    await db.pool.query(`UPDATE "Job" SET "lockedAt" = now() - interval '10 minutes' WHERE id = $1`, [id]);
    expect(await jobs.heartbeat(id, 'someone-else')).toBe(false);
    expect(await jobs.heartbeat(id, 'w')).toBe(true);
    expect((await jobs.requeueStale(60_000)).requeued).toEqual([]);
  });

  it('deleteFinished removes old completed (and optionally failed) jobs only', async () => {
    const done = await jobs.enqueue('ingest', {});
    const dead = await jobs.enqueue('ingest', {}, { maxAttempts: 1 });
    const waiting = await jobs.enqueue('ingest', {}, { runAt: new Date(Date.now() + 60_000) });
    await jobs.claim('ingest', 'w');
    await jobs.claim('ingest', 'w');
    await jobs.complete(done.id);
    await jobs.fail(dead.id, 'x', { retry: true });
    await db.pool.query(`UPDATE "Job" SET "updatedAt" = now() - interval '2 days'`);
    expect(await jobs.deleteFinished(86_400_000)).toBe(1);
    expect(await jobs.get(done.id)).toBeNull();
    expect(await jobs.deleteFinished(86_400_000, { includeFailed: true })).toBe(1);
    expect(await jobs.get(waiting.id)).not.toBeNull();
  });

  it('enqueue joins the caller transaction: Prisma interactive transaction and pg client', async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        await jobs.enqueue('ingest', { in: 'prisma' }, { tx });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await jobs.depths()).queued).toBe(0);
    await db.prisma.$transaction(async (tx) => {
      await jobs.enqueue('ingest', { in: 'prisma' }, { tx, maxAttempts: 7 });
    });
    const viaPrisma = await jobs.claim('ingest', 'w');
    expect(viaPrisma).toMatchObject({ payload: { in: 'prisma' }, maxAttempts: 7 });
    expect(viaPrisma!.updatedAt).toBeInstanceOf(Date);

    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await jobs.enqueue('ingest', { in: 'pg' }, { tx: client });
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      const { sql, params } = enqueueSql('ingest', { in: 'raw' });
      await client.query(sql, params);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await jobs.claim('ingest', 'w'))!.payload).toEqual({ in: 'raw' });
    expect(await jobs.claim('ingest', 'w')).toBeNull();
  });
});
