/**
 * POST /api/storage/upload and GET /api/storage/files as clients use them: a real service,
 * real HTTP, real multipart bodies, and the ingest worker running behind it.
 * (The size limit has its own service: storage-limits.test.ts.)
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID } from '../helpers/formats.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { filesUnder, partialMultipartUpload, restUpload, sample, sha256, waitForFileStatus } from '../helpers/upload.ts';

let server: TestServer;
let owner: TestUser;
/** same organization as owner, but no write:upload */
let reader: TestUser;
/** another organization */
let stranger: TestUser;
let pnl: Buffer;
let performance: Buffer;
let withErrors: Buffer;
let runId = 0;

beforeAll(async () => {
  // Uploads are charged to the `upload` budget (10 a minute by default); this file makes more.
  server = await startTestServer({ RATE_LIMIT_UPLOAD_PER_MINUTE: '1000' });
  runId = Date.now();
  owner = await createUser(server.services, { scopes: ['read:pnl', 'read:returns', 'write:upload'], org: `Storage Owner ${runId}` });
  reader = await createUser(server.services, { scopes: ['read:pnl', 'read:returns'], org: `Storage Owner ${runId}` });
  stranger = await createUser(server.services, { scopes: ['admin'], org: `Storage Stranger ${runId}` });
  [pnl, performance, withErrors] = await Promise.all([sample('pnl-sample.csv'), sample('performance-sample.csv'), sample('pnl-with-errors.csv')]);
});
afterAll(() => server?.close());

const blobDir = () => path.join(server.dataDir, 'blobs');
const auth = (user: TestUser) => ({ headers: { 'x-api-key': user.key } });

/** What a rejected upload must not leave behind: rows, jobs, blobs, temp files. */
async function storedState() {
  const prisma = server.services.prisma;
  return {
    files: await prisma.uploadedFile.count(),
    jobs: await prisma.job.count(),
    blobs: await filesUnder(blobDir()),
  };
}

async function expectRejected(fields: Parameters<typeof restUpload>[2], status: number, error: RegExp | string, user: TestUser = owner) {
  const before = await storedState();
  const response = await restUpload(server.url, user.key, fields);
  expect(response.status).toBe(status);
  expect(Object.keys(response.body)).toEqual(['error']);
  if (typeof error === 'string') expect(response.body.error).toBe(error);
  else expect(response.body.error).toMatch(error);
  expect(await storedState()).toEqual(before);
  return response;
}

