/**
 * The error contract over real HTTP: every REST error is `{"error": "<message>"}` with the
 * right status, a 500 says nothing about the internals, request ids are echoed, and GraphQL's
 * depth and cost limits hold (introspection included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

let server: TestServer;
let user: TestUser;
let headers: Record<string, string>;

const request = (path: string, init: RequestInit = {}) =>
  getJson(`${server.url}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });

function expectErrorBody(body: unknown): asserts body is { error: string } {
  expect(body).toEqual({ error: expect.any(String) });
}

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['admin'] });
  headers = { 'x-api-key': user.key };
});

afterAll(async () => {
  await server?.close();
});

describe('REST error statuses and bodies', () => {
  it('404: an unknown path is {"error": ...} for API clients', async () => {
    for (const [path, accept] of [
      ['/api/nope', 'application/json'],
      ['/api/returns', '*/*'],
      ['/nope', '*/*'],
      ['/nope', 'application/json'],
      ['/api/nope', 'text/html'],
    ]) {
      const response = await getJson(`${server.url}${path}`, { headers: { ...headers, accept } });
      expect(response.status, `${path} ${accept}`).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body).toEqual({ error: `No route for GET ${path}` });
    }
    const post = await request('/api/nope', { method: 'POST' });
    expect(post.status).toBe(404);
    expectErrorBody(post.body);
  });

  it('404: a browser asking for an unknown page gets an HTML page', async () => {
    const response = await fetch(`${server.url}/nope`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it.each([
    ['DELETE', '/api/returns/comparison', 'GET'],
    ['POST', '/api/returns/dietz-daily', 'GET'],
    ['PUT', '/api/returns/cash-transactions', 'GET'],
    ['GET', '/api/storage/upload', 'POST'],
    ['PATCH', '/api/storage/files', 'GET'],
    ['GET', '/test-scheduler/trigger', 'POST'],
    ['POST', '/health', 'GET'],
  ])('405: %s %s answers with Allow: %s', async (method, path, allow) => {
    const response = await request(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.body).toEqual({ error: `Method not allowed; use ${allow}` });
  });

  it('415: the upload route needs multipart/form-data', async () => {
    for (const [contentType, body] of [
      ['application/json', '{"org_id":"x"}'],
      ['text/csv', 'a,b\n1,2\n'],
      ['application/x-www-form-urlencoded', 'org_id=x'],
    ]) {
      const response = await request('/api/storage/upload', { method: 'POST', headers: { 'content-type': contentType }, body });
      expect(response.status, contentType).toBe(415);
      expect(response.body).toEqual({ error: 'Content-Type must be multipart/form-data' });
    }
  });

  it('415: a JSON route refuses another content type', async () => {
    for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const response = await request('/test-scheduler/trigger', { method: 'POST', headers: { 'content-type': contentType }, body: '{}' });
      expect(response.status, contentType).toBe(415);
      expect(response.body).toEqual({ error: 'Content-Type must be application/json' });
    }
  });

  it('400: malformed JSON, a body that is not an object, and unknown body fields', async () => {
    const cases: [string, string][] = [
      ['{bad', 'Malformed JSON body'],
      ['{"a":', 'Malformed JSON body'],
      ['[1,2]', 'The JSON body must be an object'],
      ['"text"', 'Malformed JSON body'],
      ['{"unexpected":1}', 'Unknown field: unexpected'],
    ];
    for (const [body, message] of cases) {
      const response = await request('/test-scheduler/trigger', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(response.status, body).toBe(400);
      expect(response.body).toEqual({ error: message });
    }
    // and none of these started a run
    const history = await request('/test-scheduler/history');
    expect(history.body.data).toEqual([]);
  });

  it('400: unknown multipart form fields and bad UUIDs are named', async () => {
    const form = new FormData();
    form.set('org_id', user.orgId);
    form.set('colour', 'blue');
    form.set('file', new Blob(['account_code,entity_name,date,market_value\n'], { type: 'text/csv' }), 'a.csv');
    const unknown = await request('/api/storage/upload', { method: 'POST', body: form });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'Unknown field: colour' });

    const files = await request('/api/storage/files?org_id=not-a-uuid');
    expect(files.status).toBe(400);
    expect(files.body).toEqual({ error: 'Invalid org_id: must be a UUID, got "not-a-uuid"' });
  });

  it('bodies of every error status are exactly one string field', async () => {
    const responses = await Promise.all([
      getJson(`${server.url}/api/returns/comparison`),
      request('/api/returns/comparison?status=nope'),
      request('/api/returns/cash-transactions?entity_name=Nobody'),
      request('/api/returns/comparison', { method: 'DELETE' }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([401, 400, 404, 405]);
    for (const response of responses) {
      expectErrorBody(response.body);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });
});

describe('request ids', () => {
  it('a sane x-request-id is echoed, on success and on error', async () => {
    for (const path of ['/health', '/api/returns/comparison', '/api/nope']) {
      const response = await request(path, { headers: { 'x-request-id': 'client-req-42.a:b' } });
      expect(response.headers.get('x-request-id')).toBe('client-req-42.a:b');
    }
  });

  it('a missing or unsafe one is replaced by a fresh UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const none = await request('/health');
    expect(none.headers.get('x-request-id')).toMatch(uuid);
    for (const offered of ['has spaces', 'x'.repeat(129), 'quote"d', 'new\\line']) {
      const response = await request('/health', { headers: { 'x-request-id': offered } });
      expect(response.headers.get('x-request-id')).toMatch(uuid);
    }
    const other = await request('/health');
    expect(other.headers.get('x-request-id')).not.toBe(none.headers.get('x-request-id'));
  });
});

describe('GraphQL limits', () => {
  it('a deeply nested introspection query is refused with BAD_USER_INPUT (introspection has its own bound, INTROSPECTION_MAX_DEPTH 20)', async () => {
    let nested = 'name';
    for (let i = 0; i < 20; i++) nested = `ofType { ${nested} }`;
    for (const query of [
      `{ __schema { types { fields { type { ${nested} } } } } }`,
      `{ me { credential } __type(name: "Query") { fields { type { ${nested} } } } }`,
      `query { ...Deep } fragment Deep on Query { __schema { types { fields { type { ${nested} } } } } }`,
    ]) {
      const response = await graphql(server.url, headers, query);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors![0].message).toMatch(/^Introspection depth \d+ exceeds the limit of 20$/);
    }
  });

  it('a query within the depth limit runs', async () => {
    const response = await graphql(server.url, headers, '{ __schema { queryType { name } } me { user { organizations { name } } } }');
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.queryType.name).toBe('Query');
  });

  it('a query over the complexity limit is refused with BAD_USER_INPUT', async () => {
    // selfTestHistory is a list of runs, each with a list of checks: 10 x 10 per alias
    const alias = (i: number) => `h${i}: selfTestHistory(limit: 100) { id status checks { name passed durationMs detail } }`;
    const response = await graphql(server.url, headers, `{ ${Array.from({ length: 6 }, (_, i) => alias(i)).join(' ')} }`);
    expect(response.body.data).toBeNull();
    expect(response.body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors![0].message).toMatch(/^Query complexity \d+ exceeds the limit of 2000$/);
    const small = await graphql(server.url, headers, `{ ${alias(0)} }`);
    expect(small.body.errors).toBeUndefined();
  });

  it('a query over the breadth limit is refused with BAD_USER_INPUT', async () => {
    const fields = Array.from({ length: 250 }, (_, i) => `a${i}: me { credential }`).join(' ');
    const response = await graphql(server.url, headers, `{ ${fields} }`);
    expect(response.body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors![0].message).toMatch(/^Query breadth \d+ exceeds the limit of 200$/);
  });

  it('a GraphQL multipart request is held to the same rules: invalid or too deep is 400, never 500', async () => {
    let nested = 'name';
    for (let i = 0; i < 20; i++) nested = `ofType { ${nested} }`;
    for (const [query, pattern] of [
      ['{ nope }', /Cannot query field "nope"/],
      ['{ me { ', /Syntax Error/],
      [`{ __schema { types { fields { type { ${nested} } } } } }`, /^Introspection depth \d+ exceeds the limit of 20$/],
    ] as const) {
      const form = new FormData();
      form.set('operations', JSON.stringify({ query, variables: {} }));
      form.set('map', '{}');
      const response = await getJson(`${server.url}/graphql`, { method: 'POST', headers, body: form });
      expect(response.status, query.slice(0, 20)).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].message).toMatch(pattern);
    }
  });
});

