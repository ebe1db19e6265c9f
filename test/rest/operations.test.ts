/**
 * The operational endpoints of the data service over real HTTP: /health, /api/health,
 * /status, /api/benchmark and the self-test scheduler (/test-scheduler, /history, /trigger),
 * on a service started with the self-test schedule enabled.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { restUpload, sample, waitForFileStatus } from '../helpers/upload.ts';
import { BUILT_IN_CHECK_NAMES } from '../../src/scheduler/self-test-checks.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * An hourly schedule whose next run is about 30 minutes away, so no scheduled run can start
 * while this file runs (a manual trigger would then meet a 409 it did not cause), and the next
 * run time is known exactly.
 */
const CRON_MINUTE = (new Date().getUTCMinutes() + 30) % 60;
const CRON = `${CRON_MINUTE} * * * *`;

function expectedNextRun(from: number): Date {
  const next = new Date(from);
  next.setUTCSeconds(0, 0);
  do next.setUTCMinutes(next.getUTCMinutes() + 1);
  while (next.getUTCMinutes() !== CRON_MINUTE);
  return next;
}

let server: TestServer;
let admin: TestUser;
let reader: TestUser;
let pnlOnly: TestUser;

beforeAll(async () => {
  server = await startTestServer({ SELF_TEST_ENABLED: 'true', SELF_TEST_CRON: CRON, RATE_LIMIT_UPLOAD_PER_MINUTE: '100' });
  admin = await createUser(server.services, { scopes: ['admin'] });
  reader = await createUser(server.services, { scopes: ['read:returns', 'read:pnl'], org: `Operations ${Date.now()}` });
  pnlOnly = await createUser(server.services, { scopes: ['read:pnl'] });
});
afterAll(() => server?.close());

const withKey = (user: TestUser, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), 'x-api-key': user.key },
});
const UNAUTHENTICATED = { error: 'Invalid or expired API key' };
const FORBIDDEN = { error: 'Insufficient permissions' };

