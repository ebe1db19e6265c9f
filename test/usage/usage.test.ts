/**
 * Per-client usage over real HTTP (docs/usage-and-deprecation.md): after a known sequence of calls
 * through REST and /graphql, GET /api/usage and the `usage` query give exact counts per credential,
 * front and operation, errors by code and rate-limit refusals; who may read which credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, getJson, type ApiCallArgs, type TestUser } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { LATENCY_BOUNDS_MS } from '../../src/usage/latency-histogram.ts';

let server: TestServer;
let alice: TestUser; // admin of org A
let bob: TestUser; // member of org A
let carol: TestUser; // admin of org C
let startedAt: Date;
const call = (...args: ApiCallArgs) => callApi(server.url, ...args);

function graphql(user: TestUser, query: string) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ query }),
  });
}

/** The usage rows a user may read for one operation (REST), after every instance flushed. */
async function usageOf(user: TestUser, query: string) {
  const response = await call(user, 'GET', `/api/usage?${query}`);
  expect(response.status).toBe(200);
  return response.body.data as Record<string, any>[];
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '2' });
  alice = await createUser(server.services, { org: 'Usage Org A', role: 'admin' });
  bob = await createUser(server.services, { org: 'Usage Org A', role: 'member', scopes: ['read:workspace', 'write:workspace'] });
  carol = await createUser(server.services, { org: 'Usage Org C', role: 'admin' });
  startedAt = new Date();

  for (let i = 0; i < 3; i++) expect((await call(alice, 'GET', '/api/stickies')).status).toBe(200);
  expect((await call(alice, 'GET', '/api/stickies?limit=0')).status).toBe(400);
  for (let i = 0; i < 2; i++) expect((await graphql(alice, 'query Stickies { stickies { edges { node { id } } } }')).status).toBe(200);
  expect((await call(bob, 'GET', '/api/stickies')).status).toBe(200);
  // The returns budget is 2 a minute: the third is refused (RATE_LIMITED in the operation's errors).
  const codes = [];
  for (let i = 0; i < 3; i++) {
    const { body } = await graphql(alice, 'query Comparison { returnComparison(first: 1) { edges { node { date } } } }');
    codes.push(body.errors?.[0]?.extensions?.code ?? 'ok');
  }
  expect(codes).toEqual(['ok', 'ok', 'RATE_LIMITED']);
  expect((await call(carol, 'GET', '/api/stickies')).status).toBe(200);
  await server.services.usage.flush();
});

afterAll(() => server?.close());

describe('GET /api/usage', () => {
  it('counts each credential, front and operation exactly, with errors by code and latency percentiles', async () => {
    const rows = await usageOf(alice, `operation=Stickies&credential=${await keyId(alice)}`);
    const byFront = Object.fromEntries(rows.map((row) => [row.front, row]));
    expect(Object.keys(byFront).sort()).toEqual(['graphql', 'rest']);
    expect(byFront.rest).toMatchObject({
      granularity: 'hour',
      credential: { kind: 'api_key', id: await keyId(alice), name: 'test', prefix: expect.stringMatching(/^sk_/) },
      user_id: alice.userId,
      operation: 'Stickies',
      requests: 4,
      errors: 1,
      error_codes: [{ code: 'BAD_USER_INPUT', count: 1 }],
      rate_limited: 0,
    });
    expect(byFront.graphql).toMatchObject({ requests: 2, errors: 0, error_codes: [], rate_limited: 0 });
    for (const row of rows) {
      expect(LATENCY_BOUNDS_MS).toContain(row.p50_ms);
      expect(LATENCY_BOUNDS_MS).toContain(row.p95_ms);
      expect(row.p95_ms).toBeGreaterThanOrEqual(row.p50_ms);
      expect(new Date(row.first_seen_at).getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 1);
      expect(new Date(row.last_seen_at).getTime()).toBeGreaterThanOrEqual(new Date(row.first_seen_at).getTime());
      const hour = new Date(startedAt);
      hour.setUTCMinutes(0, 0, 0);
      // The calls may straddle an hour: their bucket is the hour of one of them.
      expect(new Date(row.bucket_start).getTime()).toBeGreaterThanOrEqual(hour.getTime());
    }
  });

  it('counts rate-limit refusals', async () => {
    const [row] = await usageOf(alice, 'operation=Comparison&front=graphql');
    expect(row).toMatchObject({ requests: 3, errors: 1, rate_limited: 1, error_codes: [{ code: 'RATE_LIMITED', count: 1 }] });
  });

  it('keeps the same counts by day', async () => {
    const rows = await usageOf(alice, `operation=Stickies&front=rest&granularity=day&credential=${await keyId(alice)}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ granularity: 'day', requests: 4, errors: 1 });
    expect(rows[0].bucket_start).toMatch(/T00:00:00\.000Z$/);
  });

  it('lets a member read only their own credentials, an admin also their organization members’, nobody another organization’s', async () => {
    const bobs = await usageOf(bob, 'operation=Stickies');
    expect(bobs.map((row) => row.user_id)).toEqual([bob.userId]);
    expect(bobs[0]).toMatchObject({ front: 'rest', requests: 1 });

    const alices = await usageOf(alice, 'operation=Stickies&front=rest');
    expect(alices.map((row) => row.user_id).sort()).toEqual([alice.userId, bob.userId].sort());
    expect(alices.find((row) => row.user_id === bob.userId)).toMatchObject({ requests: 1 });

    const carols = await usageOf(carol, 'operation=Stickies');
    expect(carols.map((row) => row.user_id)).toEqual([carol.userId]);
    // Another organization's credential named outright: nothing, not a refusal.
    expect(await usageOf(carol, `credential=${await keyId(alice)}`)).toEqual([]);
  });

  it('pages with limit and cursor', async () => {
    const first = await call(alice, 'GET', '/api/usage?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await call(alice, 'GET', `/api/usage?limit=1&cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0]).not.toEqual(first.body.data[0]);
    expect((await call(alice, 'GET', '/api/usage?cursor=nonsense')).status).toBe(400);
  });

  it('needs a credential', async () => {
    expect((await call(null, 'GET', '/api/usage')).status).toBe(401);
  });
});

describe('usage (GraphQL)', () => {
  it('gives the same counts', async () => {
    const response = await graphql(
      alice,
      `query { usage(operation: "Stickies", front: graphql) { edges { node { credential { kind id } front operation requests errors rateLimited errorCodes { code count } p50Ms } } } }`,
    );
    const nodes = response.body.data.usage.edges.map((edge: { node: unknown }) => edge.node);
    expect(nodes).toEqual([
      {
        credential: { kind: 'api_key', id: await keyId(alice) },
        front: 'graphql',
        operation: 'Stickies',
        requests: 2,
        errors: 0,
        rateLimited: 0,
        errorCodes: [],
        p50Ms: expect.any(Number),
      },
    ]);
  });
});

const keyIds = new Map<string, string>();
/** The id of the user's (only) API key. */
async function keyId(user: TestUser): Promise<string> {
  let id = keyIds.get(user.userId);
  if (!id) {
    const key = await server.services.prisma.apiKey.findFirstOrThrow({ where: { userId: user.userId } });
    id = key.id;
    keyIds.set(user.userId, id);
  }
  return id;
}
