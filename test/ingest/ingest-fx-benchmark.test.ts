/**
 * IngestService with the fx and benchmark file types and the pnl file's currency and flow_type,
 * where only the service shows it: small batches (a currency given after the entity was written,
 * an error after loading started), the result it returns, and what it sends to the database.
 */
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { LocalBlobStore } from '../../src/storage/blob-store.ts';
import { StorageService, type UploadInput } from '../../src/storage/storage-service.ts';
import { IngestService, type IngestResult, type IngestServiceDeps } from '../../src/ingest/ingest-service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { watchedPool } from '../helpers/watched-pool.ts';

const log = createLogger('silent');

let db: TestDatabase;
let blobs: LocalBlobStore;
let storage: StorageService;
let userId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  blobs = new LocalBlobStore(path.join(db.tmpDir, 'blobs'));
  const jobs = new JobQueue(db.pool, { backoffBaseMs: 10, backoffMaxMs: 20 });
  storage = new StorageService({ prisma: db.prisma, blobs, jobs, config: { storage: { dir: blobs.dir, maxUploadBytes: 1e8 } }, log });
  userId = (await db.prisma.user.create({ data: { email: 'ingest-fx@example.com' } })).id;
}, 120_000);
afterAll(() => db?.cleanup());

let orgCounter = 0;
async function newOrg(): Promise<string> {
  const org = await db.prisma.organization.create({ data: { name: `FX org ${++orgCounter} ${Date.now()}` } });
  await db.prisma.membership.create({ data: { userId, orgId: org.id } });
  return org.id;
}

/** Uploads `text` (file type detected) and ingests it at once with `service` (batches of one row by default). */
async function ingest(orgId: string, text: string, deps: Partial<IngestServiceDeps> = {}): Promise<IngestResult & { id: string }> {
  const file: UploadInput['file'] = { filename: 'upload.csv', createReadStream: () => Readable.from([Buffer.from(text)]) };
  const uploaded = await storage.upload({ uploaderId: userId, memberOf: new Set([orgId]), orgId, fileType: null, file });
  const service = new IngestService({ pool: db.pool, blobs, log, batchSize: 1, ...deps });
  return { ...(await service.ingestFile(uploaded.id)), id: uploaded.id };
}

const rows = async (sql: string, params: unknown[]) => (await db.pool.query(sql, params)).rows;
const entities = (orgId: string) => rows(`SELECT "accountCode", currency FROM "Entity" WHERE "orgId" = $1 ORDER BY "accountCode"`, [orgId]);
const valuationCount = async (orgId: string) =>
  Number((await rows(`SELECT count(*) AS n FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1`, [orgId]))[0].n);
const errorsOf = (fileId: string) => storage.rowErrors(fileId, 1000).then((errors) => errors.map(({ line, column, message }) => ({ line, column, message })));

const PNL = 'account_code,entity_name,date,market_value,cash_flow,flow_type,currency';

describe('IngestService: fx and benchmark files', () => {
  it('an fx file in several batches: every rate, no entity, no daily return; the result says so', async () => {
    const orgId = await newOrg();
    const result = await ingest(orgId, 'date,base,quote,rate\n2025-01-02,EUR,USD,1.03\n2025-01-02,USD,EUR,0.97\n2025-01-03,EUR,USD,1.04\n');
    expect(result).toMatchObject({
      status: 'processed',
      rowCount: 3,
      errorCount: 0,
      warningCount: 0,
      entities: 0,
      dailyReturns: 0,
      detail: 'Loaded 3 rows for 2 currency pairs',
    });
    expect(
      await rows(`SELECT base, quote, date::text AS date, rate::text AS rate, "sourceLine" FROM "FxRate" WHERE "orgId" = $1 ORDER BY 1, 2, 3`, [orgId]),
    ).toEqual([
      { base: 'EUR', quote: 'USD', date: '2025-01-02', rate: '1.030000000000', sourceLine: 2 },
      { base: 'EUR', quote: 'USD', date: '2025-01-03', rate: '1.040000000000', sourceLine: 4 },
      { base: 'USD', quote: 'EUR', date: '2025-01-02', rate: '0.970000000000', sourceLine: 3 },
    ]);
    expect(await entities(orgId)).toEqual([]);
  });

  it('an error after batches were written rolls every one of them back', async () => {
    const orgId = await newOrg();
    const good = Array.from({ length: 12 }, (_, i) => `2025-01-${String(i + 1).padStart(2, '0')},Index,${100 + i}`);
    const result = await ingest(orgId, ['date,benchmark,level', ...good, '2025-02-01,Index,0'].join('\n'), { batchSize: 5 });
    expect(result).toMatchObject({ status: 'failed', rowCount: 13, errorCount: 1 });
    expect(result.detail).toBe('File rejected, nothing was loaded: 1 error in benchmark rows; first on line 14 (level): level "0" must be greater than zero');
    expect(await rows(`SELECT count(*)::int AS n FROM "BenchmarkLevel" WHERE "orgId" = $1`, [orgId])).toEqual([{ n: 0 }]);
  });

  it('ANALYZE after a large fx or benchmark load covers its own table only', async () => {
    const statements: string[] = [];
    const pool = watchedPool(db.pool, (text) => {
      if (text.startsWith('ANALYZE')) statements.push(text);
    });
    const orgId = await newOrg();
    await ingest(orgId, 'date,base,quote,rate\n2025-01-02,EUR,USD,1.03\n', { pool, analyzeAfterRows: 0 });
    await ingest(orgId, 'date,benchmark,level\n2025-01-02,Index,100\n', { pool, analyzeAfterRows: 0 });
    expect(statements).toEqual(['ANALYZE "FxRate"', 'ANALYZE "BenchmarkLevel"']);
  });
});

