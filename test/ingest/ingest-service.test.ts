import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/log.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { LocalBlobStore } from '../../src/storage/blob-store.ts';
import { StorageService, type UploadInput } from '../../src/storage/storage-service.ts';
import {
  IngestService,
  MAX_STORED_ROW_ERRORS,
  MAX_STORED_ROW_WARNINGS,
  type FileIngester,
  type IngestResult,
  type IngestServiceDeps,
} from '../../src/ingest/ingest-service.ts';
import { ingestJob } from '../../src/ingest/ingest-job.ts';
import { JobWorker, type JobWorkerOptions } from '../../src/jobs/job-worker.ts';
import { parsePnl, type PnlRow } from '../../src/ingest/csv-formats/index.ts';
import { dailySeries, defaultTiming } from '../../src/returns/dietz.ts';
import { recomputeDailyReturns } from '../../src/returns/recompute.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { watchedPool } from '../helpers/watched-pool.ts';

const SAMPLES = new URL('../../samples/', import.meta.url);
const log = createLogger('silent');

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
let blobs: LocalBlobStore;
let jobs: JobQueue;
let storage: StorageService;
let ingest: IngestService;
let userId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  blobs = new LocalBlobStore(path.join(db.tmpDir, 'blobs'));
  jobs = new JobQueue(db.pool, { backoffBaseMs: 10, backoffMaxMs: 20 });
  storage = new StorageService({ prisma: db.prisma, blobs, jobs, config: { storage: { dir: blobs.dir, maxUploadBytes: 1e8 } }, log });
  ingest = new IngestService({ pool: db.pool, blobs, log });
  userId = (await db.prisma.user.create({ data: { email: 'ingest@example.com' } })).id;
}, 120_000);
afterAll(() => db?.cleanup());

let orgCounter = 0;
async function newOrg(): Promise<string> {
  const org = await db.prisma.organization.create({ data: { name: `Org ${++orgCounter} ${Date.now()}` } });
  await db.prisma.membership.create({ data: { userId, orgId: org.id } });
  return org.id;
}

function sampleFile(name: string): UploadInput['file'] {
  return { filename: name, createReadStream: () => fs.createReadStream(new URL(name, SAMPLES)) };
}
function textFile(text: string, filename = 'upload.csv'): UploadInput['file'] {
  return { filename, createReadStream: () => Readable.from([Buffer.from(text)]) };
}
async function upload(orgId: string, file: UploadInput['file'], fileType: UploadInput['fileType'] = null) {
  return storage.upload({ uploaderId: userId, memberOf: new Set([orgId]), orgId, fileType, file });
}
async function uploadAndIngest(orgId: string, file: UploadInput['file'], service: IngestService = ingest): Promise<IngestResult & { id: string }> {
  const uploaded = await upload(orgId, file);
  const result = await service.ingestFile(uploaded.id);
  return { ...result, id: uploaded.id };
}

async function orgCounts(orgId: string) {
  const q = async (sql: string) => Number((await db.pool.query(sql, [orgId])).rows[0].n);
  const join = `JOIN "Entity" e ON e.id = t."entityId" WHERE e."orgId" = $1`;
  return {
    entities: await q(`SELECT count(*) AS n FROM "Entity" WHERE "orgId" = $1`),
    valuations: await q(`SELECT count(*) AS n FROM "Valuation" t ${join}`),
    flows: await q(`SELECT count(*) AS n FROM "CashTransaction" t ${join}`),
    custodianReturns: await q(`SELECT count(*) AS n FROM "CustodianReturn" t ${join}`),
    dailyReturns: await q(`SELECT count(*) AS n FROM "DailyReturn" t ${join}`),
  };
}

/** Each entity's latest valuation as the ingest keeps it on the entity. */
async function latestValuations(orgId: string) {
  const { rows } = await db.pool.query<{ accountCode: string; date: string; value: string }>(
    `SELECT "accountCode", "latestValuationDate"::text AS date, "latestMarketValue"::text AS value FROM "Entity" WHERE "orgId" = $1 ORDER BY "accountCode"`,
    [orgId],
  );
  return rows;
}

/** The same, computed from the valuations. */
async function latestFromValuations(orgId: string) {
  const { rows } = await db.pool.query<{ accountCode: string; date: string; value: string }>(
    `SELECT DISTINCT ON (e."accountCode") e."accountCode", v.date::text AS date, v."marketValue"::text AS value
       FROM "Entity" e JOIN "Valuation" v ON v."entityId" = e.id WHERE e."orgId" = $1 ORDER BY e."accountCode", v.date DESC`,
    [orgId],
  );
  return rows;
}

async function entityId(orgId: string, accountCode: string): Promise<string> {
  const { rows } = await db.pool.query(`SELECT id FROM "Entity" WHERE "orgId" = $1 AND "accountCode" = $2`, [orgId, accountCode]);
  return rows[0].id;
}

