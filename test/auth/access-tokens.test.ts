/**
 * Personal access tokens (`pat_` + 32 hex) as clients meet them: created, listed and revoked from a
 * signed-in session through GraphQL (the secret shown once), used as `Authorization: Bearer` on
 * REST and GraphQL (and refused in `x-api-key`), scopes, revocation, expiry, separation from API
 * keys and between users, input validation, and the operators' CLI (`token:create`, `token:list`,
 * `token:revoke`) run as a child process against the same database. Real server, real HTTP.
 */
import { lastLine, runCli, type CliRun } from '../helpers/cli.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser, signInCookie } from '../helpers/fixtures.ts';
import { graphql, type GraphQLResponse } from '../helpers/returns-data.ts';
import { hashSecret } from '../../src/auth/api-keys.ts';

const TOKEN = /^pat_[0-9a-f]{32}$/;
const TOKEN_PREFIX = /^pat_[0-9a-f]{8}$/;
const INVALID_KEY = { error: 'Invalid or expired API key' };
const INSUFFICIENT = { error: 'Insufficient permissions' };
const SESSION_ONLY = 'Personal access tokens can only be managed from a signed-in session';
const DAY_MS = 86_400_000;
const MISSING = '00000000-0000-4000-8000-000000000000';

const CREATE_TOKEN = `mutation Create($input: CreateAccessTokenInput!, $currentPassword: String) {
  createAccessToken(input: $input, currentPassword: $currentPassword) { key accessToken { id prefix name scopes createdAt expiresAt lastUsedAt revokedAt active } } }`;
const LIST_TOKENS = `{ accessTokens { id prefix name scopes expiresAt lastUsedAt revokedAt active } }`;
const REVOKE_TOKEN = `mutation Revoke($id: UUID!) { revokeAccessToken(id: $id) { id prefix revokedAt active } }`;
const CREATE_KEY = `mutation Create($input: CreateApiKeyInput!, $currentPassword: String) {
  createApiKey(input: $input, currentPassword: $currentPassword) { key apiKey { id prefix } } }`;
const LIST_KEYS = `{ apiKeys { id prefix name } }`;
const REVOKE_KEY = `mutation Revoke($id: UUID!) { revokeApiKey(id: $id) { id revokedAt active } }`;
const ME = `{ me { credential scopes user { email } } }`;

interface TokenRecord {
  id: string;
  prefix: string;
  name: string;
  scopes: string[];
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  active: boolean;
}

