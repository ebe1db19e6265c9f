/**
 * What the built-in OAuth 2.1 server promises beyond the happy path (issue 23, items 8 to 13),
 * each checked over real HTTP against a real server, with the official MCP SDK client where a
 * host would use it:
 * - a refresh that narrows `scope` narrows the new access token (RFC 6749 §6);
 * - a refused token request uses nothing up;
 * - a fault is sent to a client's redirect URI only for a client the signed-in user approved
 *   before (RFC 9700 §4.11.2); otherwise it is shown on the server's own page;
 * - redirect URIs come from an allow-list of schemes, and never carry a fragment;
 * - what one registration may store is bounded, unused registrations expire, and the
 *   registration budget is the client address's whatever credential it sends;
 * - an OAuth access token is refused by /graphql and REST like any invalid credential.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, signInCookie } from '../helpers/fixtures.ts';
import { startMaintenance } from '../../src/jobs/maintenance.ts';
import { createLogger } from '../../src/log.ts';

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer({ OAUTH_REQUESTS_PER_MINUTE: '10000' });
  const user = await createUser(server.services, { role: 'member', scopes: ['read:workspace'] });
  cookie = await signInCookie(server.url, user);
}, 60_000);
afterAll(async () => server?.close());

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';
/** A valid PKCE verifier (43 characters) and its S256 challenge. */
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const endpoint = () => new URL('/api/service', server.url);

describe('item 8: a refresh that narrows scope narrows the access token', () => {
  it('issues an access token with only the scopes asked for; the rotated refresh token can ask for the rest again', async () => {
    const host = new HeadlessHost();
    const first = new ModernTransport(endpoint(), { authProvider: host as never });
    await expect(new ModernClient({ name: 'oauth-promises', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await consent(host.authorizationUrl!, ['read:workspace', 'write:workspace']);
    await first.finishAuth(callback.searchParams);
    const clientId = host.clientId;

    const narrowed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: host.refreshToken, client_id: clientId, scope: 'read:workspace' });
    expect(narrowed).toMatchObject({ status: 200, body: { scope: 'read:workspace' } });
    const reader = await connectWithToken(narrowed.body.access_token);
    try {
      expect(((await reader.callTool({ name: 'list_stickies', arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();
      await expect(reader.callTool({ name: 'create_sticky', arguments: { content: 'not with a read-only token' } })).rejects.toThrow(/scope/);
    } finally {
      await reader.close();
    }

    // The refresh token issued with the narrowed access token keeps the grant's scopes.
    const widened = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: narrowed.body.refresh_token,
      client_id: clientId,
      scope: 'read:workspace write:workspace',
    });
    expect(widened).toMatchObject({ status: 200, body: { scope: 'read:workspace write:workspace' } });
    const writer = await connectWithToken(widened.body.access_token);
    try {
      const created = (await writer.callTool({ name: 'create_sticky', arguments: { content: 'written after widening again' } })) as { isError?: boolean };
      expect(created.isError).toBeFalsy();
    } finally {
      await writer.close();
    }
    // Never beyond the grant.
    const beyond = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: widened.body.refresh_token,
      client_id: clientId,
      scope: 'read:workspace read:returns',
    });
    expect(beyond).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });
});

describe('item 9: a refused token request changes nothing', () => {
  it('keeps the refresh token after refusing a scope or a resource, and the grant alive', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const tokens = await codeFlow(client.client_id, ['read:workspace']);
    const refresh = (extra: Record<string, string>) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, ...extra });

    expect(await refresh({ scope: 'write:workspace' })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(await refresh({ scope: 'read:everything' })).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    expect(await refresh({ resource: 'https://other.example/mcp' })).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    expect(await rpcStatus(tokens.access_token)).toBe(200);

    const retried = await refresh({});
    expect(retried).toMatchObject({ status: 200, body: { scope: 'read:workspace' } });
    expect(await rpcStatus(retried.body.access_token)).toBe(200);
    expect(await rpcStatus(tokens.access_token)).toBe(200);
    // Used now: presenting it again is a replay, which still ends the grant.
    expect((await refresh({})).body.error).toBe('invalid_grant');
    expect(await rpcStatus(retried.body.access_token)).toBe(401);
  });

  it('keeps a code after refusing a wrong code verifier', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const code = await approvedCode(client.client_id, ['read:workspace']);
    const exchange = (verifier: string) =>
      tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT_URI });
    expect(await exchange('w'.repeat(43))).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const exchanged = await exchange(VERIFIER);
    expect(exchanged.status).toBe(200);
    expect(await rpcStatus(exchanged.body.access_token)).toBe(200);
  });
});

