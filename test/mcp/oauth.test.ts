/**
 * The MCP endpoint's authorization (the MCP authorization spec): the official MCP SDK clients
 * discover the built-in OAuth 2.1 server from the endpoint's 401, register themselves (RFC 7591),
 * send the user through sign-in and consent (driven headlessly here: the consent page is fetched
 * with the user's session cookie and its form posted back as a browser would), finish with PKCE,
 * and call tools with a token bound to the endpoint and to the scopes the user ticked.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, signInCookie, type TestUser } from '../helpers/fixtures.ts';

let server: TestServer;
let user: TestUser;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer({ OAUTH_REQUESTS_PER_MINUTE: '10000' });
  user = await createUser(server.services, { role: 'member', scopes: ['read:workspace'] });
  cookie = await signInCookie(server.url, user);
}, 60_000);
afterAll(async () => server?.close());

const endpoint = () => new URL('/api/service', server.url);
const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

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
  get accessToken(): string {
    return String(this.saved?.access_token);
  }
  get refreshToken(): string {
    return String(this.saved?.refresh_token);
  }
}

/** The browser's part: open the authorization URL signed in, tick `scopes`, press a button. */
async function consent(authorizationUrl: URL, scopes: string[], decision: 'allow' | 'deny' = 'allow'): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { cookie }, redirect: 'manual' });
  expect(page.status).toBe(200);
  expect(page.headers.get('x-frame-options')).toBe('DENY');
  const html = await page.text();
  const form = new URLSearchParams();
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) form.append(match[1], unescapeHtml(match[2]));
  for (const scope of scopes) form.append('scope_choice', scope);
  form.append('decision', decision);
  const answer = await fetch(new URL('/oauth/authorize', server.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{ tools: unknown[] }>;
  close(): Promise<void>;
}

/** Connects with OAuth the way each SDK documents it: connect, authorize, finishAuth, connect again. */
const ERAS = [
  [
    'v2 SDK client (2026-07-28)',
    async (host: HeadlessHost, scopes: string[]) => {
      const first = new ModernTransport(endpoint(), { authProvider: host as never });
      await expect(new ModernClient({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      const callback = await consent(host.authorizationUrl!, scopes);
      await first.finishAuth(callback.searchParams);
      const client = new ModernClient({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new ModernTransport(endpoint(), { authProvider: host as never }));
      return { client: client as unknown as ToolCaller, callback };
    },
  ],
  [
    '1.x SDK client (2025-11-25)',
    async (host: HeadlessHost, scopes: string[]) => {
      const first = new LegacyTransport(endpoint(), { authProvider: host as never });
      await expect(new LegacyClient({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toThrow(/Unauthorized/);
      const callback = await consent(host.authorizationUrl!, scopes);
      await first.finishAuth(callback.searchParams.get('code')!);
      const client = new LegacyClient({ name: 'oauth-test', version: '1.0.0' });
      await client.connect(new LegacyTransport(endpoint(), { authProvider: host as never }));
      return { client: client as unknown as ToolCaller, callback };
    },
  ],
] as const;

describe('discovery', () => {
  it('refuses a request without a token with a challenge that names the protected-resource metadata', async () => {
    const response = await fetch(endpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/service"`);
    expect(await response.json()).toEqual({ error: expect.stringContaining('Missing bearer token') });
  });

  it('describes the resource (RFC 9728) and the authorization server (RFC 8414)', async () => {
    const resource = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/api/service`)).json();
    expect(resource).toMatchObject({ resource: `${server.url}/api/service`, authorization_servers: [server.url], bearer_methods_supported: ['header'] });
    expect(resource.scopes_supported).toContain('read:workspace');
    const response = await fetch(`${server.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://host.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe.each(ERAS)('the official %s', (_era, connectWithOAuth) => {
  it('registers, is authorized by the signed-in user for the scopes ticked, and calls tools with a token bound to the endpoint', async () => {
    const host = new HeadlessHost();
    const { client, callback } = await connectWithOAuth(host, ['read:workspace']);
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('iss')).toBe(server.url);
    expect(host.accessToken).toMatch(/^oat_/);

    const listed = (await client.callTool({ name: 'list_stickies', arguments: {} })) as { isError?: boolean };
    expect(listed.isError).toBeFalsy();
    // A scope the user did not tick: refused as the endpoint refuses any missing scope.
    await expect(client.callTool({ name: 'create_sticky', arguments: { content: 'nope' } })).rejects.toThrow(/scope/);
    await client.close();

    // The token is for /api/service only: /graphql and REST refuse it.
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.accessToken}`, 'content-type': 'application/json' },
      body: '{"query":"{ me { credential } }"}',
    });
    expect((await graphql.json()).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const rest = await fetch(`${server.url}/api/stickies`, { headers: { authorization: `Bearer ${host.accessToken}` } });
    expect(rest.status).toBe(401);
  });
});

describe('tokens', () => {
  it('rotates refresh tokens, and a refresh token used twice ends the grant (its tokens stop working)', async () => {
    const host = new HeadlessHost();
    const { client } = await ERAS[0][1](host, ['read:workspace', 'write:workspace']);
    await client.close();
    const clientId = String((host.clientInformation() as unknown as { client_id: string }).client_id);
    const first = host.refreshToken;
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read:workspace write:workspace' });
    expect(refreshed.body.refresh_token).not.toBe(first);
    expect(await rpcStatus(refreshed.body.access_token)).toBe(200);

    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first, client_id: clientId });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await rpcStatus(refreshed.body.access_token)).toBe(401);
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token, client_id: clientId })).body.error).toBe(
      'invalid_grant',
    );
  });

  it('revokes (RFC 7009) and lists the grant as a connected app the user can revoke from a session', async () => {
    const host = new HeadlessHost();
    const { client } = await ERAS[0][1](host, ['read:workspace']);
    await client.close();
    const apps = await graphqlAsUser('{ connectedApps { id clientName scopes active resource } }');
    const app = apps.data.connectedApps.find((found: { clientName: string; active: boolean }) => found.active);
    expect(app).toMatchObject({ clientName: 'Headless MCP host', scopes: ['read:workspace'], resource: `${server.url}/api/service` });
    expect(await rpcStatus(host.accessToken)).toBe(200);
    const revoked = await graphqlAsUser('mutation($id: UUID!) { revokeConnectedApp(id: $id) { active revokedAt } }', { id: app.id });
    expect(revoked.data.revokeConnectedApp.active).toBe(false);
    expect(await rpcStatus(host.accessToken)).toBe(401);

    // RFC 7009 at the revocation endpoint: an access token ends alone; unknown tokens are ignored.
    const other = new HeadlessHost();
    await (await ERAS[0][1](other, ['read:workspace'])).client.close();
    const clientId = String((other.clientInformation() as unknown as { client_id: string }).client_id);
    expect((await form('/oauth/revoke', { token: 'oat_unknown', client_id: clientId })).status).toBe(200);
    expect((await form('/oauth/revoke', { token: other.accessToken, client_id: clientId })).status).toBe(200);
    expect(await rpcStatus(other.accessToken)).toBe(401);
  });

  it('keeps personal access tokens working beside OAuth', async () => {
    expect(await rpcStatus(await createAccessToken(server.services, user.userId, ['read:workspace']))).toBe(200);
  });
});

describe('refusals', () => {
  it('answers at the 2025-03-26 default paths too (/register, /authorize, /token), for hosts that skip the metadata', async () => {
    const registered = await fetch(`${server.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
    });
    expect(registered.status).toBe(201);
    const client = await registered.json();
    const page = await fetch(`${server.url}/authorize?${new URLSearchParams(authorizeParams({ client_id: client.client_id }))}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Allow');
    const token = await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=' + client.client_id,
    });
    expect((await token.json()).error).toBe('unsupported_grant_type');
  });

  it('refuses registrations with unsafe redirect URIs or unsupported grants, with RFC 7591 errors', async () => {
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://ok.example/cb#frag', 'not a uri', 'data:text/html,x']) {
      const answer = await register({ redirect_uris: [uri] });
      expect(answer.status, uri).toBe(400);
      expect(answer.body.error, uri).toBe('invalid_redirect_uri');
    }
    expect((await register({ redirect_uris: [] })).body.error).toBe('invalid_client_metadata');
    expect((await register({ redirect_uris: [REDIRECT_URI], grant_types: ['client_credentials'] })).body.error).toBe('invalid_client_metadata');
    const malformed = await fetch(`${server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":',
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toBe('invalid_client_metadata');
    const accepted = await register({
      redirect_uris: ['com.example.app:/callback', 'https://app.example/cb'],
      client_name: 'Native',
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ client_id: expect.stringMatching(/^mcp_/), token_endpoint_auth_method: 'none' });
    expect(accepted.body.client_secret).toBeUndefined();
  });

  it('shows the user (never redirects) an unknown client or an unregistered redirect URI', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const unknown = await authorize({ client_id: 'mcp_00000000000000000000000000000000' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('not registered');
    const elsewhere = await authorize({ client_id: client.client_id, redirect_uri: 'https://attacker.example/cb' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });

  it('answers other bad requests at the redirect URI with error, state and iss, once the user approved the client', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    // Before, they are shown to the user instead (test/mcp/oauth-promises.test.ts, item 10).
    await consent(new URL(`/oauth/authorize?${new URLSearchParams(authorizeParams({ client_id: client.client_id }))}`, server.url), ['read:workspace']);
    const noPkce = await authorize({ client_id: client.client_id, state: 's1', code_challenge: undefined });
    expect(noPkce.status).toBe(303);
    const location = new URL(noPkce.headers.get('location')!);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'invalid_request', state: 's1', iss: server.url });
    const plain = new URL((await authorize({ client_id: client.client_id, code_challenge_method: 'plain' })).headers.get('location')!);
    expect(plain.searchParams.get('error')).toBe('invalid_request');
    const scope = new URL((await authorize({ client_id: client.client_id, scope: 'read:everything' })).headers.get('location')!);
    expect(scope.searchParams.get('error')).toBe('invalid_scope');
    const target = new URL((await authorize({ client_id: client.client_id, resource: 'https://other.example/mcp' })).headers.get('location')!);
    expect(target.searchParams.get('error')).toBe('invalid_target');
  });

  it('sends a browser without a session to sign in, and back to the request afterwards', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const answer = await authorize({ client_id: client.client_id }, false);
    expect(answer.status).toBe(303);
    const login = new URL(answer.headers.get('location')!, server.url);
    expect(login.pathname).toBe('/login');
    expect(login.searchParams.get('next')).toMatch(/^\/oauth\/authorize\?/);
  });

  it('refuses a consent posted from another site, and passes a denial on as access_denied', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const params = authorizeParams({ client_id: client.client_id, state: 'st' });
    const crossSite = await fetch(`${server.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: 'https://attacker.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...params, decision: 'allow', scope_choice: 'read:workspace' }).toString(),
    });
    expect(crossSite.status).toBe(403);
    const denied = await consent(new URL(`/oauth/authorize?${new URLSearchParams(params)}`, server.url), ['read:workspace'], 'deny');
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: 'access_denied', state: 'st', iss: server.url });
  });

  it('refuses a wrong code verifier, a replayed code and an unknown grant type', async () => {
    const client = (await register({ redirect_uris: [REDIRECT_URI] })).body;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const issue = async () =>
      (
        await consent(
          new URL(`/oauth/authorize?${new URLSearchParams(authorizeParams({ client_id: client.client_id, code_challenge: challenge }))}`, server.url),
          ['read:workspace'],
        )
      ).searchParams.get('code')!;
    const wrong = await tokenRequest({
      grant_type: 'authorization_code',
      code: await issue(),
      code_verifier: randomBytes(32).toString('base64url'),
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const code = await issue();
    const exchange = () =>
      tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT_URI });
    const first = await exchange();
    expect(first.status).toBe(200);
    expect(await rpcStatus(first.body.access_token)).toBe(200);
    expect((await exchange()).body.error).toBe('invalid_grant');
    // The replay ended the grant: the token the first exchange issued no longer works.
    expect(await rpcStatus(first.body.access_token)).toBe(401);

    expect((await tokenRequest({ grant_type: 'password', client_id: client.client_id })).body.error).toBe('unsupported_grant_type');
    expect((await tokenRequest({ grant_type: 'authorization_code', code: 'x', code_verifier: verifier, client_id: 'mcp_unknown' })).status).toBe(401);
    const json = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe('invalid_request');
  });

  it('spends a rate budget per address on the OAuth endpoints: 429 with Retry-After', async () => {
    const limited = await startTestServer({ OAUTH_REQUESTS_PER_MINUTE: '2' });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        last = await fetch(`${limited.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([201, 201, 429]);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await last!.json()).error).toBe('too_many_requests');
    } finally {
      await limited.close();
    }
  });
});

async function register(metadata: Record<string, unknown>) {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: await response.json() };
}

function authorizeParams(overrides: Record<string, string | undefined>): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
    code_challenge_method: 'S256',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function authorize(overrides: Record<string, string | undefined>, signedIn = true) {
  return fetch(`${server.url}/oauth/authorize?${new URLSearchParams(authorizeParams(overrides))}`, { redirect: 'manual', headers: signedIn ? { cookie } : {} });
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

async function graphqlAsUser(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}