describe('POST /api/storage/upload', () => {
  it('stores the file and answers 201 with its record; the blob holds exactly the bytes sent', async () => {
    const response = await restUpload(server.url, owner.key, { orgId: owner.orgId, fileType: 'pnl', file: { name: 'pnl-sample.csv', bytes: pnl } });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    const file = response.body.data;
    expect(file).toMatchObject({
      org_id: owner.orgId,
      uploader_id: owner.userId,
      file_name: 'pnl-sample.csv',
      file_type: 'pnl',
      size_bytes: pnl.length,
      sha256: sha256(pnl),
      status: 'uploaded',
    });
    expect(file.id).toMatch(UUID);
    expect(file.sha256).toBe('e123a340e1f1871e9b4b22a55a4b6dc35e3f748fa485e5d87410d72a9e8ccfff');

    const row = await server.services.prisma.uploadedFile.findUniqueOrThrow({ where: { id: file.id } });
    expect(row.blobKey).toBe(`${owner.orgId}/${file.id}`);
    expect(await fs.readFile(path.join(blobDir(), owner.orgId, file.id))).toEqual(pnl);
    expect(await server.services.prisma.job.count({ where: { queue: 'ingest', payload: { equals: { fileId: file.id } } } })).toBe(1);
  });

  it('detects file_type from the header when it is omitted', async () => {
    const perf = await restUpload(server.url, owner.key, { orgId: owner.orgId, file: { name: 'perf.csv', bytes: performance } });
    expect(perf.status).toBe(201);
    expect(perf.body.data.file_type).toBe('performance');
    const p = await restUpload(server.url, owner.key, { orgId: owner.orgId, file: { name: 'p.csv', bytes: pnl } });
    expect(p.status).toBe(201);
    expect(p.body.data.file_type).toBe('pnl');
  });

  it('400 naming file_type when file_type contradicts the header; nothing stored', async () => {
    await expectRejected(
      { orgId: owner.orgId, fileType: 'pnl', file: { name: 'perf.csv', bytes: performance } },
      400,
      /^Invalid file_type: .*performance header/,
    );
    await expectRejected({ orgId: owner.orgId, fileType: 'performance', file: { name: 'p.csv', bytes: pnl } }, 400, /^Invalid file_type: .*pnl header/);
  });

  it('400 naming the field for a missing file, a missing or malformed org_id, a bad file_type', async () => {
    await expectRejected({ orgId: owner.orgId, fileType: 'pnl' }, 400, 'Missing required parameter: file');
    await expectRejected({ fileType: 'pnl', file: { name: 'p.csv', bytes: pnl } }, 400, 'Missing required parameter: org_id');
    await expectRejected({ orgId: 'not-a-uuid', file: { name: 'p.csv', bytes: pnl } }, 400, /^Invalid org_id: .*UUID/);
    await expectRejected({ orgId: `${owner.orgId}0`, file: { name: 'p.csv', bytes: pnl } }, 400, /^Invalid org_id/);
    await expectRejected(
      { orgId: owner.orgId, fileType: 'xlsx', file: { name: 'p.csv', bytes: pnl } },
      400,
      /^Invalid file_type: must be one of pnl, performance/,
    );
    await expectRejected({ orgId: owner.orgId, extra: { folder: 'x' }, file: { name: 'p.csv', bytes: pnl } }, 400, /folder/);
  });

  it('403 Insufficient permissions for an organization the caller is not a member of; no row, no blob', async () => {
    await expectRejected({ orgId: stranger.orgId, file: { name: 'p.csv', bytes: pnl } }, 403, 'Insufficient permissions');
    expect(await server.services.prisma.uploadedFile.count({ where: { orgId: stranger.orgId } })).toBe(0);
    expect(await filesUnder(path.join(blobDir(), stranger.orgId))).toEqual([]);
  });

  it('415 for PDF, ZIP and PNG bytes named .csv and sent as text/csv (the bytes decide, not the name or type)', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n%'), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3]), Buffer.from('\n1 0 obj\n<< /Type /Catalog >>\nendobj\n')]);
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]), Buffer.alloc(20), Buffer.from('xl/workbook.xml')]);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await expectRejected({ orgId: owner.orgId, fileType: 'pnl', file: { name: 'report.csv', bytes: pdf, contentType: 'text/csv' } }, 415, /PDF/);
    await expectRejected({ orgId: owner.orgId, file: { name: 'report.csv', bytes: zip, contentType: 'text/csv' } }, 415, /ZIP/);
    await expectRejected({ orgId: owner.orgId, file: { name: 'report.csv', bytes: png, contentType: 'text/csv' } }, 415, /PNG/);
    // text, but not a pnl or performance header
    await expectRejected({ orgId: owner.orgId, file: { name: 'notes.csv', bytes: 'name,city\nAda,London\n' } }, 415, /neither a pnl nor a performance header/);
  });

  it("stores the client's file name sanitised and never derives the blob path from it", async () => {
    for (const [name, stored] of [
      ['../../etc/passwd', 'passwd'],
      ['..\\..\\Windows\\win.ini', 'win.ini'],
      ['..', 'upload.csv'],
    ] as const) {
      const response = await restUpload(server.url, owner.key, { orgId: owner.orgId, file: { name, bytes: pnl } });
      expect(response.status).toBe(201);
      const file = response.body.data;
      expect(file.file_name).toBe(stored);
      const row = await server.services.prisma.uploadedFile.findUniqueOrThrow({ where: { id: file.id } });
      expect(row.blobKey).toBe(`${owner.orgId}/${file.id}`);
      expect(await fs.readFile(path.join(blobDir(), row.blobKey))).toEqual(pnl);
    }
    const everything = await filesUnder(server.dataDir);
    expect(everything.filter((p) => /passwd|win\.ini|upload\.csv/.test(p))).toEqual([]);
    await expect(fs.stat(path.join(server.dataDir, 'etc'))).rejects.toThrow();
    // every blob is <org uuid>/<file uuid>
    for (const blob of await filesUnder(blobDir())) expect(blob).toMatch(new RegExp(`^${UUID.source.slice(1, -1)}/${UUID.source.slice(1, -1)}$`));
  });

  it('403 for a key without write:upload, answered before the body is read', async () => {
    const before = await storedState();
    // declares 200 MB but sends only the start; a server that read the body first would never answer
    const result = await partialMultipartUpload(server.url, {
      headers: { 'x-api-key': reader.key },
      orgId: owner.orgId,
      declaredBytes: 200 * 1024 * 1024,
      sendBytes: 256 * 1024,
      timeoutMs: 10_000,
    });
    expect(result.status).toBe(403);
    expect(result.body).toEqual({ error: 'Insufficient permissions' });
    expect(await storedState()).toEqual(before);
  });

  it('401 without credentials, also before the body is read', async () => {
    const result = await partialMultipartUpload(server.url, { headers: {}, orgId: owner.orgId, declaredBytes: 200 * 1024 * 1024, sendBytes: 256 * 1024 });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'Invalid or expired API key' });
  });

  it('415 for a JSON body; 400 for a multipart type without a boundary', async () => {
    const json = await getJson(`${server.url}/api/storage/upload`, {
      method: 'POST',
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: owner.orgId, file_type: 'pnl', file: pnl.toString('utf8') }),
    });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ error: 'Content-Type must be multipart/form-data' });

    const noBoundary = await getJson(`${server.url}/api/storage/upload`, {
      method: 'POST',
      headers: { 'x-api-key': owner.key, 'content-type': 'multipart/form-data' },
      body: 'garbage',
    });
    expect(noBoundary.status).toBe(400);
    expect(Object.keys(noBoundary.body)).toEqual(['error']);
  });

  it('405 for other methods on the upload path', async () => {
    const response = await getJson(`${server.url}/api/storage/upload`, auth(owner));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('ingest through the worker', () => {
  let user: TestUser;
  const harbor = 'Bayview Growth Fund LP';
  const northwind = 'Northwind Family Trust';

  beforeAll(async () => {
    user = await createUser(server.services, { scopes: ['read:pnl', 'read:returns', 'write:upload'], org: `Ingest ${runId}` });
  });

  async function upload(bytes: Buffer | string, name: string) {
    const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name, bytes } });
    expect(response.status).toBe(201);
    return response.body.data as { id: string };
  }

  async function cashFlows(entity: string) {
    const { status, body } = await getJson(`${server.url}/api/returns/cash-transactions?entity_name=${encodeURIComponent(entity)}&limit=1000`, auth(user));
    expect(status).toBe(200);
    expect(body.pagination.has_more).toBe(false);
    return (body.data as { date: string; amount: string; timing: string; description: string | null }[])
      .map((t) => ({ date: t.date, amount: Number(t.amount), timing: t.timing, description: t.description }))
      .sort((a, b) => a.date.localeCompare(b.date) || a.amount - b.amount);
  }

  async function returnsSnapshot() {
    const dietz = await getJson(
      `${server.url}/api/returns/dietz-daily?entity_name=${encodeURIComponent(harbor)}&start_date=2025-03-03&end_date=2025-03-21`,
      auth(user),
    );
    const comparison = await getJson(`${server.url}/api/returns/comparison?limit=500`, auth(user));
    expect(dietz.status).toBe(200);
    expect(comparison.status).toBe(200);
    return { dietz: dietz.body, comparison: comparison.body, harbor: await cashFlows(harbor), northwind: await cashFlows(northwind) };
  }

  const HARBOR_FLOWS = [
    { date: '2025-03-05', amount: 250000, timing: 'start_of_day', description: 'Quarterly subscription' },
    { date: '2025-03-12', amount: -125000, timing: 'end_of_day', description: 'Redemption, partner B' },
    // no flow_timing: the default convention, inflows at the start of the day
    { date: '2025-03-18', amount: 50000, timing: 'start_of_day', description: 'Capital call' },
  ];
  const NORTHWIND_FLOWS = [
    { date: '2025-03-07', amount: -40000, timing: 'end_of_day', description: 'Distribution to beneficiary' },
    { date: '2025-03-14', amount: -2500, timing: 'end_of_day', description: 'Transfer to operating account' },
    { date: '2025-03-14', amount: 100000, timing: 'end_of_day', description: 'Wire received after close' },
    { date: '2025-03-19', amount: -15000, timing: 'start_of_day', description: 'Tax payment' },
  ];

  it('an upload reaches `processed` and its data is served', async () => {
    const { id } = await upload(pnl, 'pnl-sample.csv');
    const file = await waitForFileStatus(server.url, user.key, user.orgId, id, ['processed', 'failed']);
    expect(file).toMatchObject({ status: 'processed', row_count: 33, error_count: 0, row_errors: [] });
    expect(file.processed_at).not.toBeNull();
    expect(await cashFlows(harbor)).toEqual(HARBOR_FLOWS);
    expect(await cashFlows(northwind)).toEqual(NORTHWIND_FLOWS);
    const dietz = await getJson(
      `${server.url}/api/returns/dietz-daily?entity_name=${encodeURIComponent(harbor)}&start_date=2025-03-03&end_date=2025-03-21`,
      auth(user),
    );
    expect(dietz.status).toBe(200);
    expect(dietz.body.data.days.length).toBe(14); // 15 valuation days -> 14 daily sub-periods
  });

  it('samples/pnl-with-errors.csv is `failed` with its row errors by line, and nothing of it is loaded', async () => {
    const before = await returnsSnapshot();
    const { id } = await upload(withErrors, 'pnl-with-errors.csv');
    const file = await waitForFileStatus(server.url, user.key, user.orgId, id, ['processed', 'failed']);
    expect(file.status).toBe('failed');
    expect(file.error_count).toBe(7);
    expect(file.row_count).toBe(11);
    expect(file.status_detail).toMatch(/nothing was loaded/);
    expect(file.row_errors.map((e: { line: number; column: string | null }) => [e.line, e.column])).toEqual([
      [3, 'date'], // 2025-02-30
      [4, 'market_value'], // "12,685,535.86"
      [7, 'market_value'], // a second valuation for 2025-03-06 (the record on lines 5-6 spans two lines)
      [8, 'cash_flow'], // $5000
      [11, 'flow_timing'], // next_day
      [12, 'entity_name'], // another name for ACC-2002
      [13, 'market_value'], // five decimal places
    ]);
    for (const error of file.row_errors) expect(typeof error.message).toBe('string');
    expect(await returnsSnapshot()).toEqual(before);
  });

  it('re-uploading the same file, then a corrected one, never duplicates cash transactions', async () => {
    const again = await upload(pnl, 'pnl-sample.csv');
    expect((await waitForFileStatus(server.url, user.key, user.orgId, again.id, ['processed', 'failed'])).status).toBe('processed');
    expect(await cashFlows(harbor)).toEqual(HARBOR_FLOWS);
    expect(await cashFlows(northwind)).toEqual(NORTHWIND_FLOWS);

    // The corrected file: the subscription was 300,000, and the 2,500 transfer never happened.
    const corrected = pnl
      .toString('utf8')
      .replace('12685535.86,250000.00,start_of_day', '12735535.86,300000.00,start_of_day')
      .replace(/^ACC-2002,Northwind Family Trust,2025-03-14,,-2500\.00,.*\n/m, '');
    expect(corrected).not.toBe(pnl.toString('utf8'));
    const fixed = await upload(corrected, 'pnl-sample-corrected.csv');
    expect((await waitForFileStatus(server.url, user.key, user.orgId, fixed.id, ['processed', 'failed'])).status).toBe('processed');
    expect(await cashFlows(harbor)).toEqual([{ ...HARBOR_FLOWS[0], amount: 300000 }, HARBOR_FLOWS[1], HARBOR_FLOWS[2]]);
    expect(await cashFlows(northwind)).toEqual(NORTHWIND_FLOWS.filter((f) => f.amount !== -2500));

    // and once more: the corrected file again changes nothing
    const twice = await upload(corrected, 'pnl-sample-corrected.csv');
    expect((await waitForFileStatus(server.url, user.key, user.orgId, twice.id, ['processed', 'failed'])).status).toBe('processed');
    expect(await cashFlows(harbor)).toHaveLength(3);
    expect(await cashFlows(northwind)).toHaveLength(3);
  });
});

