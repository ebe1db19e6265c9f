/**
 * Two service instances sharing one PostgreSQL database: each counts its own requests in memory
 * and adds them with upserts, so the stored counts are the sum, never a count twice (flushing
 * again adds nothing), error codes and latency histograms merged. Needs a PostgreSQL server
 * (DATABASE_URL, or the developer machines' 127.0.0.1:5432); without one the test says so and skips.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, createUser, type TestUser } from '../helpers/fixtures.ts';
import { createSchema, dropSchema } from '../helpers/postgres-schema.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BASE_URL = process.env.DATABASE_URL?.trim() || 'postgresql://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const available = await reachable(BASE_URL);
if (!available) console.warn(`usage-two-instances: no PostgreSQL at ${BASE_URL}; skipped`);

describe.skipIf(!available)('usage over two instances sharing one database', () => {
  let schema: string;
  let one: TestServer;
  let two: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    const created = await createSchema(BASE_URL);
    schema = created.schema;
    one = await startTestServer({ DATABASE_URL: created.url });
    two = await startTestServer({ DATABASE_URL: created.url });
    user = await createUser(one.services, {});
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    if (schema) await dropSchema(BASE_URL, schema);
  });

  it('adds both instances’ counts, once', async () => {
    for (let i = 0; i < 2; i++) expect((await callApi(one.url, user, 'GET', '/api/stickies')).status).toBe(200);
    expect((await callApi(one.url, user, 'GET', '/api/stickies?limit=0')).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await callApi(two.url, user, 'GET', '/api/stickies')).status).toBe(200);
    expect((await callApi(two.url, user, 'GET', '/api/stickies?limit=0')).status).toBe(400);
    await Promise.all([one.services.usage.flush(), two.services.usage.flush()]);
    // Nothing new: a second flush adds nothing.
    await Promise.all([one.services.usage.flush(), two.services.usage.flush()]);

    for (const server of [one, two]) {
      for (const granularity of ['hour', 'day']) {
        const response = await callApi(server.url, user, 'GET', `/api/usage?operation=Stickies&front=rest&granularity=${granularity}`);
        expect(response.body.data).toHaveLength(1);
        expect(response.body.data[0]).toMatchObject({ requests: 7, errors: 2, error_codes: [{ code: 'BAD_USER_INPUT', count: 2 }], rate_limited: 0 });
      }
    }
    const stored = await one.services.db.pool.query<{ latencyBuckets: number[] }>(
      `SELECT "latencyBuckets" FROM "UsageBucket" WHERE "operation" = 'Stickies' AND "front" = 'rest' AND "granularity" = 'hour'`,
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].latencyBuckets.reduce((sum, count) => sum + count, 0)).toBe(7);
  });

  it('writes what is left when an instance stops', async () => {
    expect((await callApi(two.url, user, 'GET', '/api/stickies')).status).toBe(200);
    await two.close();
    const response = await callApi(one.url, user, 'GET', '/api/usage?operation=Stickies&front=rest');
    expect(response.body.data[0]).toMatchObject({ requests: 8 });
  });
});