let server: TestServer;
/** An admin with an admin API key ("test"). */
let owner: TestUser;
let ownerCookie: string;
/** A member (no admin scope) with a read:workspace API key. */
let member: TestUser;
let memberCookie: string;
/** Another admin, in another organization. */
let stranger: TestUser;
let strangerCookie: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function rest(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) {
  return getJson(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const gql = (headers: Record<string, string>, query: string, variables: Record<string, unknown> = {}) => graphql(server.url, headers, query, variables);

/** The password of the user each session cookie belongs to: creating a credential from a session asks for it. */
const passwords = new Map<string, string>();

async function signIn(user: TestUser): Promise<string> {
  const cookie = await signInCookie(server.url, user);
  passwords.set(cookie, user.password);
  return cookie;
}

function errorOf(response: GraphQLResponse): { code: string; message: string; field?: string } {
  expect(response.body.errors?.length, JSON.stringify(response.body)).toBeGreaterThan(0);
  const [error] = response.body.errors!;
  return { code: error.extensions?.code, message: error.message, field: error.extensions?.field };
}

async function createToken(cookie: string, input: Record<string, unknown>): Promise<{ key: string; token: TokenRecord }> {
  const response = await gql({ cookie }, CREATE_TOKEN, { input, currentPassword: passwords.get(cookie) });
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return { key: response.body.data.createAccessToken.key, token: response.body.data.createAccessToken.accessToken };
}

async function listTokens(cookie: string): Promise<TokenRecord[]> {
  const response = await gql({ cookie }, LIST_TOKENS);
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data.accessTokens;
}

const countTokens = (userId: string) => server.services.prisma.apiKey.count({ where: { userId, kind: 'access_token' } });

beforeAll(async () => {
  // Every creation from a session checks the password against the per-user sign-in budget
  // (10 a minute by default); this file creates many more. That budget is tested in sessions.test.ts.
  server = await startTestServer({ LOGIN_ATTEMPTS_PER_MINUTE: '10000' });
  owner = await createUser(server.services);
  member = await createUser(server.services, { role: 'member', scopes: ['read:workspace'] });
  stranger = await createUser(server.services);
  [ownerCookie, memberCookie, strangerCookie] = await Promise.all([signIn(owner), signIn(member), signIn(stranger)]);
});

afterAll(async () => {
  await server?.close();
});

describe('managing tokens from a signed-in session', () => {
  it('createAccessToken returns the secret once: pat_ + 32 hex, prefix = its first 12 characters, scopes, expiry from 30d', async () => {
    const before = Date.now();
    const { key, token } = await createToken(ownerCookie, { name: '  agent  ', scopes: ['read:workspace', 'write:workspace'], expiresIn: '30d' });
    const after = Date.now();
    expect(key).toMatch(TOKEN);
    expect(token.prefix).toBe(key.slice(0, 12));
    expect(token.prefix).toMatch(TOKEN_PREFIX);
    expect(token).toMatchObject({ name: 'agent', scopes: ['read:workspace', 'write:workspace'], lastUsedAt: null, revokedAt: null, active: true });
    const expiresAt = Date.parse(token.expiresAt!);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 30 * DAY_MS + 1_000);

    // listed, but the secret is never shown again
    const listed = await gql({ cookie: ownerCookie }, LIST_TOKENS);
    const { createdAt: _createdAt, ...listedFields } = token as TokenRecord & { createdAt: string };
    expect(listed.body.data.accessTokens.find((t: TokenRecord) => t.id === token.id)).toEqual(listedFields);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(12));

    // stored as a hash of the secret, with the token kind
    const row = await server.services.prisma.apiKey.findUniqueOrThrow({ where: { id: token.id } });
    expect(row).toMatchObject({ kind: 'access_token', prefix: token.prefix, secretHash: hashSecret(key), userId: owner.userId });
    expect(JSON.stringify(row)).not.toContain(key);
  });

  it('a token without expiresIn does not expire', async () => {
    const { token } = await createToken(ownerCookie, { name: 'forever', scopes: ['read:pnl'] });
    expect(token).toMatchObject({ expiresAt: null, active: true });
  });

  it('accessTokens lists tokens only (newest first) and apiKeys lists API keys only', async () => {
    const first = await createToken(ownerCookie, { name: 'older', scopes: ['read:pnl'] });
    const second = await createToken(ownerCookie, { name: 'newer', scopes: ['read:pnl'] });
    const keyResponse = await gql({ cookie: ownerCookie }, CREATE_KEY, {
      input: { name: 'dashboard key', scopes: ['read:pnl'] },
      currentPassword: owner.password,
    });
    expect(keyResponse.body.errors).toBeUndefined();
    const apiKey = keyResponse.body.data.createApiKey.apiKey as { id: string; prefix: string };
    expect(apiKey.prefix).toMatch(/^sk_[0-9a-f]{8}$/);

    const tokens = await listTokens(ownerCookie);
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    for (const token of tokens) expect(token.prefix).toMatch(TOKEN_PREFIX);
    const ids = tokens.map((t) => t.id);
    expect(ids).not.toContain(apiKey.id);
    expect(ids.indexOf(second.token.id)).toBeLessThan(ids.indexOf(first.token.id));

    const keys = (await gql({ cookie: ownerCookie }, LIST_KEYS)).body.data.apiKeys as { id: string; prefix: string; name: string }[];
    for (const key of keys) expect(key.prefix).toMatch(/^sk_[0-9a-f]{8}$/);
    expect(keys.map((k) => k.name).sort()).toEqual(['dashboard key', 'test']);
    expect(keys.map((k) => k.id)).not.toContain(first.token.id);
  });
});

