/**
 * Authentication and permissions as clients meet them: API keys on REST, organization isolation,
 * the browser sign-in page and its sso_token cookie, the GraphQL key-management ("dashboard")
 * flow, externally issued session JWTs, the sign-in redirect and CSRF protection. Real servers,
 * real HTTP, no mocks.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { partialMultipartUpload } from '../helpers/upload.ts';
import { graphql, loadSamples, readSample, SAMPLE_PNL, uploadCsv } from '../helpers/returns-data.ts';
import { HTTP_STATUS_BY_CODE } from '../../src/errors.ts';

const SSO_SECRET = `test-sso-secret-${'s'.repeat(32)}`;
const INVALID_KEY = { error: 'Invalid or expired API key' };
const INVALID_SESSION = { error: 'Invalid or expired session' };
const FORBIDDEN = { error: 'Insufficient permissions' };
const HARBOR = 'Bayview Growth Fund LP';
const COMPARISON = '/api/returns/comparison';
const DIETZ = `/api/returns/dietz-daily?entity_name=${encodeURIComponent(HARBOR)}&start_date=2025-03-03&end_date=2025-03-21`;
const CASH = `/api/returns/cash-transactions?entity_name=${encodeURIComponent(HARBOR)}`;

let server: TestServer;
/** Admin of organization A, which holds the sample data. */
let owner: TestUser;
let ownerCookie: string;

const get = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) => getJson(`${server.url}${path}`, { ...init, headers });

interface SignInResponse {
  status: number;
  location: string | null;
  setCookies: string[];
  contentType: string;
  text: string;
}

let clientAddress = 0;
/** Another loopback address per sign-in: the sign-in budget is per client address (tested below). */
function nextClientAddress(): string {
  clientAddress += 1;
  return `127.0.1.${(clientAddress % 250) + 1}`;
}

/** POST /login as the sign-in form does, from a client address (redirects are not followed). */
function signIn(
  baseUrl: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
  localAddress = nextClientAddress(),
): Promise<SignInResponse> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const request = http.request(new URL('/login', baseUrl), {
      method: 'POST',
      localAddress,
      agent: false,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)), ...headers },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location ?? null,
          setCookies: response.headers['set-cookie'] ?? [],
          contentType: response.headers['content-type'] ?? '',
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    request.end(body);
  });
}

/** Signs in and returns the `sso_token=...` pair to send back as a Cookie header. */
async function sessionCookie(baseUrl: string, user: TestUser): Promise<string> {
  const response = await signIn(baseUrl, { email: user.email, password: user.password });
  expect(response.status).toBe(303);
  const cookie = response.setCookies.find((c) => c.startsWith('sso_token='));
  expect(cookie).toBeDefined();
  return cookie!.split(';')[0];
}

const secret = new TextEncoder().encode(SSO_SECRET);
function externalJwt(claims: Record<string, unknown>, options: { subject?: string; expiresAt?: number; key?: Uint8Array } = {}) {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(Math.floor(Date.now() / 1000) - 120);
  if (options.subject) jwt = jwt.setSubject(options.subject);
  jwt = jwt.setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 3600);
  return jwt.sign(options.key ?? secret);
}

const CREATE_KEY = `mutation Create($input: CreateApiKeyInput!, $currentPassword: String) {
  createApiKey(input: $input, currentPassword: $currentPassword) { key apiKey { id name prefix scopes createdAt expiresAt revokedAt lastUsedAt active } } }`;
const LIST_KEYS = `{ apiKeys { id name prefix scopes expiresAt revokedAt lastUsedAt active } }`;
const REVOKE_KEY = `mutation Revoke($id: UUID!) { revokeApiKey(id: $id) { id revokedAt active } }`;

/**
 * Creates a key from the owner's session, confirmed with the owner's password. Each confirmation
 * counts against the owner's account sign-in budget (10 a minute), as its sign-ins do: this file
 * stays below it (other sign-in tests use users of their own).
 */
async function createKey(cookie: string, input: Record<string, unknown>): Promise<{ key: string; id: string }> {
  const response = await graphql(server.url, { cookie }, CREATE_KEY, { input, currentPassword: owner.password });
  expect(response.body.errors).toBeUndefined();
  return { key: response.body.data.createApiKey.key, id: response.body.data.createApiKey.apiKey.id };
}

