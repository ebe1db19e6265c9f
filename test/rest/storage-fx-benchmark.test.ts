/**
 * The fx and benchmark uploads, and the pnl file's currency and flow_type columns, end to end: a
 * real service, real HTTP multipart bodies (REST and GraphQL), the ingest worker behind it, and
 * what it stored read back with SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphqlUpload, restUpload, waitForFileStatus } from '../helpers/upload.ts';

let server: TestServer;
let user: TestUser;
let runId = 0;

beforeAll(async () => {
  // Uploads are charged to the `upload` budget (10 a minute by default); this file makes more.
  server = await startTestServer({ RATE_LIMIT_UPLOAD_PER_MINUTE: '1000' });
  runId = Date.now();
  user = await createUser(server.services, { scopes: ['read:pnl', 'read:returns', 'write:upload'], org: `FX and benchmarks ${runId}` });
});
afterAll(() => server?.close());

const sql = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await server.services.db.pool.query<T>(text, params)).rows;

/** Uploads over REST multipart; 201 with the file record. */
async function upload(bytes: string, fields: { fileType?: string; name?: string; as?: TestUser } = {}) {
  const as = fields.as ?? user;
  const response = await restUpload(server.url, as.key, { orgId: as.orgId, fileType: fields.fileType, file: { name: fields.name ?? 'upload.csv', bytes } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { id: string; file_type: string; status: string };
}

/** Uploads and waits for the worker: the file as GET /api/storage/files lists it. */
async function ingested(bytes: string, fields: { fileType?: string; name?: string; as?: TestUser } = {}) {
  const file = await upload(bytes, fields);
  const as = fields.as ?? user;
  return waitForFileStatus(server.url, as.key, as.orgId, file.id, ['processed', 'failed']);
}

/** A file's every row error, as GraphQL's file(id:) lists them (the REST listing shows the first 20). */
async function rowErrors(fileId: string) {
  const response = await getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'query ($id: UUID!) { file(id: $id) { status rowErrors(first: 1000) { line column message } } }',
      variables: { id: fileId },
    }),
  });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.file.rowErrors as { line: number; column: string | null; message: string }[];
}

const fxRates = (orgId = user.orgId) =>
  sql<{ base: string; quote: string; date: string; rate: string; sourceFileId: string; sourceLine: number }>(
    `SELECT base, quote, date::text AS date, rate::text AS rate, "sourceFileId", "sourceLine" FROM "FxRate" WHERE "orgId" = $1 ORDER BY base, quote, date`,
    [orgId],
  );
const benchmarkLevels = (orgId = user.orgId) =>
  sql<{ benchmark: string; date: string; level: string; sourceFileId: string; sourceLine: number }>(
    `SELECT benchmark, date::text AS date, level::text AS level, "sourceFileId", "sourceLine" FROM "BenchmarkLevel" WHERE "orgId" = $1 ORDER BY benchmark, date`,
    [orgId],
  );

const FX_MARCH =
  ['date,base,quote,rate', '2025-03-03,EUR,USD,1.085', '2025-03-03,gbp,usd,1.2712', '2025-03-04,EUR,USD,1.0875', '2025-03-04,USD,JPY,149.5'].join('\n') + '\n';
const LEVELS =
  ['date,benchmark,level', '2025-03-03,MSCI World,3456.78', '2025-03-04,MSCI World,3461.2', '2025-03-03,"S&P 500, TR",12345.67891234'].join('\n') + '\n';

