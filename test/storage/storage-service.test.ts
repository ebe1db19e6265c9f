import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { JobQueue, type EnqueueOptions } from '../../src/jobs/job-queue.ts';
import type { LocalBlobStore } from '../../src/storage/blob-store.ts';
import { StorageService, sanitizeFileName, type UploadInput } from '../../src/storage/storage-service.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { createStorageStack } from '../helpers/storage-stack.ts';

const SAMPLES = new URL('../../samples/', import.meta.url);
const log = createLogger('silent');

let db: TestDatabase, blobs: LocalBlobStore, jobs: JobQueue, storage: StorageService;
let userId: string, orgId: string, otherOrgId: string;
beforeAll(async () => {
  ({ db, blobs, jobs, storage } = await createStorageStack({ maxUploadBytes: 64 * 1024 * 1024, log }));
  const user = await db.prisma.user.create({ data: { email: 'uploader@example.com' } });
  const org = await db.prisma.organization.create({ data: { name: 'Acme' } });
  const other = await db.prisma.organization.create({ data: { name: 'Other' } });
  await db.prisma.membership.create({ data: { userId: user.id, orgId: org.id } });
  userId = user.id;
  orgId = org.id;
  otherOrgId = other.id;
}, 120_000);
afterAll(() => db?.cleanup());

function fromBuffer(filename: string, body: Buffer | string): UploadInput['file'] {
  return { filename, createReadStream: () => Readable.from([Buffer.from(body)]) };
}
function fromSample(name: string, filename = name): UploadInput['file'] {
  return { filename, createReadStream: () => fs.createReadStream(new URL(name, SAMPLES)) };
}
function input(file: UploadInput['file'], fileType: UploadInput['fileType'] = null, org = orgId): UploadInput {
  return { uploaderId: userId, memberOf: new Set([orgId]), orgId: org, fileType, file };
}

async function blobFiles(): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for (const entry of await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(blobs.dir, full));
    }
  }
  await walk(blobs.dir);
  return found.sort();
}