/** A graphql error's code, checked against the one code -> status table. */
function errorCode(response: { body: { errors?: { extensions?: Record<string, any> }[] } }): string {
  expect(response.body.errors?.length).toBeGreaterThan(0);
  return response.body.errors![0].extensions!.code;
}

beforeAll(async () => {
  server = await startTestServer({ SSO_JWT_SECRET: SSO_SECRET });
  owner = await createUser(server.services, { scopes: ['admin'] });
  await loadSamples(server.url, owner.key, owner.orgId);
  ownerCookie = await sessionCookie(server.url, owner);
});

afterAll(async () => {
  await server?.close();
});

describe('API keys on REST', () => {
  it('a missing key is 401 with the exact body', async () => {
    for (const path of [COMPARISON, DIETZ, CASH, `/api/storage/files?org_id=${owner.orgId}`]) {
      const response = await get(path);
      expect(response.status, path).toBe(401);
      expect(response.body).toEqual(INVALID_KEY);
      expect(response.headers.get('location')).toBeNull();
    }
    const upload = await uploadCsv(server.url, {}, owner.orgId, 'pnl.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(401);
    expect(upload.body).toEqual(INVALID_KEY);
  });

  it.each([
    ['empty', ''],
    ['not a key', 'not-a-key'],
    ['too short', 'sk_0123456789abcdef'],
    ['not hex', `sk_${'g'.repeat(32)}`],
    ['no prefix', 'a'.repeat(32)],
    ['upper-case hex', `sk_${'A'.repeat(32)}`],
  ])('a malformed key (%s) is 401', async (_label, key) => {
    const response = await get(COMPARISON, { 'x-api-key': key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
  });

  it("a wrong key, including one with a real key's visible prefix, is 401", async () => {
    for (const key of [`sk_${randomBytes(16).toString('hex')}`, `${owner.key.slice(0, 11)}${randomBytes(12).toString('hex')}`]) {
      expect(key).toMatch(/^sk_[0-9a-f]{32}$/);
      expect(key).not.toBe(owner.key);
      const response = await get(COMPARISON, { 'x-api-key': key });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(INVALID_KEY);
    }
  });

  it('a valid key works in x-api-key and as a bearer token; a bad bearer token is 401', async () => {
    expect((await get(COMPARISON, { 'x-api-key': owner.key })).status).toBe(200);
    expect((await get(COMPARISON, { authorization: `Bearer ${owner.key}` })).status).toBe(200);
    const bad = await get(COMPARISON, { authorization: `Bearer sk_${'0'.repeat(32)}` });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(INVALID_KEY);
  });

  it('a present but invalid key is never passed over in favour of a valid cookie', async () => {
    const response = await get(COMPARISON, { 'x-api-key': 'wrong', cookie: ownerCookie });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
  });

  it("a revoked key is 401 from the moment it is revoked; the owner's other keys keep working", async () => {
    const { key, id } = await createKey(ownerCookie, { name: 'to revoke', scopes: ['read:returns'] });
    expect((await get(COMPARISON, { 'x-api-key': key })).status).toBe(200);
    const revoked = await graphql(server.url, { cookie: ownerCookie }, REVOKE_KEY, { id });
    expect(revoked.body.data.revokeApiKey).toMatchObject({ id, active: false, revokedAt: expect.any(String) });
    const response = await get(COMPARISON, { 'x-api-key': key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
    expect((await get(COMPARISON, { 'x-api-key': owner.key })).status).toBe(200);
  });

  it('an expired key is 401 once its expiry passes', async () => {
    const { key, id } = await createKey(ownerCookie, { name: 'short-lived', scopes: ['read:returns'], expiresIn: '1h' });
    expect((await get(COMPARISON, { 'x-api-key': key })).status).toBe(200);
    // The hour passes (moved in the database rather than waited for: no clock race on a loaded machine).
    await server.services.prisma.apiKey.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const response = await get(COMPARISON, { 'x-api-key': key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
  });

  it('an expiry in the past is refused when the key is created', async () => {
    const response = await graphql(server.url, { cookie: ownerCookie }, CREATE_KEY, {
      input: { name: 'stale', scopes: ['read:returns'], expiresIn: new Date(Date.now() - 60_000).toISOString() },
      currentPassword: owner.password,
    });
    expect(errorCode(response)).toBe('BAD_USER_INPUT');
  });

  it('a key without read:returns is 403 on the returns endpoints, with the exact body', async () => {
    const { key } = await createKey(ownerCookie, { name: 'pnl only', scopes: ['read:pnl'] });
    for (const path of [COMPARISON, DIETZ]) {
      const response = await get(path, { 'x-api-key': key });
      expect(response.status, path).toBe(403);
      expect(response.body).toEqual(FORBIDDEN);
    }
    // read:pnl is what cash transactions and the file listing need
    expect((await get(CASH, { 'x-api-key': key })).status).toBe(200);
    expect((await get(`/api/storage/files?org_id=${owner.orgId}`, { 'x-api-key': key })).status).toBe(200);
  });

  it('a read:returns key is 403 on cash transactions, the file listing and uploads', async () => {
    const { key } = await createKey(ownerCookie, { name: 'returns only', scopes: ['read:returns'] });
    expect((await get(COMPARISON, { 'x-api-key': key })).status).toBe(200);
    expect((await get(DIETZ, { 'x-api-key': key })).status).toBe(200);
    for (const path of [CASH, `/api/storage/files?org_id=${owner.orgId}`]) {
      const response = await get(path, { 'x-api-key': key });
      expect(response.status, path).toBe(403);
      expect(response.body).toEqual(FORBIDDEN);
    }
    const upload = await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(403);
    expect(upload.body).toEqual(FORBIDDEN);
  });

  it('admin implies every scope', async () => {
    const { key } = await createKey(ownerCookie, { name: 'admin', scopes: ['admin'] });
    for (const path of [COMPARISON, DIETZ, CASH, `/api/storage/files?org_id=${owner.orgId}`]) {
      expect((await get(path, { 'x-api-key': key })).status, path).toBe(200);
    }
    const upload = await uploadCsv(server.url, { 'x-api-key': key }, owner.orgId, 'pnl.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(201);
  });
});

describe('organizations', () => {
  let outsider: TestUser;

  beforeAll(async () => {
    // An admin of another organization: admin is a scope, not a pass into other tenants.
    outsider = await createUser(server.services, { scopes: ['admin'], role: 'admin' });
  });

  it("sees none of the first organization's entities or returns", async () => {
    const mine = await get(COMPARISON, { 'x-api-key': owner.key });
    expect(mine.body.data.length).toBeGreaterThan(0);

    const comparison = await get(COMPARISON, { 'x-api-key': outsider.key });
    expect(comparison.status).toBe(200);
    expect(comparison.body).toEqual({ data: [], pagination: { has_more: false, next_cursor: null } });
    const byAccount = await get(`${COMPARISON}?account_code=ACC-1001`, { 'x-api-key': outsider.key });
    expect(byAccount.body.data).toEqual([]);
    for (const path of [DIETZ, CASH]) {
      const response = await get(path, { 'x-api-key': outsider.key });
      expect(response.status, path).toBe(404);
      expect(response.body).toEqual({ error: 'Entity not found' });
    }
  });

  it("is 403 on the other organization's file listing and uploads, and sees its own", async () => {
    const listing = await get(`/api/storage/files?org_id=${owner.orgId}`, { 'x-api-key': outsider.key });
    expect(listing.status).toBe(403);
    expect(listing.body).toEqual(FORBIDDEN);
    const upload = await uploadCsv(server.url, { 'x-api-key': outsider.key }, owner.orgId, 'pnl.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(403);
    expect(upload.body).toEqual(FORBIDDEN);
    const own = await get(`/api/storage/files?org_id=${outsider.orgId}`, { 'x-api-key': outsider.key });
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual([]);
    // an organization that does not exist is no different from someone else's
    const none = await get('/api/storage/files?org_id=00000000-0000-4000-8000-000000000000', { 'x-api-key': outsider.key });
    expect(none.status).toBe(403);
    expect(none.body).toEqual(FORBIDDEN);
  });

  it("cannot read another organization's file by id through GraphQL", async () => {
    const files = await get(`/api/storage/files?org_id=${owner.orgId}`, { 'x-api-key': owner.key });
    const fileId = files.body.data[0].id;
    const query = `query File($id: UUID!) { file(id: $id) { id fileName } }`;
    expect((await graphql(server.url, { 'x-api-key': owner.key }, query, { id: fileId })).body.data.file).toMatchObject({ id: fileId });
    expect((await graphql(server.url, { 'x-api-key': outsider.key }, query, { id: fileId })).body.data.file).toBeNull();
  });

  it("cannot revoke another user's key", async () => {
    const { id } = await createKey(ownerCookie, { name: 'not yours', scopes: ['read:returns'] });
    const outsiderCookie = await sessionCookie(server.url, outsider);
    const response = await graphql(server.url, { cookie: outsiderCookie }, REVOKE_KEY, { id });
    expect(errorCode(response)).toBe('NOT_FOUND');
    const keys = (await graphql(server.url, { cookie: ownerCookie }, LIST_KEYS)).body.data.apiKeys;
    expect(keys.find((key: any) => key.id === id)).toMatchObject({ active: true, revokedAt: null });
  });
});

describe('sign-in page and the GraphQL key-management flow', () => {
  it('signing in sets an HttpOnly, SameSite=Lax sso_token cookie and returns to the page asked for', async () => {
    const user = await createUser(server.services);
    const response = await signIn(server.url, { email: user.email, password: user.password, next: '/api/returns/comparison?limit=1' });
    expect(response.status).toBe(303);
    expect(response.location).toBe('/api/returns/comparison?limit=1');
    const [cookie] = response.setCookies;
    expect(cookie).toMatch(/^sso_token=[\w-]+\.[\w-]+\.[\w-]+;/);
    const attributes = cookie
      .split(';')
      .slice(1)
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=lax');
    expect(attributes).toContain('path=/');
    // this server runs with COOKIE_SECURE=false and no SSO_DOMAIN (see the server below for both)
    expect(attributes).not.toContain('secure');
    expect(attributes.some((attribute) => attribute.startsWith('domain='))).toBe(false);
  });

  it('the email is matched case-insensitively', async () => {
    const user = await createUser(server.services);
    const response = await signIn(server.url, { email: user.email.toUpperCase(), password: user.password });
    expect(response.status).toBe(303);
    expect(response.location).toBe('/');
  });

  it('a wrong password is a 401 page and sets no cookie', async () => {
    // A user of its own: the owner's sign-in budget (shared with its password confirmations) is for the key tests.
    const user = await createUser(server.services);
    const attempts: Record<string, string>[] = [
      { email: user.email, password: 'not-the-password' },
      { email: 'nobody@test.local', password: 'x' },
      { email: user.email },
    ];
    for (const fields of attempts) {
      const response = await signIn(server.url, fields);
      expect(response.status).toBe(401);
      expect(response.contentType).toMatch(/^text\/html/);
      expect(response.setCookies).toEqual([]);
      expect(response.text).toContain('Wrong email or password.');
    }
  });

  it('sign-in attempts are limited per client address (10 a minute), so passwords cannot be brute-forced', async () => {
    // A target of its own: the guesses also spend its account's budget (test/auth/sign-in-limits.test.ts).
    const target = await createUser(server.services);
    const address = nextClientAddress();
    for (let attempt = 1; attempt <= 10; attempt++) {
      const wrong = await signIn(server.url, { email: target.email, password: `guess-${attempt}` }, {}, address);
      expect(wrong.status, `attempt ${attempt}`).toBe(401);
    }
    const bystander = await createUser(server.services);
    const limited = await signIn(server.url, { email: bystander.email, password: bystander.password }, {}, address);
    expect(limited.status).toBe(429);
    expect(limited.setCookies).toEqual([]);
    expect(limited.text).toContain('Too many sign-in attempts');
    // another client address still has its budget
    expect((await signIn(server.url, { email: bystander.email, password: bystander.password })).status).toBe(303);
  });

  it.each([
    ['//evil.example', '/'],
    ['//evil.example/path', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/api/returns/comparison', '/api/returns/comparison'],
  ])('next=%j redirects to %j (no open redirect)', async (next, location) => {
    // A user per case: every sign-in, a successful one too, costs a point of its account's budget (10 a minute).
    const user = await createUser(server.services);
    const response = await signIn(server.url, { email: user.email, password: user.password, next });
    expect(response.status).toBe(303);
    expect(response.location).toBe(location);
  });

  it('the sign-in form carries a safe next and escapes it', async () => {
    const page = await fetch(`${server.url}/login?next=${encodeURIComponent('/x?a="><script>')}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="next" value="/x?a=&quot;&gt;&lt;script&gt;"');
    const evil = await (await fetch(`${server.url}/login?next=//evil.example`)).text();
    expect(evil).toContain('name="next" value="/"');
  });

  it('a sign-in posted from another origin is refused', async () => {
    const response = await signIn(server.url, { email: owner.email, password: owner.password }, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.setCookies).toEqual([]);
  });

  it('create, list, use and revoke a key from a signed-in session', async () => {
    const cookie = await sessionCookie(server.url, owner);
    const me = await graphql(server.url, { cookie }, '{ me { credential user { email } } }');
    expect(me.body.data.me).toEqual({ credential: 'session', user: { email: owner.email } });

    const created = await graphql(server.url, { cookie }, CREATE_KEY, {
      input: { name: 'dashboard key', scopes: ['read:returns', 'read:pnl'] },
      currentPassword: owner.password,
    });
    expect(created.body.errors).toBeUndefined();
    const { key, apiKey } = created.body.data.createApiKey;
    expect(key).toMatch(/^sk_[0-9a-f]{32}$/);
    expect(apiKey).toMatchObject({
      name: 'dashboard key',
      prefix: key.slice(0, 11),
      scopes: ['read:returns', 'read:pnl'],
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      active: true,
    });

    // listed, newest first, and the secret is never shown again
    const listed = await graphql(server.url, { cookie }, LIST_KEYS);
    expect(listed.body.data.apiKeys[0]).toMatchObject({ id: apiKey.id, prefix: key.slice(0, 11), lastUsedAt: null });
    expect(JSON.stringify(listed.body)).not.toContain(key);

    // used on REST: works, and last_used_at is recorded
    const before = Date.now();
    const used = await get(COMPARISON, { 'x-api-key': key });
    expect(used.status).toBe(200);
    expect(used.body.data.length).toBeGreaterThan(0);
    const after = Date.now();
    const afterUse = (await graphql(server.url, { cookie }, LIST_KEYS)).body.data.apiKeys.find((k: any) => k.id === apiKey.id);
    expect(afterUse.lastUsedAt).toEqual(expect.any(String));
    const lastUsed = Date.parse(afterUse.lastUsedAt);
    expect(lastUsed).toBeGreaterThanOrEqual(before - 1_000);
    expect(lastUsed).toBeLessThanOrEqual(after + 1_000);

    // revoked: listed as inactive, refused on REST
    const revoked = await graphql(server.url, { cookie }, REVOKE_KEY, { id: apiKey.id });
    expect(revoked.body.data.revokeApiKey).toMatchObject({ id: apiKey.id, active: false });
    const refused = await get(COMPARISON, { 'x-api-key': key });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(INVALID_KEY);
  });

  it('cookie-authenticated GraphQL writes need a JSON body or the X-CSRF-Protection header', async () => {
    // A user of its own: its sign-in and password confirmation spend its own account budget.
    const user = await createUser(server.services, { scopes: ['admin'] });
    const userCookie = await sessionCookie(server.url, user);
    const body = JSON.stringify({ query: CREATE_KEY, variables: { input: { name: 'csrf', scopes: ['read:pnl'] }, currentPassword: user.password } });
    const plain = await getJson(`${server.url}/graphql`, { method: 'POST', headers: { cookie: userCookie, 'content-type': 'text/plain' }, body });
    expect(plain.status).toBe(403);
    expect(plain.body.error).toMatch(/^CSRF check failed/);

    const form = new URLSearchParams({
      query: CREATE_KEY,
      variables: JSON.stringify({ input: { name: 'csrf', scopes: ['read:pnl'] }, currentPassword: user.password }),
    }).toString();
    const noHeader = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: { cookie: userCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    expect(noHeader.status).toBe(403);
    const withHeader = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: { cookie: userCookie, 'content-type': 'application/x-www-form-urlencoded', 'x-csrf-protection': '1', accept: 'application/json' },
      body: form,
    });
    expect(withHeader.status).toBe(200);
    expect(withHeader.body.data.createApiKey.key).toMatch(/^sk_[0-9a-f]{32}$/);
  });

  it('an API key cannot create keys', async () => {
    const response = await graphql(server.url, { 'x-api-key': owner.key }, CREATE_KEY, {
      input: { name: 'minted', scopes: ['read:pnl'] },
      currentPassword: owner.password,
    });
    expect(errorCode(response)).toBe('FORBIDDEN');
    expect(HTTP_STATUS_BY_CODE.FORBIDDEN).toBe(403);
    expect(response.body.data).toBeNull();
    const revoke = await graphql(server.url, { 'x-api-key': owner.key }, REVOKE_KEY, { id: '00000000-0000-4000-8000-000000000000' });
    expect(errorCode(revoke)).toBe('FORBIDDEN');
  });

  it('without credentials the key mutations are UNAUTHENTICATED', async () => {
    const response = await graphql(server.url, {}, CREATE_KEY, { input: { name: 'anon', scopes: ['read:pnl'] } });
    expect(errorCode(response)).toBe('UNAUTHENTICATED');
    expect(response.body.errors![0].message).toBe(INVALID_KEY.error);
    expect(errorCode(await graphql(server.url, {}, LIST_KEYS))).toBe('UNAUTHENTICATED');
  });

  it('a member cannot grant admin (403 Insufficient permissions) but can grant the scopes of the role', async () => {
    const member = await createUser(server.services, { role: 'member', scopes: ['read:returns'], org: `Members ${Date.now()}` });
    const cookie = await sessionCookie(server.url, member);
    const me = await graphql(server.url, { cookie }, '{ me { scopes } }');
    expect(me.body.data.me.scopes).not.toContain('admin');

    const admin = await graphql(server.url, { cookie }, CREATE_KEY, {
      input: { name: 'escalate', scopes: ['read:returns', 'admin'] },
      currentPassword: member.password,
    });
    expect(errorCode(admin)).toBe('FORBIDDEN');
    expect(admin.body.errors![0].message).toBe(FORBIDDEN.error);
    expect(HTTP_STATUS_BY_CODE[errorCode(admin) as keyof typeof HTTP_STATUS_BY_CODE]).toBe(403);

    const unknown = await graphql(server.url, { cookie }, CREATE_KEY, { input: { name: 'bogus', scopes: ['root'] }, currentPassword: member.password });
    expect(errorCode(unknown)).toBe('BAD_USER_INPUT');
    const none = await graphql(server.url, { cookie }, CREATE_KEY, { input: { name: 'empty', scopes: [] }, currentPassword: member.password });
    expect(errorCode(none)).toBe('BAD_USER_INPUT');

    const ok = await graphql(server.url, { cookie }, CREATE_KEY, {
      input: { name: 'fine', scopes: ['read:returns', 'write:upload'] },
      currentPassword: member.password,
    });
    expect(ok.body.errors).toBeUndefined();
    const keys = (await graphql(server.url, { cookie }, LIST_KEYS)).body.data.apiKeys;
    expect(keys.map((k: any) => k.name).sort()).toEqual(['fine', 'test']);
  });
});

describe('the sso_token cookie', () => {
  it('a browser asking for a page without the cookie is sent to sign in', async () => {
    const response = await fetch(`${server.url}/`, {
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2F');
  });

  it('with the cookie the dashboard is served, and its API calls are the signed-in user', async () => {
    const response = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'text/html', cookie: ownerCookie } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root"></div>');
    const me = await fetch(`${server.url}/graphql?query=%7Bme%7Buser%7Bemail%7D%7D%7D`, { headers: { cookie: ownerCookie } });
    expect(await me.json()).toEqual({ data: { me: { user: { email: owner.email } } } });
  });

  it('an API request without credentials gets 401 JSON, never a redirect, whatever it accepts', async () => {
    for (const accept of ['text/html', 'application/json', '*/*']) {
      for (const path of [COMPARISON, '/graphql?query=%7Bme%7Bcredential%7D%7D']) {
        const response = await fetch(`${server.url}${path}`, { redirect: 'manual', headers: { accept } });
        if (path === COMPARISON) {
          expect(response.status, `${path} ${accept}`).toBe(401);
          expect(await response.json()).toEqual(INVALID_KEY);
        } else {
          expect(response.status).not.toBe(303);
          expect(response.headers.get('location')).toBeNull();
        }
      }
    }
    // `/` itself is public: an API client gets the JSON index there (test/app/root-index.test.ts), never a redirect.
    const json = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('location')).toBeNull();
    expect(await json.json()).toMatchObject({ authentication: { header: 'X-API-Key' } });
  });

  it("is accepted on REST endpoints with the role's scopes", async () => {
    for (const path of [COMPARISON, DIETZ, CASH, `/api/storage/files?org_id=${owner.orgId}`]) {
      const response = await get(path, { cookie: ownerCookie });
      expect(response.status, path).toBe(200);
    }
  });

  it('a tampered, expired, foreign-signed or malformed cookie is 401 Invalid or expired session', async () => {
    const token = ownerCookie.slice('sso_token='.length);
    const [header, payload, signature] = token.split('.');
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === 'A' ? 'B' : 'A'}${signature.at(-1)}`;
    const forgedPayload = Buffer.from(JSON.stringify({ sub: owner.userId, email: 'someone@else.test', exp: 4102444800 })).toString('base64url');
    const cookies = [
      `${header}.${payload}.${flipped}`,
      `${header}.${forgedPayload}.${signature}`,
      await externalJwt({ email: owner.email }, { subject: owner.userId, expiresAt: Math.floor(Date.now() / 1000) - 60 }),
      await externalJwt({ email: owner.email }, { key: new TextEncoder().encode('another-secret-that-is-long-enough-000') }),
      await externalJwt({ email: 'nobody@test.local' }),
      'not-a-jwt',
      '%E0%A4%A',
    ];
    for (const value of cookies) {
      const response = await get(COMPARISON, { cookie: `sso_token=${value}` });
      expect(response.status, value).toBe(401);
      expect(response.body).toEqual(INVALID_SESSION);
      const gql = await graphql(server.url, { cookie: `sso_token=${value}` }, '{ me { credential } }');
      expect(errorCode(gql)).toBe('UNAUTHENTICATED');
      expect(gql.body.errors![0].message).toBe(INVALID_SESSION.error);
    }
  });

  it('a JWT issued by an external identity backend with the shared secret is accepted', async () => {
    const byEmail = await externalJwt({ email: owner.email.toUpperCase() });
    const bySubject = await externalJwt({}, { subject: owner.userId });
    for (const token of [byEmail, bySubject]) {
      const me = await graphql(server.url, { cookie: `sso_token=${token}` }, '{ me { credential user { id email } } }');
      expect(me.body.data.me).toEqual({ credential: 'session', user: { id: owner.userId, email: owner.email } });
      const rest = await get(COMPARISON, { cookie: `other=1; sso_token=${token}; theme=dark` });
      expect(rest.status).toBe(200);
      expect(rest.body.data.length).toBeGreaterThan(0);
    }
  });
});

/**
 * A cookie-authenticated multipart upload that sends its form preamble and then nothing more,
 * declaring a large body: a server that reads the body before its CSRF check never answers.
 */
/** A multipart upload that sends its preamble and then nothing: answered only if refused before the body is read. */
function unfinishedUpload(baseUrl: string, headers: Record<string, string>, orgId: string) {
  return partialMultipartUpload(baseUrl, { headers, orgId, declaredBytes: 50 * 1024 * 1024, sendBytes: 0 });
}

describe('CSRF protection of cookie-authenticated writes', () => {
  const pnlCsv = readSample(SAMPLE_PNL);

  it('an upload with the cookie and without the header is 403 before the body is read', async () => {
    const response = await unfinishedUpload(server.url, { cookie: ownerCookie }, owner.orgId);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'CSRF check failed: send the X-CSRF-Protection header with cookie-authenticated writes' });
    const complete = await uploadCsv(server.url, { cookie: ownerCookie }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(complete.status).toBe(403);
  });

  it('with the header the upload is accepted, from the same origin too', async () => {
    const response = await uploadCsv(server.url, { cookie: ownerCookie, 'x-csrf-protection': '1' }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ org_id: owner.orgId, uploader_id: owner.userId, file_type: 'pnl' });
    const sameOrigin = await uploadCsv(server.url, { cookie: ownerCookie, 'x-csrf-protection': '1', origin: server.url }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(sameOrigin.status).toBe(201);
  });

  it('a cross-origin Origin is 403 even with the header, before the body is read', async () => {
    const response = await uploadCsv(
      server.url,
      { cookie: ownerCookie, 'x-csrf-protection': '1', origin: 'https://evil.example' },
      owner.orgId,
      'pnl.csv',
      pnlCsv,
    );
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'CSRF check failed: cross-origin request' });
    const unfinished = await unfinishedUpload(server.url, { cookie: ownerCookie, 'x-csrf-protection': '1', origin: 'null' }, owner.orgId);
    expect(unfinished.status).toBe(403);
    const mutation = await graphql(server.url, { cookie: ownerCookie, origin: 'https://evil.example' }, CREATE_KEY, {
      input: { name: 'x', scopes: ['read:pnl'] },
    });
    expect(mutation.status).toBe(403);
  });

  it('API-key requests are unaffected (no header needed, any origin)', async () => {
    const plain = await uploadCsv(server.url, { 'x-api-key': owner.key }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(plain.status).toBe(201);
    const crossOrigin = await uploadCsv(server.url, { 'x-api-key': owner.key, origin: 'https://elsewhere.example' }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(crossOrigin.status).toBe(201);
    const withCookieToo = await uploadCsv(server.url, { 'x-api-key': owner.key, cookie: ownerCookie }, owner.orgId, 'pnl.csv', pnlCsv);
    expect(withCookieToo.status).toBe(201);
  });

  it('reads (GET) with the cookie need no header', async () => {
    const get1 = await getJson(`${server.url}/graphql?query=${encodeURIComponent('{ me { credential } }')}`, {
      headers: { cookie: ownerCookie, accept: 'application/json' },
    });
    expect(get1.status).toBe(200);
    expect(get1.body.data.me.credential).toBe('session');
  });
});

describe('cookie attributes with COOKIE_SECURE and SSO_DOMAIN', () => {
  let secure: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    secure = await startTestServer({ COOKIE_SECURE: 'true', SSO_DOMAIN: 'example.test' });
    user = await createUser(secure.services, { scopes: ['read:returns'] });
  });

  afterAll(async () => {
    await secure?.close();
  });

  it('the cookie is Secure and set on the parent domain', async () => {
    const response = await signIn(secure.url, { email: user.email, password: user.password });
    expect(response.status).toBe(303);
    const [cookie] = response.setCookies;
    const attributes = cookie
      .split(';')
      .slice(1)
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'secure', 'samesite=lax', 'domain=example.test', 'path=/']));
  });

  it('signing out clears the cookie on the same domain', async () => {
    const response = await fetch(`${secure.url}/logout`, { method: 'POST', redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login');
    const [cookie] = response.headers.getSetCookie();
    expect(cookie).toMatch(/^sso_token=;/);
    expect(cookie.toLowerCase()).toContain('domain=example.test');
    expect(cookie).toMatch(/Expires=Thu, 01 Jan 1970/);
  });
});

describe('an external login host (LOGIN_URL)', () => {
  let external: TestServer;

  beforeAll(async () => {
    external = await startTestServer({ LOGIN_URL: 'https://login.example.test/sso/start' });
  });

  afterAll(async () => {
    await external?.close();
  });

  it('a browser without the cookie is redirected to the login host with return_to', async () => {
    for (const [path, returnPath] of [
      ['/', '/'],
      ['/login?next=/api/returns/comparison', '/api/returns/comparison'],
    ]) {
      const response = await fetch(`${external.url}${path}`, { redirect: 'manual', headers: { accept: 'text/html' } });
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe('https://login.example.test/sso/start');
      expect(location.searchParams.get('return_to')).toBe(`${external.url}${returnPath}`);
    }
  });

  it('API requests still get 401 JSON, and the built-in sign-in is off', async () => {
    const api = await fetch(`${external.url}${COMPARISON}`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual(INVALID_KEY);
    const post = await signIn(external.url, { email: 'a@b.test', password: 'x' });
    expect(post.status).toBe(404);
    expect(JSON.parse(post.text)).toEqual({ error: 'Sign-in is handled by the external login host' });
  });
});
