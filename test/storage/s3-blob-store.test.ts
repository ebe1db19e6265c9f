/**
 * S3BlobStore against a real S3-compatible server (s3rver in a child process, test/helpers/s3-server.ts):
 * the LocalBlobStore contract (test/storage/blob-store.test.ts) over S3 multipart uploads, then the
 * service itself with BLOB_STORE=s3: an upload through POST /api/storage/upload is ingested from
 * the bucket, and an unreachable object store is a prompt 503, never a hang.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import {
  CreateMultipartUploadCommand,
  AbortMultipartUploadCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { S3BlobStore, OBJECT_STORE_UNAVAILABLE } from '../../src/storage/s3-blob-store.ts';
import { startS3Server, useS3rverCredentials, type S3TestServer } from '../helpers/s3-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { filesUnder, restUpload, sample, sha256, waitForFileStatus } from '../helpers/upload.ts';
import { chunks, readAll } from '../helpers/byte-streams.ts';

const MiB = 1024 * 1024;
const PREFIX = 'blobs/';

let s3: S3TestServer;
let store: S3BlobStore;
let client: S3Client;

beforeAll(async () => {
  useS3rverCredentials();
  s3 = await startS3Server();
  store = new S3BlobStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, prefix: 'blobs', partSizeBytes: 5 * MiB });
  client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true });
});
afterAll(async () => {
  store?.close();
  client?.destroy();
  await s3?.stop();
});

async function objectKeys(): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
}

async function multipartUploads(): Promise<string[]> {
  const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
  return (listed.Uploads ?? []).map((upload) => upload.Key ?? '');
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('S3BlobStore', () => {
  it('stores a stream and reports its size and SHA-256; get/exists/delete; keys under the prefix', async () => {
    const body = Buffer.from('account_code,entity_name\nA,B\n');
    const result = await store.put('org-1/file-1', Readable.from([body]), { maxBytes: 1000 });
    expect(result).toEqual({ sizeBytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    expect(await objectKeys()).toEqual(['blobs/org-1/file-1']);
    expect(await store.exists('org-1/file-1')).toBe(true);
    expect(await readAll(store.get('org-1/file-1'))).toEqual(body);
    await store.delete('org-1/file-1');
    expect(await store.exists('org-1/file-1')).toBe(false);
    await store.delete('org-1/file-1'); // deleting a missing blob is fine
    expect(await objectKeys()).toEqual([]);
  });

  it('a 12 MB file goes up in 5 MiB parts and comes back byte for byte; no multipart upload is left', async () => {
    const total = 12 * MiB + 17;
    const hash = createHash('sha256');
    for await (const c of chunks(total, 65536)) hash.update(c);
    const expected = hash.digest('hex');
    const result = await store.put('org-1/big', chunks(total, 65536), { maxBytes: total }); // exactly at the limit
    expect(result).toEqual({ sizeBytes: total, sha256: expected });
    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `${PREFIX}org-1/big` }));
    expect(head.ContentLength).toBe(total);
    const back = await readAll(store.get('org-1/big'));
    expect(back.length).toBe(total);
    expect(createHash('sha256').update(back).digest('hex')).toBe(expected);
    expect(await multipartUploads()).toEqual([]);
    await store.delete('org-1/big');
  });

  it('over the limit after parts were uploaded: PAYLOAD_TOO_LARGE, no object, the multipart upload aborted, source not read to the end', async () => {
    let produced = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        produced += 65536;
        yield Buffer.alloc(65536, 1);
      }
    }
    const maxBytes = 7 * MiB; // one 5 MiB part is up before the limit is hit
    const error = await store.put('org-1/too-big', endless(), { maxBytes }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    expect((error as AppError).message).toBe(`File exceeds the upload limit of ${maxBytes} bytes`);
    expect(await store.exists('org-1/too-big')).toBe(false);
    expect(await objectKeys()).toEqual([]);
    expect(await multipartUploads()).toEqual([]);
    expect(produced).toBeLessThan(maxBytes + MiB);
  });

  it('over the limit within the first part: PAYLOAD_TOO_LARGE and nothing stored', async () => {
    const error = await store.put('org-1/small-limit', chunks(300_000, 65536), { maxBytes: 200_000 }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe('PAYLOAD_TOO_LARGE');
    expect(await objectKeys()).toEqual([]);
    expect(await multipartUploads()).toEqual([]);
  });

  it('a source error (client went away mid-file) aborts the multipart upload and passes the error on', async () => {
    async function* broken(): AsyncGenerator<Buffer> {
      yield* chunks(6 * MiB, 65536); // past the first part
      throw new Error('client went away');
    }
    await expect(store.put('org-1/broken', broken(), { maxBytes: 1e9 })).rejects.toThrow('client went away');
    expect(await store.exists('org-1/broken')).toBe(false);
    expect(await objectKeys()).toEqual([]);
    expect(await multipartUploads()).toEqual([]);
  });

  it('get of a missing blob errors the stream with ENOENT; unsafe keys are refused', async () => {
    const error = await readAll(store.get('org-1/never-stored')).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(() => store.get('../../etc/passwd')).toThrow(/Invalid blob key/);
    await expect(store.put('a//b', Readable.from([Buffer.from('x')]), { maxBytes: 10 })).rejects.toThrow(/Invalid blob key/);
    await expect(store.exists('/abs')).rejects.toThrow(/Invalid blob key/);
  });

  it('reports the bucket and endpoint (no free space); sweeps stale multipart uploads under its prefix only', async () => {
    const stats = await store.stats();
    expect(stats).toEqual({ path: `s3://${s3.bucket}/${PREFIX}`, bucket: s3.bucket, endpoint: s3.endpoint });
    expect('freeBytes' in stats).toBe(false);

    const ours = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: `${PREFIX}org-1/crashed` }));
    const foreign = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: 'elsewhere/crashed' }));
    expect((await multipartUploads()).sort()).toEqual(['blobs/org-1/crashed', 'elsewhere/crashed']);
    expect(await store.sweepIncoming(3_600_000)).toBe(0); // too recent
    expect(await store.sweepIncoming(0)).toBe(1);
    expect(await multipartUploads()).toEqual(['elsewhere/crashed']);
    expect(ours.UploadId).toBeTruthy();
    await client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: 'elsewhere/crashed', UploadId: foreign.UploadId }));
    expect(await multipartUploads()).toEqual([]);
  });

  // Buffering the file would hold all 96 MB; streaming holds a few 5 MiB parts. Live memory (heap
  // and buffers after a collection) is sampled, so garbage a loaded machine has not collected yet
  // does not count. The 64 MB RSS goal of the issue is bench/upload.ts --s3's (a 500 MB file).
  it('streams a large blob with bounded memory (96 MB; live memory growth under 48 MB)', async () => {
    const total = 96 * MiB;
    const gc = globalThis.gc;
    expect(gc, 'the suite runs with --expose-gc (vitest.config.ts)').toBeTypeOf('function');
    const live = () => {
      gc!();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.external;
    };
    const before = live();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, live())), 100);
    try {
      const result = await store.put('org-1/huge', chunks(total, MiB), { maxBytes: 1024 * MiB });
      expect(result.sizeBytes).toBe(total);
      let read = 0;
      for await (const chunk of store.get('org-1/huge') as AsyncIterable<Buffer>) read += chunk.length;
      expect(read).toBe(total);
    } finally {
      clearInterval(timer);
      await store.delete('org-1/huge');
    }
    expect(peak - before).toBeLessThan(48 * MiB);
  }, 180_000);

  it('an unreachable object store is a prompt SERVICE_UNAVAILABLE for put, exists and get: each gives up after the configured attempts', async () => {
    const warnings: { operation?: string; attempts?: number }[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as { operation?: string; attempts?: number }) });
    const down = new S3BlobStore({ bucket: 'b', region: 'us-east-1', endpoint: `http://127.0.0.1:${await closedPort()}`, forcePathStyle: true, log });
    try {
      const error = await down.put('org-1/x', Readable.from([Buffer.from('a,b\n')]), { maxBytes: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('SERVICE_UNAVAILABLE');
      expect((error as AppError).message).toBe(OBJECT_STORE_UNAVAILABLE);
      await expect(down.exists('org-1/x')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      await expect(readAll(down.get('org-1/x'))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      await expect(down.stats()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      // Prompt by count, not by the clock (a loaded machine stretches any time): no operation
      // retried past the SDK's three attempts before it answered.
      expect(warnings.length).toBeGreaterThanOrEqual(4);
      expect(warnings.filter((warning) => warning.attempts !== undefined).length).toBeGreaterThan(0);
      for (const warning of warnings) expect(warning.attempts ?? 1, JSON.stringify(warning)).toBeLessThanOrEqual(3);
    } finally {
      down.close();
    }
  }, 120_000);
});

describe('configuration', () => {
  it('BLOB_STORE=s3 needs S3_BUCKET; the defaults', () => {
    expect(loadConfig({}).blobStore).toEqual({ kind: 'local' });
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(ConfigError);
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET: required when BLOB_STORE=s3/);
    expect(() => loadConfig({ BLOB_STORE: 'ftp' })).toThrow(/BLOB_STORE/);
    expect(() => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'x' })).toThrow(/S3_BUCKET: expected a bucket name/);
    expect(() => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'bkt', S3_ENDPOINT: 'ftp://x' })).toThrow(/S3_ENDPOINT/);
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'uploads' }).blobStore).toEqual({
      kind: 's3',
      bucket: 'uploads',
      endpoint: undefined,
      region: 'us-east-1',
      forcePathStyle: false,
      prefix: '',
    });
    expect(
      loadConfig({
        BLOB_STORE: 's3',
        S3_BUCKET: 'uploads',
        S3_FORCE_PATH_STYLE: 'true',
        S3_PREFIX: 'gw/',
        S3_REGION: 'eu-west-1',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
      }).blobStore,
    ).toMatchObject({
      forcePathStyle: true,
      prefix: 'gw/',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
    });
  });
});

describe('the service with BLOB_STORE=s3', () => {
  let server: TestServer;
  let owner: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ ...s3.env, S3_PREFIX: 'fleet' });
    owner = await createUser(server.services, { scopes: ['read:pnl', 'write:upload'] });
  });
  afterAll(() => server?.close());

  it('an upload through POST /api/storage/upload lands in the bucket and is ingested from it', async () => {
    expect(server.services.blobs.kind).toBe('s3');
    const pnl = await sample('pnl-sample.csv');
    const response = await restUpload(server.url, owner.key, { orgId: owner.orgId, fileType: 'pnl', file: { name: 'pnl-sample.csv', bytes: pnl } });
    expect(response.status).toBe(201);
    const fileId = response.body.data.id as string;
    expect(response.body.data).toMatchObject({ size_bytes: pnl.length, sha256: sha256(pnl) });

    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: `fleet/${owner.orgId}/${fileId}` }));
    expect(head.ContentLength).toBe(pnl.length);
    expect(await filesUnder(`${server.dataDir}/blobs`)).toEqual([]); // nothing on local disk

    const processed = await waitForFileStatus(server.url, owner.key, owner.orgId, fileId, ['processed', 'failed']);
    expect(processed.status).toBe('processed');
    expect(processed.row_count).toBeGreaterThan(0);
  });
});

describe('the service with an unreachable object store', () => {
  let server: TestServer;
  let owner: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}` });
    owner = await createUser(server.services, { scopes: ['read:pnl', 'write:upload'] });
  });
  afterAll(() => server?.close());

  it('an upload is answered 503 with the documented error body, promptly, and nothing is recorded', async () => {
    const pnl = await sample('pnl-sample.csv');
    const started = Date.now();
    const response = await restUpload(server.url, owner.key, { orgId: owner.orgId, fileType: 'pnl', file: { name: 'pnl-sample.csv', bytes: pnl } });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: OBJECT_STORE_UNAVAILABLE });
    expect(await server.services.prisma.uploadedFile.count({ where: { orgId: owner.orgId } })).toBe(0);
  }, 60_000);
});