describe('500: generic to the client, details only in the log', () => {
  let broken: TestServer;
  let brokenUser: TestUser;

  beforeAll(async () => {
    broken = await startTestServer();
    brokenUser = await createUser(broken.services, { scopes: ['admin'] });
    // The database pool goes away under the running service.
    await broken.services.db.pool.end();
  });

  afterAll(async () => {
    // already ended above; let the normal shutdown close everything else
    (broken.services.db.pool as { end: () => Promise<void> }).end = async () => undefined;
    await broken?.close();
  });

  it('REST answers exactly {"error":"Internal server error"}', async () => {
    for (const path of ['/api/returns/comparison', '/api/returns/cash-transactions?entity_name=X', `/api/storage/files?org_id=${brokenUser.orgId}`]) {
      const response = await getJson(`${broken.url}${path}`, { headers: { 'x-api-key': brokenUser.key, 'x-request-id': 'req-500' } });
      expect(response.status, path).toBe(500);
      expect(response.body).toEqual({ error: 'Internal server error' });
      expect(response.headers.get('x-request-id')).toBe('req-500');
    }
  });

  it('GraphQL answers a generic INTERNAL_SERVER_ERROR with the request id and no internals', async () => {
    const response = await fetch(`${broken.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': brokenUser.key, 'x-request-id': 'req-gql-500' },
      body: JSON.stringify({ query: '{ returnComparison { edges { node { date } } } }' }),
    });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-gql-500' } }],
    });
    expect(text).not.toMatch(/pool|node_modules|at |Error:/);
  });

  it('detailed health says unhealthy with 503 when the database cannot check the credential', async () => {
    for (const path of ['/health?detailed=true', '/api/health?detailed=true']) {
      const response = await getJson(`${broken.url}${path}`, { headers: { 'x-api-key': brokenUser.key } });
      expect(response.status, path).toBe(503);
      expect(response.body).toEqual({ status: 'unhealthy', checks: { database: { status: 'down', error: 'unavailable' } } });
    }
    // Liveness without credentials needs no database.
    expect((await getJson(`${broken.url}/health`)).body).toEqual({ status: 'healthy' });
  });

  it('the sign-in page fails the same way', async () => {
    const response = await getJson(`${broken.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40b.test&password=x',
    });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'Internal server error' });
  });
});
