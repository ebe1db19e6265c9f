/**
 * Cached reads and conditional requests on one instance (docs/caching.md), as clients meet them:
 * REST GETs with ETag / If-None-Match, GraphQL over GET and POST; the answer never outlives the
 * data it was read from, whoever writes it (REST, GraphQL, the ingest, another service, a
 * statement in the database); another user or tenant never gets someone else's answer; a 304 or
 * a held answer does not run the operation (the service's method is counted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerWithUsers, EVERY_SCOPE } from '../helpers/server-with-users.ts';
import { callApi, createUser, type ApiCallArgs, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadFiles, loadSamples } from '../helpers/returns-data.ts';
import type { TestServer } from '../helpers/server.ts';

let server: TestServer;
let alice: TestUser, bob: TestUser, colleague: TestUser, outsider: TestUser;
const calls = { stickies: 0, comparison: 0 };

beforeAll(async () => {
  ({ server, alice, bob, outsider } = await startServerWithUsers({ alice: EVERY_SCOPE, bob: EVERY_SCOPE, outsider: { scopes: ['read:workspace'] } }));
  colleague = await createUser(server.services, { org: (await server.services.prisma.organization.findUniqueOrThrow({ where: { id: alice.orgId } })).name });
  // Count the reads that run: a 304 or a held answer must not reach the service.
  const stickies = server.services.stickies;
  const list = stickies.list.bind(stickies);
  stickies.list = (...args) => {
    calls.stickies++;
    return list(...args);
  };
  const returns = server.services.returns;
  const comparison = returns.comparison.bind(returns);
  returns.comparison = (...args) => {
    calls.comparison++;
    return comparison(...args);
  };
  await loadSamples(server.url, alice.key, alice.orgId);
}, 120_000);
afterAll(() => server?.close());

const call = (...args: ApiCallArgs) => callApi(server.url, ...args);
const STICKIES = '/api/stickies?limit=20';
const COMPARISON = '/api/returns/comparison?limit=5';

/** gateway_cached_reads_total{outcome} on this instance's metrics page. */
async function cachedReads(outcome: string): Promise<number> {
  const { body } = await server.services.metrics.expose();
  const line = body.split('\n').find((text) => text.startsWith(`gateway_cached_reads_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function createSticky(user: TestUser, content: string): Promise<string> {
  const response = await call(user, 'POST', '/api/stickies', { content });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

describe('REST conditional GETs on a cached read', () => {
  it('answers 200 with a strong ETag and Cache-Control private, no-cache; the same tag in If-None-Match gets 304 without the read running', async () => {
    await createSticky(alice, 'first');
    const first = await call(alice, 'GET', STICKIES);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const before = calls.stickies;
    const again = await fetch(`${server.url}${STICKIES}`, { headers: { 'x-api-key': alice.key, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    // A list of tags, a weak form of the tag and `*` match too (RFC 9110 13.1.2).
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
      const response = await fetch(`${server.url}${STICKIES}`, { headers: { 'x-api-key': alice.key, 'if-none-match': header } });
      expect(response.status, header).toBe(304);
    }
    expect(calls.stickies).toBe(before);
  });

  it('a tag that is not current gets the full answer', async () => {
    const response = await call(alice, 'GET', STICKIES, undefined, { 'if-none-match': '"not-the-current-tag"' });
    expect(response.status).toBe(200);
    expect(response.body.data.length).toBeGreaterThan(0);
  });

  it('a held answer is served without the read running, byte for byte the same', async () => {
    const first = await fetch(`${server.url}${STICKIES}`, { headers: { 'x-api-key': alice.key } });
    const before = calls.stickies;
    const hits = await cachedReads('hit');
    const second = await fetch(`${server.url}${STICKIES}`, { headers: { 'x-api-key': alice.key } });
    expect(await second.text()).toBe(await first.text());
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(calls.stickies).toBe(before);
    expect(await cachedReads('hit')).toBe(hits + 1);
  });

  it('after a write through REST, GraphQL or the database itself, the old tag gets 200 with the new data', async () => {
    const writes: [string, () => Promise<unknown>][] = [
      ['REST create', () => createSticky(alice, 'via REST')],
      ['GraphQL create', () => graphql(server.url, { 'x-api-key': alice.key }, 'mutation { createSticky(input: { content: "via GraphQL" }) { id } }')],
      [
        'a statement in the database',
        () =>
          server.services.db.pool.query(
            `UPDATE "Sticky" SET content = 'edited in SQL' WHERE id = (SELECT id FROM "Sticky" WHERE "userId" = $1 ORDER BY "createdAt" LIMIT 1)`,
            [alice.userId],
          ),
      ],
    ];
    for (const [how, write] of writes) {
      const before = await call(alice, 'GET', STICKIES);
      await write();
      const after = await call(alice, 'GET', STICKIES, undefined, { 'if-none-match': before.headers.get('etag')! });
      expect(after.status, how).toBe(200);
      expect(after.headers.get('etag'), how).not.toBe(before.headers.get('etag'));
      expect(JSON.stringify(after.body), how).not.toBe(JSON.stringify(before.body));
    }
    const contents = (await call(alice, 'GET', STICKIES)).body.data.map((sticky: { content: string }) => sticky.content);
    expect(contents).toEqual(expect.arrayContaining(['via REST', 'via GraphQL', 'edited in SQL']));
  });

  it('a refusal is never answered from the cache: a revoked key gets 401, a key without the scope 403', async () => {
    const reader = await createUser(server.services, { scopes: ['read:workspace'] });
    const ok = await call(reader, 'GET', STICKIES);
    expect(ok.status).toBe(200);
    const key = await server.services.prisma.apiKey.findFirstOrThrow({ where: { userId: reader.userId } });
    await server.services.apiKeys.revoke({ id: key.id, userId: reader.userId });
    const revoked = await call(reader, 'GET', STICKIES, undefined, { 'if-none-match': ok.headers.get('etag')! });
    expect(revoked.status).toBe(401);
    const noScope = await call(outsider, 'GET', COMPARISON);
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('etag')).toBeNull();
  });
});

describe('returns reads', () => {
  it("a threshold change (the CLI's path) and an ingest each change the comparison answer at once", async () => {
    const first = await call(alice, 'GET', COMPARISON);
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    const before = calls.comparison;
    expect((await call(alice, 'GET', COMPARISON, undefined, { 'if-none-match': tag })).status).toBe(304);
    expect(calls.comparison).toBe(before);

    await server.services.reconciliation.setThresholds(alice.orgId, { matchBps: 0.0001, reviewBps: 0.0002 });
    const reclassified = await call(alice, 'GET', COMPARISON, undefined, { 'if-none-match': tag });
    expect(reclassified.status).toBe(200);
    const thresholds = (body: { data: { match_threshold_bps: unknown }[] }) => body.data.map((row) => row.match_threshold_bps);
    expect(thresholds(reclassified.body)).not.toEqual(thresholds(first.body));

    // The newest row's custodian return, uploaded again with another value.
    const newest = reclassified.body.data[0] as { account_code: string; entity_name: string; date: string; custodian_return: string };
    const performance = `account_code,entity_name,date,return,return_unit\n${newest.account_code},${newest.entity_name},${newest.date},0.4321,percent\n`;
    await loadFiles(server.url, alice.key, alice.orgId, [{ name: 'correction.csv', content: performance }]);
    const ingested = await call(alice, 'GET', COMPARISON, undefined, { 'if-none-match': reclassified.headers.get('etag')! });
    expect(ingested.status).toBe(200);
    expect(ingested.body.data[0].custodian_return).not.toBe(newest.custodian_return);
  });

  it('another user of the same organization and a user of another organization each get their own answer', async () => {
    const mine = await call(alice, 'GET', COMPARISON);
    const colleagues = await call(colleague, 'GET', COMPARISON);
    expect(colleagues.status).toBe(200);
    expect(colleagues.body.data).toEqual(mine.body.data);
    expect(colleagues.headers.get('etag')).not.toBe(mine.headers.get('etag'));
    const strangers = await call(bob, 'GET', COMPARISON);
    expect(strangers.status).toBe(200);
    expect(strangers.body.data).toEqual([]);
    // Alice's tag means nothing to Bob.
    const guessed = await call(bob, 'GET', COMPARISON, undefined, { 'if-none-match': mine.headers.get('etag')! });
    expect(guessed.status).toBe(200);
    expect(guessed.body.data).toEqual([]);
  });
});

describe('GraphQL', () => {
  const query = 'query Stickies { stickies(first: 5) { edges { node { id content } } } }';

  it('over GET: ETag, 304 on If-None-Match without the read running; after a write, the new answer', async () => {
    const url = `${server.url}/graphql?query=${encodeURIComponent(query)}`;
    const headers = { 'x-api-key': bob.key, accept: 'application/graphql-response+json' };
    await createSticky(bob, 'bob one');
    const first = await fetch(url, { headers });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const before = calls.stickies;
    const again = await fetch(url, { headers: { ...headers, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(calls.stickies).toBe(before);
    await createSticky(bob, 'bob two');
    const changed = await fetch(url, { headers: { ...headers, 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    const body = (await changed.json()) as { data: { stickies: { edges: { node: { content: string } }[] } } };
    expect(body.data.stickies.edges.map((edge) => edge.node.content)).toContain('bob two');
  });

  it('over POST: no tag, but a held answer; an operation with an uncached field runs every time', async () => {
    const first = await graphql(server.url, { 'x-api-key': bob.key }, query);
    expect(first.headers.get('etag')).toBeNull();
    const before = calls.stickies;
    const second = await graphql(server.url, { 'x-api-key': bob.key }, query);
    expect(second.body).toEqual(first.body);
    expect(calls.stickies).toBe(before);
    const mixed = 'query { stickies(first: 5) { edges { node { id } } } health { status } }';
    await graphql(server.url, { 'x-api-key': bob.key }, mixed);
    await graphql(server.url, { 'x-api-key': bob.key }, mixed);
    expect(calls.stickies).toBe(before + 2);
  });
});

describe('GETs that are not cached reads', () => {
  it('carry a tag of their body, and If-None-Match with it gets 304', async () => {
    const first = await call(alice, 'GET', '/api/links/folders');
    expect(first.status).toBe(200);
    const news = await call(alice, 'GET', '/api/news?limit=5');
    expect(news.status).toBe(200);
    const tag = news.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await fetch(`${server.url}/api/news?limit=5`, { headers: { 'x-api-key': alice.key, 'if-none-match': tag } });
    expect(again.status).toBe(304);
  });

  it('errors carry no tag', async () => {
    const missing = await call(alice, 'GET', '/api/stickies/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('etag')).toBeNull();
  });
});

describe('rate budgets', () => {
  it('a held answer and a 304 each cost a point of the returns budget, as the read would; past it, 429', async () => {
    const { server: limited, dave } = await startServerWithUsers({ dave: EVERY_SCOPE }, { RATE_LIMIT_RETURNS_PER_MINUTE: '3' });
    try {
      const first = await callApi(limited.url, dave, 'GET', COMPARISON);
      expect(first.status).toBe(200);
      expect((await callApi(limited.url, dave, 'GET', COMPARISON)).status).toBe(200);
      expect((await callApi(limited.url, dave, 'GET', COMPARISON, undefined, { 'if-none-match': first.headers.get('etag')! })).status).toBe(304);
      const over = await callApi(limited.url, dave, 'GET', COMPARISON, undefined, { 'if-none-match': first.headers.get('etag')! });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await callApi(limited.url, dave, 'GET', COMPARISON)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('with the cache off (RESPONSE_CACHE_MAX_BYTES=0)', () => {
  it('every read runs, and conditional GETs still answer 304', async () => {
    const { server: uncached, carol } = await startServerWithUsers({ carol: EVERY_SCOPE }, { RESPONSE_CACHE_MAX_BYTES: '0' });
    try {
      let runs = 0;
      const stickies = uncached.services.stickies;
      const list = stickies.list.bind(stickies);
      stickies.list = (...args) => {
        runs++;
        return list(...args);
      };
      await callApi(uncached.url, carol, 'POST', '/api/stickies', { content: 'x' });
      const first = await callApi(uncached.url, carol, 'GET', STICKIES);
      await callApi(uncached.url, carol, 'GET', STICKIES);
      expect(runs).toBe(2);
      const conditional = await fetch(`${uncached.url}${STICKIES}`, { headers: { 'x-api-key': carol.key, 'if-none-match': first.headers.get('etag')! } });
      expect(conditional.status).toBe(304);
      expect(runs).toBe(2);
    } finally {
      await uncached.close();
    }
  });
});
