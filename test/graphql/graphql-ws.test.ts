/**
 * GraphQL over WebSocket (graphql-ws protocol) at /graphql, with graphql-ws's own client and
 * Apollo Client's GraphQLWsLink: queries and mutations, the generation subscription (every event
 * in order through the final one, as stored; resuming with `after`), and the same authentication,
 * scopes and rate budgets as the HTTP transports.
 */
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import type { FormattedExecutionResult } from 'graphql';

type ExecutionResult = FormattedExecutionResult<Record<string, unknown>, unknown>;
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, signInCookie, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const PROGRESS = `subscription ($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) {
  __typename ... on GenerationEvent { sequence agent status } } }`;
const START = 'mutation { startGeneration(input: { days: 7, sources: [stickies] }) { id } }';

let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ GENERATION_STEP_DELAY: '20ms', RATE_LIMIT_GENERATE_PER_MINUTE: '3' });
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await server?.close();
});

function wsClient(connectionParams: Record<string, string> = {}): Client {
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}

/** Every result of an operation until it completes (or its first error, thrown). */
async function collect(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<ExecutionResult[]> {
  const results: ExecutionResult[] = [];
  for await (const result of client.iterate({ query, variables })) results.push(result);
  return results;
}

type Progress = { generationProgress: { __typename: string; sequence?: number; agent?: string; status?: string } };

async function workspaceUser(): Promise<TestUser> {
  const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  await fetch(`${server.url}/api/stickies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ content: 'Month-end close: reconcile the custodian returns', tags: ['close'] }),
  });
  return user;
}

describe('GraphQL over WebSocket (graphql-ws)', () => {
  it('runs queries and mutations with the key from connection_init', async () => {
    const user = await workspaceUser();
    const client = wsClient({ 'x-api-key': user.key });
    const [me] = await collect(client, '{ me { user { email } } }');
    expect(me.data).toEqual({ me: { user: { email: user.email } } });
    const [started] = await collect(client, START);
    expect((started.data as { startGeneration: { id: string } }).startGeneration.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('streams a run through its final event, as stored, and resumes after a sequence', async () => {
    const user = await workspaceUser();
    const runId = ((await graphql(server.url, { 'x-api-key': user.key }, START)).body.data as { startGeneration: { id: string } }).startGeneration.id;
    const client = wsClient({ authorization: `Bearer ${user.key}` });
    const results = await collect(client, PROGRESS, { runId, after: 0 });
    const events = results.map((result) => (result.data as Progress).generationProgress).filter((item) => item.__typename === 'GenerationEvent');
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ agent: 'run', status: 'complete' });
    const stored = await graphql(server.url, { 'x-api-key': user.key }, 'query ($id: UUID!) { generationRun(id: $id) { lastSequence } }', { id: runId });
    expect(events).toHaveLength((stored.body.data as { generationRun: { lastSequence: number } }).generationRun.lastSequence);
    const resumed = (await collect(client, PROGRESS, { runId, after: 3 }))
      .map((result) => (result.data as Progress).generationProgress)
      .filter((item) => item.__typename === 'GenerationEvent');
    expect(resumed.map((event) => event.sequence)).toEqual(events.slice(3).map((event) => event.sequence));
  });

  it('refuses as the HTTP transports do: no credential UNAUTHENTICATED, a missing scope FORBIDDEN, the rate budget RATE_LIMITED', async () => {
    const user = await workspaceUser();
    const runId = ((await graphql(server.url, { 'x-api-key': user.key }, START)).body.data as { startGeneration: { id: string } }).startGeneration.id;
    const refusal = async (client: Client) => {
      const results = await collect(client, PROGRESS, { runId });
      expect(results).toHaveLength(1);
      expect(results[0].data ?? null).toBeNull();
      return results[0].errors?.[0]?.extensions?.code;
    };
    expect(await refusal(wsClient())).toBe('UNAUTHENTICATED');
    const reader = await createUser(server.services, { scopes: ['read:returns'], role: 'member' });
    expect(await refusal(wsClient({ 'x-api-key': reader.key }))).toBe('FORBIDDEN');
    // The generate budget is 3 a minute per credential: this user has spent one above.
    const client = wsClient({ 'x-api-key': user.key });
    const codes: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const [result] = await collect(client, START);
      codes.push((result.errors?.[0]?.extensions?.code as string | undefined) ?? 'ok');
    }
    expect(codes).toContain('RATE_LIMITED');
  });

  it("the session cookie counts only from this service's own pages (no cross-site WebSocket hijacking)", async () => {
    const user = await workspaceUser();
    const cookie = await signInCookie(server.url, user);
    const withCookie = (origin: string) => {
      const client = createClient({
        url: `${server.url.replace(/^http/, 'ws')}/graphql`,
        retryAttempts: 0,
        lazy: true,
        webSocketImpl: class extends WebSocket {
          constructor(address: string, protocols?: string | string[]) {
            super(address, protocols, { headers: { cookie, origin } });
          }
        },
      });
      clients.push(client);
      return client;
    };
    const [own] = await collect(withCookie(server.url), '{ me { user { email } } }');
    expect(own.data).toEqual({ me: { user: { email: user.email } } });
    const [foreign] = await collect(withCookie('http://evil.example'), '{ me { user { email } } }');
    expect(foreign.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("Apollo Client's GraphQLWsLink receives the run's events through the final one", async () => {
    const user = await workspaceUser();
    const runId = ((await graphql(server.url, { 'x-api-key': user.key }, START)).body.data as { startGeneration: { id: string } }).startGeneration.id;
    const client = wsClient({ 'x-api-key': user.key });
    const apollo = new ApolloClient({ cache: new InMemoryCache(), link: new GraphQLWsLink(client) });
    const seen: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = apollo.subscribe({ query: gql(PROGRESS), variables: { runId, after: 0 } }).subscribe({
        next: ({ data, error }) => {
          if (error) return reject(error);
          const item = (data as Progress | undefined)?.generationProgress;
          if (item?.__typename === 'GenerationEvent') seen.push(item.sequence!);
          if (item?.agent === 'run' && item.status === 'complete') {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
        complete: () => resolve(),
      });
    });
    expect(seen).toEqual(seen.map((_, i) => i + 1));
    expect(seen.length).toBeGreaterThan(3);
  });
});