describe('fx uploads', () => {
  it('file_type=fx: processed, every rate stored by (org, base, quote, date) with its file and line; nothing recomputed', async () => {
    const file = await upload(FX_MARCH, { fileType: 'fx', name: 'rates-march.csv' });
    expect(file).toMatchObject({ file_type: 'fx', status: 'uploaded' });
    const done = await waitForFileStatus(server.url, user.key, user.orgId, file.id, ['processed', 'failed']);
    expect(done).toMatchObject({
      status: 'processed',
      row_count: 4,
      error_count: 0,
      warning_count: 0,
      row_errors: [],
      status_detail: 'Loaded 4 rows for 3 currency pairs',
    });
    expect(await fxRates()).toEqual([
      { base: 'EUR', quote: 'USD', date: '2025-03-03', rate: '1.085000000000', sourceFileId: file.id, sourceLine: 2 },
      { base: 'EUR', quote: 'USD', date: '2025-03-04', rate: '1.087500000000', sourceFileId: file.id, sourceLine: 4 },
      { base: 'GBP', quote: 'USD', date: '2025-03-03', rate: '1.271200000000', sourceFileId: file.id, sourceLine: 3 },
      { base: 'USD', quote: 'JPY', date: '2025-03-04', rate: '149.500000000000', sourceFileId: file.id, sourceLine: 5 },
    ]);
    expect(await sql(`SELECT 1 FROM "Entity" WHERE "orgId" = $1`, [user.orgId])).toEqual([]);
  });

  it('detects fx from the header without file_type; re-uploading upserts (no duplicates, the newer file wins)', async () => {
    const before = await fxRates();
    const again = await ingested(FX_MARCH, { name: 'rates-march-again.csv' });
    expect(again).toMatchObject({ file_type: 'fx', status: 'processed', row_count: 4 });
    expect((await fxRates()).map(({ sourceFileId, ...rate }) => rate)).toEqual(before.map(({ sourceFileId, ...rate }) => rate));
    expect(new Set((await fxRates()).map((r) => r.sourceFileId))).toEqual(new Set([again.id]));

    // a corrected rate on a stored date, a new date, the largest rate DECIMAL(24,12) holds, and the rest left alone
    const corrected = await ingested(
      'Rate,Quote,Base,Date\n1.0880,USD,EUR,2025-03-04\n1.09,usd,eur,2025-03-05\n999999999999.999999999999,XAU,USD,2025-03-05\n',
    );
    expect(corrected).toMatchObject({ file_type: 'fx', status: 'processed', row_count: 3, status_detail: 'Loaded 3 rows for 2 currency pairs' });
    expect(await fxRates()).toEqual([
      { base: 'EUR', quote: 'USD', date: '2025-03-03', rate: '1.085000000000', sourceFileId: again.id, sourceLine: 2 },
      { base: 'EUR', quote: 'USD', date: '2025-03-04', rate: '1.088000000000', sourceFileId: corrected.id, sourceLine: 2 },
      { base: 'EUR', quote: 'USD', date: '2025-03-05', rate: '1.090000000000', sourceFileId: corrected.id, sourceLine: 3 },
      { base: 'GBP', quote: 'USD', date: '2025-03-03', rate: '1.271200000000', sourceFileId: again.id, sourceLine: 3 },
      { base: 'USD', quote: 'JPY', date: '2025-03-04', rate: '149.500000000000', sourceFileId: again.id, sourceLine: 5 },
      { base: 'USD', quote: 'XAU', date: '2025-03-05', rate: '999999999999.999999999999', sourceFileId: corrected.id, sourceLine: 4 },
    ]);
  });

  it('a file with a bad row loads nothing and lists its row errors', async () => {
    const before = await fxRates();
    const bad = [
      'date,base,quote,rate',
      '2025-03-10,EUR,USD,1.1', // valid, but the file fails: not loaded
      '2025-03-10,EUR,EUR,1',
      '2025-03-10,EURO,USD,1.1',
      '2025-03-11,EUR,USD,0',
      '2025-03-11,EUR,USD,1.0000000000001',
      '2025-03-10,eur,usd,1.2',
      '2025-03-12,CHF,USD,1.13',
    ];
    const file = await ingested(bad.join('\n') + '\n', { fileType: 'fx', name: 'rates-bad.csv' });
    expect(file).toMatchObject({ file_type: 'fx', status: 'failed', error_count: 5, row_count: 7 });
    expect(file.status_detail).toBe(
      'File rejected, nothing was loaded: 5 errors in fx rows; first on line 3 (quote): quote EUR is the same currency as base: a rate needs two different currencies',
    );
    const expected = [
      { line: 3, column: 'quote', message: 'quote EUR is the same currency as base: a rate needs two different currencies' },
      { line: 4, column: 'base', message: 'base "EURO" is not a currency code: expected three letters (ISO 4217, e.g. EUR)' },
      { line: 5, column: 'rate', message: 'rate "0" must be greater than zero' },
      { line: 6, column: 'rate', message: 'rate "1.0000000000001" has more than 12 decimal places (rates are not rounded)' },
      { line: 7, column: 'rate', message: 'second rate for EUR/USD on 2025-03-10 (first on line 2)' },
    ];
    expect(file.row_errors).toEqual(expected);
    expect(await rowErrors(file.id)).toEqual(expected);
    expect(await fxRates()).toEqual(before);
  });

  it('file_type given but the header is another type: 400 naming file_type, for every pair of the new types', async () => {
    const files = (await server.services.prisma.uploadedFile.count({ where: { orgId: user.orgId } })) as number;
    const pnl = 'account_code,entity_name,date,market_value,cash_flow\nA,Alpha,2025-03-03,1,\n';
    for (const [fileType, bytes, header] of [
      ['fx', LEVELS, 'benchmark'],
      ['benchmark', FX_MARCH, 'fx'],
      ['pnl', FX_MARCH, 'fx'],
      ['performance', LEVELS, 'benchmark'],
      ['fx', pnl, 'pnl'],
    ] as const) {
      const response = await restUpload(server.url, user.key, { orgId: user.orgId, fileType, file: { name: 'x.csv', bytes } });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe(`Invalid file_type: is ${fileType} but the file's header is ${header === 'fx' ? 'an' : 'a'} ${header} header`);
    }
    expect(await server.services.prisma.uploadedFile.count({ where: { orgId: user.orgId } })).toBe(files);
  });

  it('a header of no known type is still a 415 naming the four expected headers', async () => {
    const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'x.csv', bytes: 'name,city\nAda,London\n' } });
    expect(response.status).toBe(415);
    expect(response.body.error).toBe(
      'Unsupported file content: the header row is neither a pnl nor a performance header, nor an fx or a benchmark header; expected ' +
        'a pnl header (account_code, entity_name, date, market_value, cash_flow, flow_timing (optional), flow_type (optional), currency (optional), description (optional)), ' +
        'a performance header (account_code, entity_name, date, return, return_unit), an fx header (date, base, quote, rate) or a benchmark header (date, benchmark, level)',
    );
  });
});