describe('IngestService: pnl currency', () => {
  it('a new entity written before a later row gives its currency takes that currency', async () => {
    const orgId = await newOrg();
    const result = await ingest(
      orgId,
      [PNL, 'A,Alpha,2025-01-02,100,,,', 'B,Beta,2025-01-02,100,,,', 'A,Alpha,2025-01-03,101,,,chf', 'A,Alpha,2025-01-06,102,,,'].join('\n'),
    );
    expect(result).toMatchObject({ status: 'processed', rowCount: 4, entities: 2 });
    expect(await entities(orgId)).toEqual([
      { accountCode: 'A', currency: 'CHF' },
      { accountCode: 'B', currency: 'USD' },
    ]);
  });

  it('an existing entity given another currency on a later row, after its rows were written: an error on that row, nothing loaded', async () => {
    const orgId = await newOrg();
    expect((await ingest(orgId, [PNL, 'A,Alpha,2025-01-02,100,,,'].join('\n'))).status).toBe('processed');
    const before = await valuationCount(orgId);
    const result = await ingest(orgId, [PNL, 'A,Alpha,2025-01-03,101,,,', 'A,Alpha,2025-01-06,102,,,', 'A,Alpha,2025-01-07,103,,,EUR'].join('\n'));
    expect(result).toMatchObject({ status: 'failed', errorCount: 1 });
    expect(await errorsOf(result.id)).toEqual([
      { line: 4, column: 'currency', message: 'entity "Alpha" (account A) is in USD: a file cannot change its currency (this file gives EUR)' },
    ]);
    expect(await entities(orgId)).toEqual([{ accountCode: 'A', currency: 'USD' }]);
    expect(await valuationCount(orgId)).toBe(before);
  });

  it('accounts first seen after loading stopped are still checked, so every currency error is listed', async () => {
    const orgId = await newOrg();
    expect((await ingest(orgId, [PNL, 'A,Alpha,2025-01-02,100,,,GBP', 'B,Beta,2025-01-02,100,,,'].join('\n'))).status).toBe('processed');
    const result = await ingest(
      orgId,
      [
        PNL,
        'C,Gamma,2025-13-01,1,,,',
        'A,Alpha,2025-01-03,1,,,usd',
        'B,Beta,2025-01-03,1,,,',
        'B,Beta,2025-01-06,1,,,jpy',
        'D,Delta,2025-01-03,1,-1,fee,SEK',
      ].join('\n'),
    );
    expect(result).toMatchObject({ status: 'failed', errorCount: 3 });
    expect(await errorsOf(result.id)).toEqual([
      { line: 2, column: 'date', message: '2025-13-01 is not a real calendar date (month 13)' },
      { line: 3, column: 'currency', message: 'entity "Alpha" (account A) is in GBP: a file cannot change its currency (this file gives USD)' },
      { line: 5, column: 'currency', message: 'entity "Beta" (account B) is in USD: a file cannot change its currency (this file gives JPY)' },
    ]);
    expect(await entities(orgId)).toEqual([
      { accountCode: 'A', currency: 'GBP' },
      { accountCode: 'B', currency: 'USD' },
    ]);
  });

  it('stores each flow type; an entity of a performance file is USD', async () => {
    const orgId = await newOrg();
    const result = await ingest(
      orgId,
      [PNL, 'A,Alpha,2025-01-02,100,,,', 'A,Alpha,2025-01-03,99,-1,Fee,', 'A,Alpha,2025-01-03,,2,INCOME,', 'A,Alpha,2025-01-06,200,100,,'].join('\n'),
    );
    expect(result.status).toBe('processed');
    expect(
      await rows(
        `SELECT c.amount::text AS amount, c."flowType"::text AS "flowType" FROM "CashTransaction" c JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1 ORDER BY c."sourceLine"`,
        [orgId],
      ),
    ).toEqual([
      { amount: '-1.0000', flowType: 'fee' },
      { amount: '2.0000', flowType: 'income' },
      { amount: '100.0000', flowType: 'external' },
    ]);
    const performance = await ingest(orgId, 'account_code,entity_name,date,return,return_unit\nP,Perf Only,2025-01-03,1,percent\n');
    expect(performance.status).toBe('processed');
    expect((await entities(orgId)).find((e) => e.accountCode === 'P')).toEqual({ accountCode: 'P', currency: 'USD' });
  });
});
