/**
 * Takeover of a killed instance's jobs (issue 11, defect 7d): two service processes share one
 * PostgreSQL schema and one DATA_DIR (the blob store), as instances behind a load balancer do.
 * The instance running a job is killed with SIGKILL (no shutdown, no goodbye); the other one must
 * notice within seconds (JOB_STALE_AFTER, 3 s here) and:
 * - ingest: requeue the file's job, claim it and load the whole file (nothing of the killed
 *   attempt's open transaction survives; the file ends `processed` with every row, once);
 * - generation: fail the run with its final event, which a follower connected to the survivor
 *   receives.
 * Waits are polls with generous ceilings (60 s after the kill: ample for a 3 s threshold on a
 * loaded machine, short of the 2-minute sweep this replaced); nothing here asserts how long
 * anything took (bench/job-takeover.ts measures it).
 *
 * PostgreSQL only: two processes cannot open the same embedded database.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePnlFile } from '../../scripts/generate-pnl.ts';
import { createUserWithCli, startChildService, type ChildService } from '../helpers/child-service.ts';
import { openStream, type SseReader } from '../helpers/sse.ts';
import { restUpload, waitForFileStatus } from '../helpers/upload.ts';

const onPostgres = Boolean(process.env.DATABASE_URL?.trim());
const ROWS = 20_000;
const INSTANCE_ENV: Record<string, string> = {
  JOB_STALE_AFTER: '3s',
  WORKER_POLL_INTERVAL: '200ms',
  // each progress step of a run waits 1 s: the run is still going when its instance is killed
  GENERATION_STEP_DELAY: '1s',
  ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
};

let first: ChildService;
let instances: ChildService[] = [];
let database: pg.Client;
let user: { orgId: string; key: string };

/** A second (third...) instance on the first one's schema and DATA_DIR. */
function startInstance(): Promise<ChildService> {
  return startChildService({ reuse: { dataDir: first.dataDir, tmpDir: first.tmpDir, env: first.env }, env: INSTANCE_ENV });
}

/** The two live instances: the one whose worker holds `jobId` and the other one. */
async function holderAndOther(jobId: string): Promise<{ holder: ChildService; other: ChildService }> {
  const { rows } = await database.query<{ lockedBy: string }>(`SELECT "lockedBy" FROM "Job" WHERE id = $1 AND state = 'running'`, [jobId]);
  const pid = Number(rows[0].lockedBy.split(':').at(-1));
  const holder = instances.find((instance) => instance.pid === pid);
  const other = instances.find((instance) => instance.pid !== pid && instance.process.exitCode === null && instance.process.signalCode === null);
  if (!holder || !other) throw new Error(`no live pair for job ${jobId} held by ${rows[0].lockedBy}`);
  return { holder, other };
}

async function killHard(instance: ChildService): Promise<void> {
  instance.process.kill('SIGKILL');
  await instance.exited;
}

