/**
 * The upload size limit (UPLOAD_MAX_BYTES) of POST /api/storage/upload, on a service of its own
 * with a 1 KiB limit: 413, and nothing left behind (no row, no job, no blob, no temp file).
 *
 * Multipart file parts are spooled to temp files (fs-capacitor) in the OS temp directory, so this
 * file points TMPDIR at a private directory it can inspect.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTempTmpDir, type TempTmpDir } from '../helpers/temp-tmpdir.ts';
import type { TestServer } from '../helpers/server.ts';
import { startServerWithUsers } from '../helpers/server-with-users.ts';
import { getJson, type TestUser } from '../helpers/fixtures.ts';
import { partialMultipartUpload, restUpload, sha256, expectNoLeftovers, storageLeftovers, type StorageLeftovers } from '../helpers/upload.ts';

const LIMIT = 1024;
const HEADER = 'account_code,entity_name,date,market_value,cash_flow\n';

let server: TestServer, user: TestUser;
let spool: TempTmpDir;
beforeAll(async () => {
  spool = await useTempTmpDir('upload-limits-tmp-');
  ({ server, user } = await startServerWithUsers(
    { user: { scopes: ['read:pnl', 'write:upload'] } },
    { UPLOAD_MAX_BYTES: String(LIMIT), RATE_LIMIT_UPLOAD_PER_MINUTE: '1000' },
  ));
});
afterAll(async () => {
  await server?.close();
  await spool?.restore();
});

/** A valid pnl CSV of exactly `size` bytes (spaces in the last, empty cash_flow field pad it; values are trimmed). */
function pnlOfSize(size: number): string {
  const line = (day: number) => `ACC-9,Limit Fund,${new Date(Date.UTC(2025, 0, 1 + day)).toISOString().slice(0, 10)},100.00,`;
  let body = HEADER;
  let day = 0;
  while (body.length + 2 * (line(day).length + 1) < size) body += `${line(day++)}\n`;
  const last = line(day);
  return `${body}${last}${' '.repeat(size - body.length - last.length - 1)}\n`;
}

const leftovers = () => storageLeftovers(server, spool.dir);
const expectNothingLeft = (before: StorageLeftovers) => expectNoLeftovers(server, spool.dir, before);

it('accepts a file of exactly UPLOAD_MAX_BYTES', async () => {
  const body = pnlOfSize(LIMIT);
  expect(Buffer.byteLength(body)).toBe(LIMIT);
  const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'exact.csv', bytes: body } });
  expect(response.status).toBe(201);
  expect(response.body.data).toMatchObject({ size_bytes: LIMIT, sha256: sha256(body), file_type: 'pnl' });
});

it('413 for a 2 KB file, and nothing is stored: no row, no job, no blob, no temp file', async () => {
  const before = await leftovers();
  expect(before.spooled).toEqual([]);
  const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'big.csv', bytes: pnlOfSize(2048) } });
  expect(response.status).toBe(413);
  expect(response.body).toEqual({ error: `File exceeds the upload limit of ${LIMIT} bytes` });
  await expectNothingLeft(before);
});

it('413 for one byte over the limit', async () => {
  const before = await leftovers();
  const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'over.csv', bytes: pnlOfSize(LIMIT + 1) } });
  expect(response.status).toBe(413);
  await expectNothingLeft(before);
});

it('413 while a chunked body is still arriving: the limit is applied as bytes stream in, not at the end', async () => {
  const before = await leftovers();
  // no Content-Length; 256 KiB sent and the request never finished
  const result = await partialMultipartUpload(server.url, { headers: { 'x-api-key': user.key }, orgId: user.orgId, sendBytes: 256 * 1024 });
  expect(result.status).toBe(413);
  expect(result.body).toEqual({ error: `File exceeds the upload limit of ${LIMIT} bytes` });
  await expectNothingLeft(before);
});

it('413 from the declared Content-Length alone, before the body is read', async () => {
  const before = await leftovers();
  const result = await partialMultipartUpload(server.url, {
    headers: { 'x-api-key': user.key },
    orgId: user.orgId,
    declaredBytes: 50 * 1024 * 1024,
    sendBytes: 8 * 1024,
  });
  expect(result.status).toBe(413);
  expect(Object.keys(result.body)).toEqual(['error']);
  await expectNothingLeft(before);
});

it('the service is still healthy and serving uploads afterwards', async () => {
  expect((await getJson(`${server.url}/health`)).body).toEqual({ status: 'healthy' });
  const response = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'small.csv', bytes: pnlOfSize(200) } });
  expect(response.status).toBe(201);
});
