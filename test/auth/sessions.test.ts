/**
 * Sessions end when their user signs out, on every instance; a session cannot turn itself into
 * a credential that outlives it without the password; a user holds a bounded number of keys and
 * tokens; and /login answers bodies it cannot read, or an email with a NUL in it, with a clear 4xx.
 * Real servers (two sharing one database on PostgreSQL), real HTTP, no mocks.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, type GraphQLResponse } from '../helpers/returns-data.ts';
import { sessionTokenHash } from '../../src/auth/sessions.ts';

const SSO_SECRET = `sessions-test-secret-${'x'.repeat(32)}`;
const INVALID_SESSION = { error: 'Invalid or expired session' };
const INVALID_KEY = { error: 'Invalid or expired API key' };
/** Small caps, so that reaching them takes a few requests. */
const MAX_KEYS = 3;
const MAX_TOKENS = 2;
const ME = '{ me { credential passwordRequired user { email } } }';
const CREATE_KEY = `mutation Create($input: CreateApiKeyInput!, $currentPassword: String) {
  createApiKey(input: $input, currentPassword: $currentPassword) { key apiKey { id expiresAt } } }`;
const CREATE_TOKEN = `mutation Create($input: CreateAccessTokenInput!, $currentPassword: String) {
  createAccessToken(input: $input, currentPassword: $currentPassword) { key accessToken { id expiresAt } } }`;
const REVOKE_KEY = `mutation Revoke($id: UUID!) { revokeApiKey(id: $id) { id } }`;

let server: TestServer;

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

let clientAddress = 0;
/** Another loopback address per sign-in: the sign-in budget is per client address. */
function nextClientAddress(): string {
  clientAddress += 1;
  return `127.0.2.${(clientAddress % 250) + 1}`;
}

/** A POST exactly as given (headers and bytes), from a chosen client address; redirects are not followed. */
function post(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer = '',
  localAddress = nextClientAddress(),
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, baseUrl), {
      method: 'POST',
      localAddress,
      agent: false,
      headers: { 'content-length': String(Buffer.byteLength(body)), ...headers },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function postLogin(fields: Record<string, string>, baseUrl = server.url): Promise<RawResponse> {
  return post(baseUrl, '/login', FORM, new URLSearchParams(fields).toString());
}

/** Signs in through /login; returns the session token (the sso_token cookie's value). */
async function signIn(user: Pick<TestUser, 'email' | 'password'>, baseUrl = server.url): Promise<string> {
  const response = await postLogin({ email: user.email, password: user.password }, baseUrl);
  expect(response.status, response.text).toBe(303);
  const cookie = (response.headers['set-cookie'] ?? []).find((c) => c.startsWith('sso_token='));
  expect(cookie).toBeDefined();
  return decodeURIComponent(cookie!.split(';')[0].slice('sso_token='.length));
}

/** A session token as an external identity provider sharing SSO_JWT_SECRET issues it. */
function sessionJwt(claims: Record<string, unknown>, expiresAtSeconds: number): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expiresAtSeconds).sign(new TextEncoder().encode(SSO_SECRET));
}

