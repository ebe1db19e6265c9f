/**
 * Batching, automatic persisted queries and trusted documents on /graphql, with the clients that
 * use them: graphql-request's batchRequests, Apollo Client's BatchHttpLink and PersistedQueryLink.
 * A batch is never a way around a budget: each operation charges its own. Trusted documents:
 * only the allow-list runs.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const STICKIES = 'query Stickies { stickies(first: 5) { edges { node { id content } } } }';
const TAGS = 'query Tags { stickyTags { tag count } }';
/** Used only by the trusted-documents test, so that its APQ round trip registers it afresh. */
const TRUSTED = 'query TrustedStickies { stickies(first: 5) { edges { node { id content } } } }';

let server: TestServer;
let budgeted: TestServer;
let user: TestUser;
let trustedDir: string;

beforeAll(async () => {
  trustedDir = await fs.mkdtemp(path.join(os.tmpdir(), 'trusted-'));
  [server, budgeted] = await Promise.all([startTestServer({ GRAPHQL_MAX_BATCH: '3' }), startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '2' })]);
  user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
  await fetch(`${server.url}/api/stickies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ content: 'Batched note', tags: ['batch'] }),
  });
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), budgeted?.close()]);
  await fs.rm(trustedDir, { recursive: true, force: true });
});

/** fetch that counts the HTTP requests and keeps their bodies. */
function countingFetch() {
  const bodies: unknown[] = [];
  const counted: typeof fetch = async (input, init) => {
    bodies.push(init?.body ? JSON.parse(String(init.body)) : null);
    return fetch(input, init);
  };
  return { fetch: counted, bodies };
}

describe('batching', () => {
  it("graphql-request's batchRequests: one HTTP request, one result per operation", async () => {
    const client = new GraphQLClient(`${server.url}/graphql`, { headers: { 'x-api-key': user.key } });
    const results = await client.batchRequests<
      [{ data: { stickies: { edges: { node: { content: string } }[] } } }, { data: { stickyTags: { tag: string }[] } }]
    >([{ document: STICKIES }, { document: TAGS }]);
    expect(results[0].data.stickies.edges.map((edge) => edge.node.content)).toEqual(['Batched note']);
    expect(results[1].data.stickyTags.map((tag) => tag.tag)).toEqual(['batch']);
  });

  it("Apollo Client's BatchHttpLink sends operations of one tick in one request", async () => {
    const counter = countingFetch();
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new BatchHttpLink({ uri: `${server.url}/graphql`, headers: { 'x-api-key': user.key }, fetch: counter.fetch, batchInterval: 20 }),
    });
    const [stickies, tags] = await Promise.all([client.query({ query: gql(STICKIES) }), client.query({ query: gql(TAGS) })]);
    expect((stickies.data as { stickies: { edges: unknown[] } }).stickies.edges).toHaveLength(1);
    expect((tags.data as { stickyTags: unknown[] }).stickyTags).toHaveLength(1);
    expect(counter.bodies).toHaveLength(1);
    expect(Array.isArray(counter.bodies[0])).toBe(true);
  });

  it('a batch over GRAPHQL_MAX_BATCH is refused whole, with a message', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': user.key },
      body: JSON.stringify(Array.from({ length: 4 }, () => ({ query: TAGS }))),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(JSON.stringify(await response.json())).toMatch(/batch/i);
  });

  it('each operation of a batch charges its budget: a batch is no way around a rate limit', async () => {
    const owner = await createUser(budgeted.services, { scopes: ['read:returns'] });
    const comparison = { query: '{ returnComparison(first: 1) { edges { node { date } } } }' };
    const response = await fetch(`${budgeted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': owner.key },
      body: JSON.stringify([comparison, comparison, comparison]),
    });
    const results = (await response.json()) as { errors?: { extensions: { code: string } }[] }[];
    expect(results.map((result) => result.errors?.[0]?.extensions.code ?? 'ok')).toEqual(['ok', 'ok', 'RATE_LIMITED']);
  });
});