/** The stored daily returns of an entity must equal dailySeries over its stored valuations and flows. */
async function expectReturnsMatchInputs(entity: string): Promise<number> {
  const valuations = (await db.pool.query(`SELECT date, "marketValue"::text AS "marketValue" FROM "Valuation" WHERE "entityId" = $1`, [entity])).rows;
  const flows = (await db.pool.query(`SELECT date, amount::text AS amount, timing::text AS timing FROM "CashTransaction" WHERE "entityId" = $1`, [entity]))
    .rows;
  const expected = dailySeries(valuations, flows).periods;
  const stored = (
    await db.pool.query(
      `SELECT date, "startDate", "beginValue"::text, "endValue"::text, "netFlow"::text, "weightedFlow"::text, "returnValue"::text, "nullReason"
         FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`,
      [entity],
    )
  ).rows;
  expect(stored).toHaveLength(expected.length);
  stored.forEach((row, i) => {
    const p = expected[i];
    expect(row.date).toBe(p.endDate);
    expect(row.startDate).toBe(p.startDate);
    for (const key of ['beginValue', 'endValue', 'netFlow', 'weightedFlow'] as const) {
      expect(new Decimal(row[key]).equals(p[key]), `${key} on ${p.endDate}`).toBe(true);
    }
    if (p.returnValue === null) expect(row.returnValue).toBeNull();
    else expect(new Decimal(row.returnValue).equals(p.returnValue), `return on ${p.endDate}`).toBe(true);
    expect(row.nullReason).toBe(p.nullReason);
  });
  return stored.length;
}

async function parsedSample(name: string): Promise<PnlRow[]> {
  const rows: PnlRow[] = [];
  for await (const item of parsePnl(fs.createReadStream(new URL(name, SAMPLES)))) if ('row' in item) rows.push(item.row);
  return rows;
}