describe('using a token as Authorization: Bearer', () => {
  it("authenticates REST and GraphQL; me.credential is access_token with the token's scopes; lastUsedAt is recorded", async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'workspace agent', scopes: ['read:workspace', 'write:workspace'] });
    const before = Date.now();
    const created = await rest('POST', '/api/stickies', bearer(key), { content: 'written by an agent' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const listed = await rest('GET', '/api/stickies', bearer(key));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(created.body.data.id);
    // the sticky belongs to the token's owner
    const asOwner = await rest('GET', '/api/stickies', { 'x-api-key': owner.key });
    expect(asOwner.body.data.map((s: { id: string }) => s.id)).toContain(created.body.data.id);

    const me = await gql(bearer(key), ME);
    expect(me.body.errors).toBeUndefined();
    expect(me.body.data.me.credential).toBe('access_token');
    expect([...me.body.data.me.scopes].sort()).toEqual(['read:workspace', 'write:workspace']);
    expect(me.body.data.me.user.email).toBe(owner.email);
    // the scheme is case-insensitive, as HTTP says
    expect((await gql({ authorization: `bearer ${key}` }, ME)).body.data.me.credential).toBe('access_token');
    const after = Date.now();

    const used = (await listTokens(ownerCookie)).find((t) => t.id === token.id)!;
    expect(used.lastUsedAt).toEqual(expect.any(String));
    expect(Date.parse(used.lastUsedAt!)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(used.lastUsedAt!)).toBeLessThanOrEqual(after + 1_000);
  });

  it('an API key sent as a bearer token still says api_key', async () => {
    const me = await gql(bearer(owner.key), ME);
    expect(me.body.data.me.credential).toBe('api_key');
  });

  it('scopes are enforced: a read:workspace token can read stickies but not write them or read returns (403)', async () => {
    const { key } = await createToken(ownerCookie, { name: 'reader', scopes: ['read:workspace'] });
    expect((await rest('GET', '/api/stickies', bearer(key))).status).toBe(200);
    const write = await rest('POST', '/api/stickies', bearer(key), { content: 'not allowed' });
    expect(write.status).toBe(403);
    expect(write.body).toEqual(INSUFFICIENT);
    const returns = await rest('GET', '/api/returns/comparison', bearer(key));
    expect(returns.status).toBe(403);
    expect(returns.body).toEqual(INSUFFICIENT);
    const me = await gql(bearer(key), ME);
    expect(me.body.data.me.scopes).toEqual(['read:workspace']);
  });

  it('in x-api-key a token is refused like a bad key (401), even beside a valid bearer, on REST and GraphQL', async () => {
    const { key } = await createToken(ownerCookie, { name: 'wrong header', scopes: ['read:workspace'] });
    const response = await rest('GET', '/api/stickies', { 'x-api-key': key });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
    const both = await rest('GET', '/api/stickies', { 'x-api-key': key, ...bearer(key) });
    expect(both.status).toBe(401);
    expect(both.body).toEqual(INVALID_KEY);
    const me = await gql({ 'x-api-key': key }, ME);
    expect(errorOf(me)).toMatchObject({ code: 'UNAUTHENTICATED', message: INVALID_KEY.error });
  });

  it('a request refused because the token was in x-api-key is not recorded as a use (lastUsedAt stays null)', async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'never used', scopes: ['read:workspace'] });
    expect((await rest('GET', '/api/stickies', { 'x-api-key': key })).status).toBe(401);
    const listed = (await listTokens(ownerCookie)).find((t) => t.id === token.id)!;
    expect(listed.lastUsedAt).toBeNull();
  });

  it("a revoked token is 401 at once; revoking twice is harmless; the owner's other credentials keep working", async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'to revoke', scopes: ['read:workspace'] });
    const other = await createToken(ownerCookie, { name: 'kept', scopes: ['read:workspace'] });
    expect((await rest('GET', '/api/stickies', bearer(key))).status).toBe(200);

    const revoked = await gql({ cookie: ownerCookie }, REVOKE_TOKEN, { id: token.id });
    expect(revoked.body.errors).toBeUndefined();
    expect(revoked.body.data.revokeAccessToken).toMatchObject({ id: token.id, prefix: token.prefix, active: false, revokedAt: expect.any(String) });

    const refused = await rest('GET', '/api/stickies', bearer(key));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(INVALID_KEY);
    expect(errorOf(await gql(bearer(key), ME))).toMatchObject({ code: 'UNAUTHENTICATED', message: INVALID_KEY.error });

    const again = await gql({ cookie: ownerCookie }, REVOKE_TOKEN, { id: token.id });
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.revokeAccessToken.revokedAt).toBe(revoked.body.data.revokeAccessToken.revokedAt);
    expect((await listTokens(ownerCookie)).find((t) => t.id === token.id)).toMatchObject({ active: false, revokedAt: expect.any(String) });

    expect((await rest('GET', '/api/stickies', bearer(other.key))).status).toBe(200);
    expect((await rest('GET', '/api/stickies', { 'x-api-key': owner.key })).status).toBe(200);
  });

  it('an expired token is 401 once its expiry passes, and is listed as inactive', async () => {
    const { secret, record } = await server.services.apiKeys.create({
      userId: owner.userId,
      name: 'short-lived',
      scopes: ['read:workspace'],
      expiresAt: new Date(Date.now() + 60_000),
      kind: 'access_token',
    });
    expect(secret).toMatch(TOKEN);
    expect((await rest('GET', '/api/stickies', bearer(secret))).status).toBe(200);
    // its expiry passes (moved into the past rather than waited for)
    await server.services.prisma.apiKey.update({ where: { id: record.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const refused = await rest('GET', '/api/stickies', bearer(secret));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(INVALID_KEY);
    expect(errorOf(await gql(bearer(secret), ME)).code).toBe('UNAUTHENTICATED');
    expect((await listTokens(ownerCookie)).find((t) => t.id === record.id)).toMatchObject({ active: false, revokedAt: null });
  });

  it.each([
    ['pat_xyz', () => 'pat_xyz'],
    ['too short', () => `pat_${'0'.repeat(31)}`],
    ['too long', () => `pat_${'0'.repeat(33)}`],
    ['upper-case hex', () => `PAT_${'A'.repeat(32)}`],
    ['well-formed but unknown', () => `pat_${randomBytes(16).toString('hex')}`],
    ["an API key's hex under the pat_ tag", () => `pat_${owner.key.slice(3)}`],
  ])('a malformed or unknown token (%s) is 401', async (_label, make) => {
    const token = make();
    const response = await rest('GET', '/api/stickies', bearer(token));
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
  });

  it("a wrong secret behind a real token's visible prefix is 401", async () => {
    const { key } = await createToken(ownerCookie, { name: 'prefix target', scopes: ['read:workspace'] });
    const forged = `${key.slice(0, 12)}${randomBytes(12).toString('hex')}`;
    expect(forged).toMatch(TOKEN);
    expect(forged).not.toBe(key);
    const response = await rest('GET', '/api/stickies', bearer(forged));
    expect(response.status).toBe(401);
    expect(response.body).toEqual(INVALID_KEY);
  });
});

describe('only a signed-in session manages tokens', () => {
  it('a token, an API key (x-api-key or bearer) cannot create or revoke tokens (FORBIDDEN)', async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'not a minter', scopes: ['read:workspace', 'write:workspace'] });
    const before = await countTokens(owner.userId);
    for (const headers of [bearer(key), { 'x-api-key': owner.key }, bearer(owner.key)]) {
      // (the right password does not help: these credentials cannot mint others at all)
      const create = await gql(headers, CREATE_TOKEN, { input: { name: 'minted', scopes: ['read:workspace'] }, currentPassword: owner.password });
      expect(errorOf(create), JSON.stringify(headers)).toMatchObject({ code: 'FORBIDDEN', message: SESSION_ONLY });
      expect(create.body.data).toBeNull();
      const revoke = await gql(headers, REVOKE_TOKEN, { id: token.id });
      expect(errorOf(revoke)).toMatchObject({ code: 'FORBIDDEN', message: SESSION_ONLY });
    }
    expect(await countTokens(owner.userId)).toBe(before);
    expect((await listTokens(ownerCookie)).find((t) => t.id === token.id)!.active).toBe(true);
    expect((await rest('GET', '/api/stickies', bearer(key))).status).toBe(200);
  });

  it('a token or API key cannot list tokens either (README: accessTokens needs a signed-in session)', async () => {
    const { key } = await createToken(ownerCookie, { name: 'not a lister', scopes: ['read:workspace'] });
    for (const headers of [bearer(key), { 'x-api-key': owner.key }]) {
      const response = await gql(headers, LIST_TOKENS);
      expect(response.body.data?.accessTokens ?? null, `${JSON.stringify(headers)} listed the tokens`).toBeNull();
      expect(errorOf(response)).toMatchObject({ code: 'FORBIDDEN', message: SESSION_ONLY });
    }
  });

  it('without credentials the token operations are UNAUTHENTICATED', async () => {
    expect(errorOf(await gql({}, LIST_TOKENS))).toMatchObject({ code: 'UNAUTHENTICATED', message: INVALID_KEY.error });
    expect(errorOf(await gql({}, CREATE_TOKEN, { input: { name: 'anon', scopes: ['read:pnl'] } })).code).toBe('UNAUTHENTICATED');
    expect(errorOf(await gql({}, REVOKE_TOKEN, { id: MISSING })).code).toBe('UNAUTHENTICATED');
  });
});