describe('item 10: no redirect for a client the user has not approved', () => {
  it('sends a browser without a session to sign in first, never to the client', async () => {
    const evil = (await register({ redirect_uris: ['https://evil.example/landing'], client_name: 'Evil' })).body;
    const answer = await fetch(`${server.url}/oauth/authorize?client_id=${evil.client_id}&response_type=x`, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location')!, server.url);
    expect(location.origin).toBe(server.url);
    expect(location.pathname).toBe('/login');
  });

  it('shows the fault to a signed-in user on its own page (400) while the client is not approved', async () => {
    const evil = (await register({ redirect_uris: ['https://evil.example/landing'], client_name: 'Evil' })).body;
    const badType = await fetch(`${server.url}/oauth/authorize?client_id=${evil.client_id}&response_type=x`, { redirect: 'manual', headers: { cookie } });
    await expectFaultPage(badType, 'response_type must be code');

    // A fault found after sign-in (none of the scopes asked for is the user's) is shown too.
    const adminOnly = await authorize({ client_id: evil.client_id, redirect_uri: 'https://evil.example/landing', scope: 'admin' });
    await expectFaultPage(adminOnly, 'none of the permissions');

    // The consent form posted with a broken request (same origin, signed in) is no way around it.
    const posted = await fetch(`${server.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: evil.client_id,
        response_type: 'code',
        redirect_uri: 'https://evil.example/landing',
        decision: 'allow',
        scope_choice: 'read:workspace',
      }).toString(),
    });
    await expectFaultPage(posted, 'code_challenge is required');
  });

  it('redirects the fault once the user approved the client, and no longer after revoking it; a denial always', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const denied = await consent(authorizeUrl({ client_id: client.client_id, state: 'd1' }), ['read:workspace'], 'deny');
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: 'access_denied', state: 'd1', iss: server.url });
    expect((await authorize({ client_id: client.client_id, response_type: 'token' })).status).toBe(400);

    const tokens = await codeFlow(client.client_id, ['read:workspace']);
    const faulty = await authorize({ client_id: client.client_id, response_type: 'token', state: 's1' });
    expect(faulty.status).toBe(303);
    const location = new URL(faulty.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'unsupported_response_type', state: 's1', iss: server.url });

    expect((await form('/oauth/revoke', { token: tokens.refresh_token, client_id: client.client_id })).status).toBe(200);
    await expectFaultPage(await authorize({ client_id: client.client_id, response_type: 'token' }), 'response_type must be code');
  });
});

describe('item 11: redirect URIs from an allow-list, never with a fragment', () => {
  it("registers https:, http: on a loopback host, reverse domain name schemes and the MCP hosts' own (cursor:), and refuses every other scheme", async () => {
    const refused = [
      'view-source:https://evil.example/',
      'jar:https://evil.example/a.jar!/',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'blob:https://evil.example/0b1c',
      'about:blank',
      'ftp://evil.example/cb',
      'wss://evil.example/cb',
      'myapp:/callback',
      'http://evil.example/cb',
    ];
    for (const uri of refused) {
      const answer = await register({ redirect_uris: [uri] });
      expect(answer.status, uri).toBe(400);
      expect(answer.body.error, uri).toBe('invalid_redirect_uri');
    }
    const accepted = await register({
      redirect_uris: [
        'https://app.example/cb',
        'http://localhost:8080/cb',
        'http://[::1]/cb',
        'com.example.app:/oauth2redirect',
        'cursor://anysphere.cursor-mcp/oauth/callback',
      ],
    });
    expect(accepted.status).toBe(201);
  });

  it('shows an error page (400), never a redirect, for a redirect URI with a fragment, signed in or not', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI, 'https://app.example/cb'] })).body;
    for (const redirectUri of [`${REDIRECT_URI}#x`, 'https://app.example/cb#x', `${REDIRECT_URI}#`]) {
      for (const signedIn of [true, false]) {
        const answer = await authorize({ client_id: client.client_id, redirect_uri: redirectUri }, signedIn);
        expect(answer.status, `${redirectUri} signed in: ${signedIn}`).toBe(400);
        expect(answer.headers.get('location')).toBeNull();
        expect(await answer.text()).toContain('fragment');
      }
    }
  });
});

describe('item 12: registrations are bounded and expire unused', () => {
  it('refuses metadata past the per-field caps and past 4096 bytes in all, saying which', async () => {
    const longName = await register({ redirect_uris: [REDIRECT_URI], client_name: 'n'.repeat(101) });
    expect(longName).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: expect.stringContaining('client_name') } });
    const tooMany = await register({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) });
    expect(tooMany).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: expect.stringContaining('at most 10') } });
    const longUri = await register({ redirect_uris: [`https://app.example/${'p'.repeat(490)}`] });
    expect(longUri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri', error_description: expect.stringContaining('longer than 500') } });
    // Each field within its cap, together over the record's.
    const large = await register({ redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'p'.repeat(440)}`) });
    expect(large).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata', error_description: expect.stringContaining('4096') } });

    const realistic = await register({
      client_name: 'Visual Studio Code',
      redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(realistic.status).toBe(201);
  });

  it('deletes registrations that no user approved within a day, in the periodic maintenance', async () => {
    const prisma = server.services.prisma;
    const unused = (await register({ redirect_uris: [REDIRECT_URI], client_name: 'Never used' })).body;
    const approved = (await register({ redirect_uris: [REDIRECT_URI], client_name: 'Approved' })).body;
    const recent = (await register({ redirect_uris: [REDIRECT_URI], client_name: 'Registered just now' })).body;
    await codeFlow(approved.client_id, ['read:workspace']);
    const dayAndHourAgo = new Date(Date.now() - 25 * 3_600_000);
    await prisma.oAuthClient.updateMany({ where: { id: { in: [unused.client_id, approved.client_id] } }, data: { createdAt: dayAndHourAgo } });

    // The maintenance the server runs at start and then hourly, started here once more.
    const stop = startMaintenance({ jobs: server.services.jobs, blobs: server.services.blobs, oauth: server.services.oauth, log: createLogger('silent') });
    try {
      await expect.poll(() => prisma.oAuthClient.count({ where: { id: unused.client_id } })).toBe(0);
    } finally {
      stop();
    }
    const gone = await authorize({ client_id: unused.client_id });
    expect(gone.status).toBe(400);
    expect(await gone.text()).toContain('not registered');
    expect((await authorize({ client_id: approved.client_id })).status).toBe(200);
    expect((await authorize({ client_id: recent.client_id })).status).toBe(200);
  });

  it('charges registrations to the client address, whatever API key it sends', async () => {
    const limited = await startTestServer({ OAUTH_REQUESTS_PER_MINUTE: '2' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { key } = await createUser(limited.services, { role: 'member', scopes: ['read:workspace'] });
        const answer = await fetch(`${limited.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
        });
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
          expect((await answer.json()).error).toBe('too_many_requests');
        } else await answer.body?.cancel();
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('item 13: /graphql and REST refuse an OAuth access token as any invalid credential', () => {
  it('answers it as an unknown API key: UNAUTHENTICATED in the errors from /graphql (HTTP 200), 401 from REST', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const { access_token: oauthToken } = await codeFlow(client.client_id, ['read:workspace']);
    expect(await rpcStatus(oauthToken)).toBe(200);

    const query = JSON.stringify({ query: '{ stickies { edges { cursor } } }' });
    const asGraphql = (headers: Record<string, string>) =>
      fetch(`${server.url}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: query });
    const withOAuth = await asGraphql({ authorization: `Bearer ${oauthToken}` });
    const withUnknownKey = await asGraphql({ 'x-api-key': 'gk_unknown' });
    expect(withOAuth.status).toBe(withUnknownKey.status);
    expect(withOAuth.status).toBe(200);
    const [oauthBody, keyBody] = [await withOAuth.json(), await withUnknownKey.json()];
    expect(oauthBody.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(oauthBody).toEqual(keyBody);

    const restWithOAuth = await fetch(`${server.url}/api/stickies`, { headers: { authorization: `Bearer ${oauthToken}` } });
    const restWithUnknownKey = await fetch(`${server.url}/api/stickies`, { headers: { 'x-api-key': 'gk_unknown' } });
    expect(restWithOAuth.status).toBe(401);
    expect(restWithUnknownKey.status).toBe(401);
    expect(await restWithOAuth.json()).toEqual(await restWithUnknownKey.json());
  });
});

/** An MCP host's OAuth state, kept in memory; the "browser" step is recorded for the test to drive. */
class HeadlessHost {
  authorizationUrl?: URL;
  private info?: Record<string, unknown>;
  private saved?: Record<string, unknown>;
  private verifier = '';
  readonly redirectUrl = REDIRECT_URI;
  readonly clientMetadata = {
    client_name: 'Headless MCP host',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  clientInformation() {
    return this.info as never;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.info = info;
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: Record<string, unknown>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  get clientId(): string {
    return String(this.info?.client_id);
  }
  get refreshToken(): string {
    return String(this.saved?.refresh_token);
  }
}

interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/** The SDK client with a bearer token of our choosing (as a host holding that token would send it). */
async function connectWithToken(token: string): Promise<ToolCaller> {
  const client = new ModernClient({ name: 'oauth-promises', version: '1.0.0' });
  await client.connect(new ModernTransport(endpoint(), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client as unknown as ToolCaller;
}

/** The browser's part: open the authorization URL signed in, tick `scopes`, press a button. */
async function consent(authorizationUrl: URL, scopes: string[], decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { cookie }, redirect: 'manual' });
  expect(page.status).toBe(200);
  const html = await page.text();
  const body = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) body.append(match[1], unescapeHtml(match[2]));
  for (const scope of scopes) body.append('scope_choice', scope);
  body.append('decision', decision);
  const answer = await fetch(new URL('/oauth/authorize', server.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

/** A code for `clientId` approved by the signed-in user for `scopes` (PKCE with VERIFIER). */
async function approvedCode(clientId: string, scopes: string[]): Promise<string> {
  const callback = await consent(authorizeUrl({ client_id: clientId }), scopes);
  return callback.searchParams.get('code')!;
}

/** The whole authorization code flow, raw: the tokens the client receives. */
async function codeFlow(clientId: string, scopes: string[]): Promise<{ access_token: string; refresh_token: string }> {
  const code = await approvedCode(clientId, scopes);
  const exchanged = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT_URI });
  expect(exchanged.status).toBe(200);
  return exchanged.body;
}

async function expectFaultPage(answer: Response, description: string): Promise<void> {
  expect(answer.status).toBe(400);
  expect(answer.headers.get('location')).toBeNull();
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(answer.headers.get('x-frame-options')).toBe('DENY');
  expect(await answer.text()).toContain(description);
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

async function register(metadata: Record<string, unknown>) {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: await response.json() };
}

function authorizeUrl(overrides: Record<string, string>): URL {
  const params = { response_type: 'code', redirect_uri: REDIRECT_URI, code_challenge: CHALLENGE, code_challenge_method: 'S256', ...overrides };
  return new URL(`/oauth/authorize?${new URLSearchParams(params)}`, server.url);
}

function authorize(overrides: Record<string, string>, signedIn = true) {
  return fetch(authorizeUrl(overrides), { redirect: 'manual', headers: signedIn ? { cookie } : {} });
}

function form(path: string, values: Record<string, string>) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(values).toString(),
  });
}

async function tokenRequest(values: Record<string, string>) {
  const response = await form('/oauth/token', values);
  return { status: response.status, body: await response.json() };
}

async function rpcStatus(token: string): Promise<number> {
  const response = await fetch(endpoint(), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await response.text();
  return response.status;
}
