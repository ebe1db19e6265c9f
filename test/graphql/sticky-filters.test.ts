/** The trash-only listing and the tags-in-use query the dashboard's stickies page reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, getJson, type TestUser } from '../helpers/fixtures.ts';

describe('stickies: trashedOnly and stickyTags', () => {
  let server: TestServer;
  let user: TestUser;
  let other: TestUser;

  const graphql = (key: string | null, query: string) =>
    getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ query }),
    });

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    other = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const created: string[] = [];
    for (const [content, tags] of [
      ['a', ['q4', 'close']],
      ['b', ['q4']],
      ['c', ['q4', 'urgent']],
      ['d', ['urgent']],
    ] as const) {
      const response = await callApi(server.url, user, 'POST', '/api/stickies', { content, tags });
      expect(response.status).toBe(201);
      created.push(response.body.data.id);
    }
    expect((await callApi(server.url, user, 'DELETE', `/api/stickies/${created[2]}`)).status).toBe(200);
    expect((await callApi(server.url, other, 'POST', '/api/stickies', { content: 'theirs', tags: ['q4', 'secret'] })).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('trashedOnly lists only the stickies in the trash, whatever includeDeleted says', async () => {
    for (const includeDeleted of [true, false]) {
      const response = await graphql(user.key, `{ stickies(trashedOnly: true, includeDeleted: ${includeDeleted}) { edges { node { content deletedAt } } } }`);
      expect(response.body.errors).toBeUndefined();
      const nodes = response.body.data.stickies.edges.map((e: { node: { content: string; deletedAt: string | null } }) => e.node);
      expect(nodes.map((n: { content: string }) => n.content)).toEqual(['c']);
      expect(nodes[0].deletedAt).not.toBeNull();
    }
    const active = await graphql(user.key, '{ stickies { edges { node { content } } } }');
    expect(active.body.data.stickies.edges.map((e: { node: { content: string } }) => e.node.content).sort()).toEqual(['a', 'b', 'd']);
  });

  it("stickyTags counts the caller's active stickies per tag, most used first, then by name", async () => {
    const response = await graphql(user.key, '{ stickyTags { tag count } }');
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.stickyTags).toEqual([
      { tag: 'q4', count: 2 },
      { tag: 'close', count: 1 },
      { tag: 'urgent', count: 1 },
    ]);
  });

  it('both need the read:workspace scope and a credential', async () => {
    const unscoped = await createUser(server.services, { scopes: ['read:returns'] });
    const forbidden = await graphql(unscoped.key, '{ stickyTags { tag } }');
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const anonymous = await graphql(null, '{ stickies(trashedOnly: true) { edges { node { id } } } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
