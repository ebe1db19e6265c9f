/**
 * A fresh, migrated database for one test file.
 *
 * - Without DATABASE_URL: an embedded PGlite database in a new temp directory, served over its
 *   local socket exactly as in production (`openDatabase`). A few seconds to start.
 * - With DATABASE_URL (PostgreSQL): a new schema `test_<random>` in that database, opened with
 *   `openDatabase` through Prisma's `?schema=` URL parameter (search_path for the pg pool, the
 *   schema for Prisma), so test files running in parallel never see each other's rows. `url`
 *   carries `?schema=`, so it can be given to a child process as its DATABASE_URL.
 *
 * `cleanup()` closes everything and removes the directory or drops the schema.
 *
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await createTestDatabase(); }, 60_000);
 *   afterAll(() => db?.cleanup());
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSchema, dropSchema } from './postgres-schema.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrator.ts';

export type TestDatabase = Database & {
  /** the PostgreSQL schema in use (`public` on PGlite) */
  schema: string;
  /** a fresh temp directory next to the database, for blobs and other files of the test */
  tmpDir: string;
  cleanup(): Promise<void>;
};

export async function createTestDatabase(options: { poolSize?: number } = {}): Promise<TestDatabase> {
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-test-'));
  const databaseUrl = process.env.DATABASE_URL?.trim();
  if (!databaseUrl) {
    let db: Database;
    try {
      db = await openDatabase({ dataDir: path.join(tmpDir, 'data'), poolSize: options.poolSize });
      await migrate(db.pool);
    } catch (error) {
      await fs.rm(tmpDir, { recursive: true, force: true });
      throw error;
    }
    return {
      ...db,
      schema: 'public',
      tmpDir,
      close: () => db.close(),
      async cleanup() {
        await db.close().catch(() => {});
        await fs.rm(tmpDir, { recursive: true, force: true });
      },
    };
  }

  // Prisma's `?schema=` convention, which openDatabase turns into search_path + Prisma's schema;
  // `db.url` can therefore be handed to a child service process as its DATABASE_URL.
  const { schema, url } = await createSchema(databaseUrl);
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: url, dataDir: tmpDir, poolSize: options.poolSize });
  } catch (error) {
    await dropSchema(databaseUrl, schema).catch(() => {});
    throw error;
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.close().catch(() => {});
  };
  try {
    await migrate(db.pool);
  } catch (error) {
    await close();
    await dropSchema(databaseUrl, schema).catch(() => {});
    throw error;
  }
  return {
    ...db,
    schema,
    tmpDir,
    close,
    async cleanup() {
      await close();
      await dropSchema(databaseUrl, schema).catch(() => {});
      await fs.rm(tmpDir, { recursive: true, force: true });
    },
  };
}
