/**
 * The upload as a GraphQL mutation through the GraphQL multipart request spec
 * (https://github.com/jaydenseric/graphql-multipart-request-spec): `operations`, `map` and the
 * file part built by hand, sent to /graphql over real HTTP. Same code path and the same `upload`
 * rate budget as POST /api/storage/upload.
 *
 * Conventions of /graphql: a refusal of the request itself keeps its HTTP status (413 past the
 * size limit, 429 past the rate budget); other errors are GraphQL errors in a 200 response with
 * the code in `extensions.code` (FORBIDDEN, BAD_USER_INPUT, ...), as for every other operation.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTempTmpDir, type TempTmpDir } from '../helpers/temp-tmpdir.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import {
  graphqlUpload,
  graphqlUploadForm,
  restUpload,
  sha256,
  waitForFileStatus,
  expectNoLeftovers,
  storageLeftovers,
  type StorageLeftovers,
} from '../helpers/upload.ts';

const LIMIT = 1024;

const SMALL_PNL =
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description\n' +
  'GQL-1,GraphQL Fund,2025-03-03,1000000.00,,,\n' +
  'GQL-1,GraphQL Fund,2025-03-04,1010000.00,25000.00,start_of_day,Subscription\n' +
  'GQL-1,GraphQL Fund,2025-03-05,1020000.00,,,\n';
const SMALL_PERFORMANCE = 'account_code,entity_name,date,return,return_unit\nGQL-1,GraphQL Fund,2025-03-04,0.25,percent\n';
const TWO_KB = `account_code,entity_name,date,market_value,cash_flow\n${'GQL-2,Big Fund,2025-03-03,100.00,\n'.repeat(60)}`;

let server: TestServer;
let spool: TempTmpDir;
beforeAll(async () => {
  spool = await useTempTmpDir('graphql-upload-tmp-');
  server = await startTestServer({ UPLOAD_MAX_BYTES: String(LIMIT), RATE_LIMIT_UPLOAD_PER_MINUTE: '2' });
});
afterAll(async () => {
  await server?.close();
  await spool?.restore();
});

/** Every test gets its own key, so each starts with a full upload budget (2 a minute here). */
const newUser = (scopes = ['read:pnl', 'read:returns', 'write:upload'], org?: string) => createUser(server.services, { scopes, org });

const leftovers = () => storageLeftovers(server, spool.dir);
const expectNothingLeft = (before: StorageLeftovers) => expectNoLeftovers(server, spool.dir, before);