async function counts() {
  return {
    files: await db.prisma.uploadedFile.count(),
    jobs: await db.prisma.job.count(),
    blobs: (await blobFiles()).length,
  };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('StorageService.upload', () => {
  it('stores the file, records it and queues its ingest job; detects the type from the header', async () => {
    const bytes = await fsp.readFile(new URL('pnl-sample.csv', SAMPLES));
    const file = await storage.upload(input(fromSample('pnl-sample.csv', 'C:\\Users\\me\\Desktop\\march pnl.csv')));
    expect(file).toMatchObject({
      orgId,
      uploaderId: userId,
      fileName: 'march pnl.csv',
      fileType: 'pnl',
      sizeBytes: BigInt(bytes.length),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      status: 'uploaded',
      blobKey: `${orgId}/${file.id}`,
    });
    expect(await blobs.exists(file.blobKey)).toBe(true);
    const stored = await fsp.readFile(blobs.pathFor(file.blobKey));
    expect(stored.equals(bytes)).toBe(true);
    const queued = await db.prisma.job.findMany({ where: { queue: 'ingest', payload: { equals: { fileId: file.id } } } });
    expect(queued).toHaveLength(1);
    expect(queued[0].state).toBe('queued');

    const perf = await storage.upload(input(fromSample('performance-sample.csv')));
    expect(perf.fileType).toBe('performance');
    expect(await storage.get(perf.id)).toMatchObject({ id: perf.id, fileName: 'performance-sample.csv' });
    const member = new Set([orgId]);
    const listed = await storage.list(member, { orgId }, { take: 10 });
    expect(listed.map((f) => f.id)).toEqual([perf.id, file.id]);
    expect((await storage.list(member, { orgId }, { take: 1, cursor: { id: perf.id }, skip: 1 })).map((f) => f.id)).toEqual([file.id]);
    expect(await storage.list(member, { orgId, status: 'failed' }, { take: 10 })).toEqual([]);
    // The viewer's organizations decide: another organization's files are FORBIDDEN to list and missing to read.
    await expect(storage.list(new Set([otherOrgId]), { orgId })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await storage.fileOf(new Set([otherOrgId]), perf.id)).toBeNull();
    expect(await storage.fileOf(member, perf.id)).toMatchObject({ id: perf.id });
  });

  it('403 for an organization the uploader does not belong to, before reading anything', async () => {
    const before = await counts();
    let opened = false;
    const error = await rejection(
      storage.upload(input({ filename: 'x.csv', createReadStream: () => ((opened = true), Readable.from([Buffer.from('a,b\n')])) }, null, otherOrgId)),
    );
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe('Insufficient permissions');
    expect(opened).toBe(false);
    expect(await counts()).toEqual(before);
  });

  it('415 for content that is not CSV text, whatever the name says', async () => {
    const before = await counts();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const cases: Array<[Buffer | string, RegExp]> = [
      [png, /^Unsupported file content: looks like a PNG image/],
      ['{"account_code": "A"}', /^Unsupported file content: looks like JSON/],
      ['account_code;entity_name;date\n', /^Unsupported file content: .*semicolon/],
      ['', /^Unsupported file content: the file is empty/],
      [Buffer.from('%PDF-1.7\n'), /^Unsupported file content: looks like a PDF/],
    ];
    for (const [body, message] of cases) {
      const error = await rejection(storage.upload(input(fromBuffer('data.csv', body))));
      expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(error.status).toBe(415);
      expect(error.message).toMatch(message);
    }
    expect(await counts()).toEqual(before);
  });

  it('415 naming the expected headers when the type cannot be detected; accepted when the type is given', async () => {
    const before = await counts();
    const error = await rejection(storage.upload(input(fromBuffer('x.csv', 'foo,bar\n1,2\n'))));
    expect(error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(error.message).toContain('Unsupported file content: the header row is neither a pnl nor a performance header');
    expect(error.message).toContain('account_code, entity_name, date, market_value, cash_flow');
    expect(error.message).toContain('account_code, entity_name, date, return, return_unit');
    expect(await counts()).toEqual(before);
    // with an explicit type the upload is accepted; ingest reports the bad header as the file's error
    const file = await storage.upload(input(fromBuffer('x.csv', 'foo,bar\n1,2\n'), 'pnl'));
    expect(file.fileType).toBe('pnl');
  });

  it('400 on fileType when the header belongs to the other type', async () => {
    const before = await counts();
    const error = await rejection(storage.upload(input(fromSample('pnl-sample.csv'), 'performance')));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.extensions).toMatchObject({ field: 'fileType' });
    expect(error.message).toBe("Invalid fileType: is performance but the file's header is a pnl header");
    expect(await counts()).toEqual(before);
  });

  it('413 past the size limit: no blob, no row, no job', async () => {
    const small = new StorageService({ prisma: db.prisma, blobs, jobs, config: { storage: { dir: blobs.dir, maxUploadBytes: 500 } }, log });
    const before = await counts();
    const error = await rejection(small.upload(input(fromSample('pnl-sample.csv'))));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.status).toBe(413);
    expect(error.message).toBe('File exceeds the upload limit of 500 bytes');
    expect(await counts()).toEqual(before);
    expect(await fsp.readdir(path.join(blobs.dir, '.incoming'))).toEqual([]);
  });

  it('the row and the job are written in one transaction; a failure removes the blob too', async () => {
    class FailingQueue extends JobQueue {
      override async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<{ id: string }> {
        await super.enqueue(queue, payload, opts); // written in the transaction ...
        throw new Error('queue exploded'); // ... which then rolls back
      }
    }
    const failing = new StorageService({
      prisma: db.prisma,
      blobs,
      jobs: new FailingQueue(db.pool),
      config: { storage: { dir: blobs.dir, maxUploadBytes: 1e6 } },
      log,
    });
    const before = await counts();
    await expect(failing.upload(input(fromSample('pnl-sample.csv')))).rejects.toThrow('queue exploded');
    expect(await counts()).toEqual(before);
  });

  it('streams a large upload without holding it in memory', async () => {
    const big = new StorageService({ prisma: db.prisma, blobs, jobs, config: { storage: { dir: blobs.dir, maxUploadBytes: 1024 ** 3 } }, log });
    const line = 'ACC-1,Fund,2025-01-02,1000.00,,,\n';
    const block = Buffer.from(line.repeat(Math.floor(65536 / line.length)));
    const target = 200 * 1024 * 1024;
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from('account_code,entity_name,date,market_value,cash_flow,flow_timing,description\n');
      for (let sent = 0; sent < target; sent += block.length) yield block;
    }
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const file = await big.upload(input({ filename: 'big.csv', createReadStream: () => Readable.from(body()) }));
      expect(Number(file.sizeBytes)).toBeGreaterThan(target);
      await blobs.delete(file.blobKey);
    } finally {
      clearInterval(timer);
    }
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});

describe('StorageService.rowErrors', () => {
  it("returns a file's stored errors by line", async () => {
    const file = await storage.upload(input(fromSample('pnl-sample.csv')));
    await db.prisma.fileRowError.createMany({
      data: [
        { fileId: file.id, line: 9, column: 'date', message: 'b' },
        { fileId: file.id, line: 3, column: null, message: 'a' },
      ],
    });
    expect((await storage.rowErrors(file.id, 10)).map((e) => e.line)).toEqual([3, 9]);
    expect(await storage.rowErrors(randomUUID(), 10)).toEqual([]);
  });
});

describe('sanitizeFileName', () => {
  it('keeps the last path component, drops control and bidi characters, limits the length', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('C:\\temp\\report.csv')).toBe('report.csv');
    expect(sanitizeFileName('a\u0000b\r\nc\u202e.csv')).toBe('abc.csv');
    expect(sanitizeFileName('  spaced   name .csv ')).toBe('spaced name .csv');
    expect(sanitizeFileName('..')).toBe('upload.csv');
    expect(sanitizeFileName('dir/')).toBe('upload.csv');
    expect(sanitizeFileName(undefined)).toBe('upload.csv');
    const long = sanitizeFileName(`${'é'.repeat(300)}.csv`);
    expect(Array.from(long)).toHaveLength(255);
    const emoji = sanitizeFileName('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(255);
    expect(emoji.endsWith('😀')).toBe(true);
  });
});