describe('GET /api/storage/files', () => {
  let lister: TestUser;
  let ids: string[] = [];

  beforeAll(async () => {
    lister = await createUser(server.services, { scopes: ['read:pnl', 'write:upload'], org: `Listing ${runId}` });
    // five uploads, the second one invalid; newest first in the listing
    const bodies = [pnl, withErrors, performance, pnl, performance];
    ids = [];
    for (const [index, bytes] of bodies.entries()) {
      const response = await restUpload(server.url, lister.key, { orgId: lister.orgId, file: { name: `file-${index}.csv`, bytes } });
      expect(response.status).toBe(201);
      ids.push(response.body.data.id);
    }
    for (const id of ids) await waitForFileStatus(server.url, lister.key, lister.orgId, id, ['processed', 'failed']);
  });

  const list = (query: string, user: TestUser = lister) => getJson(`${server.url}/api/storage/files?${query}`, auth(user));

  it("lists the organization's files newest first with pagination info", async () => {
    const { status, body } = await list(`org_id=${lister.orgId}`);
    expect(status).toBe(200);
    expect(body.data.map((f: { id: string }) => f.id)).toEqual([...ids].reverse());
    expect(body.pagination).toEqual({ has_more: false, next_cursor: null });
    for (const file of body.data) expect(file.org_id).toBe(lister.orgId);
  });

  it('filters by status', async () => {
    const failed = await list(`org_id=${lister.orgId}&status=failed`);
    expect(failed.status).toBe(200);
    expect(failed.body.data.map((f: { id: string }) => f.id)).toEqual([ids[1]]);
    expect(failed.body.data[0].row_errors.length).toBeGreaterThan(0);

    const processed = await list(`org_id=${lister.orgId}&status=processed`);
    expect(processed.body.data.map((f: { id: string }) => f.id)).toEqual([ids[4], ids[3], ids[2], ids[0]]);
    expect(processed.body.data.every((f: { status: string }) => f.status === 'processed')).toBe(true);

    const uploaded = await list(`org_id=${lister.orgId}&status=uploaded`);
    expect(uploaded.body.data).toEqual([]);
  });

  it('400 for a bad status, org_id or limit, naming the parameter', async () => {
    for (const [query, pattern] of [
      [`org_id=${lister.orgId}&status=done`, /^Invalid status: must be one of uploaded, processing, processed, failed/],
      [`org_id=nope`, /^Invalid org_id/],
      [``, /^Missing required parameter: org_id$/],
      [`org_id=${lister.orgId}&limit=0`, /^Invalid limit/],
      [`org_id=${lister.orgId}&limit=501`, /^Invalid limit/],
      [`org_id=${lister.orgId}&limit=ten`, /^Invalid limit/],
      [`org_id=${lister.orgId}&cursor=not-a-cursor`, /^Invalid cursor/],
    ] as const) {
      const { status, body } = await list(query);
      expect({ query, status }).toEqual({ query, status: 400 });
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatch(pattern);
    }
  });

  it("org isolation: 403 for an organization the caller is not in; never another organization's files", async () => {
    const theirs = await list(`org_id=${owner.orgId}`);
    expect(theirs.status).toBe(403);
    expect(theirs.body).toEqual({ error: 'Insufficient permissions' });
    const mine = await list(`org_id=${owner.orgId}`, owner);
    expect(mine.status).toBe(200);
    expect(mine.body.data.some((f: { id: string }) => ids.includes(f.id))).toBe(false);
    // an admin key is not a membership
    expect((await list(`org_id=${lister.orgId}`, stranger)).status).toBe(403);
  });

  it('401 without credentials; 403 for a key without read:pnl', async () => {
    const anonymous = await getJson(`${server.url}/api/storage/files?org_id=${lister.orgId}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Invalid or expired API key' });
    const uploadOnly = await createUser(server.services, { scopes: ['write:upload'], org: `Listing ${runId}` });
    const refused = await list(`org_id=${lister.orgId}`, uploadOnly);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Insufficient permissions' });
  });

  it('pages with limit and cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const { status, body }: { status: number; body: any } = await list(
        `org_id=${lister.orgId}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(status).toBe(200);
      pages.push(body.data.length);
      seen.push(...body.data.map((f: { id: string }) => f.id));
      expect(body.pagination.has_more).toBe(body.pagination.next_cursor !== null);
      cursor = body.pagination.next_cursor;
    } while (cursor && pages.length < 10);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());

    // with a status filter too
    const first = await list(`org_id=${lister.orgId}&status=processed&limit=3`);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.pagination.has_more).toBe(true);
    const rest = await list(`org_id=${lister.orgId}&status=processed&limit=3&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`);
    expect(rest.body.data.map((f: { id: string }) => f.id)).toEqual([ids[0]]);
    expect(rest.body.pagination).toEqual({ has_more: false, next_cursor: null });
  });
});