describe('uploadFile through the GraphQL multipart request spec', () => {
  it('400 BAD_USER_INPUT for a multipart body the reader cannot read (no boundary), signed in or not; its upload point given back', async () => {
    const user = await newUser();
    const callers: Record<string, string>[] = [{ 'x-api-key': user.key }, {}];
    for (const headers of callers) {
      const response = await getJson(`${server.url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'multipart/form-data' }, body: 'x' });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const ok = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: 'small.csv', bytes: SMALL_PNL });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.headers.get('ratelimit')).toMatch(/^"upload";r=1;/);
  });

  it('stores the file and returns its record; the worker ingests it like a REST upload', async () => {
    const user = await newUser();
    const response = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: 'small.csv', bytes: SMALL_PNL });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const file = response.body.data.uploadFile;
    expect(file).toMatchObject({
      orgId: user.orgId,
      fileName: 'small.csv',
      fileType: 'pnl',
      sizeBytes: Buffer.byteLength(SMALL_PNL),
      sha256: sha256(SMALL_PNL),
      status: 'uploaded',
    });
    expect(await fs.readFile(path.join(server.dataDir, 'blobs', user.orgId, file.id), 'utf8')).toBe(SMALL_PNL);

    const listed = await waitForFileStatus(server.url, user.key, user.orgId, file.id, ['processed', 'failed']);
    expect(listed).toMatchObject({ status: 'processed', row_count: 3, uploader_id: user.userId });
    const flows = await getJson(`${server.url}/api/returns/cash-transactions?entity_name=GraphQL%20Fund`, { headers: { 'x-api-key': user.key } });
    expect(flows.body.data.map((t: { amount: string; timing: string }) => [Number(t.amount), t.timing])).toEqual([[25000, 'start_of_day']]);
  });

  it('takes an explicit fileType, and refuses one that contradicts the header (BAD_USER_INPUT on fileType)', async () => {
    const user = await newUser();
    const ok = await graphqlUpload(server.url, user.key, { orgId: user.orgId, fileType: 'performance' }, { name: 'perf.csv', bytes: SMALL_PERFORMANCE });
    expect(ok.body.data.uploadFile.fileType).toBe('performance');

    const before = await leftovers();
    const wrong = await graphqlUpload(server.url, user.key, { orgId: user.orgId, fileType: 'pnl' }, { name: 'perf.csv', bytes: SMALL_PERFORMANCE });
    expect(wrong.status).toBe(200);
    expect(wrong.body.data).toBeNull();
    expect(wrong.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'fileType' });
    await expectNothingLeft(before);
  });

  it('FORBIDDEN (Insufficient permissions) for an organization the caller is not a member of; nothing stored', async () => {
    const user = await newUser();
    const other = await newUser(['admin']);
    const before = await leftovers();
    const response = await graphqlUpload(server.url, user.key, { orgId: other.orgId }, { name: 'small.csv', bytes: SMALL_PNL });
    expect(response.status).toBe(200);
    expect(response.body.data).toBeNull();
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({ message: 'Insufficient permissions', path: ['uploadFile'], extensions: { code: 'FORBIDDEN' } });
    await expectNothingLeft(before);
  });

  it('FORBIDDEN for a key without write:upload; UNAUTHENTICATED without a key', async () => {
    const reader = await newUser(['read:pnl', 'read:returns']);
    const refused = await graphqlUpload(server.url, reader.key, { orgId: reader.orgId }, { name: 'small.csv', bytes: SMALL_PNL });
    expect(refused.body.errors[0]).toMatchObject({ message: 'Insufficient permissions', extensions: { code: 'FORBIDDEN' } });

    const anonymous = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      body: graphqlUploadForm({ orgId: reader.orgId }, { name: 'small.csv', bytes: SMALL_PNL }),
    });
    expect(anonymous.body.errors[0]).toMatchObject({ message: 'Invalid or expired API key', extensions: { code: 'UNAUTHENTICATED' } });
    expect(await server.services.prisma.uploadedFile.count({ where: { orgId: reader.orgId } })).toBe(0);
  });

  it('UNSUPPORTED_MEDIA_TYPE for bytes that are not CSV', async () => {
    const user = await newUser();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const response = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: 'image.csv', bytes: png });
    expect(response.body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(response.body.errors[0].message).toMatch(/PNG/);
  });

  it('413 PAYLOAD_TOO_LARGE over UPLOAD_MAX_BYTES; no row, no blob, no temp file', async () => {
    const user = await newUser();
    expect(Buffer.byteLength(TWO_KB)).toBeGreaterThan(2000);
    const before = await leftovers();
    const response = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: 'big.csv', bytes: TWO_KB });
    expect(response.status).toBe(413);
    expect(response.body.data).toBeNull();
    expect(response.body.errors[0]).toMatchObject({ message: `File exceeds the upload limit of ${LIMIT} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } });
    await expectNothingLeft(before);
  });

  it('shares the `upload` rate budget with REST: two REST uploads, then the GraphQL one is RATE_LIMITED', async () => {
    const user = await newUser();
    for (let i = 0; i < 2; i++) {
      const rest = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: `rest-${i}.csv`, bytes: SMALL_PNL } });
      expect(rest.status).toBe(201);
    }
    const before = await leftovers();
    const response = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: 'third.csv', bytes: SMALL_PNL });
    expect(response.status).toBe(429);
    expect(response.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('ratelimit-policy')).toContain('"upload";q=2;w=60');
    await expectNothingLeft(before);
  });

  it('and the other way round: two GraphQL uploads, then REST answers 429', async () => {
    const user = await newUser();
    for (let i = 0; i < 2; i++) {
      const gql = await graphqlUpload(server.url, user.key, { orgId: user.orgId }, { name: `gql-${i}.csv`, bytes: SMALL_PNL });
      expect(gql.body.data?.uploadFile?.status).toBe('uploaded');
    }
    const rest = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'rest.csv', bytes: SMALL_PNL } });
    expect(rest.status).toBe(429);
    expect(Object.keys(rest.body)).toEqual(['error']);
    expect(rest.body.error).toMatch(/Rate limit exceeded/);
  });
});
