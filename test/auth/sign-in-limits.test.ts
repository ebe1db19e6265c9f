/**
 * The sign-in page's limits and what its answers give away (issue 23, items 5 to 7): guesses are
 * capped per client address and per target account whatever credential the client presents, a
 * refused attempt checks no password and says when to come back; an attempt costs one password
 * hash whether the email has an account or not; and no page of /login can be framed.
 * A real server, real HTTP; argon2's `verify` is the real one, wrapped only to count its calls
 * (the equal-cost rule is checked by counting hash verifications, not by timing them).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verify } from '@node-rs/argon2';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, type TestUser } from '../helpers/fixtures.ts';

vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...actual, verify: vi.fn(actual.verify) };
});

/** The default LOGIN_ATTEMPTS_PER_MINUTE, set explicitly so that the test says what it counts. */
const LIMIT = 10;
const TOO_MANY = 'Too many sign-in attempts';
const WRONG = 'Wrong email or password.';

let server: TestServer;
const verifications = vi.mocked(verify);

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

let clientAddress = 0;
/** A loopback address no other test in this file has used: a client address of its own. */
function freshAddress(): string {
  clientAddress += 1;
  if (clientAddress > 250) throw new Error('out of client addresses');
  return `127.0.3.${clientAddress}`;
}

/** A request from a chosen client address; redirects are not followed. */
function request(
  method: 'GET' | 'POST',
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer; from?: string } = {},
): Promise<RawResponse> {
  const body = options.body ?? '';
  return new Promise((resolve, reject) => {
    const outgoing = http.request(new URL(path, server.url), {
      method,
      localAddress: options.from ?? freshAddress(),
      agent: false,
      headers: { 'content-length': String(Buffer.byteLength(body)), ...options.headers },
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** POST /login with these fields, credentials (headers) and client address. */
function postLogin(fields: Record<string, string>, options: { headers?: Record<string, string>; from?: string } = {}): Promise<RawResponse> {
  return request('POST', '/login', { headers: { ...FORM, ...options.headers }, body: new URLSearchParams(fields).toString(), from: options.from });
}

/** Signs in (from an address of its own); returns the session token. */
async function sessionOf(user: TestUser): Promise<string> {
  const response = await postLogin({ email: user.email, password: user.password });
  expect(response.status, response.text).toBe(303);
  const cookie = (response.headers['set-cookie'] ?? []).find((c) => c.startsWith('sso_token='));
  return decodeURIComponent(cookie!.split(';')[0].slice('sso_token='.length));
}

/** Every credential one attacker owns, and none: each used to buy fresh guesses before. */
async function attackerCredentials(): Promise<Record<string, Record<string, string>>> {
  const attacker = await createUser(server.services);
  const session = await sessionOf(attacker);
  const token = await createAccessToken(server.services, attacker.userId);
  return {
    'no credential': {},
    'own API key': { 'x-api-key': attacker.key },
    'own session cookie': { cookie: `sso_token=${session}` },
    'own session as bearer': { authorization: `Bearer ${session}` },
    'own access token': { authorization: `Bearer ${token}` },
  };
}

const unknownEmail = () => `nobody-${randomBytes(4).toString('hex')}@test.local`;

/** A sign-in refused by the limits: 429 with Retry-After, the sign-in page, no session, and no password checked. */
async function expectRefusedUnchecked(attempt: () => Promise<RawResponse>, label: string): Promise<RawResponse> {
  const checkedBefore = verifications.mock.calls.length;
  const response = await attempt();
  expect(response.status, `${label}: ${response.text}`).toBe(429);
  expect(response.text, label).toContain(TOO_MANY);
  expect(response.headers['set-cookie'], label).toBeUndefined();
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${label}: Retry-After ${response.headers['retry-after']}`).toBe(true);
  expect(verifications.mock.calls.length - checkedBefore, `${label}: passwords checked`).toBe(0);
  return response;
}

beforeAll(async () => {
  server = await startTestServer({ LOGIN_ATTEMPTS_PER_MINUTE: String(LIMIT) });
});

afterAll(async () => {
  await server?.close();
});

describe('sign-in attempts are limited per client address and per account, whatever credential comes with them', () => {
  it('an address that has spent its attempts gets 429 with Retry-After for every credential it presents, and checks no password', async () => {
    const victim = await createUser(server.services);
    const credentials = await attackerCredentials();
    const address = freshAddress();
    // Each against another (unknown) email, so that only the address's budget is spent.
    for (let attempt = 1; attempt <= LIMIT; attempt++) {
      expect((await postLogin({ email: unknownEmail(), password: 'guess' }, { from: address })).status, `attempt ${attempt}`).toBe(401);
    }
    // Twice per credential: more refused attempts against the victim than the account's budget.
    for (const round of [1, 2]) {
      for (const [label, headers] of Object.entries(credentials)) {
        await expectRefusedUnchecked(
          () => postLogin({ email: victim.email, password: `guess-${round}` }, { headers, from: address }),
          `${label}, round ${round}`,
        );
      }
    }
    await expectRefusedUnchecked(() => postLogin({ email: victim.email, password: victim.password }, { from: address }), 'the right password');
    // Attempts the address was refused spent nothing of the victim's account: its owner signs in elsewhere.
    expect((await postLogin({ email: victim.email, password: victim.password })).status).toBe(303);
  });

  it('an account gets its attempts a minute across addresses and credentials, then even its owner waits (the lockout trade-off)', async () => {
    const victim = await createUser(server.services);
    const bystander = await createUser(server.services);
    const credentials = Object.values(await attackerCredentials());
    for (let attempt = 1; attempt <= LIMIT; attempt++) {
      const headers = credentials[attempt % credentials.length];
      expect((await postLogin({ email: victim.email, password: `guess-${attempt}` }, { headers })).status, `attempt ${attempt}`).toBe(401);
    }
    for (const [label, headers] of credentials.entries()) {
      await expectRefusedUnchecked(() => postLogin({ email: victim.email, password: 'one more guess' }, { headers }), `credential ${label}`);
    }
    // The email is matched as the account is: another spelling is the same account.
    await expectRefusedUnchecked(() => postLogin({ email: ` ${victim.email.toUpperCase()} `, password: 'guess' }), 'the email in capitals');
    await expectRefusedUnchecked(() => postLogin({ email: victim.email, password: victim.password }), 'the owner, with the right password');
    // Per account, not for everyone: another account signs in as usual.
    expect((await postLogin({ email: bystander.email, password: bystander.password })).status).toBe(303);
  });

  it("a session's re-authentication (currentPassword) spends the same account budget: a stolen session brings no extra guesses", async () => {
    const victim = await createUser(server.services);
    const session = await sessionOf(victim);
    const createKey = (password: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `sso_token=${session}`, origin: server.url },
        body: JSON.stringify({
          query: 'mutation ($p: String) { createApiKey(input: { name: "k", scopes: ["read:workspace"] }, currentPassword: $p) { key } }',
          variables: { p: password },
        }),
      }).then((response) => response.json() as Promise<{ errors?: { extensions: { code: string } }[] }>);
    // The sign-in above was one attempt; the rest of the minute's budget goes on guesses through the session.
    for (let attempt = 2; attempt <= LIMIT; attempt++)
      expect((await createKey(`guess-${attempt}`)).errors?.[0]?.extensions.code, `guess ${attempt}`).toBe('FORBIDDEN');
    expect((await createKey('one more guess')).errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
    await expectRefusedUnchecked(() => postLogin({ email: victim.email, password: victim.password }), 'the sign-in page, same account');
  });

  it('an unknown email is limited exactly like an existing one, so the limit does not tell which exist', async () => {
    const existing = await createUser(server.services);
    const statusesFor = async (email: string) => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt <= LIMIT; attempt++) statuses.push((await postLogin({ email, password: `guess-${attempt}` })).status);
      return statuses;
    };
    const expected = [...Array<number>(LIMIT).fill(401), 429];
    expect(await statusesFor(existing.email)).toEqual(expected);
    expect(await statusesFor(unknownEmail())).toEqual(expected);
  });
});

describe('a sign-in costs one password hash whether or not the email has an account', () => {
  const ARGON2_PARAMETERS = /^\$argon2id\$v=\d+\$m=\d+,t=\d+,p=\d+\$/;
  let storedParameters: string;

  beforeEach(async () => {
    const user = await createUser(server.services);
    const stored = await server.services.prisma.user.findUniqueOrThrow({ where: { id: user.userId }, select: { passwordHash: true } });
    storedParameters = ARGON2_PARAMETERS.exec(stored.passwordHash!)![0];
  });

  /** The hashes verified while `attempt` ran. */
  async function hashesVerifiedBy(attempt: () => Promise<RawResponse>, status: number): Promise<string[]> {
    const before = verifications.mock.calls.length;
    const response = await attempt();
    expect(response.status, response.text).toBe(status);
    expect(response.text).toContain(WRONG);
    return verifications.mock.calls.slice(before).map(([hash]) => String(hash));
  }

  it('an existing email, an unknown one, a user without a password and a malformed email each verify one hash made with the same parameters', async () => {
    const known = await createUser(server.services);
    const external = await createUser(server.services);
    await server.services.prisma.user.update({ where: { id: external.userId }, data: { passwordHash: null } });
    const attempts: Record<string, Record<string, string>> = {
      'existing email, wrong password': { email: known.email, password: 'wrong' },
      'unknown email': { email: unknownEmail(), password: 'wrong' },
      'user without a password': { email: external.email, password: 'anything' },
      'email with a NUL': { email: `${known.email}\u0000`, password: 'wrong' },
    };
    for (const [label, fields] of Object.entries(attempts)) {
      const hashes = await hashesVerifiedBy(() => postLogin(fields), 401);
      expect(hashes, label).toHaveLength(1);
      expect(ARGON2_PARAMETERS.exec(hashes[0])?.[0], label).toBe(storedParameters);
    }
  });
});

describe('no page of /login can be framed', () => {
  function expectUnframeable(response: RawResponse, label: string) {
    expect(response.headers['content-type'], label).toMatch(/^text\/html/);
    expect(response.headers['x-frame-options'], label).toBe('DENY');
    const policy = String(response.headers['content-security-policy']);
    expect(policy, label).toContain("frame-ancestors 'none'");
    // No scripts run there (none are sent either); the page's inline style and data: icon may load.
    expect(policy, label).toContain("default-src 'none'");
    expect(policy, label).not.toContain('script-src');
    expect(policy, label).toContain("style-src 'unsafe-inline'");
    expect(response.text, label).not.toMatch(/<script/i);
  }

  it('the form, a wrong sign-in, a form it cannot read and a refused attempt all say DENY and frame-ancestors none', async () => {
    const spent = freshAddress();
    for (let attempt = 1; attempt <= LIMIT; attempt++) await postLogin({ email: unknownEmail(), password: 'guess' }, { from: spent });
    const pages: [string, Promise<RawResponse>, number][] = [
      ['GET /login', request('GET', '/login?next=%2Fsettings'), 200],
      ['wrong password', postLogin({ email: unknownEmail(), password: 'wrong' }), 401],
      ['form over 16 KB', postLogin({ email: unknownEmail(), password: 'p'.repeat(20_000) }), 413],
      [
        'form in utf-16',
        request('POST', '/login', {
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' },
          body: Buffer.from('email=a', 'utf16le'),
        }),
        415,
      ],
      ['broken gzip', request('POST', '/login', { headers: { ...FORM, 'content-encoding': 'gzip' }, body: 'not gzip' }), 400],
      ['too many attempts', postLogin({ email: unknownEmail(), password: 'guess' }, { from: spent }), 429],
    ];
    for (const [label, pending, status] of pages) {
      const response = await pending;
      expect(response.status, label).toBe(status);
      expectUnframeable(response, label);
    }
  });
});
