/**
 * `GET /` is public and helpful: curl without a key gets a small JSON index of the service (where
 * the dashboard, GraphQL, health and docs are, and how to authenticate), while the API endpoints
 * keep the spec's 401 body and a browser is still sent to sign in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => server?.close());

describe('GET / without credentials', () => {
  it.each([['*/*'], ['application/json']])('Accept %s: 200 with the JSON index', async (accept) => {
    const response = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toMatchObject({
      service: 'gateway',
      version: server.services.version,
      graphql: '/graphql',
      health: '/health',
      authentication: { header: 'X-API-Key' },
    });
    expect(body.dashboard).toMatch(/^\//);
    expect(body.docs).toMatch(/docs\/rest\.md/);
    // Public: nothing secret or caller-specific in it.
    expect(JSON.stringify(body)).not.toMatch(/sk_[0-9a-f]|pat_[0-9a-f]|password|postgres/i);
  });

  it('the paths it names answer: /health is 200, /graphql asks for a key', async () => {
    const body = await (await fetch(`${server.url}/`)).json();
    expect((await fetch(`${server.url}${body.health}`)).status).toBe(200);
    const graphql = await fetch(`${server.url}${body.graphql}?query=%7Bme%7Bcredential%7D%7D`);
    expect(graphql.status).not.toBe(404);
  });

  it("a wrong key still gets the index at / (it is public), and the spec's 401 body on the API", async () => {
    const root = await fetch(`${server.url}/`, { headers: { 'x-api-key': 'sk_00000000000000000000000000000000' } });
    expect(root.status).toBe(200);
    const api = await fetch(`${server.url}/api/returns/comparison`, { headers: { 'x-api-key': 'sk_00000000000000000000000000000000' } });
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: 'Invalid or expired API key' });
  });

  it('a browser is still sent to sign in', async () => {
    const response = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/login?next=%2F');
  });
});
