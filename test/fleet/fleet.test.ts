/**
 * The fleet, proven (issue 17): three service processes behind a real haproxy (the Debian
 * package, configured by deploy/haproxy.cfg as compose.yaml is), sharing PostgreSQL (one
 * schema), Redis (one key prefix), an S3-compatible bucket (s3rver) and the session secret.
 * Every request below goes through the balancer; the X-Served-By header haproxy adds names the
 * instance that answered.
 *
 * - an upload is ingested by whichever instance's worker claims the job (the file travels
 *   through the shared bucket, not the receiving instance's disk);
 * - rate budgets are shared through Redis: the 101st returns request of a minute is refused,
 *   whichever instance serves it;
 * - the self-test scheduler runs each scheduled self-test once across the fleet;
 * - a generation run is followed through the balancer; the instance serving the stream is
 *   killed with SIGKILL mid-run, the client reconnects through the balancer with Last-Event-ID
 *   and gets every event exactly once, up to the final one;
 * - a rolling restart (SIGTERM, drain while /readyz says 503, restart, ready) of all three
 *   instances fails none of the requests that clients keep sending meanwhile.
 *
 * Waits are polls with generous ceilings; nothing asserts how long anything took (bench/fleet.ts
 * measures throughput). Skipped on the embedded database (one process's), without Redis, and
 * where haproxy is not installed (`.ci/run` installs it).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithCli } from '../helpers/child-service.ts';
import { startFleet, type Fleet } from '../helpers/fleet.ts';
import { findHaproxy } from '../helpers/load-balancer.ts';
import { S3RVER_CREDENTIALS } from '../helpers/s3-server.ts';
import { openStream, type SseEvent, type SseReader } from '../helpers/sse.ts';
import { sample, waitForFileStatus } from '../helpers/upload.ts';

const haproxy = findHaproxy();
const onPostgres = Boolean(process.env.DATABASE_URL?.trim());
const withRedis = Boolean(process.env.REDIS_URL?.trim());
if (onPostgres && withRedis && !haproxy) console.warn('test/fleet skipped: haproxy is not installed (apt-get install -y --no-install-recommends haproxy)');

const SELF_TEST_PERIOD_S = 5;
const ALL_SCOPES = ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace'];

let fleet: Fleet;
let database: pg.Client;
let user: { orgId: string; key: string };

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await database.query<T>(sql, params)).rows;
}

/** GET through the balancer: status, the instance that answered, the body. */
async function viaBalancer(pathAndQuery: string, key = user.key): Promise<{ status: number; servedBy: string; body: any }> {
  const response = await fetch(`${fleet.balancer.url}${pathAndQuery}`, { headers: { 'x-api-key': key } });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, servedBy: response.headers.get('x-served-by') ?? '', body };
}

/** The instance named by a job's lockedBy (`host:pid`). */
function instanceOfLock(lockedBy: string | null): string {
  const pid = Number(lockedBy?.split(':').at(-1));
  return fleet.byPid(pid)?.name ?? `unknown (${lockedBy})`;
}