/** Replaces killed instances so that two are running. */
async function keepTwoRunning(): Promise<void> {
  instances = instances.filter((instance) => instance.process.exitCode === null && instance.process.signalCode === null);
  while (instances.length < 2) instances.push(await startInstance());
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function jobRow(where: string, param: string) {
  const { rows } = await database.query<{ id: string; state: string; lockedBy: string | null; attempts: number; lastError: string | null }>(
    `SELECT id, state::text AS state, "lockedBy", attempts, "lastError" FROM "Job" WHERE ${where}`,
    [param],
  );
  return rows[0] ?? null;
}

describe.skipIf(!onPostgres)('a killed instance (PostgreSQL only: two processes cannot share the embedded database)', () => {
  const dirs: string[] = [];

  beforeAll(async () => {
    first = await startChildService({ env: INSTANCE_ENV });
    instances = [first];
    await keepTwoRunning();
    user = await createUserWithCli(first, ['write:upload', 'read:pnl', 'read:returns', 'read:workspace', 'write:workspace']);
    const schema = new URL(first.env.DATABASE_URL).searchParams.get('schema')!;
    database = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path="${schema}"` });
    await database.connect();
  }, 240_000);

  afterAll(async () => {
    await database?.end();
    // the instance that created the schema goes last: its cleanup drops the schema and the directories
    for (const instance of instances.filter((i) => i !== first)) await instance.cleanup().catch(() => {});
    await first?.cleanup();
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('has its ingest taken over: the other instance loads the whole file, once', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'takeover-'));
    dirs.push(dir);
    const csv = path.join(dir, 'pnl.csv');
    await writePnlFile(csv, { rows: ROWS, accounts: 10, seed: 7 });
    const text = await fs.readFile(csv, 'utf8');
    const valuations = text
      .split('\n')
      .slice(1)
      .filter((line) => line.split(',')[3]).length;

    const upload = await restUpload(instances[0].url, user.key, { orgId: user.orgId, file: { name: 'takeover.csv', bytes: Buffer.from(text) } });
    expect(upload.status).toBe(201);
    const fileId = String(upload.body.data.id);
    // killed while its load transaction is open: the file says `processing` and the job runs
    const job = await poll(
      () => jobRow(`payload->>'fileId' = $1`, fileId),
      (row) => row?.state === 'running',
      'an instance to claim the ingest',
    );
    await poll(
      () => fileStatus(fileId),
      (status) => status === 'processing',
      'the ingest to start',
    );
    const { holder, other } = await holderAndOther(job!.id);
    await killHard(holder);

    // nothing of the killed attempt is left
    expect(await fileStatus(fileId)).toBe('processing');
    expect(await count(`SELECT count(*)::int AS n FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1`, user.orgId)).toBe(0);

    // (before this fix the stale sweep took 1.5 to 4 minutes: the 60 s ceiling fails it)
    const file = await waitForFileStatus(other.url, user.key, user.orgId, fileId, ['processed', 'failed'], 60_000);
    expect(file).toMatchObject({ status: 'processed', row_count: ROWS, error_count: 0 });
    expect(await count(`SELECT count(*)::int AS n FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1`, user.orgId)).toBe(
      valuations,
    );
    // the job completes just after the file's status commits (ANALYZE after a large load runs between)
    const done = await poll(
      () => jobRow('id = $1', job!.id),
      (row) => row?.state !== 'running',
      'the ingest job to finish',
    );
    expect(done).toMatchObject({ state: 'completed', attempts: 2, lockedBy: expect.stringMatching(new RegExp(`:${other.pid}$`)) });
  }, 300_000);

  it('has its generation run ended by the other instance; a follower there gets the final event', async () => {
    await keepTwoRunning();
    const starter = await openStream(`${instances[0].url}/api/generate?sources=stickies`, { 'x-api-key': user.key });
    expect(starter.status).toBe(200);
    const runId = String((await starter.reader!.nextEvent(60_000))!.payload.data.run_id);
    let follower: SseReader | undefined;
    try {
      const job = await poll(
        () => jobRow(`payload->>'runId' = $1`, runId),
        (row) => row?.state === 'running',
        'an instance to claim the run',
      );
      // the run is under way on its instance
      await starter.reader!.until((event) => event.payload.agent === 'collector', 60_000);
      const { holder, other } = await holderAndOther(job!.id);
      const followed = await openStream(`${other.url}/api/generate?run_id=${runId}`, { 'x-api-key': user.key });
      expect(followed.status).toBe(200);
      follower = followed.reader!;
      expect((await follower.nextEvent(60_000))!.payload.data.run_id).toBe(runId);
      await killHard(holder);

      // (per-block timeouts restart with every heartbeat comment: the 60 s ceiling is overall)
      const final = await within(
        follower.until((event) => event.event === 'done', 60_000),
        60_000,
        'final event',
      );
      expect(final).toMatchObject({
        event: 'done',
        payload: { agent: 'run', status: 'failed', data: { run_id: runId, state: 'failed', reason: 'abandoned' } },
      });
      expect(await jobRow('id = $1', job!.id)).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/^abandoned by worker /) });
    } finally {
      starter.reader?.close();
      follower?.close();
    }
  }, 300_000);
});

async function fileStatus(fileId: string): Promise<string | null> {
  const { rows } = await database.query<{ status: string }>(`SELECT status::text AS status FROM "UploadedFile" WHERE id = $1`, [fileId]);
  return rows[0]?.status ?? null;
}

async function count(sql: string, param: string): Promise<number> {
  const { rows } = await database.query<{ n: number }>(sql, [param]);
  return rows[0].n;
}
