/**
 * Rate limits as clients meet them (real server, real HTTP) and the two rate-limit stores
 * directly. The service under test runs with small budgets: 5 returns requests and 2 uploads a
 * minute. Every test uses its own key (or its own client address) so the budgets never overlap.
 * The Redis tests run when REDIS_URL is set (CI sets it) and are skipped, saying so, otherwise.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { partialMultipartUpload } from '../helpers/upload.ts';
import { getFrom, graphql, loadSamples, readSample, SAMPLE_PNL, uploadCsv } from '../helpers/returns-data.ts';
import {
  createRateLimitStore,
  rateLimitHeaders,
  RequestBudgets,
  type Budget,
  type BudgetPolicy,
  type RateLimitStore,
} from '../../src/ratelimit/rate-limiter.ts';

const RETURNS_PER_MINUTE = 5;
const UPLOADS_PER_MINUTE = 2;
const REDIS_URL = process.env.REDIS_URL;
const NO_REDIS = !REDIS_URL;
const HARBOR = encodeURIComponent('Bayview Growth Fund LP');
const RETURNS_PATHS = [
  '/api/returns/comparison',
  `/api/returns/dietz-daily?entity_name=${HARBOR}&start_date=2025-03-03&end_date=2025-03-21`,
  `/api/returns/cash-transactions?entity_name=${HARBOR}`,
];
const COMPARISON_QUERY = '{ returnComparison(first: 5) { edges { node { accountCode date status } } } }';
const RATE_LIMITED = /^Rate limit exceeded: 5 requests per 60 seconds; retry in (\d+) seconds$/;

let server: TestServer;
/** Owns the sample data; its own key is never used for budget tests. */
let owner: TestUser;

const get = (path: string, headers: Record<string, string> = {}) => getJson(`${server.url}${path}`, { headers });

/** A new key for the data owner: same user, same data, its own budget. */
async function freshKey(scopes = ['admin']): Promise<string> {
  const { secret } = await server.services.apiKeys.create({ userId: owner.userId, name: `budget-${randomBytes(3).toString('hex')}`, scopes });
  return secret;
}

/** `"returns";r=3;t=57` -> { r: 3, t: 57 } */
function parseRateLimit(header: string | null, budget: string): { r: number; t: number } {
  const match = new RegExp(`"${budget}";r=(\\d+);t=(\\d+)`).exec(header ?? '');
  expect(match, `RateLimit header ${header}`).not.toBeNull();
  return { r: Number(match![1]), t: Number(match![2]) };
}

function expect429(response: { status: number; headers: Headers; body: any }, budget = 'returns', limit = RETURNS_PER_MINUTE) {
  expect(response.status).toBe(429);
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error).toMatch(new RegExp(`^Rate limit exceeded: ${limit} requests per 60 seconds; retry in \\d+ seconds$`));
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.body.error).toContain(`retry in ${retryAfter} seconds`);
  expect(response.headers.get('ratelimit-policy')).toBe(`"${budget}";q=${limit};w=60`);
  expect(parseRateLimit(response.headers.get('ratelimit'), budget)).toEqual({ r: 0, t: retryAfter });
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: String(RETURNS_PER_MINUTE), RATE_LIMIT_UPLOAD_PER_MINUTE: String(UPLOADS_PER_MINUTE) });
  owner = await createUser(server.services, { scopes: ['admin'] });
  await loadSamples(server.url, owner.key, owner.orgId);
});

afterAll(async () => {
  await server?.close();
});