describe.skipIf(!onPostgres || !withRedis || !haproxy)('a fleet of three instances behind haproxy (PostgreSQL, Redis and haproxy)', () => {
  beforeAll(async () => {
    fleet = await startFleet({
      size: 3,
      env: {
        SELF_TEST_ENABLED: 'true',
        SELF_TEST_CRON: `*/${SELF_TEST_PERIOD_S} * * * * *`,
        // each progress step of a generation run waits 1 s: the run is still going when its stream's instance is killed
        GENERATION_STEP_DELAY: '1s',
        GENERATION_HEARTBEAT: '2s',
      },
    });
    user = await createUserWithCli(fleet.instances[0].service, ALL_SCOPES);
    database = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path="${fleet.schema}"` });
    await database.connect();
  }, 240_000);

  afterAll(async () => {
    await database?.end().catch(() => {});
    await fleet?.stop();
  }, 60_000);

  it('ingests an upload sent through the balancer on whichever instance claims the job, from the shared bucket', async () => {
    const bytes = await sample('pnl-sample.csv');
    const rows = bytes.toString('utf8').trim().split('\n').length - 1;
    const seen: Array<{ uploadedTo: string; ingestedBy: string }> = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${fleet.balancer.url}/api/storage/upload`, {
        method: 'POST',
        headers: { 'x-api-key': user.key },
        body: (() => {
          const form = new FormData();
          form.append('org_id', user.orgId);
          form.append('file', new Blob([new Uint8Array(bytes)], { type: 'text/csv' }), `fleet-${i}.csv`);
          return form;
        })(),
      });
      const body = (await response.json()) as { data: { id: string } };
      expect(response.status).toBe(201);
      const fileId = body.data.id;
      const file = await waitForFileStatus(fleet.balancer.url, user.key, user.orgId, fileId, ['processed', 'failed'], 90_000);
      expect(file).toMatchObject({ status: 'processed', row_count: rows, error_count: 0 });
      const [job] = await poll(
        () => query<{ state: string; lockedBy: string | null }>(`SELECT state::text AS state, "lockedBy" FROM "Job" WHERE payload->>'fileId' = $1`, [fileId]),
        (jobs) => jobs[0]?.state === 'completed',
        'the ingest job to complete',
      );
      seen.push({ uploadedTo: response.headers.get('x-served-by') ?? '', ingestedBy: instanceOfLock(job.lockedBy) });
    }
    console.info('fleet ingest (instance that took the upload -> instance whose worker loaded it):', seen);
    const names = fleet.instances.map((instance) => instance.name);
    for (const { uploadedTo, ingestedBy } of seen) {
      expect(names).toContain(uploadedTo);
      expect(names).toContain(ingestedBy);
    }
    // the uploads were spread over the instances by the balancer
    expect(new Set(seen.map((entry) => entry.uploadedTo)).size).toBeGreaterThan(1);
    // the files are in the shared bucket (under the fleet's prefix), not on an instance's disk
    const s3 = new S3Client({ endpoint: fleet.s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: fleet.s3.bucket, Prefix: fleet.env.S3_PREFIX }));
    s3.destroy();
    expect(listed.Contents?.length ?? 0).toBeGreaterThanOrEqual(3);
    for (const instance of fleet.instances) {
      const local = await fs.readdir(path.join(instance.dataDir, 'blobs'), { recursive: true }).catch(() => [] as string[]);
      expect(local.filter((entry) => entry.endsWith('.csv') || /^[0-9a-f-]{36}$/.test(path.basename(entry)))).toEqual([]);
    }
  }, 240_000);

  it('shares the returns budget: the 101st request of the minute is refused, whichever instance serves it', async () => {
    const budget = await createUserWithCli(fleet.instances[0].service, ['read:returns']);
    const servedOk = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const { status, servedBy, body } = await viaBalancer('/api/returns/comparison?limit=1', budget.key);
      expect(status, JSON.stringify(body)).toBe(200);
      servedOk.set(servedBy, (servedOk.get(servedBy) ?? 0) + 1);
    }
    // each instance served a part of the 100: none of them alone counted to 100
    expect([...servedOk.keys()].sort()).toEqual(['app1', 'app2', 'app3']);
    const refusedBy = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const { status, servedBy, body } = await viaBalancer('/api/returns/comparison?limit=1', budget.key);
      expect(status, JSON.stringify(body)).toBe(429);
      refusedBy.add(servedBy);
    }
    expect([...refusedBy].sort()).toEqual(['app1', 'app2', 'app3']);
    console.info('fleet returns budget: accepted per instance', Object.fromEntries(servedOk), '; requests 101-106 refused by', [...refusedBy].sort());
  }, 120_000);

  it('runs each scheduled self-test once across the fleet', async () => {
    interface Run {
      id: string;
      startedAt: Date;
      status: string;
      checks: string[];
    }
    const scheduled = () =>
      query<Run>(
        `SELECT r.id, r."startedAt", r.status::text AS status, coalesce(array_agg(c.name ORDER BY c.position) FILTER (WHERE c.name IS NOT NULL), '{}') AS checks
         FROM "SelfTestRun" r LEFT JOIN "SelfTestCheck" c ON c."runId" = r.id
         WHERE r.trigger = 'schedule' GROUP BY r.id ORDER BY r."startedAt"`,
      );
    const runs = await poll(
      scheduled,
      (found) => found.filter((run) => run.status !== 'running').length >= 4,
      'four finished scheduled self-test runs',
      120_000,
    );
    const finished = runs.filter((run) => run.status !== 'running');
    // one run per cron slot (every SELF_TEST_PERIOD_S seconds), though three instances each tick every slot
    const slots = runs.map((run) => Math.floor(run.startedAt.getTime() / (SELF_TEST_PERIOD_S * 1000)));
    expect(new Set(slots).size).toBe(runs.length);
    // every check once per run
    for (const run of finished) {
      expect(run.checks.length).toBeGreaterThan(0);
      expect(new Set(run.checks).size).toBe(run.checks.length);
    }
    // a leader ran them (one instance at a time holds the leadership; it would move only if the
    // leader's database connection broke, which the property above does not depend on)
    const leaders = fleet.instances.filter((instance) =>
      instance.service.stdout.some((line) => line.includes('this instance now runs the scheduled self-tests')),
    );
    expect(leaders.length).toBeGreaterThanOrEqual(1);
    console.info(
      `fleet self-tests: ${runs.length} scheduled runs in ${new Set(slots).size} slots, led by ${leaders.map((leader) => leader.name).join(', ')}; statuses`,
      finished.map((run) => run.status),
    );
  }, 180_000);

  it('follows a generation run through the balancer across a SIGKILL of the streaming instance: every event once, to the final one', async () => {
    const starter = await openStream(`${fleet.balancer.url}/api/generate?sources=stickies`, { 'x-api-key': user.key });
    expect(starter.status, starter.text).toBe(200);
    const first = (await starter.reader!.nextEvent(60_000))!;
    const runId = String(first.payload.data.run_id);
    const job = await poll(
      () =>
        query<{ id: string; state: string; lockedBy: string | null }>(`SELECT id, state::text AS state, "lockedBy" FROM "Job" WHERE payload->>'runId' = $1`, [
          runId,
        ]),
      (jobs) => jobs[0]?.state === 'running',
      'an instance to claim the run',
    );
    const executor = instanceOfLock(job[0].lockedBy);

    // The client: a stream served by an instance other than the one executing the run (the
    // executor's death is the takeover test's subject, test/jobs/takeover.test.ts). The starter
    // may already be it; otherwise further followers through the balancer land elsewhere.
    const opened: SseReader[] = [starter.reader!];
    let client: SseReader | undefined = starter.headers.get('x-served-by') !== executor ? starter.reader! : undefined;
    for (let attempt = 0; !client && attempt < 9; attempt++) {
      const follower = await openStream(`${fleet.balancer.url}/api/generate?run_id=${runId}`, { 'x-api-key': user.key });
      expect(follower.status, follower.text).toBe(200);
      opened.push(follower.reader!);
      if (follower.headers.get('x-served-by') !== executor) client = follower.reader!;
    }
    if (!client) throw new Error(`no stream landed on an instance other than the executor ${executor}`);
    const victim = client.headers.get('x-served-by')!;
    for (const reader of opened) if (reader !== client) reader.close();

    const received: SseEvent[] = client === starter.reader ? [first] : [];
    // a few events in (the run is under way), then the streaming instance dies
    while (received.length < 3) {
      const event = await client.nextEvent(60_000);
      if (!event) throw new Error('the stream ended before the kill');
      received.push(event);
    }
    expect(received.at(-1)!.event).not.toBe('done');
    await fleet.kill(victim);
    // Requests right after the kill, before haproxy's checks mark the instance down: round robin
    // sends some of them to the dead instance, whose refused connection haproxy retries on
    // another one (option redispatch): none fails.
    const rightAfter = await Promise.all(Array.from({ length: 6 }, () => viaBalancer('/api/stickies?limit=1')));
    expect(rightAfter.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(rightAfter.map((answer) => answer.servedBy)).not.toContain(victim);
    // whatever complete events were still in flight count; a torn one does not
    try {
      for (;;) {
        const event = await client.nextEvent(30_000);
        if (!event) break;
        received.push(event);
      }
    } catch {
      /* the connection was cut */
    }
    client.close();
    const beforeKill = received.length;
    expect(received.at(-1)!.event).not.toBe('done');

    // EventSource's reconnect: the same URL with Last-Event-ID, through the balancer (haproxy
    // retries a refused connection on another instance until its checks mark the dead one down)
    const lastId = received.at(-1)!.id;
    const resumed = await openStream(`${fleet.balancer.url}/api/generate?run_id=${runId}`, { 'x-api-key': user.key, 'Last-Event-ID': String(lastId) });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.headers.get('x-served-by')).not.toBe(victim);
    try {
      for (;;) {
        const event = await resumed.reader!.nextEvent(60_000);
        if (!event) break;
        received.push(event);
        if (event.event === 'done') break;
      }
    } finally {
      resumed.reader!.close();
    }

    const ids = received.map((event) => event.id);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, index) => index + 1));
    const final = received.at(-1)!;
    expect(final).toMatchObject({ event: 'done', payload: { agent: 'run', status: 'complete', data: { run_id: runId, state: 'completed' } } });
    const [run] = await query<{ state: string; lastSequence: number }>(`SELECT state::text AS state, "lastSequence" FROM "GenerationRun" WHERE id = $1`, [
      runId,
    ]);
    expect(run).toEqual({ state: 'completed', lastSequence: final.id });
    console.info(
      `fleet generation: run executed on ${executor}; stream on ${victim} killed after ${beforeKill} events; resumed on ${resumed.headers.get('x-served-by')} after Last-Event-ID ${lastId}; ${ids.length} events, each once`,
    );

    await fleet.start(victim);
    await fleet.balancer.waitForUp(['app1', 'app2', 'app3']);
  }, 240_000);

  it('fails no request during a rolling restart of the three instances (readiness drains each one first)', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${fleet.balancer.url}/api/stickies`, {
        method: 'POST',
        headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `fleet sticky ${i}`, tags: ['fleet'] }),
      });
      expect(response.status).toBe(201);
    }
    const failures: string[] = [];
    const servedBy = new Map<string, number>();
    let total = 0;
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const response = await fetch(`${fleet.balancer.url}/api/stickies?limit=20`, { headers: { 'x-api-key': user.key } });
          const body = (await response.json()) as { data?: unknown[] };
          total++;
          const by = response.headers.get('x-served-by') ?? '?';
          servedBy.set(by, (servedBy.get(by) ?? 0) + 1);
          if (response.status !== 200 || !Array.isArray(body.data) || body.data.length < 5)
            failures.push(`${response.status} from ${by}: ${JSON.stringify(body).slice(0, 200)}`);
        } catch (error) {
          total++;
          failures.push(`request error: ${String((error as Error).cause ?? error)}`);
        }
      }
    };
    const clients = Array.from({ length: 4 }, () => client());
    const restarts: string[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const instance of [...fleet.instances]) {
        const oldPid = instance.service.pid;
        const exit = await fleet.terminate(instance.name);
        expect(exit).toEqual({ code: 0, signal: null });
        // it drained: readiness went 503 before it stopped accepting
        expect(instance.service.stdout.some((line) => line.includes('draining: /readyz answers 503'))).toBe(true);
        await fleet.start(instance.name);
        await fleet.balancer.waitForUp(['app1', 'app2', 'app3']);
        restarts.push(`${instance.name} pid ${oldPid} -> ${fleet.byName(instance.name).service.pid}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      running = false;
      await Promise.all(clients);
    }
    console.info(`fleet rolling restart: ${total} requests, ${failures.length} failed; served by`, Object.fromEntries(servedBy), restarts);
    expect(failures).toEqual([]);
    expect(total).toBeGreaterThan(100);
    expect([...servedBy.keys()].sort()).toEqual(['app1', 'app2', 'app3']);
  }, 300_000);
});
