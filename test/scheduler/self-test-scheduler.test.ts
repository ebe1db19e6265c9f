import http from 'node:http';
import type net from 'node:net';
import { Readable } from 'node:stream';
import pg from 'pg';
import { Cron } from 'croner';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { splitSchema, type Database } from '../../src/db/database.ts';
import { AppError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import {
  BUILT_IN_CHECK_NAMES,
  HTTP_SKIPPED_DETAIL,
  builtInChecks,
  type BuiltInCheckDeps,
  type SelfTestBlobStore,
  type SelfTestCheck,
} from '../../src/scheduler/self-test-checks.ts';
import {
  LEADER_LOCK_KEY,
  RUN_IN_PROGRESS_MESSAGE,
  SCHEMA_KEY_SQL,
  SelfTestScheduler,
  validateCron,
  type SelfTestSchedulerDeps,
} from '../../src/scheduler/self-test-scheduler.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

const log = createLogger('silent');
let db: Database & { cleanup(): Promise<void> };
const schedulers: SelfTestScheduler[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.cleanup();
});

beforeEach(async () => {
  await db.pool.query('DELETE FROM "SelfTestRun"');
  await db.pool.query('DELETE FROM "Job"');
});

afterEach(async () => {
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
});

function scheduler(overrides: Partial<SelfTestSchedulerDeps> = {}): SelfTestScheduler {
  const s = new SelfTestScheduler({
    db,
    prisma: db.prisma,
    log,
    cron: '0 3 * * *',
    enabled: true,
    checks: [passing('first'), passing('second')],
    ...overrides,
  });
  schedulers.push(s);
  return s;
}

function passing(name: string, detail = `${name} ok`): SelfTestCheck {
  return { name, run: async () => detail };
}

/** A check that waits until the test opens the gate. */
function gated(name: string): { check: SelfTestCheck; started: Promise<void>; open(): void } {
  let open!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    check: {
      name,
      async run() {
        markStarted();
        await gate;
        return `${name} released`;
      },
    },
    started,
    open,
  };
}