describe('kinds and owners are separate', () => {
  it("revokeAccessToken with an API key's id and revokeApiKey with a token's id are NOT_FOUND; both keep working", async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'kind check', scopes: ['read:workspace'] });
    const apiKeyId = (await gql({ cookie: ownerCookie }, LIST_KEYS)).body.data.apiKeys.find((k: { name: string }) => k.name === 'test').id as string;

    const wrongKind = await gql({ cookie: ownerCookie }, REVOKE_TOKEN, { id: apiKeyId });
    expect(errorOf(wrongKind)).toMatchObject({ code: 'NOT_FOUND', message: 'Access token not found' });
    const wrongKind2 = await gql({ cookie: ownerCookie }, REVOKE_KEY, { id: token.id });
    expect(errorOf(wrongKind2)).toMatchObject({ code: 'NOT_FOUND', message: 'API key not found' });
    expect(errorOf(await gql({ cookie: ownerCookie }, REVOKE_TOKEN, { id: MISSING })).code).toBe('NOT_FOUND');

    expect((await rest('GET', '/api/stickies', { 'x-api-key': owner.key })).status).toBe(200);
    expect((await rest('GET', '/api/stickies', bearer(key))).status).toBe(200);
  });

  it("another user's token is NOT_FOUND to revoke and absent from their list", async () => {
    const { key, token } = await createToken(ownerCookie, { name: 'owner only', scopes: ['read:workspace'] });
    const response = await gql({ cookie: strangerCookie }, REVOKE_TOKEN, { id: token.id });
    expect(errorOf(response)).toMatchObject({ code: 'NOT_FOUND', message: 'Access token not found' });
    expect((await listTokens(strangerCookie)).map((t) => t.id)).not.toContain(token.id);
    expect((await rest('GET', '/api/stickies', bearer(key))).status).toBe(200);
    // and the token sees only its owner's data
    const mine = await rest('POST', '/api/stickies', { 'x-api-key': stranger.key }, { content: 'stranger note' });
    expect(mine.status).toBe(201);
    const seen = await rest('GET', '/api/stickies?limit=200', bearer(key));
    expect(seen.body.data.map((s: { id: string }) => s.id)).not.toContain(mine.body.data.id);
  });

  it('the per-user limit counts each kind on its own: a full set of active API keys does not block a token', async () => {
    const limit = server.services.config.auth.maxActiveCredentials.api_key;
    const held = await server.services.prisma.apiKey.count({ where: { userId: stranger.userId, kind: 'api_key', revokedAt: null } });
    await server.services.prisma.apiKey.createMany({
      data: Array.from({ length: limit - held }, (_, i) => {
        const secret = `sk_${randomBytes(16).toString('hex')}`;
        return {
          userId: stranger.userId,
          kind: 'api_key' as const,
          name: `filler ${i}`,
          prefix: secret.slice(0, 11),
          secretHash: hashSecret(secret),
          scopes: ['read:pnl'],
        };
      }),
    });
    const key = await gql({ cookie: strangerCookie }, CREATE_KEY, {
      input: { name: 'one too many', scopes: ['read:pnl'] },
      currentPassword: stranger.password,
    });
    expect(errorOf(key).code).toBe('CONFLICT');
    const { key: token } = await createToken(strangerCookie, { name: 'still fine', scopes: ['read:workspace'] });
    expect(token).toMatch(TOKEN);
  });
});

