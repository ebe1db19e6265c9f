/**
 * A load is one long transaction. It bumps its organization's data version (docs/caching.md) as
 * its last statement, not with its first batch: bumped early, the version's row stayed locked for
 * the whole load, so every other writer of the organization (an upload, new thresholds) waited for
 * the load, and a second load of the same file (the demo seed beside the ingest worker, in the
 * project's CI) deadlocked with it.
 *
 * PostgreSQL only: the embedded database gives its single session to one connection for a whole
 * transaction (src/db/session-queue.ts), so there every writer waits for the load by design.
 */
import path from 'node:path';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { LocalBlobStore } from '../../src/storage/blob-store.ts';
import { StorageService } from '../../src/storage/storage-service.ts';
import { IngestService } from '../../src/ingest/ingest-service.ts';
import { ReconciliationService } from '../../src/returns/reconciliation.ts';
import { DataVersions, organizationScope } from '../../src/cache/data-versions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { watchedPool } from '../helpers/watched-pool.ts';

const onPostgres = Boolean(process.env.DATABASE_URL?.trim());
const log = createLogger('silent');
const SAMPLE = new URL('../../samples/pnl-sample.csv', import.meta.url);
const THRESHOLDS = { matchBps: 1, reviewBps: 5 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!onPostgres)('a load and the other writers of its organization (PostgreSQL)', () => {
  let db: TestDatabase;
  /** The other writers' connections, named so the test can see them wait on a lock. */
  let other: Database;
  const otherName = `concurrent-writer-${randomUUID().slice(0, 8)}`;
  let blobs: LocalBlobStore;
  let storage: StorageService;
  let otherStorage: StorageService;
  let userId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    url.searchParams.set('application_name', otherName);
    other = await openDatabase({ databaseUrl: url.toString(), dataDir: db.tmpDir, poolSize: 3 });
    blobs = new LocalBlobStore(path.join(db.tmpDir, 'blobs'));
    const config = { storage: { dir: blobs.dir, maxUploadBytes: 1e8 } };
    storage = new StorageService({ prisma: db.prisma, blobs, jobs: new JobQueue(db.pool), config, log });
    otherStorage = new StorageService({ prisma: other.prisma, blobs, jobs: new JobQueue(other.pool), config, log });
    userId = (await db.prisma.user.create({ data: { email: 'concurrent@example.com' } })).id;
  }, 120_000);
  /** Every paused load is released after its test, also one that failed while the load was paused. */
  const releases: (() => void)[] = [];
  afterEach(() => {
    for (const release of releases.splice(0)) release();
  });
  afterAll(async () => {
    await other?.close();
    await db?.cleanup();
  });

  async function newOrganization(): Promise<string> {
    const org = await db.prisma.organization.create({ data: { name: `Concurrent ${randomUUID()}` } });
    await db.prisma.membership.create({ data: { userId, orgId: org.id } });
    return org.id;
  }

  function uploadSample(orgId: string, through = storage, text?: string) {
    return through.upload({
      uploaderId: userId,
      memberOf: new Set([orgId]),
      orgId,
      fileType: 'pnl',
      file: {
        filename: 'pnl-sample.csv',
        createReadStream: () => (text === undefined ? fs.createReadStream(SAMPLE) : Readable.from([Buffer.from(text)])),
      },
    });
  }

  /** A load that stops after its first batch (written: inside its transaction) until released. */
  function pausedLoad(fileId: string) {
    let paused!: () => void;
    let release!: () => void;
    const atPause = new Promise<void>((resolve) => (paused = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    releases.push(() => release());
    const service = new IngestService({
      pool: db.pool,
      blobs,
      log,
      batchSize: 5,
      comparisonThresholds: THRESHOLDS,
      onBatch: async ({ batch }) => {
        if (batch !== 1) return;
        paused();
        await released;
      },
    });
    return { done: service.ingestFile(fileId), atPause, release };
  }

  async function otherWriterWaitsOnALock(): Promise<boolean> {
    const { rows } = await db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [otherName]);
    return rows.length > 0;
  }

  /** Resolves once one of the other writer's statements waits on a lock. */
  async function otherWriterWaits(): Promise<void> {
    for (let polls = 0; polls < 1500; polls++) {
      if (await otherWriterWaitsOnALock()) return;
      await sleep(20);
    }
    throw new Error('the other writer never waited on a lock');
  }

  /** The write's outcome, failing the test if the write waits on a lock instead (the load is paused: it would wait forever). */
  async function withoutWaiting<T>(write: Promise<T>): Promise<T> {
    let settled = false;
    const done = write.finally(() => (settled = true));
    while (!settled) {
      if (await otherWriterWaitsOnALock()) throw new Error('the write waits for the paused load');
      await Promise.race([done.catch(() => undefined), sleep(20)]);
    }
    return done;
  }

  const versionOf = (orgId: string) => new DataVersions(db.pool).read([organizationScope(orgId)]);

  it('a second load of the same file (the ingest worker beside the demo seed) waits for the first; both end processed, the data stored once', async () => {
    const orgId = await newOrganization();
    const { id: fileId } = await uploadSample(orgId);
    const first = pausedLoad(fileId);
    await first.atPause;
    const second = new IngestService({ pool: other.pool, blobs, log, comparisonThresholds: THRESHOLDS }).ingestFile(fileId);
    await otherWriterWaits(); // on the organization's returns lock: loads are serialised
    first.release();

    const [a, b] = await Promise.allSettled([first.done, second]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { status: 'processed', rowCount: 33 } });
    expect(b).toMatchObject({ status: 'fulfilled', value: { status: 'processed', rowCount: 33 } });
    expect((await storage.get(fileId))!.status).toBe('processed');
    const counts = await db.pool.query(
      `SELECT (SELECT count(*) FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1)::int AS valuations,
              (SELECT count(*) FROM "DailyReturn" d JOIN "Entity" e ON e.id = d."entityId" WHERE e."orgId" = $1)::int AS "dailyReturns"`,
      [orgId],
    );
    expect(counts.rows[0]).toEqual({ valuations: 30, dailyReturns: 28 });
  });

  it('an upload to the organization during a load is recorded at once, not after the load', async () => {
    const orgId = await newOrganization();
    const { id: fileId } = await uploadSample(orgId);
    const load = pausedLoad(fileId);
    await load.atPause;
    const uploaded = await withoutWaiting(uploadSample(orgId, otherStorage));
    expect(uploaded).toMatchObject({ status: 'uploaded' });
    load.release();
    await expect(load.done).resolves.toMatchObject({ status: 'processed' });
  });

  it('new comparison thresholds during a load are set at once, and the load keeps them as the ones its organization is compared under', async () => {
    const orgId = await newOrganization();
    const { id: fileId } = await uploadSample(orgId);
    const load = pausedLoad(fileId);
    await load.atPause;
    await withoutWaiting(new ReconciliationService(other.pool, THRESHOLDS).setThresholds(orgId, { matchBps: 2, reviewBps: 9 }));
    load.release();
    await expect(load.done).resolves.toMatchObject({ status: 'processed' });
    const org = await db.pool.query(
      `SELECT "matchThresholdBps"::float8 AS m, "reviewThresholdBps"::float8 AS r, "reconciledMatchBps"::float8 AS rm, "reconciledReviewBps"::float8 AS rr
         FROM "Organization" WHERE id = $1`,
      [orgId],
    );
    expect(org.rows[0]).toEqual({ m: 2, r: 9, rm: 2, rr: 9 }); // the load compares under the thresholds recorded for its organization
  });

  /** The pool, reading the organization's version from another connection just before each COMMIT of the ingest's own connection. */
  const versionsAtCommit = (orgId: string, seen: string[]) =>
    watchedPool(db.pool, async (text) => {
      if (text === 'COMMIT') seen.push(await versionOf(orgId));
    });

  it("each of a load's transactions, processed or failed, moves the organization's data version when it commits", async () => {
    const orgId = await newOrganization();
    const header = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description\n';
    for (const [text, status] of [
      [undefined, 'processed'],
      [`${header}ACC-1,Bad,2025-02-30,1.00,,,\n`, 'failed'],
    ] as const) {
      const { id } = await uploadSample(orgId, storage, text);
      const seen: string[] = [];
      const result = await new IngestService({ pool: versionsAtCommit(orgId, seen), blobs, log, comparisonThresholds: THRESHOLDS }).ingestFile(id);
      expect(result.status).toBe(status);
      expect(seen).toHaveLength(1);
      expect(Number(await versionOf(orgId))).toBeGreaterThan(Number(seen[0]));
    }
  });
});