async function expectAppError(promise: Promise<unknown>, code: string, message?: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  if (message !== undefined) expect((error as AppError).message).toBe(message);
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('SelfTestScheduler: runs', () => {
  it('trigger() returns the running run at once; the suite completes in the background and is stored', async () => {
    const gate = gated('slow');
    const s = scheduler({ checks: [passing('first'), gate.check, passing('last')] });

    const run = await s.trigger('manual');
    expect(run).toMatchObject({ trigger: 'manual', status: 'running', finishedAt: null, durationMs: null, checks: [] });
    expect(run.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.startedAt).toBeInstanceOf(Date);

    await gate.started;
    const during = await s.status();
    expect(during.state).toBe('running');
    expect(during.lastRun).toMatchObject({ id: run.id, status: 'running' });
    // Results are stored as each check finishes.
    expect(during.lastRun!.checks.map((c) => c.name)).toEqual(['first']);

    gate.open();
    await s.idle();
    const [stored] = await s.history(1);
    expect(stored).toMatchObject({ id: run.id, trigger: 'manual', status: 'passed' });
    expect(stored.finishedAt).toBeInstanceOf(Date);
    expect(stored.durationMs).toBeGreaterThanOrEqual(0);
    expect(stored.checks).toEqual([
      { name: 'first', passed: true, durationMs: expect.any(Number), detail: 'first ok' },
      { name: 'slow', passed: true, durationMs: expect.any(Number), detail: 'slow released' },
      { name: 'last', passed: true, durationMs: expect.any(Number), detail: 'last ok' },
    ]);
    expect((await s.status()).state).toBe('idle');
  });

  it('refuses a second run while one is in progress, in this instance and in another one', async () => {
    const gate = gated('slow');
    const s = scheduler({ checks: [gate.check] });
    const other = scheduler({ checks: [passing('x')] });

    await s.trigger('manual');
    await expectAppError(s.trigger('manual'), 'CONFLICT', RUN_IN_PROGRESS_MESSAGE);
    await expectAppError(other.trigger('manual'), 'CONFLICT', RUN_IN_PROGRESS_MESSAGE);
    expect((await other.status()).state).toBe('running');

    gate.open();
    await s.idle();
    const next = await other.runNow('manual');
    expect(next.status).toBe('passed');
  });

  it('lets exactly one of many simultaneous triggers (several instances) start a run', async () => {
    // The suite waits for the gate, so the winner's run is still in progress for every other trigger.
    const gate = gated('held');
    const instances = [1, 2, 3, 4].map(() => scheduler({ checks: [gate.check] }));
    const results = await Promise.allSettled(instances.flatMap((s) => [s.trigger('manual'), s.trigger('schedule')]));
    gate.open();
    const started = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(started).toHaveLength(1);
    for (const r of refused) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
      expect(((r as PromiseRejectedResult).reason as AppError).code).toBe('CONFLICT');
    }
    await Promise.all(instances.map((s) => s.idle()));
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM "SelfTestRun"');
    expect(rows[0].n).toBe(1);
  });

  it('history() lists the newest runs first, with a limit, and validates the limit', async () => {
    const s = scheduler();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await s.runNow(i === 1 ? 'schedule' : 'manual')).id);
    const two = await s.history(2);
    expect(two.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect(two[1].trigger).toBe('schedule');
    expect((await s.history()).map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await s.history(500)).length).toBe(3);
    await expectAppError(s.history(0), 'BAD_USER_INPUT');
    await expectAppError(s.history(501), 'BAD_USER_INPUT');
    await expectAppError(s.history(1.5), 'BAD_USER_INPUT');
  });

  it('a failing check fails the run, records its detail, and the other checks still run', async () => {
    const s = scheduler({
      checks: [
        passing('before'),
        {
          name: 'broken',
          run: async () => {
            throw new Error('expected 401, got 200');
          },
        },
        passing('after'),
        {
          name: 'driver error',
          run: async () => {
            throw Object.assign(new Error('connect ECONNREFUSED db.internal:5432 for postgresql://admin:pw@db.internal'), {
              code: 'ECONNREFUSED',
            });
          },
        },
      ],
    });
    const run = await s.runNow('manual');
    expect(run.status).toBe('failed');
    const [stored] = await s.history(1);
    expect(stored.status).toBe('failed');
    expect(stored.checks.map((c) => [c.name, c.passed, c.detail])).toEqual([
      ['before', true, 'before ok'],
      ['broken', false, 'expected 401, got 200'],
      ['after', true, 'after ok'],
      // Driver and system errors are reduced to a short reason (no hosts or credentials).
      ['driver error', false, 'connection refused'],
    ]);
  });

  it('bounds each check by its timeout and aborts its signal', async () => {
    let aborted = false;
    const s = scheduler({
      checkTimeoutMs: 100,
      checks: [
        {
          name: 'hangs',
          run: (signal) =>
            new Promise<string>(() => {
              signal.addEventListener('abort', () => (aborted = true));
            }),
        },
        passing('next'),
      ],
    });
    const started = Date.now();
    const run = await s.runNow('manual');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(run.status).toBe('failed');
    expect(run.checks[0]).toMatchObject({ name: 'hangs', passed: false, detail: 'timed out after 100 ms' });
    expect(run.checks[0].durationMs).toBeGreaterThanOrEqual(95);
    expect(run.checks[1]).toMatchObject({ name: 'next', passed: true });
    expect(aborted).toBe(true);
  });

  it('keeps only the newest runs (retention)', async () => {
    const s = scheduler({ retainRuns: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await s.runNow('manual')).id);
    const kept = await s.history(10);
    expect(kept.map((r) => r.id)).toEqual([ids[4], ids[3], ids[2]]);
    const orphans = await db.pool.query(
      'SELECT count(*)::int AS n FROM "SelfTestCheck" c WHERE NOT EXISTS (SELECT 1 FROM "SelfTestRun" r WHERE r.id = c."runId")',
    );
    expect(orphans.rows[0].n).toBe(0);
    const checks = await db.pool.query('SELECT count(*)::int AS n FROM "SelfTestCheck"');
    expect(checks.rows[0].n).toBe(3 * 2);
  });

  it('marks a run abandoned by a crashed process as failed instead of blocking forever', async () => {
    // A run some other process started 11 minutes ago and never finished, with one stored check.
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO "SelfTestRun" ("id", "trigger", "status", "startedAt")
       VALUES (gen_random_uuid(), 'schedule', 'running', now() - interval '11 minutes') RETURNING "id"`,
    );
    const abandonedId = rows[0].id;
    await db.pool.query(
      `INSERT INTO "SelfTestCheck" ("id", "runId", "name", "passed", "durationMs", "detail", "position")
       VALUES (gen_random_uuid(), $1, 'database round trip', true, 3, 'ok', 0)`,
      [abandonedId],
    );
    const s = scheduler();
    // A stale running row does not make the scheduler look busy.
    expect((await s.status()).state).toBe('idle');

    const run = await s.runNow('manual');
    expect(run.status).toBe('passed');
    const abandoned = (await s.history(10)).find((r) => r.id === abandonedId)!;
    expect(abandoned.status).toBe('failed');
    expect(abandoned.finishedAt).toBeInstanceOf(Date);
    expect(abandoned.durationMs).toBeGreaterThanOrEqual(11 * 60_000 - 1000);
    expect(abandoned.checks.map((c) => [c.name, c.passed])).toEqual([
      ['database round trip', true],
      ['abandoned', false],
    ]);
    expect(abandoned.checks[1].detail).toMatch(/^abandoned: still running after 600 s/);
  });

  it('a recent running row of another instance blocks a new run', async () => {
    await db.pool.query(
      `INSERT INTO "SelfTestRun" ("id", "trigger", "status", "startedAt")
       VALUES (gen_random_uuid(), 'manual', 'running', now() - interval '1 minute')`,
    );
    const s = scheduler();
    expect((await s.status()).state).toBe('running');
    await expectAppError(s.trigger('manual'), 'CONFLICT', RUN_IN_PROGRESS_MESSAGE);
  });
});

describe('SelfTestScheduler: schedule and lifecycle', () => {
  it('validates the cron expression at construction with a clear error', () => {
    for (const bad of ['not a cron', '61 * * * *', '* * * *', '', '0 0 31 2 *']) {
      expect(() => scheduler({ cron: bad })).toThrow(/Invalid self-test cron expression .*SELF_TEST_CRON/);
    }
    expect(() => validateCron('*/15 * * * *')).not.toThrow();
    expect(() => validateCron('*/5 * * * * *')).not.toThrow(); // seconds field allowed
  });

  it('reports nextRunAt and secondsUntilNextRun consistent with the cron (UTC)', async () => {
    const s = scheduler({ cron: '0 0 1 1 *' });
    s.start();
    const asked = Date.now();
    const status = await s.status();
    const answered = Date.now();
    const now = new Date(answered);
    const expected = new Date(Date.UTC(now.getUTCFullYear() + 1, 0, 1));
    expect(status).toMatchObject({ state: 'idle', cron: '0 0 1 1 *', enabled: true, lastRun: null });
    expect(status.nextRunAt?.toISOString()).toBe(expected.toISOString());
    // Bracketed by the instants before and after the call, however long it took on a loaded machine.
    expect(status.secondsUntilNextRun!).toBeGreaterThanOrEqual(Math.floor((expected.getTime() - answered) / 1000));
    expect(status.secondsUntilNextRun!).toBeLessThanOrEqual(Math.ceil((expected.getTime() - asked) / 1000));

    const quarter = scheduler({ cron: '*/15 * * * *' });
    const q = await quarter.status();
    expect(q.nextRunAt!.getUTCMinutes() % 15).toBe(0);
    expect(q.nextRunAt!.getUTCSeconds()).toBe(0);
    expect(q.nextRunAt!.getTime()).toBeGreaterThan(Date.now());
    // The cron's rule, not a time limit: the next quarter hour is never more than 15 minutes away.
    expect(q.secondsUntilNextRun).toBeLessThanOrEqual(15 * 60);
    expect(q.nextRunAt!.getTime()).toBe(new Cron('*/15 * * * *', { timezone: 'UTC' }).nextRun()!.getTime());
  });

  it('disabled: no next run, state disabled, manual trigger still works', async () => {
    const s = scheduler({ enabled: false, cron: '* * * * * *' });
    s.start();
    expect(await s.status()).toMatchObject({ state: 'disabled', enabled: false, nextRunAt: null, secondsUntilNextRun: null });
    await new Promise((r) => setTimeout(r, 1200));
    expect(await s.history(10)).toHaveLength(0);
    const run = await s.runNow('manual');
    expect(run.status).toBe('passed');
  });

  it('runs the suite on the schedule', async () => {
    const s = scheduler({ cron: '* * * * * *' });
    s.start();
    const run = await waitFor(async () => (await s.history(1)).find((r) => r.status !== 'running'), 5000);
    expect(run).toMatchObject({ trigger: 'schedule', status: 'passed' });
    expect(run.checks.map((c) => c.name)).toEqual(['first', 'second']);
  });

  it.skipIf(!process.env.DATABASE_URL)('on PostgreSQL only the instance holding the leader lock runs scheduled runs', async () => {
    // Another instance holds leadership on its own connection.
    // The other instance works in the same schema (the lock key includes it).
    const { connectionString, schema } = splitSchema(db.url);
    const other = new pg.Client({ connectionString, options: `-c search_path="${schema}"` });
    await other.connect();
    try {
      const { rows } = await other.query(`SELECT pg_try_advisory_lock($1::int, ${SCHEMA_KEY_SQL}) AS locked`, [LEADER_LOCK_KEY]);
      expect(rows[0].locked).toBe(true);
      const s = scheduler({ cron: '* * * * * *' });
      s.start();
      await new Promise((r) => setTimeout(r, 2300));
      expect(await s.history(10)).toHaveLength(0);
      // The leader goes away: this instance takes over at its next tick.
      await other.end();
      const run = await waitFor(async () => (await s.history(1))[0], 5000);
      expect(run.trigger).toBe('schedule');
    } finally {
      await other.end().catch(() => {});
    }
  });

  it('stop() waits for the running suite, then the scheduler is stopped', async () => {
    const gate = gated('slow');
    const s = scheduler({ checks: [gate.check] });
    s.start();
    const run = await s.trigger('manual');
    await gate.started;
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    gate.open();
    await stopping;
    const [stored] = await s.history(1);
    expect(stored).toMatchObject({ id: run.id, status: 'passed' });
    expect(await s.status()).toMatchObject({ state: 'stopped', nextRunAt: null, secondsUntilNextRun: null });
    await expectAppError(s.trigger('manual'), 'SERVICE_UNAVAILABLE');
  });
});

// ------------------------------------------------------------------------------------------------
// The built-in checks against this database, an in-memory blob store and a tiny local HTTP server.

class MemoryBlobs implements SelfTestBlobStore {
  readonly objects = new Map<string, Buffer>();
  corrupt = false;
  async put(key: string, body: Readable, opts: { maxBytes: number }): Promise<void> {
    expect(opts.maxBytes).toBeGreaterThan(0);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
    this.objects.set(key, Buffer.concat(chunks));
  }
  get(key: string): Readable {
    const value = this.objects.get(key);
    if (!value) throw new Error('not found');
    return Readable.from([this.corrupt ? Buffer.from('something else') : value]);
  }
  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
  async exists(key: string): Promise<boolean> {
    return this.objects.has(key);
  }
}

describe('built-in checks', () => {
  let server: http.Server;
  let baseUrl: string;
  let authBroken = false;
  const requests: { url: string; headers: http.IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/health') {
        res.end(JSON.stringify({ status: 'healthy' }));
      } else if (req.url?.startsWith('/api/returns/comparison')) {
        const hasCredentials = req.headers['x-api-key'] !== undefined || req.headers.cookie !== undefined;
        if (authBroken || hasCredentials) res.end(JSON.stringify({ data: [] }));
        else {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: 'Invalid or expired API key' }));
        }
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'Not found' }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    authBroken = false;
    requests.length = 0;
  });

  function checkDeps(overrides: Partial<BuiltInCheckDeps> = {}): BuiltInCheckDeps {
    return {
      db,
      blobs: new MemoryBlobs(),
      baseUrl: () => baseUrl,
      jobQueueDepths: async () => ({ queued: 0, running: 0, completed: 0, failed: 0 }),
      ...overrides,
    };
  }

  it('all pass against a healthy service, with real HTTP requests and no credentials', async () => {
    const blobs = new MemoryBlobs();
    const s = scheduler({ checks: builtInChecks(checkDeps({ blobs })) });
    const run = await s.runNow('manual');
    expect(run.checks.map((c) => c.name)).toEqual([...BUILT_IN_CHECK_NAMES]);
    expect(run.checks.filter((c) => !c.passed)).toEqual([]);
    expect(run.status).toBe('passed');
    const detail = Object.fromEntries(run.checks.map((c) => [c.name, c.detail]));
    expect(detail['database round trip']).toMatch(/^SELECT 1 in \d+\.\d ms/);
    expect(detail['migrations applied']).toMatch(/^(\d+) of \1 migrations applied$/);
    expect(detail['returns query']).toMatch(/^comparison query returned 0 rows in/);
    expect(detail['storage write/read/delete']).toMatch(/^wrote, read back and deleted \d+ bytes$/);
    expect(detail['unauthenticated request refused']).toBe('GET /api/returns/comparison without credentials: 401 {"error":"Invalid or expired API key"}');
    expect(detail['health endpoint']).toMatch(/^GET \/health: 200 healthy in/);
    expect(detail['job queue not stuck']).toMatch(/^none stuck/);
    expect(blobs.objects.size).toBe(0);
    expect(requests.map((r) => r.url).sort()).toEqual(['/api/returns/comparison', '/health']);
    for (const r of requests) {
      expect(r.headers['x-api-key']).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
    }
  });

  it('fails the unauthenticated-request check when the endpoint answers without credentials', async () => {
    authBroken = true;
    const s = scheduler({ checks: builtInChecks(checkDeps()) });
    const run = await s.runNow('manual');
    expect(run.status).toBe('failed');
    const check = run.checks.find((c) => c.name === 'unauthenticated request refused')!;
    expect(check).toMatchObject({ passed: false, detail: 'expected 401, got 200' });
    expect(run.checks.filter((c) => !c.passed)).toHaveLength(1);
  });

  it('fails the HTTP checks when the server does not answer, and skips them only when not listening', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = builtInChecks(checkDeps({ baseUrl: () => `http://127.0.0.1:${closedPort}` }));
    const failed = await scheduler({ checks: down }).runNow('manual');
    expect(failed.checks.find((c) => c.name === 'unauthenticated request refused')).toMatchObject({
      passed: false,
      detail: 'GET /api/returns/comparison failed: connection refused',
    });
    expect(failed.checks.find((c) => c.name === 'health endpoint')).toMatchObject({
      passed: false,
      detail: 'GET /health failed: connection refused',
    });

    const skipped = await scheduler({ checks: builtInChecks(checkDeps({ baseUrl: () => undefined })) }).runNow('manual');
    expect(skipped.status).toBe('passed');
    for (const name of ['unauthenticated request refused', 'health endpoint']) {
      expect(skipped.checks.find((c) => c.name === name)).toMatchObject({ passed: true, detail: HTTP_SKIPPED_DETAIL });
    }
  });

  it('the storage check passes against the real local blob store and leaves nothing behind', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { LocalBlobStore } = await import('../../src/storage/blob-store.ts');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'blobs-'));
    try {
      const store = new LocalBlobStore(dir);
      const check = builtInChecks(checkDeps({ blobs: store })).find((c) => c.name === 'storage write/read/delete')!;
      await expect(check.run(new AbortController().signal)).resolves.toMatch(/^wrote, read back and deleted \d+ bytes$/);
      const left = await fs.readdir(path.join(dir, 'self-test')).catch(() => []);
      expect(left).toEqual([]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('detects a storage round trip that returns other bytes', async () => {
    const blobs = new MemoryBlobs();
    blobs.corrupt = true;
    const run = await scheduler({ checks: builtInChecks(checkDeps({ blobs })) }).runNow('manual');
    const check = run.checks.find((c) => c.name === 'storage write/read/delete')!;
    expect(check.passed).toBe(false);
    expect(check.detail).toMatch(/differ from the \d+ written/);
    expect(blobs.objects.size).toBe(0); // cleaned up anyway
  });

  it('detects stuck jobs: running for over 15 minutes, or an ingest job due for over 15 minutes', async () => {
    const checks = builtInChecks(checkDeps());
    const queueCheck = checks.find((c) => c.name === 'job queue not stuck')!;
    const signal = new AbortController().signal;
    const insert = (queue: string, state: string, minutesAgo: number) =>
      db.pool.query(
        `INSERT INTO "Job" ("id", "queue", "payload", "state", "runAt", "lockedAt", "updatedAt")
         VALUES (gen_random_uuid(), $1, '{}', $2::"JobState", now() - make_interval(mins => $3),
                 CASE WHEN $2 = 'running' THEN now() - make_interval(mins => $3) END, now())`,
        [queue, state, minutesAgo],
      );
    // Recent work and a job scheduled for later are fine.
    await insert('ingest', 'running', 5);
    await insert('ingest', 'queued', 14);
    await insert('ingest', 'queued', -60);
    await insert('other', 'queued', 60); // not a watched queue
    await expect(queueCheck.run(signal)).resolves.toMatch(/^none stuck/);

    await insert('ingest', 'queued', 16);
    await expect(queueCheck.run(signal)).rejects.toThrow('1 ingest job due for more than 15 min');
    await insert('generation', 'running', 20);
    await expect(queueCheck.run(signal)).rejects.toThrow('1 job running for more than 15 min; 1 ingest job due for more than 15 min');
  });

  it('fails the migrations check when a migration directory is not applied', async () => {
    const fs = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-'));
    try {
      const { rows } = await db.pool.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations');
      for (const r of rows) await fs.mkdir(path.join(dir, r.migration_name));
      await fs.mkdir(path.join(dir, '29990101000000_future'));
      const check = builtInChecks(checkDeps({ migrationsDir: dir })).find((c) => c.name === 'migrations applied')!;
      await expect(check.run(new AbortController().signal)).rejects.toThrow('not applied: 29990101000000_future');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
