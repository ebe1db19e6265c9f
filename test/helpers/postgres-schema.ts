/**
 * A PostgreSQL schema of its own for one test database or service: created on the server at
 * `baseUrl`, named in the returned URL by Prisma's `?schema=` convention, and dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

async function onAdmin(baseUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Creates a fresh `test_…` schema; `url` is `baseUrl` with `?schema=` naming it. */
export async function createSchema(baseUrl: string): Promise<{ schema: string; url: string }> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await onAdmin(baseUrl, `CREATE SCHEMA "${schema}"`);
  const url = new URL(baseUrl);
  url.searchParams.set('schema', schema);
  return { schema, url: url.toString() };
}

export async function dropSchema(baseUrl: string, schema: string): Promise<void> {
  await onAdmin(baseUrl, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
