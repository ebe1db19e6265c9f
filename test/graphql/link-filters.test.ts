/** links(unfiled) and linkCounts, which the dashboard's folder list reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, getJson, type TestUser } from '../helpers/fixtures.ts';

describe('links: unfiled and linkCounts', () => {
  let server: TestServer;
  let user: TestUser;
  let folderId: string;

  const graphql = (key: string, query: string, variables: Record<string, unknown> = {}) =>
    getJson(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, variables }),
    });

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const other = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const folder = await graphql(user.key, 'mutation { createLinkFolder(input: { name: "Research" }) { id } }');
    folderId = folder.body.data.createLinkFolder.id;
    for (const [url, inFolder, starred] of [
      ['https://a.example', true, true],
      ['https://b.example', false, true],
      ['https://c.example', false, false],
    ] as const) {
      const created = await graphql(user.key, 'mutation ($input: CreateLinkInput!) { createLink(input: $input) { id } }', {
        input: { url, starred, ...(inFolder ? { folderId } : {}) },
      });
      expect(created.body.errors).toBeUndefined();
    }
    expect((await callApi(server.url, other, 'POST', '/api/links', { url: 'https://theirs.example' })).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('unfiled lists only the links in no folder', async () => {
    const response = await graphql(user.key, '{ links(unfiled: true) { edges { node { url folderId } } } }');
    expect(response.body.data.links.edges.map((e: { node: { url: string } }) => e.node.url).sort()).toEqual(['https://b.example/', 'https://c.example/']);
    const starredUnfiled = await graphql(user.key, '{ links(unfiled: true, starred: true) { edges { node { url } } } }');
    expect(starredUnfiled.body.data.links.edges.map((e: { node: { url: string } }) => e.node.url)).toEqual(['https://b.example/']);
  });

  it('unfiled with folderId is a bad input', async () => {
    const response = await graphql(user.key, 'query ($f: UUID) { links(unfiled: true, folderId: $f) { edges { node { url } } } }', { f: folderId });
    expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors[0].message).toMatch(/unfiled.*folderId/);
  });

  it("linkCounts counts the caller's links only", async () => {
    const response = await graphql(user.key, '{ linkCounts { total unfiled starred } }');
    expect(response.body.data.linkCounts).toEqual({ total: 3, unfiled: 2, starred: 2 });
  });
});