describe('returns budget over REST', () => {
  it('the 6th returns request in a minute is 429 with Retry-After, RateLimit-Policy and RateLimit', async () => {
    const key = await freshKey();
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) {
      const response = await get('/api/returns/comparison', { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(`"returns";q=${RETURNS_PER_MINUTE};w=60`);
      const { r, t } = parseRateLimit(response.headers.get('ratelimit'), 'returns');
      expect(r).toBe(RETURNS_PER_MINUTE - 1 - i);
      expect(t).toBeGreaterThanOrEqual(1);
      expect(t).toBeLessThanOrEqual(60);
      expect(response.headers.get('retry-after')).toBeNull();
    }
    expect429(await get('/api/returns/comparison', { 'x-api-key': key }));
    // and it stays refused, on every returns endpoint
    for (const path of RETURNS_PATHS) expect429(await get(path, { 'x-api-key': key }));
  });

  it('the three returns endpoints share one budget', async () => {
    const key = await freshKey();
    const statuses: number[] = [];
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) statuses.push((await get(RETURNS_PATHS[i % 3], { 'x-api-key': key })).status);
    expect(statuses).toEqual(Array(RETURNS_PER_MINUTE).fill(200));
    expect429(await get(RETURNS_PATHS[2], { 'x-api-key': key }));
  });

  it('a request refused for bad input costs nothing (a refused request never spends the budget)', async () => {
    const key = await freshKey();
    for (let i = 0; i < RETURNS_PER_MINUTE + 3; i++) {
      const response = await get('/api/returns/comparison?limit=0', { 'x-api-key': key });
      expect(response.status).toBe(400);
      // the refusal may still say where the budget stands: untouched
      const header = response.headers.get('ratelimit');
      if (header !== null) expect(parseRateLimit(header, 'returns').r).toBe(RETURNS_PER_MINUTE);
    }
    const served = await get('/api/returns/comparison', { 'x-api-key': key });
    expect(served.status).toBe(200);
    expect(parseRateLimit(served.headers.get('ratelimit'), 'returns').r).toBe(RETURNS_PER_MINUTE - 1);
  });

  it('the budget is per key: a second key of the same user still has its budget', async () => {
    const first = await freshKey();
    const second = await freshKey();
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) await get('/api/returns/comparison', { 'x-api-key': first });
    expect429(await get('/api/returns/comparison', { 'x-api-key': first }));
    const other = await get('/api/returns/comparison', { 'x-api-key': second });
    expect(other.status).toBe(200);
    expect(parseRateLimit(other.headers.get('ratelimit'), 'returns').r).toBe(RETURNS_PER_MINUTE - 1);
  });

  it('requests refused for authentication (no key, a bad key) or for scope cost nothing', async () => {
    const url = `${server.url}/api/returns/comparison`;
    for (let i = 0; i < RETURNS_PER_MINUTE + 3; i++) {
      const response = await getFrom('127.0.3.1', url, i % 2 ? { 'x-api-key': 'sk_wrong' } : {});
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid or expired API key' });
      expect(response.headers.ratelimit).toBeUndefined();
    }
    const withoutScope = await freshKey(['read:workspace']);
    for (let i = 0; i < RETURNS_PER_MINUTE + 3; i++) expect((await get('/api/returns/comparison', { 'x-api-key': withoutScope })).status).toBe(403);
    const served = await getFrom('127.0.3.1', url, { 'x-api-key': await freshKey() });
    expect(served.status).toBe(200);
    expect(parseRateLimit(String(served.headers.ratelimit), 'returns').r).toBe(RETURNS_PER_MINUTE - 1);
  });
});

describe('returns budget through GraphQL', () => {
  it('REST and GraphQL calls on one key share the budget; over it GraphQL answers RATE_LIMITED', async () => {
    const key = await freshKey();
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) {
      if (i % 2 === 0) {
        expect((await get('/api/returns/comparison?limit=5', { 'x-api-key': key })).status).toBe(200);
      } else {
        const response = await graphql(server.url, { 'x-api-key': key }, COMPARISON_QUERY);
        expect(response.body.errors).toBeUndefined();
        expect(response.body.data.returnComparison.edges.length).toBeGreaterThan(0);
        expect(parseRateLimit(response.headers.get('ratelimit'), 'returns').r).toBe(RETURNS_PER_MINUTE - 1 - i);
      }
    }
    const limited = await graphql(server.url, { 'x-api-key': key }, COMPARISON_QUERY);
    expect(limited.body.data).toBeNull();
    expect(limited.body.errors).toHaveLength(1);
    expect(limited.body.errors![0].message).toMatch(RATE_LIMITED);
    expect(limited.body.errors![0].extensions).toMatchObject({ code: 'RATE_LIMITED', budget: 'returns', retryAfterSeconds: expect.any(Number) });
    expect(limited.headers.get('retry-after')).toBe(String(limited.body.errors![0].extensions!.retryAfterSeconds));
    expect(parseRateLimit(limited.headers.get('ratelimit'), 'returns').r).toBe(0);

    for (const query of [
      '{ dietzDailyReturns(entityName: "Bayview Growth Fund LP", startDate: "2025-03-03", endDate: "2025-03-21") { entityName } }',
      '{ cashTransactions(entityName: "Bayview Growth Fund LP") { edges { node { id } } } }',
    ]) {
      const response = await graphql(server.url, { 'x-api-key': key }, query);
      expect(response.body.errors![0].extensions!.code).toBe('RATE_LIMITED');
    }
    expect429(await get('/api/returns/comparison', { 'x-api-key': key }));
  });

  it('every field that reads returns data costs a point: aliases are no way around the budget', async () => {
    const key = await freshKey();
    const three = await graphql(
      server.url,
      { 'x-api-key': key },
      `{
      a: returnComparison(first: 1) { edges { node { date } } }
      b: returnComparison(first: 1) { edges { node { date } } }
      c: dietzDailyReturns(entityName: "Bayview Growth Fund LP", startDate: "2025-03-03", endDate: "2025-03-05") { entityName }
    }`,
    );
    expect(three.body.errors).toBeUndefined();
    expect(parseRateLimit(three.headers.get('ratelimit'), 'returns').r).toBe(RETURNS_PER_MINUTE - 3);

    const overBudget = await graphql(
      server.url,
      { 'x-api-key': key },
      `{
      a: returnComparison(first: 1) { edges { node { date } } }
      b: returnComparison(first: 1) { edges { node { date } } }
      c: returnComparison(first: 1) { edges { node { date } } }
    }`,
    );
    // two points were left: two fields got them, the third was refused (and, the fields being
    // non-null, the refusal nulls the whole result)
    const codes = (overBudget.body.errors ?? []).map((error) => error.extensions?.code);
    expect(codes).toEqual(['RATE_LIMITED']);
    expect(overBudget.body.data).toBeNull();
    expect(parseRateLimit(overBudget.headers.get('ratelimit'), 'returns').r).toBe(0);
    expect429(await get('/api/returns/comparison', { 'x-api-key': key }));
  });
});