describe('automatic persisted queries', () => {
  it("Apollo's PersistedQueryLink: the first use registers the document, the next sends only its hash", async () => {
    const counter = countingFetch();
    const link = ApolloLink.from([
      new PersistedQueryLink({ sha256 }),
      new HttpLink({ uri: `${server.url}/graphql`, headers: { 'x-api-key': user.key }, fetch: counter.fetch }),
    ]);
    const first = new ApolloClient({ cache: new InMemoryCache(), link });
    const answer = await first.query({ query: gql(STICKIES) });
    expect((answer.data as { stickies: { edges: unknown[] } }).stickies.edges).toHaveLength(1);
    // Hash only (not found) then hash and document.
    expect(counter.bodies.map((body) => typeof (body as { query?: string }).query)).toEqual(['undefined', 'string']);
    const second = new ApolloClient({ cache: new InMemoryCache(), link });
    await second.query({ query: gql(STICKIES) });
    expect(counter.bodies).toHaveLength(3);
    expect((counter.bodies[2] as { query?: string }).query).toBeUndefined();
  });

  it('a document that does not match its hash is refused; an unknown hash is PERSISTED_QUERY_NOT_FOUND', async () => {
    const post = (body: unknown) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': user.key },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ errors?: { message: string; extensions: { code: string } }[] }>);
    const mismatch = await post({ query: TAGS, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(STICKIES) } } });
    expect(mismatch.errors?.[0].message).toBe('The persisted query hash does not match the query');
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('query Unknown { __typename }') } } });
    expect(unknown.errors?.[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('trusted documents (TRUSTED_DOCUMENTS_FILE)', () => {
  it("runs the allow-list's documents by hash (Apollo's PersistedQueryLink) and refuses anything else", async () => {
    // The allow-list is what the client really sends (Apollo adds __typename before hashing), as a
    // build step would collect it: here from one APQ round trip against the open server.
    const counter = countingFetch();
    const collect = ApolloLink.from([
      new PersistedQueryLink({ sha256 }),
      new HttpLink({ uri: `${server.url}/graphql`, headers: { 'x-api-key': user.key }, fetch: counter.fetch }),
    ]);
    await new ApolloClient({ cache: new InMemoryCache(), link: collect }).query({ query: gql(TRUSTED), fetchPolicy: 'network-only' });
    const sent = counter.bodies.find((body) => typeof (body as { query?: string }).query === 'string') as {
      query: string;
      extensions: { persistedQuery: { sha256Hash: string } };
    };
    const file = path.join(trustedDir, 'documents.json');
    await fs.writeFile(file, JSON.stringify({ [sent.extensions.persistedQuery.sha256Hash]: sent.query }));
    const trusted = await startTestServer({ TRUSTED_DOCUMENTS_FILE: file });
    onTestFinished(() => trusted.close());
    const owner = await createUser(trusted.services, { scopes: ['read:workspace'] });
    const link = ApolloLink.from([new PersistedQueryLink({ sha256 }), new HttpLink({ uri: `${trusted.url}/graphql`, headers: { 'x-api-key': owner.key } })]);
    const client = new ApolloClient({ cache: new InMemoryCache(), link });
    const answer = await client.query({ query: gql(TRUSTED) });
    expect((answer.data as { stickies: { edges: unknown[] } }).stickies.edges).toEqual([]);
    const arbitrary = await fetch(`${trusted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': owner.key },
      body: JSON.stringify({ query: TAGS }),
    });
    expect(JSON.stringify(await arbitrary.json())).toMatch(/PersistedQueryOnly|persisted/i);
    const unlisted = await fetch(`${trusted.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': owner.key },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TAGS) } } }),
    });
    expect(JSON.stringify(await unlisted.json())).toMatch(/PersistedQueryNotFound|not found/i);
    // The REST routes run the service's own operations: unaffected.
    expect((await fetch(`${trusted.url}/api/stickies`, { headers: { 'x-api-key': owner.key } })).status).toBe(200);
  });
});