describe('IngestService: pnl', () => {
  it('loads samples/pnl-sample.csv: entities, valuations, flows and daily returns matching dailySeries', async () => {
    const orgId = await newOrg();
    const result = await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    expect(result).toMatchObject({ status: 'processed', rowCount: 33, errorCount: 0, entities: 2, dailyReturns: 28 });
    expect(await orgCounts(orgId)).toEqual({ entities: 2, valuations: 30, flows: 7, custodianReturns: 0, dailyReturns: 28 });

    const file = await db.prisma.uploadedFile.findUniqueOrThrow({ where: { id: result.id } });
    expect(file).toMatchObject({ status: 'processed', rowCount: 33, errorCount: 0, warningCount: 0 });
    expect(result.warningCount).toBe(0);
    expect(file.processedAt).toBeInstanceOf(Date);
    expect(file.statusDetail).toBe('Loaded 33 rows for 2 entities; 28 daily returns recomputed');

    const entities = await db.prisma.entity.findMany({ where: { orgId }, orderBy: { accountCode: 'asc' } });
    expect(entities.map((e) => [e.accountCode, e.entityName])).toEqual([
      ['ACC-1001', 'Bayview Growth Fund LP'],
      ['ACC-2002', 'Northwind Family Trust'],
    ]);

    // flows as in the file, with the default timing resolved, description and source line kept
    const rows = await parsedSample('pnl-sample.csv');
    const expectedFlows = rows
      .filter((r) => r.cashFlow !== null)
      .map((r) => ({ line: r.line, date: r.date, amount: r.cashFlow, timing: r.flowTiming ?? defaultTiming(r.cashFlow!), description: r.description }));
    const storedFlows = (
      await db.pool.query(
        `SELECT c."sourceLine" AS line, c.date, c.amount::text AS amount, c.timing::text AS timing, c.description, c."sourceFileId"
           FROM "CashTransaction" c JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1 ORDER BY c."sourceLine"`,
        [orgId],
      )
    ).rows;
    expect(storedFlows.map(({ sourceFileId, ...f }) => ({ ...f, amount: new Decimal(f.amount).toString() }))).toEqual(
      expectedFlows.map((f) => ({ ...f, amount: new Decimal(f.amount!).toString() })),
    );
    expect(new Set(storedFlows.map((f) => f.sourceFileId))).toEqual(new Set([result.id]));

    for (const e of entities) expect(await expectReturnsMatchInputs(e.id)).toBe(14);
    // and against the file itself, independent of what was stored
    const harbor = rows.filter((r) => r.accountCode === 'ACC-1001');
    const fromFile = dailySeries(
      harbor.filter((r) => r.marketValue !== null).map((r) => ({ date: r.date, marketValue: r.marketValue! })),
      harbor.filter((r) => r.cashFlow !== null).map((r) => ({ date: r.date, amount: r.cashFlow!, timing: r.flowTiming ?? undefined })),
    );
    const storedHarbor = (
      await db.pool.query(`SELECT "returnValue"::text AS r FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`, [entities[0].id])
    ).rows.map((r) => r.r);
    expect(storedHarbor).toEqual(fromFile.periods.map((p) => p.returnValue));
  });

  it('re-ingesting the same file changes nothing and never duplicates', async () => {
    const orgId = await newOrg();
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    const before = await orgCounts(orgId);
    const snapshot = await db.pool.query(
      `SELECT v.date, v."marketValue"::text FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1 ORDER BY 1, 2`,
      [orgId],
    );
    const again = await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    expect(again.status).toBe('processed');
    expect(await orgCounts(orgId)).toEqual(before);
    const after = await db.pool.query(
      `SELECT v.date, v."marketValue"::text FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1 ORDER BY 1, 2`,
      [orgId],
    );
    expect(after.rows).toEqual(snapshot.rows);
    for (const code of ['ACC-1001', 'ACC-2002']) await expectReturnsMatchInputs(await entityId(orgId, code));

    // running the same file's job twice (re-delivery after a crash) is a no-op
    expect((await ingest.ingestFile(again.id)).status).toBe('skipped');
  });

  it('a corrected file replaces the values and flows of the account-dates it contains, nothing else', async () => {
    const orgId = await newOrg();
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    const corrected = [
      'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
      // 03-05: corrected value, the 250000 subscription is now 260000
      'ACC-1001,Bayview Growth Fund LP,2025-03-05,12695535.86,260000.00,start_of_day,Corrected subscription',
      // 03-12: the redemption is removed (the date is present without a flow)
      'ACC-1001,Bayview Growth Fund LP,2025-03-12,12847074.03,,,',
      // 03-14 of ACC-2002: two flows become one
      'ACC-2002,Northwind Family Trust,2025-03-14,3369216.96,97500.00,end_of_day,Net wire',
      // a new day
      'ACC-2002,Northwind Family Trust,2025-03-24,3390000.00,,,',
    ].join('\n');
    const result = await uploadAndIngest(orgId, textFile(corrected, 'corrected.csv'));
    expect(result.status).toBe('processed');
    expect(await orgCounts(orgId)).toEqual({ entities: 2, valuations: 31, flows: 7 - 1 - 1 - 2 + 1 + 1, custodianReturns: 0, dailyReturns: 29 });
    const flows = (
      await db.pool.query(
        `SELECT e."accountCode", c.date, c.amount::text AS amount, c.description FROM "CashTransaction" c
           JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1 ORDER BY e."accountCode", c.date, c.amount`,
        [orgId],
      )
    ).rows.map((r) => [r.accountCode, r.date, new Decimal(r.amount).toFixed(2), r.description]);
    expect(flows).toEqual([
      ['ACC-1001', '2025-03-05', '260000.00', 'Corrected subscription'],
      ['ACC-1001', '2025-03-18', '50000.00', 'Capital call'],
      ['ACC-2002', '2025-03-07', '-40000.00', 'Distribution to beneficiary'],
      ['ACC-2002', '2025-03-14', '97500.00', 'Net wire'],
      ['ACC-2002', '2025-03-19', '-15000.00', 'Tax payment'],
    ]);
    const value = await db.pool.query(`SELECT "marketValue"::text AS v FROM "Valuation" WHERE "entityId" = $1 AND date = '2025-03-05'`, [
      await entityId(orgId, 'ACC-1001'),
    ]);
    expect(new Decimal(value.rows[0].v).toFixed(2)).toBe('12695535.86');
    for (const code of ['ACC-1001', 'ACC-2002']) await expectReturnsMatchInputs(await entityId(orgId, code));
    // each entity keeps its latest valuation: ACC-2002's moved to the new day, ACC-1001's stayed
    expect(await latestValuations(orgId)).toEqual(await latestFromValuations(orgId));
    expect((await latestValuations(orgId)).find((row) => row.accountCode === 'ACC-2002')).toMatchObject({ date: '2025-03-24', value: '3390000.0000' });
  });

  it("keeps each entity's latest valuation, also when a file restates the latest day", async () => {
    const orgId = await newOrg();
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    expect(await latestValuations(orgId)).toEqual(await latestFromValuations(orgId));
    const [latest] = (await latestValuations(orgId)).filter((row) => row.accountCode === 'ACC-1001');
    const restated = [
      'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
      `ACC-1001,Bayview Growth Fund LP,${latest.date},12999999.99,,,`,
    ].join('\n');
    await uploadAndIngest(orgId, textFile(restated, 'restated.csv'));
    expect((await latestValuations(orgId)).find((row) => row.accountCode === 'ACC-1001')).toMatchObject({ date: latest.date, value: '12999999.9900' });
    expect(await latestValuations(orgId)).toEqual(await latestFromValuations(orgId));
  });

  it('renames an entity when its account comes with a new name; a name held by another account is a row error', async () => {
    const orgId = await newOrg();
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    const header = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
    const renamed = await uploadAndIngest(orgId, textFile(`${header}\nACC-1001,Harbor Growth Fund II LP,2025-03-24,12700000.00,,,\n`));
    expect(renamed.status).toBe('processed');
    expect((await db.prisma.entity.findFirstOrThrow({ where: { orgId, accountCode: 'ACC-1001' } })).entityName).toBe('Harbor Growth Fund II LP');

    const before = await orgCounts(orgId);
    const clash = await uploadAndIngest(
      orgId,
      textFile(
        `${header}\nACC-3003,Other Fund,2025-03-03,100.00,,,\nACC-3003,Other Fund,2025-03-04,101.00,,,\nACC-9999,Northwind Family Trust,2025-03-24,1.00,,,\n`,
      ),
    );
    expect(clash).toMatchObject({ status: 'failed', errorCount: 1, rowCount: 3 });
    expect(await storage.rowErrors(clash.id, 10)).toMatchObject([
      { line: 4, column: 'entity_name', message: 'entity_name "Northwind Family Trust" is already used by account ACC-2002 in this organization' },
    ]);
    expect(await orgCounts(orgId)).toEqual(before); // ACC-3003 was not created either
  });

  it('text with quotes, backslashes, braces, commas, NULL and line breaks round-trips exactly', async () => {
    const orgId = await newOrg();
    const header = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
    const descriptions = ['say "hi"', 'back\\slash \\"', '{braces}, commas', 'NULL', 'two\nlines', ' '];
    const csvField = (v: string) => `"${v.replace(/"/g, '""')}"`;
    const lines = descriptions.map((d, i) => `Q-1,${csvField('Fund "Q" \\ {1}')},2024-01-0${i + 2},100.00,${i + 1}.00,,${csvField(d)}`);
    const result = await uploadAndIngest(orgId, textFile([header, 'Q-1,"Fund ""Q"" \\ {1}",2024-01-01,100.00,,,', ...lines].join('\n')));
    expect(result.status).toBe('processed');
    expect((await db.prisma.entity.findFirstOrThrow({ where: { orgId } })).entityName).toBe('Fund "Q" \\ {1}');
    const stored = await db.prisma.cashTransaction.findMany({ where: { entity: { orgId } }, orderBy: { date: 'asc' } });
    expect(stored.map((f) => f.description)).toEqual(descriptions.map((d) => (d.trim() === '' ? null : d)));
  });

  it('samples/pnl-with-errors.csv fails as a whole with its row errors and loads nothing', async () => {
    const orgId = await newOrg();
    const result = await uploadAndIngest(orgId, sampleFile('pnl-with-errors.csv'));
    expect(result).toMatchObject({ status: 'failed', errorCount: 7, rowCount: 11 });
    expect(await orgCounts(orgId)).toEqual({ entities: 0, valuations: 0, flows: 0, custodianReturns: 0, dailyReturns: 0 });
    const file = await db.prisma.uploadedFile.findUniqueOrThrow({ where: { id: result.id } });
    expect(file).toMatchObject({ status: 'failed', errorCount: 7, rowCount: 11 });
    expect(file.statusDetail).toBe('File rejected, nothing was loaded: 7 errors in pnl rows; first on line 3 (date): 2025-02-30 is not a real calendar date');
    const errors = (await storage.rowErrors(result.id, 100)).map(({ line, column, message }) => ({ line, column, message }));
    expect(errors).toEqual([
      { line: 3, column: 'date', message: '2025-02-30 is not a real calendar date' },
      {
        line: 4,
        column: 'market_value',
        message: 'market_value "12,685,535.86" is not a valid number: commas are not allowed (no thousands separators or decimal commas)',
      },
      { line: 7, column: 'market_value', message: 'second market_value for account ACC-1001 on 2025-03-06 (first on line 5)' },
      { line: 8, column: 'cash_flow', message: 'cash_flow "$5000" is not a valid number: currency symbols are not allowed' },
      { line: 11, column: 'flow_timing', message: 'flow_timing "next_day" must be start_of_day, end_of_day or empty' },
      { line: 12, column: 'entity_name', message: 'entity_name "Northwind Trust" differs from "Northwind Family Trust" used for account ACC-2002 on line 10' },
      { line: 13, column: 'market_value', message: 'market_value "3287793.98765" has more than 4 decimal places (amounts are not rounded)' },
    ]);
  });

  it('an error after loading started (past the first batches) rolls everything back', async () => {
    const orgId = await newOrg();
    const header = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
    const good = Array.from({ length: 40 }, (_, i) => `ACC-1,Fund One,2024-01-${String((i % 28) + 1).padStart(2, '0')},${1000 + i}.00,,,`);
    // distinct dates: 28 days of January plus 12 of February
    for (let i = 28; i < 40; i++) good[i] = `ACC-1,Fund One,2024-02-${String(i - 27).padStart(2, '0')},${1000 + i}.00,,,`;
    const text = [header, ...good, 'ACC-1,Fund One,2024-03-01,not-a-number,,,'].join('\n');
    const small = new IngestService({ pool: db.pool, blobs, log, batchSize: 10 });
    const result = await uploadAndIngest(orgId, textFile(text), small);
    expect(result).toMatchObject({ status: 'failed', errorCount: 1, rowCount: 41 });
    expect(await orgCounts(orgId)).toEqual({ entities: 0, valuations: 0, flows: 0, custodianReturns: 0, dailyReturns: 0 });
  });

  it('a file-level format error fails the file with a line-1 error', async () => {
    const orgId = await newOrg();
    const uploaded = await upload(orgId, textFile('account_code,entity_name,date,market_value\nA,B,2025-01-01,1\n'), 'pnl');
    const result = await ingest.ingestFile(uploaded.id);
    expect(result).toMatchObject({ status: 'failed', errorCount: 1 });
    const [error] = await storage.rowErrors(uploaded.id, 10);
    expect(error).toMatchObject({ line: 1, column: null });
    expect(error.message).toMatch(/^invalid pnl file header \(line 1\): missing required column: cash_flow/);
    expect((await storage.get(uploaded.id))!.statusDetail).toMatch(/^File rejected, nothing was loaded: invalid pnl file header/);
  });

  it('counts every error but stores at most 1000', async () => {
    const orgId = await newOrg();
    const header = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
    const bad = Array.from({ length: 1500 }, (_, i) => `ACC-1,Fund,2024-13-01,${i}.00,,,`);
    const result = await uploadAndIngest(orgId, textFile([header, ...bad].join('\n')));
    expect(result).toMatchObject({ status: 'failed', errorCount: 1500, rowCount: 1500 });
    expect(await db.prisma.fileRowError.count({ where: { fileId: result.id } })).toBe(MAX_STORED_ROW_ERRORS);
    expect((await storage.get(result.id))!.errorCount).toBe(1500);
  });

  it('a crash in the middle of the load leaves nothing; the retry loads the file', async () => {
    const orgId = await newOrg();
    const crashing = new IngestService({
      pool: db.pool,
      blobs,
      log,
      batchSize: 5,
      onBatch: ({ batch }) => {
        if (batch === 3) throw new Error('simulated crash');
      },
    });
    const uploaded = await upload(orgId, sampleFile('pnl-sample.csv'));
    await expect(crashing.ingestFile(uploaded.id)).rejects.toThrow('simulated crash');
    expect(await orgCounts(orgId)).toEqual({ entities: 0, valuations: 0, flows: 0, custodianReturns: 0, dailyReturns: 0 });
    expect((await storage.get(uploaded.id))!.status).toBe('processing');
    // the pool still works (the broken client was discarded) and the retry succeeds
    const retried = await ingest.ingestFile(uploaded.id);
    expect(retried.status).toBe('processed');
    expect(await orgCounts(orgId)).toEqual({ entities: 2, valuations: 30, flows: 7, custodianReturns: 0, dailyReturns: 28 });
  });

  it('a missing blob fails the file at once', async () => {
    const orgId = await newOrg();
    const uploaded = await upload(orgId, sampleFile('pnl-sample.csv'));
    await blobs.delete(uploaded.blobKey);
    const result = await ingest.ingestFile(uploaded.id);
    expect(result.status).toBe('failed');
    expect((await storage.get(uploaded.id))!.statusDetail).toMatch(/missing from blob storage/);
  });
});