describe('/health and /api/health', () => {
  for (const path of ['/health', '/api/health']) {
    it(`${path}: 200, exactly {"status":"healthy"}, no credentials needed`, async () => {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.text()).toBe('{"status":"healthy"}');
    });

    it(`${path}?detailed=true with a key: database, storage, job queue, version, uptime`, async () => {
      const { status, body } = await getJson(`${server.url}${path}?detailed=true`, withKey(pnlOnly));
      expect(status).toBe(200);
      expect(body.status).toBe('healthy');
      expect(body.version).toBe(VERSION);
      expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
      expect(body.checked_at).toMatch(ISO);
      const { database, storage, job_queue: queue } = body.checks;
      expect(database.status).toBe('up');
      expect(database.kind).toBe(process.env.DATABASE_URL ? 'postgresql' : 'pglite');
      expect(typeof database.latency_ms).toBe('number');
      expect(database.latency_ms).toBeGreaterThanOrEqual(0);
      expect(storage.status).toBe('up');
      expect(storage.path).toBe(`${server.dataDir}/blobs`);
      expect(storage.free_bytes).toBeGreaterThan(0);
      expect(queue.status).toBe('up');
      for (const state of ['queued', 'running', 'completed', 'failed']) expect(Number.isInteger(queue[state])).toBe(true);
    });

    it(`${path}?detailed=true without credentials (or with a bad key): 401`, async () => {
      const anonymous = await getJson(`${server.url}${path}?detailed=true`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(UNAUTHENTICATED);
      const badKey = await getJson(`${server.url}${path}?detailed=true`, { headers: { 'x-api-key': `sk_${'0'.repeat(32)}` } });
      expect(badKey.status).toBe(401);
      expect(badKey.body).toEqual(UNAUTHENTICATED);
    });
  }

  it('detailed=false is the plain answer; a detailed value that is not a boolean is a 400 naming it', async () => {
    expect((await getJson(`${server.url}/health?detailed=false`)).body).toEqual({ status: 'healthy' });
    const bad = await getJson(`${server.url}/health?detailed=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Invalid detailed/);
  });

  it('the job queue depths follow the uploads', async () => {
    const before = (await getJson(`${server.url}/health?detailed=true`, withKey(admin))).body.checks.job_queue;
    const upload = await restUpload(server.url, admin.key, { orgId: admin.orgId, file: { name: 'pnl.csv', bytes: await sample('pnl-sample.csv') } });
    expect(upload.status).toBe(201);
    await waitForFileStatus(server.url, admin.key, admin.orgId, upload.body.data.id, ['processed']);
    const after = (await getJson(`${server.url}/health?detailed=true`, withKey(admin))).body.checks.job_queue;
    expect(after.completed).toBe(before.completed + 1);
  });
});

describe('/status', () => {
  it('reports the worker, the scheduler and the queue', async () => {
    const { status, body } = await getJson(`${server.url}/status`, withKey(pnlOnly));
    expect(status).toBe(200);
    const { worker, scheduler, queue } = body.data;
    expect(['running', 'idle', 'busy']).toContain(worker.state);
    expect(Number.isInteger(worker.processed)).toBe(true);
    expect(Number.isInteger(worker.failed)).toBe(true);
    expect(worker.last_poll_at).toMatch(ISO);
    expect(scheduler).toMatchObject({ enabled: true, cron: CRON });
    expect(['idle', 'running']).toContain(scheduler.state);
    expect(scheduler.next_run_at).toMatch(ISO);
    for (const state of ['queued', 'running', 'completed', 'failed']) expect(Number.isInteger(queue[state])).toBe(true);
  });

  it('401 without credentials', async () => {
    const { status, body } = await getJson(`${server.url}/status`);
    expect(status).toBe(401);
    expect(body).toEqual(UNAUTHENTICATED);
  });
});

describe('/api/benchmark', () => {
  beforeAll(async () => {
    // something to measure: a year is not needed, the reader's organization gets the sample files
    const uploader = await createUser(server.services, {
      scopes: ['write:upload', 'read:pnl'],
      org: (await server.services.prisma.organization.findUniqueOrThrow({ where: { id: reader.orgId } })).name,
    });
    for (const name of ['pnl-sample.csv', 'performance-sample.csv']) {
      const upload = await restUpload(server.url, uploader.key, { orgId: reader.orgId, file: { name, bytes: await sample(name) } });
      expect(upload.status).toBe(201);
      await waitForFileStatus(server.url, uploader.key, reader.orgId, upload.body.data.id, ['processed']);
    }
  });

  it('times the representative query and rates it by the documented thresholds', async () => {
    const { status, body } = await getJson(`${server.url}/api/benchmark`, withKey(reader));
    expect(status).toBe(200);
    const result = body.data;
    expect(typeof result.execution_time_ms).toBe('number');
    expect(result.execution_time_ms).toBeGreaterThan(0);
    expect(result.thresholds).toEqual({ fast_ms: 50, good_ms: 200, slow_ms: 1000 });
    expect(['fast', 'good', 'slow', 'critical']).toContain(result.rating);
    const t = result.thresholds;
    const ms = result.execution_time_ms;
    const expected = ms < t.fast_ms ? 'fast' : ms < t.good_ms ? 'good' : ms < t.slow_ms ? 'slow' : 'critical';
    // the rating is taken on the unrounded time; rounding to 0.01 ms can only matter at a boundary
    if (![t.fast_ms, t.good_ms, t.slow_ms].includes(ms)) expect(result.rating).toBe(expected);
    expect(result.query).toBe('returns.comparison+daily_series');
    expect(result.row_count).toBeGreaterThan(0);
    expect(result.measured_at).toMatch(ISO);
  });

  it('403 without read:returns; 401 without credentials', async () => {
    const refused = await getJson(`${server.url}/api/benchmark`, withKey(pnlOnly));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(FORBIDDEN);
    const anonymous = await getJson(`${server.url}/api/benchmark`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHENTICATED);
  });
});

describe('self-test scheduler', () => {
  it('GET /test-scheduler: idle, enabled, the next run time and a consistent countdown', async () => {
    const asked = Date.now();
    const { status, body } = await getJson(`${server.url}/test-scheduler`, withKey(reader));
    const answered = Date.now();
    expect(status).toBe(200);
    const scheduler = body.data;
    expect(scheduler).toMatchObject({ state: 'idle', enabled: true, cron: CRON, last_run: null });
    const nextRunAt = new Date(scheduler.next_run_at).getTime();
    expect(scheduler.next_run_at).toBe(expectedNextRun(asked).toISOString());
    expect(Number.isInteger(scheduler.seconds_until_next_run)).toBe(true);
    // Not a time limit: the countdown was computed between `asked` and `answered`, so it lies between
    // the two countdowns taken at those instants, however long the request took on a loaded machine.
    expect(scheduler.seconds_until_next_run).toBeGreaterThanOrEqual(Math.floor((nextRunAt - answered) / 1000));
    expect(scheduler.seconds_until_next_run).toBeLessThanOrEqual(Math.ceil((nextRunAt - asked) / 1000));
    expect(scheduler.seconds_until_next_run).toBeGreaterThan(25 * 60);
  });

  it('401 without credentials on every scheduler path', async () => {
    for (const [method, path] of [
      ['GET', '/test-scheduler'],
      ['GET', '/test-scheduler/history'],
      ['POST', '/test-scheduler/trigger'],
    ]) {
      const { status, body } = await getJson(`${server.url}${path}`, { method });
      expect({ path, status, body }).toEqual({ path, status: 401, body: UNAUTHENTICATED });
    }
  });

  it('POST /test-scheduler/trigger needs admin: 403 for a read-only key, and no run is started', async () => {
    const { status, body } = await getJson(`${server.url}/test-scheduler/trigger`, withKey(reader, { method: 'POST' }));
    expect(status).toBe(403);
    expect(body).toEqual(FORBIDDEN);
    expect((await getJson(`${server.url}/test-scheduler/history`, withKey(reader))).body.data).toEqual([]);
  });

  it('trigger: 202 with the running run; a trigger while it runs is 409; the finished run passes every check', async () => {
    // Three triggers at once: exactly one starts the run, the others find it running.
    const responses = await Promise.all([0, 1, 2].map(() => getJson(`${server.url}/test-scheduler/trigger`, withKey(admin, { method: 'POST' }))));
    expect(responses.map((r) => r.status).sort(), JSON.stringify(responses.map((r) => r.body))).toEqual([202, 409, 409]);
    const started = responses.filter((r) => r.status === 202);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(started).toHaveLength(1);
    expect(conflicts).toHaveLength(2);
    for (const conflict of conflicts) {
      expect(Object.keys(conflict.body)).toEqual(['error']);
      expect(conflict.body.error).toMatch(/in progress/i);
    }
    const run = started[0].body.data;
    expect(run).toMatchObject({ trigger: 'manual', status: 'running', finished_at: null, duration_ms: null, checks: [] });
    expect(run.started_at).toMatch(ISO);

    // wait for the run to finish
    let finished: any;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const history = await getJson(`${server.url}/test-scheduler/history`, withKey(reader));
      finished = history.body.data.find((r: { id: string }) => r.id === run.id);
      if (finished && finished.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(finished).toBeDefined();
    const failedChecks = finished.checks.filter((c: { passed: boolean }) => !c.passed);
    expect(failedChecks).toEqual([]);
    expect(finished.status).toBe('passed');
    expect(finished.finished_at).toMatch(ISO);
    expect(finished.duration_ms).toBeGreaterThanOrEqual(0);
    expect(finished.checks.map((c: { name: string }) => c.name)).toEqual([...BUILT_IN_CHECK_NAMES]);
    for (const check of finished.checks) expect(Number.isInteger(check.duration_ms)).toBe(true);
    const detail = (name: string) => finished.checks.find((c: { name: string }) => c.name === name).detail as string;
    // the HTTP checks really went to this server over HTTP (not skipped)
    expect(detail('unauthenticated request refused')).toMatch(/401/);
    expect(detail('health endpoint')).toMatch(/^GET \/health: 200 healthy/);
    expect(detail('storage write/read/delete')).toMatch(/wrote, read back and deleted/);

    const scheduler = (await getJson(`${server.url}/test-scheduler`, withKey(reader))).body.data;
    expect(scheduler.state).toBe('idle');
    expect(scheduler.last_run).toMatchObject({ id: run.id, status: 'passed', trigger: 'manual' });

    // a new trigger is accepted once the run is over
    const again = await getJson(`${server.url}/test-scheduler/trigger`, withKey(admin, { method: 'POST' }));
    expect(again.status).toBe(202);
    expect(again.body.data.id).not.toBe(run.id);
    await server.services.scheduler.idle();
    const history = (await getJson(`${server.url}/test-scheduler/history`, withKey(reader))).body.data;
    expect(history.map((r: { id: string }) => r.id)).toEqual([again.body.data.id, run.id]);
  });

  it('GET /test-scheduler/history: limit is validated', async () => {
    expect((await getJson(`${server.url}/test-scheduler/history?limit=1`, withKey(reader))).body.data).toHaveLength(1);
    for (const limit of ['0', '101', 'x']) {
      const { status, body } = await getJson(`${server.url}/test-scheduler/history?limit=${limit}`, withKey(reader));
      expect(status).toBe(400);
      expect(body.error).toMatch(/^Invalid limit/);
    }
  });
});
