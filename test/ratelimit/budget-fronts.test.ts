/**
 * One charging rule on every front (RequestBudgets, src/ratelimit/rate-limiter.ts): a request pays
 * one point per resolution of a budgeted field, after authentication, scope and argument checks;
 * a refused request costs nothing. The same outcome is tried through REST, GraphQL over HTTP, a
 * GraphQL batch, graphql-ws and MCP (plain JSON-RPC), and through both upload fronts; the points
 * spent are then read from the service's own rate-limit store.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { loadSamples, readSample, SAMPLE_PNL } from '../helpers/returns-data.ts';
import { graphqlUploadForm, uploadForm } from '../helpers/upload.ts';
import type { Budget } from '../../src/ratelimit/rate-limiter.ts';

const RETURNS_PER_MINUTE = 50;
const UPLOADS_PER_MINUTE = 20;
const COMPARISON = '{ returnComparison(first: 1) { edges { node { accountCode } } } }';
const BAD_COMPARISON = '{ returnComparison(first: 0) { edges { node { accountCode } } } }';

let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: String(RETURNS_PER_MINUTE), RATE_LIMIT_UPLOAD_PER_MINUTE: String(UPLOADS_PER_MINUTE) });
  owner = await createUser(server.services, { scopes: ['admin'] });
  await loadSamples(server.url, owner.key, owner.orgId);
}, 120_000);
afterAll(async () => server?.close());

interface Credential {
  secret: string;
  /** The budgets' subject for this credential (`<kind>:<id>`, src/context.ts). */
  subject: string;
}

/** Tokens made by the running test, revoked after it (a user holds at most 20 active ones). */
const issued: string[] = [];
afterEach(async () => {
  for (const id of issued.splice(0)) await server.services.apiKeys.revoke({ id, kind: 'access_token' });
});

/** A personal access token of the data owner (sent as `Authorization: Bearer` on every front). */
async function credential(scopes: string[]): Promise<Credential> {
  const { secret, record } = await server.services.apiKeys.create({
    userId: owner.userId,
    name: `fronts-${randomBytes(3).toString('hex')}`,
    scopes,
    kind: 'access_token',
  });
  issued.push(record.id);
  return { secret, subject: `access_token:${record.id}` };
}

/** Points of `budget` the subject has spent this window: read by spending one more in the store. */
async function spent(subject: string, budget: Budget = 'returns'): Promise<number> {
  const limit = budget === 'returns' ? RETURNS_PER_MINUTE : UPLOADS_PER_MINUTE;
  const decision = await server.services.rateLimits.consume(budget, subject);
  return limit - 1 - decision.remaining;
}

const bearer = (secret?: string): Record<string, string> => (secret ? { authorization: `Bearer ${secret}` } : {});

/** A call's whole answer as text (status and body), for the assertions to read. */
type Call = (secret?: string) => Promise<string>;

const fronts: Record<string, { ok: Call; badInput: Call }> = {
  REST: {
    ok: (secret) => rest(secret, '/api/returns/comparison?limit=1'),
    badInput: (secret) => rest(secret, '/api/returns/comparison?limit=0'),
  },
  'GraphQL over HTTP': {
    ok: (secret) => graphqlHttp(secret, { query: COMPARISON }),
    badInput: (secret) => graphqlHttp(secret, { query: BAD_COMPARISON }),
  },
  'a GraphQL batch of two': {
    ok: (secret) => graphqlHttp(secret, [{ query: COMPARISON }, { query: COMPARISON }]),
    badInput: (secret) => graphqlHttp(secret, [{ query: BAD_COMPARISON }, { query: BAD_COMPARISON }]),
  },
  'graphql-ws': {
    ok: (secret) => graphqlWs(secret, COMPARISON),
    badInput: (secret) => graphqlWs(secret, BAD_COMPARISON),
  },
  'MCP tools/call': {
    ok: (secret) => mcpCall(secret, { first: 1 }),
    badInput: (secret) => mcpCall(secret, { first: 0 }),
  },
};

/** Points the successful call spends: one per budgeted field resolved (the batch resolves two). */
const POINTS_OK: Record<string, number> = { REST: 1, 'GraphQL over HTTP': 1, 'a GraphQL batch of two': 2, 'graphql-ws': 1, 'MCP tools/call': 1 };

async function rest(secret: string | undefined, path: string): Promise<string> {
  const response = await getJson(`${server.url}${path}`, { headers: bearer(secret) });
  return JSON.stringify({ status: response.status, body: response.body });
}

async function graphqlHttp(secret: string | undefined, body: unknown): Promise<string> {
  const response = await getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(secret) },
    body: JSON.stringify(body),
  });
  return JSON.stringify({ status: response.status, body: response.body });
}

async function graphqlWs(secret: string | undefined, query: string): Promise<string> {
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: bearer(secret),
    retryAttempts: 0,
    lazy: true,
  });
  const results: unknown[] = [];
  try {
    for await (const result of client.iterate({ query })) results.push(result);
  } catch (error) {
    // graphql-ws rejects with the GraphQL errors, or with the socket's close event
    const { code, reason } = error as { code?: number; reason?: string };
    results.push({ errors: [{ message: code ? `closed ${code} ${reason}` : JSON.stringify(error) }] });
  } finally {
    await client.dispose();
  }
  return JSON.stringify(results);
}

