import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';

/** Chat has its own budget (a configured model may be a paid endpoint), shared by REST and GraphQL. */
describe('chat budget', () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_CHAT_PER_MINUTE: '2' });
    user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
  });
  afterAll(() => server?.close());

  const ask = () =>
    getJson(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'what are my open tasks?' }] }),
    });

  it('refuses the third chat in a minute with 429 and rate-limit headers; GraphQL spends the same budget', async () => {
    expect((await ask()).status).toBe(200);
    const viaGraphql = await getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { chat(messages: [{role: user, content: "notes?"}]) { message { content } } }' }),
    });
    expect(viaGraphql.body.errors).toBeUndefined();
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(Object.keys(refused.body)).toEqual(['error']);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('ratelimit-policy')).toContain('"chat";q=2;w=60');
  });
});