describe('createAccessToken input validation', () => {
  it.each([
    ['empty scopes', { name: 'x', scopes: [] }, 'BAD_USER_INPUT'],
    ['an unknown scope', { name: 'x', scopes: ['read:workspace', 'root'] }, 'BAD_USER_INPUT'],
    ['an empty name', { name: '   ', scopes: ['read:workspace'] }, 'BAD_USER_INPUT'],
    ['a name over 100 characters', { name: 'n'.repeat(101), scopes: ['read:workspace'] }, 'BAD_USER_INPUT'],
    ['expiresIn not a duration or date', { name: 'x', scopes: ['read:workspace'], expiresIn: 'soon' }, 'BAD_USER_INPUT'],
    ['expiresIn with an unknown unit', { name: 'x', scopes: ['read:workspace'], expiresIn: '30x' }, 'BAD_USER_INPUT'],
    ['expiresIn of zero', { name: 'x', scopes: ['read:workspace'], expiresIn: '0d' }, 'BAD_USER_INPUT'],
    ['expiresIn in the past', { name: 'x', scopes: ['read:workspace'], expiresIn: new Date(Date.now() - 60_000).toISOString() }, 'BAD_USER_INPUT'],
    ['expiresIn over 40 characters', { name: 'x', scopes: ['read:workspace'], expiresIn: `${'1'.repeat(40)}d` }, 'BAD_USER_INPUT'],
    ['expiresIn beyond any representable date', { name: 'x', scopes: ['read:workspace'], expiresIn: '999999999d' }, 'BAD_USER_INPUT'],
  ])('%s is refused (%s) and creates nothing', async (_label, input, code) => {
    const before = await countTokens(owner.userId);
    const response = await gql({ cookie: ownerCookie }, CREATE_TOKEN, { input, currentPassword: owner.password });
    expect(errorOf(response).code).toBe(code);
    expect(response.body.data?.createAccessToken ?? null).toBeNull();
    expect(await countTokens(owner.userId)).toBe(before);
  });

  it('a member cannot grant the admin scope (FORBIDDEN) but can grant the scopes of the role; an admin can grant admin', async () => {
    const escalate = await gql({ cookie: memberCookie }, CREATE_TOKEN, {
      input: { name: 'escalate', scopes: ['read:workspace', 'admin'] },
      currentPassword: member.password,
    });
    expect(errorOf(escalate)).toMatchObject({ code: 'FORBIDDEN', message: INSUFFICIENT.error });
    expect(await countTokens(member.userId)).toBe(0);

    const { key } = await createToken(memberCookie, { name: 'member token', scopes: ['read:workspace', 'write:workspace', 'read:returns'] });
    const me = await gql(bearer(key), ME);
    expect([...me.body.data.me.scopes].sort()).toEqual(['read:returns', 'read:workspace', 'write:workspace']);
    expect(me.body.data.me.user.email).toBe(member.email);

    const { token } = await createToken(ownerCookie, { name: 'admin token', scopes: ['admin'] });
    expect(token.scopes).toEqual(['admin']);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run -s cli -- ...` as an operator runs it, against the test server's database. */

function cli(args: string[]): Promise<CliRun> {
  return runCli(args, { DATA_DIR: server.dataDir, DATABASE_URL: server.services.config.databaseUrl ?? '' });
}

function json(run: Run): any {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

describe('CLI token:create, token:list, token:revoke', () => {
  /** A user of their own, holding one API key (from createUser) and the tokens made here. */
  let operator: TestUser;
  let cliToken: string;

  beforeAll(async () => {
    operator = await createUser(server.services, { role: 'admin' });
  });

  it('token:create prints the token alone on the last stdout line; it works as a bearer token with its scopes', async () => {
    const run = await cli(['token:create', '--email', operator.email, '--scopes', 'read:workspace', '--name', 'cli agent', '--expires-in', '30d']);
    expect(run.code, run.stderr).toBe(0);
    cliToken = lastLine(run.stdout);
    expect(cliToken).toMatch(TOKEN);
    expect(run.stdout).toContain(`Created access token ${cliToken.slice(0, 12)} "cli agent" for ${operator.email}`);
    expect(run.stderr).not.toContain(cliToken);

    expect((await rest('GET', '/api/stickies', bearer(cliToken))).status).toBe(200);
    const write = await rest('POST', '/api/stickies', bearer(cliToken), { content: 'nope' });
    expect(write.status).toBe(403);
    const me = await gql(bearer(cliToken), ME);
    expect(me.body.data.me).toEqual({ credential: 'access_token', scopes: ['read:workspace'], user: { email: operator.email } });
    // in x-api-key, refused
    expect((await rest('GET', '/api/stickies', { 'x-api-key': cliToken })).status).toBe(401);
  });

  it('token:create without --scopes grants every scope of the role except admin (--json)', async () => {
    const [asAdmin, asMember] = await Promise.all([
      cli(['token:create', '--email', operator.email, '--json']),
      cli(['token:create', '--email', member.email, '--name', 'member cli', '--json']),
    ]);
    const admin = json(asAdmin);
    expect(admin.token).toMatch(TOKEN);
    expect(admin).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      prefix: admin.token.slice(0, 12),
      name: expect.stringMatching(/^cli \d{4}-\d{2}-\d{2}$/),
      scopes: ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace', 'write:webhooks'],
      expiresAt: null,
      user: { id: operator.userId, email: operator.email },
    });
    const memberRun = json(asMember);
    expect(memberRun).toMatchObject({
      name: 'member cli',
      scopes: ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace', 'write:webhooks'],
    });
    // usable at once, with the default scopes
    const created = await rest('POST', '/api/stickies', bearer(admin.token), { content: 'default scopes can write' });
    expect(created.status).toBe(201);
    expect((await gql(bearer(memberRun.token), ME)).body.data.me.credential).toBe('access_token');
  });

  it('token:create refuses what createAccessToken refuses', async () => {
    const [escalate, badExpiry, noEmail] = await Promise.all([
      cli(['token:create', '--email', member.email, '--scopes', 'admin', '--json']),
      cli(['token:create', '--email', operator.email, '--expires-in', 'soon', '--json']),
      cli(['token:create', '--json']),
    ]);
    expect(escalate.code).toBe(1);
    expect(escalate.stdout).toBe('');
    expect(escalate.stderr).toMatch(/Insufficient permissions/);
    expect(badExpiry.code).toBe(1);
    expect(badExpiry.stderr).toMatch(/expiresIn/);
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toMatch(/needs --email/);
  });

  it("token:revoke refuses a malformed prefix, an API key's prefix and an unknown token (exit 1, message on stderr)", async () => {
    const [malformed, keyPrefix, unknown, keyRevokeOfToken] = await Promise.all([
      cli(['token:revoke', '--prefix', 'pat_xyz']),
      cli(['token:revoke', '--prefix', operator.key.slice(0, 11)]),
      cli(['token:revoke', '--prefix', 'pat_00000000', '--json']),
      cli(['key:revoke', '--prefix', cliToken.slice(0, 12)]),
    ]);
    for (const run of [malformed, keyPrefix]) {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/Invalid prefix: expected pat_ followed by 8 hex characters/);
    }
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/Access token pat_00000000 not found/);
    expect(keyRevokeOfToken.code).toBe(1);
    expect(keyRevokeOfToken.stderr).toMatch(/Invalid prefix: expected sk_/);
    // nothing was revoked
    expect((await rest('GET', '/api/stickies', bearer(cliToken))).status).toBe(200);
    expect((await rest('GET', '/api/stickies', { 'x-api-key': operator.key })).status).toBe(200);
  });

  it("token:revoke with a token's prefix revokes it (then 401), again says already revoked; token:list --json shows tokens only", async () => {
    const prefix = cliToken.slice(0, 12);
    const run = await cli(['token:revoke', '--prefix', prefix]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Revoked: ${prefix} "cli agent" of ${operator.email.replace(/\./g, '\\.')}`));
    const refused = await rest('GET', '/api/stickies', bearer(cliToken));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(INVALID_KEY);

    const [again, listRun] = await Promise.all([cli(['token:revoke', '--prefix', prefix, '--json']), cli(['token:list', '--email', operator.email, '--json'])]);
    expect(json(again)).toMatchObject({ prefix, alreadyRevoked: true, user: { email: operator.email } });

    // token:list --json: the user's tokens only (not the API key), without secrets
    const listed = json(listRun);
    expect(listed.user).toEqual({ id: operator.userId, email: operator.email });
    expect(listed.tokens).toHaveLength(2);
    for (const token of listed.tokens) {
      expect(token.prefix).toMatch(TOKEN_PREFIX);
      expect(Object.keys(token).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes', 'state']);
    }
    const revoked = listed.tokens.find((t: { prefix: string }) => t.prefix === prefix);
    expect(revoked).toMatchObject({
      name: 'cli agent',
      scopes: ['read:workspace'],
      state: 'revoked',
      revokedAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    expect(Date.parse(revoked.expiresAt) - Date.now()).toBeGreaterThan(29 * DAY_MS);
    expect(listed.tokens.find((t: { prefix: string }) => t.prefix !== prefix)).toMatchObject({ state: 'active', expiresAt: null, revokedAt: null });
    expect(listRun.stdout).not.toContain(cliToken);
    expect(listRun.stdout).not.toMatch(/secretHash|sk_/);
    // the operator's API key is untouched
    expect((await rest('GET', '/api/stickies', { 'x-api-key': operator.key })).status).toBe(200);
  });
});