describe('IngestService: planner statistics after large loads', () => {
  /** The pool, recording the statements the ingest sends on its own connection. */
  const recordingPool = (statements: string[]) => watchedPool(db.pool, (text) => void statements.push(text));

  it('runs ANALYZE after a file of at least analyzeAfterRows rows, not after a smaller one, and never when unset', async () => {
    const analyzes = (statements: string[]) => statements.filter((statement) => statement.startsWith('ANALYZE')).length;
    const cases: { analyzeAfterRows: number | undefined; expected: number }[] = [
      { analyzeAfterRows: 33, expected: 1 }, // the sample has 33 rows
      { analyzeAfterRows: 34, expected: 0 },
      { analyzeAfterRows: 0, expected: 1 },
      { analyzeAfterRows: undefined, expected: 0 },
    ];
    for (const { analyzeAfterRows, expected } of cases) {
      const statements: string[] = [];
      const service = new IngestService({ pool: recordingPool(statements), blobs, log, analyzeAfterRows });
      const result = await uploadAndIngest(await newOrg(), sampleFile('pnl-sample.csv'), service);
      expect(result.rowCount).toBe(33);
      expect(analyzes(statements), `analyzeAfterRows ${analyzeAfterRows}`).toBe(expected);
    }
  });
});

describe('IngestService: warnings for rows that count in no return', () => {
  const HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
  const warningsOf = (fileId: string) =>
    db.prisma.fileRowWarning.findMany({ where: { fileId }, orderBy: { line: 'asc' }, select: { line: true, column: true, message: true } });

  it('a flow on (or before) the first valuation date, or of an entity without valuations, loads with a warning; the file is processed', async () => {
    const orgId = await newOrg();
    const csv = [
      HEADER,
      'ACC-W1,Warned Fund,2024-01-02,1000.00,500.00,,Seed on the first day', // line 2: on the first valuation date
      'ACC-W1,Warned Fund,2024-01-03,1600.00,,,',
      'ACC-W1,Warned Fund,2024-01-04,1700.00,50.00,,Counted', // line 4: counted in (01-03, 01-04]
      'ACC-W1,Warned Fund,2024-01-01,,-20.00,,Before any valuation', // line 5: before the first valuation
      'ACC-W2,Flows Only,2024-01-02,,75.00,,', // line 6: an entity without valuations
    ].join('\n');
    const result = await uploadAndIngest(orgId, textFile(csv));
    expect(result).toMatchObject({ status: 'processed', errorCount: 0, warningCount: 3, rowCount: 5 });
    const file = await storage.get(result.id);
    expect(file).toMatchObject({ status: 'processed', errorCount: 0, warningCount: 3 });
    expect(file!.statusDetail).toMatch(/3 warnings: cash flows that count in no return/);
    const warnings = await warningsOf(result.id);
    expect(warnings.map((w) => [w.line, w.column])).toEqual([
      [2, 'cash_flow'],
      [5, 'cash_flow'],
      [6, 'cash_flow'],
    ]);
    expect(warnings[0]!.message).toMatch(/2024-01-02, the first valuation date of account ACC-W1, counts in no return/);
    expect(warnings[1]!.message).toMatch(/2024-01-01, before the first valuation \(2024-01-02\) of account ACC-W1/);
    expect(warnings[2]!.message).toMatch(/account ACC-W2 has no valuation/);
    // the flows are stored all the same; the returns count only the 01-04 one
    expect((await orgCounts(orgId)).flows).toBe(4);
    const days = (
      await db.pool.query(`SELECT date::text AS date, "netFlow"::text AS "netFlow" FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`, [
        await entityId(orgId, 'ACC-W1'),
      ])
    ).rows;
    expect(days.map((d) => [d.date, Number(d.netFlow)])).toEqual([
      ['2024-01-03', 0],
      ['2024-01-04', 50],
    ]);
  });

  it("checks against the entity's earliest valuation over every file; every ingest replaces the file's warnings", async () => {
    const orgId = await newOrg();
    const later = [HEADER, 'ACC-E,Early Fund,2024-02-01,1000.00,100.00,,', 'ACC-E,Early Fund,2024-02-02,1150.00,,,'].join('\n');
    const first = await uploadAndIngest(orgId, textFile(later, 'later.csv'));
    expect(first).toMatchObject({ status: 'processed', warningCount: 1 });
    expect((await warningsOf(first.id)).map((w) => w.line)).toEqual([2]);

    // An earlier valuation from another file: the flow now counts (the recompute covers it).
    const earlier = await uploadAndIngest(orgId, textFile([HEADER, 'ACC-E,Early Fund,2024-01-31,900.00,,,'].join('\n'), 'earlier.csv'));
    expect(earlier).toMatchObject({ status: 'processed', warningCount: 0 });
    const day = (
      await db.pool.query(`SELECT "netFlow"::text AS "netFlow" FROM "DailyReturn" WHERE "entityId" = $1 AND date = '2024-02-01'`, [
        await entityId(orgId, 'ACC-E'),
      ])
    ).rows[0];
    expect(Number(day.netFlow)).toBe(100);

    // The same file uploaded again: its first date is no longer the entity's first valuation date.
    const again = await uploadAndIngest(orgId, textFile(later, 'later.csv'));
    expect(again).toMatchObject({ status: 'processed', warningCount: 0 });
    expect(await warningsOf(again.id)).toEqual([]);

    // Ingesting the first file again (as a retried job does) replaces its warnings rather than adding to them.
    await db.pool.query(`UPDATE "UploadedFile" SET status = 'processing' WHERE id = $1`, [first.id]);
    const reingested = await ingest.ingestFile(first.id);
    expect(reingested).toMatchObject({ status: 'processed', warningCount: 0 });
    expect(await warningsOf(first.id)).toEqual([]);
    expect((await storage.get(first.id))!.warningCount).toBe(0);
  });

  it('counts every warning but stores at most 1000; a failed file has none', async () => {
    const orgId = await newOrg();
    const flows = Array.from({ length: 1200 }, (_, i) => `ACC-F,Flows Fund,${new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10)},,10.00,,`);
    const result = await uploadAndIngest(orgId, textFile([HEADER, ...flows].join('\n')));
    expect(result).toMatchObject({ status: 'processed', warningCount: 1200 });
    expect(await db.prisma.fileRowWarning.count({ where: { fileId: result.id } })).toBe(MAX_STORED_ROW_WARNINGS);
    expect((await warningsOf(result.id))[0]!.line).toBe(2);

    const failed = await uploadAndIngest(orgId, textFile([HEADER, 'ACC-G,Bad,2024-01-02,1.00,5.00,,', 'ACC-G,Bad,2024-13-01,1.00,,,'].join('\n')));
    expect(failed).toMatchObject({ status: 'failed', warningCount: 0 });
    expect(await warningsOf(failed.id)).toEqual([]);
  });
});