describe('unlimited and separate budgets', () => {
  it('/health and /api/health are never limited', async () => {
    const key = await freshKey();
    for (let i = 0; i < RETURNS_PER_MINUTE * 6; i++) {
      for (const path of ['/health', '/api/health']) {
        const anonymous = await get(path);
        expect(anonymous.status).toBe(200);
        expect(anonymous.body).toEqual({ status: 'healthy' });
        expect(anonymous.headers.get('ratelimit')).toBeNull();
        const withKey = await get(`${path}?detailed=true`, { 'x-api-key': key });
        expect(withKey.status).toBe(200);
        expect(withKey.headers.get('ratelimit')).toBeNull();
      }
    }
    // and they did not touch the returns budget
    const returns = await get('/api/returns/comparison', { 'x-api-key': key });
    expect(parseRateLimit(returns.headers.get('ratelimit'), 'returns').r).toBe(RETURNS_PER_MINUTE - 1);
  });

  it('uploads have their own budget (2 a minute here), refused before the body is read', async () => {
    const key = await freshKey();
    const csv = readSample(SAMPLE_PNL);
    for (let i = 0; i < UPLOADS_PER_MINUTE; i++) {
      const response = await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', csv);
      expect(response.status).toBe(201);
      expect(response.headers.get('ratelimit-policy')).toBe(`"upload";q=${UPLOADS_PER_MINUTE};w=60`);
      expect(parseRateLimit(response.headers.get('ratelimit'), 'upload').r).toBe(UPLOADS_PER_MINUTE - 1 - i);
    }
    expect429(await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', csv), 'upload', UPLOADS_PER_MINUTE);
    const unfinished = await unfinishedUpload(server.url, { 'x-api-key': key }, owner.orgId);
    expect(unfinished.status).toBe(429);
    // the returns budget is untouched by uploads
    expect((await get('/api/returns/comparison', { 'x-api-key': key })).status).toBe(200);
  });

  it('a GraphQL multipart upload spends the same upload budget as REST', async () => {
    const key = await freshKey();
    const csv = readSample(SAMPLE_PNL);
    expect((await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', csv)).status).toBe(201);
    const form = new FormData();
    form.set(
      'operations',
      JSON.stringify({
        query: 'mutation Upload($file: Upload!, $orgId: UUID!) { uploadFile(file: $file, orgId: $orgId) { id status } }',
        variables: { file: null, orgId: owner.orgId },
      }),
    );
    form.set('map', JSON.stringify({ 0: ['variables.file'] }));
    form.set('0', new Blob([csv], { type: 'text/csv' }), 'pnl.csv');
    const viaGraphql = await getJson(`${server.url}/graphql`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(viaGraphql.status).toBe(200);
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data.uploadFile.status).toBe('uploaded');
    expect(parseRateLimit(viaGraphql.headers.get('ratelimit'), 'upload').r).toBe(0);
    expect429(await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', csv), 'upload', UPLOADS_PER_MINUTE);
  });
});

/** A multipart upload that sends its preamble and then nothing: answered only if refused before the body is read. */
function unfinishedUpload(baseUrl: string, headers: Record<string, string>, orgId: string) {
  return partialMultipartUpload(baseUrl, { headers, orgId, declaredBytes: 10 * 1024 * 1024, sendBytes: 0 });
}

describe('several instances sharing one Redis', () => {
  const instances: TestServer[] = [];

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
  });

  it.skipIf(NO_REDIS)('two services with the same REDIS_URL and key prefix share one budget (skipped: REDIS_URL is not set)', async () => {
    const env = {
      REDIS_URL: REDIS_URL!,
      RATE_LIMIT_KEY_PREFIX: `rl-shared-${randomBytes(6).toString('hex')}`,
      RATE_LIMIT_RETURNS_PER_MINUTE: String(RETURNS_PER_MINUTE),
    };
    const [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
    instances.push(a, b);
    expect(a.services.rateLimits.kind).toBe('redis');
    // Each instance has its own database here, so the same user and key row go into both.
    const user = await createUser(a.services, { scopes: ['read:returns'] });
    const row = await a.services.prisma.apiKey.findFirstOrThrow({ where: { userId: user.userId } });
    const owner = await a.services.prisma.user.findUniqueOrThrow({ where: { id: user.userId } });
    await b.services.prisma.user.create({ data: { id: owner.id, email: owner.email, name: owner.name, role: owner.role } });
    await b.services.prisma.apiKey.create({
      data: { id: row.id, userId: row.userId, name: row.name, prefix: row.prefix, secretHash: row.secretHash, scopes: row.scopes, createdAt: row.createdAt },
    });

    const remaining: number[] = [];
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) {
      const instance = i % 2 === 0 ? a : b;
      const response = await getJson(`${instance.url}/api/returns/comparison`, { headers: { 'x-api-key': user.key } });
      expect(response.status).toBe(200);
      remaining.push(parseRateLimit(response.headers.get('ratelimit'), 'returns').r);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expect429(await getJson(`${b.url}/api/returns/comparison`, { headers: { 'x-api-key': user.key } }));
    expect429(await getJson(`${a.url}/api/returns/comparison`, { headers: { 'x-api-key': user.key } }));
    const viaGraphql = await graphql(b.url, { 'x-api-key': user.key }, COMPARISON_QUERY);
    expect(viaGraphql.body.errors![0].extensions!.code).toBe('RATE_LIMITED');
  });
});

const POLICIES: Record<Budget, BudgetPolicy> = {
  returns: { points: 3, windowSeconds: 60 },
  upload: { points: 1, windowSeconds: 60 },
  login: { points: 2, windowSeconds: 1 },
  chat: { points: 2, windowSeconds: 60 },
  generate: { points: 2, windowSeconds: 60 },
  oauth: { points: 2, windowSeconds: 60 },
  webhooks: { points: 2, windowSeconds: 60 },
};

/** The same contract for both stores. */
function storeContract(makeStore: () => RateLimitStore) {
  it('allows `points` requests per subject and window, then refuses with the time to wait', async () => {
    const store = makeStore();
    const subject = `api_key:${randomBytes(4).toString('hex')}`;
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push(await store.consume('returns', subject));
    expect(allowed.map((d) => [d.allowed, d.remaining, d.limit, d.windowSeconds, d.budget])).toEqual([
      [true, 2, 3, 60, 'returns'],
      [true, 1, 3, 60, 'returns'],
      [true, 0, 3, 60, 'returns'],
    ]);
    const refused = await store.consume('returns', subject);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3 });
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
  });

  it('subjects and budgets are independent', async () => {
    const store = makeStore();
    const [one, two] = ['a', 'b'].map((name) => `ip:${name}-${randomBytes(4).toString('hex')}`);
    expect((await store.consume('upload', one)).allowed).toBe(true);
    expect((await store.consume('upload', one)).allowed).toBe(false);
    expect((await store.consume('upload', two)).allowed).toBe(true);
    expect((await store.consume('returns', one)).allowed).toBe(true);
  });

  it('a refund gives one consumed point back in the same window', async () => {
    const store = makeStore();
    const subject = `api_key:${randomBytes(4).toString('hex')}`;
    await store.consume('returns', subject);
    const second = await store.consume('returns', subject);
    expect(second.remaining).toBe(1);
    const refunded = await store.refund('returns', subject);
    expect(refunded).toMatchObject({ budget: 'returns', allowed: true, remaining: 2, limit: 3 });
    expect(refunded.resetsAt).toBeGreaterThan(Date.now());
    expect((await store.consume('returns', subject)).remaining).toBe(1);
  });

  it('the budget comes back when the window ends', async () => {
    const store = makeStore();
    const subject = `ip:${randomBytes(4).toString('hex')}`;
    expect((await store.consume('login', subject)).allowed).toBe(true);
    expect((await store.consume('login', subject)).allowed).toBe(true);
    const refused = await store.consume('login', subject);
    expect(refused.allowed).toBe(false);
    expect(refused.resetSeconds).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(await store.consume('login', subject)).toMatchObject({ allowed: true, remaining: 1 });
  });
}

describe('memory store (createRateLimitStore without Redis)', () => {
  storeContract(() => createRateLimitStore(POLICIES));

  it('is the memory kind, and two memory stores share nothing', async () => {
    const [first, second] = [createRateLimitStore(POLICIES, { keyPrefix: 'p' }), createRateLimitStore(POLICIES, { keyPrefix: 'p' })];
    expect(first.kind).toBe('memory');
    expect((await first.consume('upload', 'ip:x')).allowed).toBe(true);
    expect((await second.consume('upload', 'ip:x')).allowed).toBe(true);
  });
});

describe('Redis store (createRateLimitStore with ioredis)', () => {
  let redis: Redis | undefined;
  const prefix = `rl-unit-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    if (NO_REDIS) return;
    redis = new Redis(REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });

  afterAll(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describe.skipIf(NO_REDIS)('against the local Redis (skipped: REDIS_URL is not set)', () => {
    storeContract(() => createRateLimitStore(POLICIES, { redis, keyPrefix: prefix }));

    it('stores sharing a prefix share the budget; another prefix does not', async () => {
      const one = createRateLimitStore(POLICIES, { redis, keyPrefix: prefix });
      const two = createRateLimitStore(POLICIES, { redis, keyPrefix: prefix });
      const other = createRateLimitStore(POLICIES, { redis, keyPrefix: `${prefix}-other` });
      expect(one.kind).toBe('redis');
      const subject = `api_key:${randomBytes(4).toString('hex')}`;
      expect((await one.consume('returns', subject)).remaining).toBe(2);
      expect((await two.consume('returns', subject)).remaining).toBe(1);
      expect((await one.consume('returns', subject)).remaining).toBe(0);
      expect((await two.consume('returns', subject)).allowed).toBe(false);
      expect((await other.consume('returns', subject)).allowed).toBe(true);
      // the counter lives in Redis, under the prefix, and expires with the window
      const keys = await redis!.keys(`${prefix}:returns*${subject}*`);
      expect(keys).toHaveLength(1);
      const ttl = await redis!.pttl(keys[0]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      const otherKeys = await redis!.keys(`${prefix}-other*`);
      await redis!.del(...otherKeys);
    });
  });
});

describe('RequestBudgets (one request)', () => {
  it("a reserved point covers the operation's own charge; every further charge costs one more", async () => {
    const store = createRateLimitStore(POLICIES);
    const budgets = new RequestBudgets(store, () => 'api_key:one-request');
    await budgets.reserve('returns');
    await budgets.charge('returns'); // takes the reservation
    expect((await budgets.settled())[0]).toMatchObject({ budget: 'returns', remaining: 2, allowed: true });
    await budgets.charge('returns');
    expect((await budgets.settled())[0].remaining).toBe(1);
    await budgets.charge('returns');
    await expect(budgets.charge('returns')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      extensions: { budget: 'returns', retryAfterSeconds: expect.any(Number) },
    });
    const headers = rateLimitHeaders(await budgets.settled());
    expect(headers['RateLimit-Policy']).toBe('"returns";q=3;w=60');
    expect(headers.RateLimit).toMatch(/^"returns";r=0;t=\d+$/);
    expect(headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('a reservation no charge took is given back when the request settles, once', async () => {
    const store = createRateLimitStore(POLICIES);
    const subject = () => 'api_key:given-back';
    const refused = new RequestBudgets(store, subject);
    expect((await refused.reserve('returns')).remaining).toBe(2);
    // the operation was refused before its field resolved: nothing charged the reservation
    expect(await refused.settled()).toEqual([expect.objectContaining({ budget: 'returns', remaining: 3, allowed: true })]);
    expect((await refused.settled())[0].remaining).toBe(3); // settling again gives nothing more back
    const next = new RequestBudgets(store, subject);
    await next.charge('returns');
    expect((await next.settled())[0].remaining).toBe(2);
  });

  it('a refused reservation refuses the request and is not given back', async () => {
    const store = createRateLimitStore(POLICIES);
    const subject = () => 'ip:refused';
    const first = new RequestBudgets(store, subject);
    await first.reserve('upload');
    await first.charge('upload');
    const second = new RequestBudgets(store, subject);
    await expect(second.reserve('upload')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect((await second.settled())[0]).toMatchObject({ allowed: false, remaining: 0 });
    await expect(new RequestBudgets(store, subject).charge('upload')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });
});