const cookieOf = (token: string) => ({ cookie: `sso_token=${token}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function signOut(headers: Record<string, string>, baseUrl = server.url): Promise<RawResponse> {
  return post(baseUrl, '/logout', headers);
}

/** GET /status (any valid credential) with these headers. */
const status = (headers: Record<string, string>, baseUrl = server.url) => getJson(`${baseUrl}/status`, { headers });

function errorOf(response: GraphQLResponse): { code: string; message: string } {
  expect(response.body.errors?.length, JSON.stringify(response.body)).toBeGreaterThan(0);
  const [error] = response.body.errors!;
  return { code: error.extensions?.code, message: error.message };
}

function createKey(headers: Record<string, string>, currentPassword?: string, input: Record<string, unknown> = { name: 'script', scopes: ['read:returns'] }) {
  return graphql(server.url, headers, CREATE_KEY, { input, ...(currentPassword === undefined ? {} : { currentPassword }) });
}

beforeAll(async () => {
  server = await startTestServer({ SSO_JWT_SECRET: SSO_SECRET, MAX_API_KEYS_PER_USER: String(MAX_KEYS), MAX_ACCESS_TOKENS_PER_USER: String(MAX_TOKENS) });
});

afterAll(async () => {
  await server?.close();
});

describe('signing out ends the session on the server', () => {
  it('a cookie captured before /logout is refused after it, as a cookie and as a bearer token, like an expired one', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    expect((await status(cookieOf(token))).status).toBe(200);
    expect((await status(bearer(token))).status).toBe(200);

    const out = await signOut(cookieOf(token));
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login');

    // The copy still held (by another tab, or by whoever took it) no longer works anywhere.
    const asCookie = await status(cookieOf(token));
    expect(asCookie.status).toBe(401);
    expect(asCookie.body).toEqual(INVALID_SESSION);
    const asBearer = await status(bearer(token));
    expect(asBearer.status).toBe(401);
    expect(asBearer.body).toEqual(INVALID_KEY);
    const me = await graphql(server.url, cookieOf(token), ME);
    expect(errorOf(me)).toEqual({ code: 'UNAUTHENTICATED', message: INVALID_SESSION.error });
    const mint = await createKey(bearer(token), user.password);
    expect(errorOf(mint).code).toBe('UNAUTHENTICATED');
    // Exactly what an expired session gets, a browser asking for a page included.
    const expired = await sessionJwt({ email: user.email }, Math.floor(Date.now() / 1000) - 60);
    const answers = async (headers: Record<string, string>) => {
      const page = await fetch(`${server.url}/`, { headers: { ...headers, accept: 'text/html' }, redirect: 'manual' });
      const api = await status(headers);
      return { page: page.status, location: page.headers.get('location'), api: api.status, body: api.body };
    };
    const signedOut = await answers(cookieOf(token));
    expect(signedOut.location).toMatch(/^\/login\?next=/);
    expect(signedOut).toEqual(await answers(cookieOf(expired)));
    expect(await answers(bearer(token))).toEqual(await answers(bearer(expired)));
  });

  it("signing out ends that session only: the user's other sessions and API keys keep working", async () => {
    const user = await createUser(server.services);
    const laptop = await signIn(user);
    const phone = await signIn(user);
    expect(laptop).not.toBe(phone);
    expect((await signOut(cookieOf(laptop))).status).toBe(303);
    expect((await status(cookieOf(laptop))).status).toBe(401);
    expect((await status(cookieOf(phone))).status).toBe(200);
    expect((await status({ 'x-api-key': user.key })).status).toBe(200);
    // signing in again gives a new, working session
    expect((await status(cookieOf(await signIn(user)))).status).toBe(200);
  });

  it('a session token used as a bearer token can be signed out with it', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    expect((await signOut(bearer(token))).status).toBe(303);
    expect((await status(bearer(token))).status).toBe(401);
    expect((await status(cookieOf(token))).status).toBe(401);
  });

  it('a signed-out token re-encoded (its signature spelt differently) is refused too', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    await signOut(cookieOf(token));
    // The last base64url character of a 32-byte signature carries 2 unused bits: flipping them
    // changes the string, not the bytes a lenient decoder reads.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    for (const variant of [last ^ 1, last ^ 2, last ^ 3]) {
      const respelt = token.slice(0, -1) + alphabet[variant];
      expect((await status(cookieOf(respelt))).status, respelt).toBe(401);
    }
  });

  it('the database keeps a hash of the token, never the token; expired records are dropped at a later sign-out', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    const stale = await server.services.prisma.revokedSession.create({ data: { tokenHash: 'f'.repeat(64), expiresAt: new Date(Date.now() - 60_000) } });
    await signOut(cookieOf(token));
    const rows = await server.services.prisma.revokedSession.findMany();
    const row = rows.find((r) => r.tokenHash === sessionTokenHash(token));
    expect(row).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(token.split('.')[2]);
    // stored with the token's own expiry, so that it can be dropped once the token is useless anyway
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { exp: number };
    expect(row!.expiresAt!.getTime()).toBe(exp * 1000);
    expect(rows.find((r) => r.tokenHash === stale.tokenHash)).toBeUndefined();
  });

  it('signing out twice, or without a session, is harmless', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    expect((await signOut(cookieOf(token))).status).toBe(303);
    expect((await signOut(cookieOf(token))).status).toBe(303);
    expect((await signOut({})).status).toBe(303);
    expect((await signOut(cookieOf('not-a-token'))).status).toBe(303);
  });

  it('a sign-out posted from another origin is refused and ends nothing', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    const refused = await signOut({ ...cookieOf(token), origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect((await status(cookieOf(token))).status).toBe(200);
  });
});

describe.runIf(process.env.DATABASE_URL)('signing out on one instance, with another instance sharing the database', () => {
  let second: TestServer;

  beforeAll(async () => {
    // Same database schema and signing secret: two instances of one deployment.
    second = await startTestServer({ SSO_JWT_SECRET: SSO_SECRET, DATABASE_URL: server.services.config.databaseUrl! });
  });

  afterAll(async () => {
    await second?.close();
  });

  it('the session signed out on one instance is refused by the other at once', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user, server.url);
    expect((await status(cookieOf(token), second.url)).status).toBe(200);
    expect((await signOut(cookieOf(token), second.url)).status).toBe(303);
    for (const url of [server.url, second.url]) {
      const asCookie = await status(cookieOf(token), url);
      expect(asCookie.status, url).toBe(401);
      expect(asCookie.body).toEqual(INVALID_SESSION);
      expect((await status(bearer(token), url)).status, url).toBe(401);
    }
  });
});

describe('creating a credential from a session needs the current password', () => {
  it('without the password or with a wrong one it is FORBIDDEN and creates nothing; with it the key is created', async () => {
    const user = await createUser(server.services, { role: 'member', scopes: ['read:returns'] });
    const token = await signIn(user);
    const me = await graphql(server.url, cookieOf(token), ME);
    expect(me.body.data.me).toMatchObject({ credential: 'session', passwordRequired: true });
    const count = () => server.services.prisma.apiKey.count({ where: { userId: user.userId } });
    const before = await count();

    for (const headers of [cookieOf(token), bearer(token)]) {
      const missing = await createKey(headers);
      expect(errorOf(missing)).toEqual({ code: 'FORBIDDEN', message: 'Enter your current password to create an API key' });
      expect(missing.body.data).toBeNull();
      const wrong = await createKey(headers, 'not-the-password');
      expect(errorOf(wrong)).toEqual({ code: 'FORBIDDEN', message: 'The current password is wrong' });
    }
    const noToken = await graphql(server.url, cookieOf(token), CREATE_TOKEN, { input: { name: 'agent', scopes: ['read:workspace'] } });
    expect(errorOf(noToken)).toEqual({ code: 'FORBIDDEN', message: 'Enter your current password to create a personal access token' });
    expect(await count()).toBe(before);
    // the session itself is still valid
    expect((await status(cookieOf(token))).status).toBe(200);

    const created = await createKey(cookieOf(token), user.password, { name: 'never expires', scopes: ['read:returns'] });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createApiKey.apiKey.expiresAt).toBeNull();
    expect((await status({ 'x-api-key': created.body.data.createApiKey.key })).status).toBe(200);
    const viaBearer = await graphql(server.url, bearer(token), CREATE_TOKEN, {
      input: { name: 'agent', scopes: ['read:workspace'] },
      currentPassword: user.password,
    });
    expect(viaBearer.body.errors).toBeUndefined();
  });

  it('an API key or access token still cannot create credentials, password or not', async () => {
    const user = await createUser(server.services);
    const response = await createKey({ 'x-api-key': user.key }, user.password);
    expect(errorOf(response).code).toBe('FORBIDDEN');
    expect((await graphql(server.url, { 'x-api-key': user.key }, ME)).body.data.me.passwordRequired).toBe(false);
  });

  it('password checks count against the sign-in budget of the user (10 a minute): guessing is as slow as on /login', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    // The sign-in was the first of the account's 10 attempts a minute: 9 guesses are left.
    for (let attempt = 2; attempt <= 10; attempt++) {
      expect(errorOf(await createKey(cookieOf(token), `guess-${attempt}`)).code, `attempt ${attempt}`).toBe('FORBIDDEN');
    }
    const limited = await createKey(cookieOf(token), user.password);
    expect(errorOf(limited).code).toBe('RATE_LIMITED');
    expect(await server.services.prisma.apiKey.count({ where: { userId: user.userId } })).toBe(1);
  });

  it('a user without a password (external identity provider) gets credentials that expire no later than the session', async () => {
    const user = await createUser(server.services);
    await server.services.prisma.user.update({ where: { id: user.userId }, data: { passwordHash: null } });
    const sessionEnd = Math.floor(Date.now() / 1000) + 3600;
    const external = await sessionJwt({ email: user.email }, sessionEnd);
    const me = await graphql(server.url, cookieOf(external), ME);
    expect(me.body.data.me).toMatchObject({ credential: 'session', passwordRequired: false });

    const never = await createKey(cookieOf(external), undefined, { name: 'asked for never', scopes: ['read:returns'] });
    expect(never.body.errors).toBeUndefined();
    expect(Date.parse(never.body.data.createApiKey.apiKey.expiresAt)).toBe(sessionEnd * 1000);
    const long = await graphql(server.url, cookieOf(external), CREATE_TOKEN, {
      input: { name: 'asked for 30 days', scopes: ['read:workspace'], expiresIn: '30d' },
    });
    expect(Date.parse(long.body.data.createAccessToken.accessToken.expiresAt)).toBe(sessionEnd * 1000);
    // a shorter expiry than the session's is kept
    const before = Date.now();
    const short = await createKey(cookieOf(external), undefined, { name: 'ten minutes', scopes: ['read:returns'], expiresIn: '10m' });
    const expiresAt = Date.parse(short.body.data.createApiKey.apiKey.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000 - 1_000);
    expect(expiresAt).toBeLessThan(sessionEnd * 1000);
  });
});

describe('per-user caps on active keys and tokens', () => {
  it(`the key beyond MAX_API_KEYS_PER_USER (${MAX_KEYS}) is CONFLICT until one is revoked; expired keys do not count`, async () => {
    // createUser gave the user one key already
    const user = await createUser(server.services);
    const token = await signIn(user);
    const ids: string[] = [];
    for (let i = 2; i <= MAX_KEYS; i++) {
      const created = await createKey(cookieOf(token), user.password, { name: `key ${i}`, scopes: ['read:returns'] });
      expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
      ids.push(created.body.data.createApiKey.apiKey.id);
    }
    const refused = await createKey(cookieOf(token), user.password, { name: 'one too many', scopes: ['read:returns'] });
    expect(errorOf(refused)).toEqual({
      code: 'CONFLICT',
      message: `You already have ${MAX_KEYS} active API keys, the most allowed; revoke one you no longer use, then create a new one`,
    });
    expect(await server.services.prisma.apiKey.count({ where: { userId: user.userId } })).toBe(MAX_KEYS);

    await graphql(server.url, cookieOf(token), REVOKE_KEY, { id: ids[0] });
    // an expired key does not count either
    await server.services.prisma.apiKey.update({ where: { id: ids[1] }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    for (const name of ['after revoking', 'after expiry']) {
      const created = await createKey(cookieOf(token), user.password, { name, scopes: ['read:returns'] });
      expect(created.body.errors, name).toBeUndefined();
    }
    expect(errorOf(await createKey(cookieOf(token), user.password)).code).toBe('CONFLICT');
  });

  it('concurrent creations cannot pass the cap together', async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    const attempts = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createKey(cookieOf(token), user.password, { name: `racer ${i}`, scopes: ['read:returns'] })),
    );
    const created = attempts.filter((response) => !response.body.errors);
    const refused = attempts.filter((response) => response.body.errors?.[0]?.extensions?.code === 'CONFLICT');
    expect(created).toHaveLength(MAX_KEYS - 1);
    expect(refused).toHaveLength(5 - (MAX_KEYS - 1));
    expect(await server.services.prisma.apiKey.count({ where: { userId: user.userId, revokedAt: null } })).toBe(MAX_KEYS);
  });

  it(`access tokens have their own cap, MAX_ACCESS_TOKENS_PER_USER (${MAX_TOKENS})`, async () => {
    const user = await createUser(server.services);
    const token = await signIn(user);
    const create = () =>
      graphql(server.url, cookieOf(token), CREATE_TOKEN, { input: { name: 'agent', scopes: ['read:workspace'] }, currentPassword: user.password });
    for (let i = 1; i <= MAX_TOKENS; i++) expect((await create()).body.errors).toBeUndefined();
    expect(errorOf(await create())).toEqual({
      code: 'CONFLICT',
      message: `You already have ${MAX_TOKENS} active access tokens, the most allowed; revoke one you no longer use, then create a new one`,
    });
  });
});

describe('/login refuses what it cannot read with a 4xx and the sign-in page', () => {
  function expectLoginPage(response: RawResponse, status: number, message: string) {
    expect(response.status, response.text).toBe(status);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toContain('<form method="post" action="/login">');
    expect(response.text).toContain(message);
    expect(response.headers['set-cookie']).toBeUndefined();
  }

  it('a form over 16 KB is 413', async () => {
    const body = new URLSearchParams({ email: 'someone@test.local', password: 'p'.repeat(20_000) }).toString();
    expectLoginPage(await post(server.url, '/login', FORM, body), 413, 'The sign-in form was too large.');
  });

  it('a form in another charset (utf-16) is 415', async () => {
    const body = Buffer.from('email=someone%40test.local&password=x', 'utf16le');
    expectLoginPage(
      await post(server.url, '/login', { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' }, body),
      415,
      'It must be sent as UTF-8.',
    );
  });

  it('a gzip body that is not gzip is 400, an unknown content encoding 415; a real gzip form works', async () => {
    const broken = await post(server.url, '/login', { ...FORM, 'content-encoding': 'gzip' }, Buffer.from('this is not gzip at all'));
    expectLoginPage(broken, 400, 'The sign-in form could not be read.');
    const unknown = await post(server.url, '/login', { ...FORM, 'content-encoding': 'compress' }, 'email=a');
    expectLoginPage(unknown, 415, 'The sign-in form could not be read.');
    const user = await createUser(server.services);
    const gzipped = await post(
      server.url,
      '/login',
      { ...FORM, 'content-encoding': 'gzip' },
      gzipSync(new URLSearchParams({ email: user.email, password: user.password }).toString()),
    );
    expect(gzipped.status).toBe(303);
  });

  it('an email with a NUL or another control character is a wrong sign-in (401), not a server error', async () => {
    const user = await createUser(server.services);
    for (const email of [`${user.email}\u0000`, `\u0000`, `${user.email.slice(0, 3)}\u0000${user.email.slice(3)}`, `${user.email}\u0007`]) {
      const response = await postLogin({ email, password: user.password });
      expectLoginPage(response, 401, 'Wrong email or password.');
      expect(response.text).not.toContain('\u0000');
    }
    // the server is fine and the user can still sign in
    expect((await postLogin({ email: user.email, password: user.password })).status).toBe(303);
  });

  it('a cross-origin sign-in is refused before its body is read (403, not 413)', async () => {
    const body = new URLSearchParams({ email: 'someone@test.local', password: 'p'.repeat(20_000) }).toString();
    const response = await post(server.url, '/login', { ...FORM, origin: 'https://evil.example' }, body);
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toEqual({ error: 'CSRF check failed: cross-origin request' });
  });
});