describe('IngestService: performance', () => {
  it('loads samples/performance-sample.csv as custodian returns (fractions), idempotently', async () => {
    const orgId = await newOrg();
    const first = await uploadAndIngest(orgId, sampleFile('performance-sample.csv'));
    expect(first).toMatchObject({ status: 'processed', rowCount: 28, entities: 2, dailyReturns: 0 });
    expect(await orgCounts(orgId)).toEqual({ entities: 2, valuations: 0, flows: 0, custodianReturns: 28, dailyReturns: 0 });
    const { rows } = await db.pool.query(`SELECT c.date, c."returnValue"::text AS r FROM "CustodianReturn" c WHERE c."entityId" = $1 ORDER BY c.date LIMIT 2`, [
      await entityId(orgId, 'ACC-1001'),
    ]);
    expect(rows.map((r) => [r.date, new Decimal(r.r).toString()])).toEqual([
      ['2025-03-04', '-0.001874'],
      ['2025-03-05', '-0.003206'],
    ]);
    await uploadAndIngest(orgId, textFile('account_code,entity_name,date,return,return_unit\nACC-1001,Bayview Growth Fund LP,2025-03-04,-20,bps\n'));
    expect((await orgCounts(orgId)).custodianReturns).toBe(28);
    const updated = await db.pool.query(`SELECT "returnValue"::text AS r FROM "CustodianReturn" WHERE "entityId" = $1 AND date = '2025-03-04'`, [
      await entityId(orgId, 'ACC-1001'),
    ]);
    expect(new Decimal(updated.rows[0].r).toString()).toBe('-0.002');
    // the pnl file for the same accounts reuses the entities
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    expect((await orgCounts(orgId)).entities).toBe(2);
  });
});

