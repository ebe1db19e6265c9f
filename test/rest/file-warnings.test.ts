/**
 * Issue 12 item 5: a processed file reports the rows that loaded but count in no return (a cash
 * flow on its entity's first valuation date), through REST and GraphQL, over real HTTP with real
 * multipart uploads ingested by the worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { restUpload, waitForFileStatus } from '../helpers/upload.ts';
import { graphql } from '../helpers/returns-data.ts';

const HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,description';
const CSV = [
  HEADER,
  'ACC-7001,Warning Fund,2024-05-01,10000.00,2500.00,,Seed money on the first valuation date',
  'ACC-7001,Warning Fund,2024-05-02,10100.00,,,',
  'ACC-7001,Warning Fund,2024-05-03,10300.00,100.00,,Counted',
].join('\n');

let server: TestServer;
let user: TestUser;
const headers = () => ({ 'x-api-key': user.key });

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:pnl', 'read:returns', 'write:upload'] });
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('warnings of a processed file', () => {
  let fileId: string;

  beforeAll(async () => {
    const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'warned.csv', bytes: CSV } });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ warning_count: 0 });
    fileId = response.body.data.id;
  }, 120_000);

  it('REST file listing: processed, warning_count and row_warnings (line, column, message) beside row_errors', async () => {
    const file = await waitForFileStatus(server.url, user.key, user.orgId, fileId, ['processed', 'failed'], 120_000);
    expect(file).toMatchObject({ status: 'processed', error_count: 0, row_errors: [], warning_count: 1 });
    expect(file.status_detail).toMatch(/1 warning: a cash flow that counts in no return/);
    expect(file.row_warnings).toHaveLength(1);
    expect(file.row_warnings[0]).toEqual({
      line: 2,
      column: 'cash_flow',
      message: expect.stringMatching(/2024-05-01, the first valuation date of account ACC-7001, counts in no return/),
    });
  });

  it('GraphQL UploadedFile: warningCount and rowWarnings(first:) say the same', async () => {
    await waitForFileStatus(server.url, user.key, user.orgId, fileId, ['processed', 'failed'], 120_000);
    const response = await graphql(
      server.url,
      headers(),
      `query ($id: UUID!) { file(id: $id) { status warningCount rowWarnings(first: 10) { line column message } rowErrors { line } } }`,
      { id: fileId },
    );
    expect(response.body.errors).toBeUndefined();
    const file = response.body.data.file;
    expect(file).toMatchObject({ status: 'processed', warningCount: 1, rowErrors: [] });
    expect(file.rowWarnings).toEqual([{ line: 2, column: 'cash_flow', message: expect.stringMatching(/first valuation date/) }]);
  });

  it('the flow is stored and listed by cash-transactions but is in no daily return, as the warning says', async () => {
    await waitForFileStatus(server.url, user.key, user.orgId, fileId, ['processed', 'failed'], 120_000);
    const cash = await getJson(`${server.url}/api/returns/cash-transactions?entity_name=Warning%20Fund`, { headers: headers() });
    expect(cash.status).toBe(200);
    expect(cash.body.data.map((t: { date: string; amount: string }) => [t.date, Number(t.amount)])).toEqual([
      ['2024-05-03', 100],
      ['2024-05-01', 2500],
    ]);
    const dietz = await getJson(`${server.url}/api/returns/dietz-daily?entity_name=Warning%20Fund&start_date=2024-05-01&end_date=2024-05-03`, {
      headers: headers(),
    });
    expect(dietz.status).toBe(200);
    expect(dietz.body.data.days.map((d: { date: string; net_flow: string }) => [d.date, Number(d.net_flow)])).toEqual([
      ['2024-05-02', 0],
      ['2024-05-03', 100],
    ]);
  });

  it('a file without such rows has warning_count 0 and no row_warnings', async () => {
    const clean = [HEADER, 'ACC-7002,Clean Fund,2024-05-01,500.00,,,', 'ACC-7002,Clean Fund,2024-05-02,510.00,5.00,,'].join('\n');
    const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'clean.csv', bytes: clean } });
    expect(response.status).toBe(201);
    const file = await waitForFileStatus(server.url, user.key, user.orgId, response.body.data.id, ['processed', 'failed'], 120_000);
    expect(file).toMatchObject({ status: 'processed', warning_count: 0, row_warnings: [] });
  });
});
