/**
 * The storage layer on a test database of its own: blobs in the database's temp directory, the
 * job queue on its pool, and a StorageService over them with the given upload limit.
 */
import path from 'node:path';
import type { Logger } from '../../src/log.ts';
import { JobQueue } from '../../src/jobs/job-queue.ts';
import { LocalBlobStore } from '../../src/storage/blob-store.ts';
import { StorageService } from '../../src/storage/storage-service.ts';
import { createTestDatabase, type TestDatabase } from './test-database.ts';

export interface StorageStack {
  db: TestDatabase;
  blobs: LocalBlobStore;
  jobs: JobQueue;
  storage: StorageService;
}

export async function createStorageStack(options: {
  maxUploadBytes: number;
  log: Logger;
  queue?: ConstructorParameters<typeof JobQueue>[1];
}): Promise<StorageStack> {
  const db = await createTestDatabase();
  const blobs = new LocalBlobStore(path.join(db.tmpDir, 'blobs'));
  const jobs = new JobQueue(db.pool, options.queue);
  const storage = new StorageService({
    prisma: db.prisma,
    blobs,
    jobs,
    config: { storage: { dir: blobs.dir, maxUploadBytes: options.maxUploadBytes } },
    log: options.log,
  });
  return { db, blobs, jobs, storage };
}