describe('recomputeDailyReturns', () => {
  it('from a date: keeps the sub-periods ending on or before the anchor, replaces the rest', async () => {
    const orgId = await newOrg();
    await uploadAndIngest(orgId, sampleFile('pnl-sample.csv'));
    const entity = await entityId(orgId, 'ACC-1001');
    const ids = async () => (await db.pool.query(`SELECT date, id FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`, [entity])).rows;
    const before = await ids();
    const result = await recomputeDailyReturns(db.pool, entity, '2025-03-12', { windowSize: 3 });
    expect(result).toMatchObject({ anchorDate: '2025-03-11', periods: 8, nullReturns: 0 }); // 03-12 .. 03-21
    const after = await ids();
    expect(after.map((r) => r.date)).toEqual(before.map((r) => r.date));
    const kept = after.filter((r) => r.date <= '2025-03-11');
    expect(kept).toEqual(before.filter((r) => r.date <= '2025-03-11'));
    expect(after.filter((r) => r.date > '2025-03-11').every((r, i) => r.id !== before.filter((b) => b.date > '2025-03-11')[i].id)).toBe(true);
    await expectReturnsMatchInputs(entity);
    // whole series, small windows: same numbers
    expect((await recomputeDailyReturns(db.pool, entity, null, { windowSize: 2 })).periods).toBe(14);
    await expectReturnsMatchInputs(entity);
  });
});