async function mcpCall(secret: string | undefined, args: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${server.url}/api/service`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(secret) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_returns_comparison', arguments: args } }),
  });
  return JSON.stringify({ status: response.status, body: await response.text() });
}

describe('the same outcome costs the same on every front', () => {
  for (const [front, calls] of Object.entries(fronts)) {
    it(`${front}: served costs a point per field; bad input, a missing scope and no credential cost nothing`, async () => {
      const reader = await credential(['admin']);
      expect(await calls.ok(reader.secret)).toContain('ACC-');
      expect(await spent(reader.subject)).toBe(POINTS_OK[front]);

      const mistaken = await credential(['admin']);
      for (let i = 0; i < 3; i++) expect(await calls.badInput(mistaken.secret)).toMatch(/Invalid (first|limit)/);
      expect(await spent(mistaken.subject)).toBe(0);

      const unscoped = await credential(['read:workspace']);
      for (let i = 0; i < 3; i++) expect(await calls.ok(unscoped.secret)).toContain('Insufficient permissions');
      expect(await spent(unscoped.subject)).toBe(0);
    });
  }

  it('requests without a credential cost their address nothing on any front', async () => {
    for (const [front, calls] of Object.entries(fronts)) {
      expect(await calls.ok(undefined), front).toMatch(/Invalid or expired API key|UNAUTHENTICATED|"status":401/);
    }
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '::1']) expect(await spent(`ip:${address}`)).toBe(0);
  });
});

describe('uploads reserve their point before the body and get it back when refused', () => {
  const csv = readSample(SAMPLE_PNL);

  it('REST: a served upload costs one point; a form without its file (400) and a missing scope (403) cost nothing', async () => {
    const uploader = await credential(['admin']);
    const served = await getJson(`${server.url}/api/storage/upload`, {
      method: 'POST',
      headers: bearer(uploader.secret),
      body: uploadForm({ orgId: owner.orgId, file: { name: 'pnl.csv', bytes: csv } }),
    });
    expect(served.status).toBe(201);
    expect(await spent(uploader.subject, 'upload')).toBe(1);

    const mistaken = await credential(['admin']);
    for (let i = 0; i < 3; i++) {
      const refused = await getJson(`${server.url}/api/storage/upload`, {
        method: 'POST',
        headers: bearer(mistaken.secret),
        body: uploadForm({ orgId: owner.orgId }),
      });
      expect(refused.status).toBe(400);
      // the refusal still says where the budget stands: nothing was spent
      expect(refused.headers.get('ratelimit')).toMatch(new RegExp(`^"upload";r=${UPLOADS_PER_MINUTE};t=\\d+$`));
    }
    expect(await spent(mistaken.subject, 'upload')).toBe(0);

    const unscoped = await credential(['read:workspace']);
    const forbidden = await getJson(`${server.url}/api/storage/upload`, {
      method: 'POST',
      headers: bearer(unscoped.secret),
      body: uploadForm({ orgId: owner.orgId, file: { name: 'pnl.csv', bytes: csv } }),
    });
    expect(forbidden.status).toBe(403);
    expect(await spent(unscoped.subject, 'upload')).toBe(0);
  });

  it('GraphQL multipart: a served upload costs one point; a missing scope, a bad document and bad variables cost nothing', async () => {
    const uploader = await credential(['admin']);
    const served = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: bearer(uploader.secret),
      body: graphqlUploadForm({ orgId: owner.orgId }, { name: 'pnl.csv', bytes: csv }),
    });
    expect(served.body.errors).toBeUndefined();
    expect(await spent(uploader.subject, 'upload')).toBe(1);

    const unscoped = await credential(['read:workspace']);
    const forbidden = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: bearer(unscoped.secret),
      body: graphqlUploadForm({ orgId: owner.orgId }, { name: 'pnl.csv', bytes: csv }),
    });
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await spent(unscoped.subject, 'upload')).toBe(0);

    const mistaken = await credential(['admin']);
    const badVariables = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: bearer(mistaken.secret),
      body: graphqlUploadForm({ orgId: 'not-a-uuid' }, { name: 'pnl.csv', bytes: csv }),
    });
    expect(badVariables.status).toBe(400);
    const badDocument = new FormData();
    badDocument.append('operations', JSON.stringify({ query: 'mutation { uploadFile(', variables: { file: null } }));
    badDocument.append('map', JSON.stringify({ 0: ['variables.file'] }));
    badDocument.append('0', new Blob([csv], { type: 'text/csv' }), 'pnl.csv');
    expect((await getJson(`${server.url}/graphql`, { method: 'POST', headers: bearer(mistaken.secret), body: badDocument })).status).toBe(400);
    expect(await spent(mistaken.subject, 'upload')).toBe(0);
  });
});