describe('benchmark uploads', () => {
  it('file_type=benchmark: processed, every level stored by (org, benchmark, date) with its file and line', async () => {
    const file = await upload(LEVELS, { fileType: 'benchmark' });
    expect(file.file_type).toBe('benchmark');
    const done = await waitForFileStatus(server.url, user.key, user.orgId, file.id, ['processed', 'failed']);
    expect(done).toMatchObject({ status: 'processed', row_count: 3, error_count: 0, status_detail: 'Loaded 3 rows for 2 benchmarks' });
    expect(await benchmarkLevels()).toEqual([
      { benchmark: 'MSCI World', date: '2025-03-03', level: '3456.78000000', sourceFileId: file.id, sourceLine: 2 },
      { benchmark: 'MSCI World', date: '2025-03-04', level: '3461.20000000', sourceFileId: file.id, sourceLine: 3 },
      { benchmark: 'S&P 500, TR', date: '2025-03-03', level: '12345.67891234', sourceFileId: file.id, sourceLine: 4 },
    ]);
  });

  it('detected without file_type; re-uploading upserts', async () => {
    const file = await ingested('level,date,benchmark\n3460,2025-03-04,MSCI World\n3470.5,2025-03-05,MSCI World\n');
    expect(file).toMatchObject({ file_type: 'benchmark', status: 'processed', row_count: 2, status_detail: 'Loaded 2 rows for 1 benchmark' });
    const levels = await benchmarkLevels();
    expect(levels.map((l) => [l.benchmark, l.date, l.level, l.sourceLine])).toEqual([
      ['MSCI World', '2025-03-03', '3456.78000000', 2],
      ['MSCI World', '2025-03-04', '3460.00000000', 2],
      ['MSCI World', '2025-03-05', '3470.50000000', 3],
      ['S&P 500, TR', '2025-03-03', '12345.67891234', 4],
    ]);
    expect(levels[1].sourceFileId).toBe(file.id);
  });

  it('a file with a bad row loads nothing and lists its row errors', async () => {
    const before = await benchmarkLevels();
    const file = await ingested(
      `date,benchmark,level\n2025-03-10,MSCI World,3500\n2025-03-10,${'X'.repeat(101)},1\n2025-03-11,MSCI World,-1\n2025-03-10,MSCI World,3501\n`,
    );
    expect(file).toMatchObject({ file_type: 'benchmark', status: 'failed', error_count: 3, row_count: 4 });
    expect(file.status_detail).toMatch(/^File rejected, nothing was loaded: 3 errors in benchmark rows; first on line 3 \(benchmark\)/);
    expect(await rowErrors(file.id)).toEqual([
      { line: 3, column: 'benchmark', message: 'benchmark is longer than 100 characters' },
      { line: 4, column: 'level', message: 'level "-1" must be greater than zero' },
      { line: 5, column: 'level', message: 'second level for benchmark "MSCI World" on 2025-03-10 (first on line 2)' },
    ]);
    expect(await benchmarkLevels()).toEqual(before);
  });

  it('the GraphQL upload mutation takes both types, given or detected', async () => {
    const given = await graphqlUpload(
      server.url,
      user.key,
      { orgId: user.orgId, fileType: 'fx' },
      { name: 'gql-rates.csv', bytes: 'date,base,quote,rate\n2025-04-01,EUR,CHF,0.95\n' },
    );
    expect(given.body.errors).toBeUndefined();
    expect(given.body.data.uploadFile).toMatchObject({ fileType: 'fx', status: 'uploaded' });
    const detected = await graphqlUpload(
      server.url,
      user.key,
      { orgId: user.orgId },
      { name: 'gql-levels.csv', bytes: 'date,benchmark,level\n2025-04-01,GQL Index,100\n' },
    );
    expect(detected.body.errors).toBeUndefined();
    expect(detected.body.data.uploadFile).toMatchObject({ fileType: 'benchmark' });
    const wrong = await graphqlUpload(server.url, user.key, { orgId: user.orgId, fileType: 'benchmark' }, { name: 'x.csv', bytes: FX_MARCH });
    expect(wrong.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(wrong.body.errors[0].message).toBe("Invalid fileType: is benchmark but the file's header is an fx header");
    for (const id of [given.body.data.uploadFile.id, detected.body.data.uploadFile.id]) {
      expect((await waitForFileStatus(server.url, user.key, user.orgId, id, ['processed', 'failed'])).status).toBe('processed');
    }
    expect(await sql(`SELECT rate::text AS rate FROM "FxRate" WHERE "orgId" = $1 AND base = 'EUR' AND quote = 'CHF'`, [user.orgId])).toEqual([
      { rate: '0.950000000000' },
    ]);
    expect(await sql(`SELECT level::text AS level FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = 'GQL Index'`, [user.orgId])).toEqual([
      { level: '100.00000000' },
    ]);
  });

  it("another organization's rates and levels are its own", async () => {
    const other = await createUser(server.services, { scopes: ['read:pnl', 'write:upload'], org: `FX other ${runId}` });
    const file = await ingested('date,base,quote,rate\n2025-03-03,EUR,USD,2\n', { as: other });
    expect(file.status).toBe('processed');
    expect((await fxRates(other.orgId)).map((r) => r.rate)).toEqual(['2.000000000000']);
    expect((await fxRates()).find((r) => r.base === 'EUR' && r.quote === 'USD' && r.date === '2025-03-03')?.rate).toBe('1.085000000000');
    expect(await benchmarkLevels(other.orgId)).toEqual([]);
  });
});

describe('pnl currency and flow_type', () => {
  const entity = (code: string) =>
    sql<{ entityName: string; currency: string }>(`SELECT "entityName", currency FROM "Entity" WHERE "orgId" = $1 AND "accountCode" = $2`, [user.orgId, code]);
  const flows = (code: string) =>
    sql<{ date: string; amount: string; flowType: string; timing: string; sourceLine: number }>(
      `SELECT c.date::text AS date, c.amount::text AS amount, c."flowType"::text AS "flowType", c.timing::text AS timing, c."sourceLine"
         FROM "CashTransaction" c JOIN "Entity" e ON e.id = c."entityId" WHERE e."orgId" = $1 AND e."accountCode" = $2 ORDER BY c.date, c.amount`,
      [user.orgId, code],
    );
  const valuations = (code: string) =>
    sql<{ date: string; value: string }>(
      `SELECT v.date::text AS date, v."marketValue"::text AS value FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId"
        WHERE e."orgId" = $1 AND e."accountCode" = $2 ORDER BY v.date`,
      [user.orgId, code],
    );

  it('stores the flow types and a new entity takes the file currency (a new one without a currency is USD)', async () => {
    const file = await ingested(
      [
        'account_code,entity_name,date,market_value,cash_flow,flow_timing,flow_type,currency,description',
        'EU-1,Euro Fund,2025-03-03,1000000,,,,eur,',
        'EU-1,Euro Fund,2025-03-04,1001000,-500,,FEE,,Management fee',
        'EU-1,Euro Fund,2025-03-05,1002000,120.5,,income,EUR,Coupon',
        'EU-1,Euro Fund,2025-03-06,1103000,100000,start_of_day,,,Subscription',
        'EU-1,Euro Fund,2025-03-07,1103000,0,,fee,,zero: no flow',
        'US-1,Dollar Fund,2025-03-03,500,,,,,',
      ].join('\n') + '\n',
      { fileType: 'pnl' },
    );
    expect(file).toMatchObject({ file_type: 'pnl', status: 'processed', row_count: 6, error_count: 0 });
    expect(await entity('EU-1')).toEqual([{ entityName: 'Euro Fund', currency: 'EUR' }]);
    expect(await entity('US-1')).toEqual([{ entityName: 'Dollar Fund', currency: 'USD' }]);
    expect(await flows('EU-1')).toEqual([
      { date: '2025-03-04', amount: '-500.0000', flowType: 'fee', timing: 'end_of_day', sourceLine: 3 },
      { date: '2025-03-05', amount: '120.5000', flowType: 'income', timing: 'start_of_day', sourceLine: 4 },
      { date: '2025-03-06', amount: '100000.0000', flowType: 'external', timing: 'start_of_day', sourceLine: 5 },
    ]);
  });

  it('a file without the currency column keeps the entity currency; the same currency again is fine', async () => {
    const plain = await ingested('account_code,entity_name,date,market_value,cash_flow\nEU-1,Euro Fund,2025-03-10,1104000,\n');
    expect(plain.status).toBe('processed');
    const same = await ingested('account_code,entity_name,date,market_value,cash_flow,currency\nEU-1,Euro Fund,2025-03-11,1105000,,Eur\n');
    expect(same.status).toBe('processed');
    expect(await entity('EU-1')).toEqual([{ entityName: 'Euro Fund', currency: 'EUR' }]);
  });

  it('another currency for an existing entity is a row error and the file loads nothing', async () => {
    const before = { valuations: await valuations('EU-1'), flows: await flows('EU-1'), dollar: await valuations('US-1') };
    const file = await ingested(
      [
        'account_code,entity_name,date,market_value,cash_flow,currency',
        'US-1,Dollar Fund,2025-03-12,600,,', // valid: US-1 is USD
        'EU-1,Euro Fund,2025-03-12,1,,',
        'EU-1,Euro Fund,2025-03-13,2,-5,usd',
        'EU-1,Euro Fund,2025-03-14,3,,USD',
      ].join('\n') + '\n',
    );
    expect(file).toMatchObject({ file_type: 'pnl', status: 'failed', error_count: 1 });
    const expected = [
      { line: 4, column: 'currency', message: 'entity "Euro Fund" (account EU-1) is in EUR: a file cannot change its currency (this file gives USD)' },
    ];
    expect(file.row_errors).toEqual(expected);
    expect(file.status_detail).toBe(`File rejected, nothing was loaded: 1 error in pnl rows; first on line 4 (currency): ${expected[0].message}`);
    expect(await entity('EU-1')).toEqual([{ entityName: 'Euro Fund', currency: 'EUR' }]);
    expect({ valuations: await valuations('EU-1'), flows: await flows('EU-1'), dollar: await valuations('US-1') }).toEqual(before);
  });

  it('two currencies for one account in a file, and flow_type without a cash_flow, are row errors', async () => {
    const file = await ingested(
      [
        'account_code,entity_name,date,market_value,cash_flow,flow_type,currency',
        'NEW-1,New Fund,2025-03-03,100,,,GBP',
        'NEW-1,New Fund,2025-03-04,100,,,CHF',
        'NEW-1,New Fund,2025-03-05,100,,fee,',
        'NEW-1,New Fund,2025-03-06,100,-1,rebate,',
      ].join('\n') + '\n',
    );
    expect(file).toMatchObject({ status: 'failed', error_count: 3 });
    expect(await rowErrors(file.id)).toEqual([
      { line: 3, column: 'currency', message: 'currency CHF differs from GBP given for account NEW-1 on line 2' },
      { line: 4, column: 'flow_type', message: 'flow_type is given but cash_flow is empty' },
      { line: 5, column: 'flow_type', message: 'flow_type "rebate" must be external, fee, income or empty' },
    ]);
    expect(await entity('NEW-1')).toEqual([]);
  });
});