describe('IngestWorker', () => {
  function deferred<T = void>() {
    let resolve!: (value: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    return { promise, resolve };
  }

  it('runs queued ingest jobs: processes valid files, completes the job of a rejected file', async () => {
    await db.pool.query(`UPDATE "Job" SET state = 'completed' WHERE state IN ('queued', 'running')`);
    const orgId = await newOrg();
    const good = await upload(orgId, sampleFile('pnl-sample.csv'));
    const bad = await upload(orgId, sampleFile('pnl-with-errors.csv'));
    const worker = ingestWorker({ jobs, ingest, log, pollIntervalMs: 20, workerId: 'test-worker' });
    expect(await worker.runOnce()).toBe(true);
    expect(await worker.runOnce()).toBe(true);
    expect(await worker.runOnce()).toBe(false);
    expect((await storage.get(good.id))!.status).toBe('processed');
    expect((await storage.get(bad.id))!.status).toBe('failed');
    expect(worker.status()).toMatchObject({ state: 'stopped', processed: 2, failed: 0, currentJobId: null });
    expect(worker.status().lastPollAt).toBeInstanceOf(Date);
    const { rows: states } = await db.pool.query(`SELECT payload->>'fileId' AS "fileId", state::text AS state FROM "Job" WHERE payload->>'fileId' = ANY($1)`, [
      [good.id, bad.id],
    ]);
    expect(states.sort((a, b) => Number(a.fileId !== good.id) - Number(b.fileId !== good.id))).toEqual([
      { fileId: good.id, state: 'completed' },
      { fileId: bad.id, state: 'completed' },
    ]);
  });

  it('on start requeues a job abandoned by a crashed worker and ingests it', async () => {
    await db.pool.query(`UPDATE "Job" SET state = 'completed' WHERE state IN ('queued', 'running')`);
    const orgId = await newOrg();
    const file = await upload(orgId, sampleFile('performance-sample.csv'));
    const job = await jobs.claim('ingest', 'crashed-worker');
    expect(job).not.toBeNull();
    await db.pool.query(`UPDATE "UploadedFile" SET status = 'processing' WHERE id = $1`, [file.id]);

    // single-process embedded database: every running job at start is abandoned (staleOnStartMs 0)
    const worker = ingestWorker({ jobs, ingest, log, pollIntervalMs: 20, workerId: 'w-restart', staleAfterMs: 60_000, staleOnStartMs: 0 });
    worker.start();
    try {
      for (let i = 0; i < 200 && (await storage.get(file.id))!.status !== 'processed'; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await worker.stop();
    }
    expect((await storage.get(file.id))!.status).toBe('processed');
    expect(await jobs.get(job!.id)).toMatchObject({ state: 'completed', attempts: 2 });
  });

  it('stop() waits for the in-flight job', async () => {
    await db.pool.query(`UPDATE "Job" SET state = 'completed' WHERE state IN ('queued', 'running')`);
    const { id: jobId } = await jobs.enqueue('ingest', { fileId: '00000000-0000-4000-8000-000000000001' });
    const started = deferred();
    const release = deferred();
    let finished = false;
    const slow: FileIngester = {
      async ingestFile(fileId) {
        started.resolve();
        await release.promise;
        finished = true;
        return {
          fileId,
          status: 'processed',
          rowCount: 0,
          errorCount: 0,
          warningCount: 0,
          entities: 0,
          dailyReturns: 0,
          detail: null,
          timings: { loadMs: 0, recomputeMs: 0, totalMs: 0 },
        };
      },
      async markFailed() {},
    };
    const worker = ingestWorker({ jobs, ingest: slow, log, pollIntervalMs: 10, workerId: 'w-stop' });
    worker.start();
    await started.promise;
    expect(worker.status()).toMatchObject({ state: 'busy', currentJobId: jobId });
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    expect(worker.status().state).toBe('busy');
    release.resolve();
    await stopping;
    expect(finished).toBe(true);
    expect(worker.status()).toMatchObject({ state: 'stopped', currentJobId: null, processed: 1 });
    expect((await jobs.get(jobId))!.state).toBe('completed');
  });

  it('retries an infrastructure failure with backoff and marks the file failed when attempts run out', async () => {
    await db.pool.query(`UPDATE "Job" SET state = 'completed' WHERE state IN ('queued', 'running')`);
    const orgId = await newOrg();
    const file = await upload(orgId, sampleFile('pnl-sample.csv'));
    const failing: FileIngester = {
      ingestFile: async () => {
        throw new Error('database went away');
      },
      markFailed: (fileId, detail) => ingest.markFailed(fileId, detail),
      markRetrying: (fileId, detail) => ingest.markRetrying(fileId, detail),
    };
    await db.pool.query(`UPDATE "UploadedFile" SET status = 'processing' WHERE id = $1`, [file.id]);
    const worker = ingestWorker({ jobs, ingest: failing, log, pollIntervalMs: 5, workerId: 'w-fail' });
    expect(await worker.runOnce()).toBe(true);
    expect((await storage.get(file.id))!).toMatchObject({ status: 'processing' });
    expect((await storage.get(file.id))!.statusDetail).toMatch(/^Attempt 1 failed \(database went away\); retrying at/);
    for (let i = 0; i < 2; i++) {
      await db.pool.query(`UPDATE "Job" SET "runAt" = now() - interval '1 second' WHERE state = 'queued'`);
      expect(await worker.runOnce()).toBe(true);
    }
    expect(worker.status()).toMatchObject({ failed: 3, processed: 0 });
    const stored = await storage.get(file.id);
    expect(stored).toMatchObject({ status: 'failed', statusDetail: 'Ingest failed after 3 attempts: database went away' });
    expect(await jobs.depths('ingest')).toMatchObject({ queued: 0, running: 0 });
  });
});
