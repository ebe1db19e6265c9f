/**
 * Followers of one run on every GraphQL transport (graphql-ws, graphql-sse in both modes) with
 * different selections and credentials: each event is executed once per group of followers with
 * the same document, variables, user and scopes (gateway_subscription_results_total), and every
 * follower receives exactly what its own selection of the stored events gives, every event once
 * and in order. Then a credential revoked mid-run: its streams (graphql-ws, REST SSE) end within a
 * heartbeat, another credential's stream of the same run goes on to the final event, and the
 * revoked credential's next subscription is refused.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { record, sseClient, type Recording } from '../helpers/graphql-sse.ts';
import { openStream } from '../helpers/sse.ts';

const SELECTION_A = `subscription Follow($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) {
  __typename ... on GenerationEvent { sequence agent status } } }`;
const SELECTION_B = `subscription Follow($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) {
  ... on GenerationEvent { sequence progress message } ... on GenerationHeartbeat { lastSequence } } }`;
const START = 'mutation { startGeneration(input: { days: 7, sources: [stickies] }) { id } }';
const STORED = `query ($id: UUID!) { generationRun(id: $id) { events(first: 500) { sequence agent status progress message } } }`;

type Stored = { sequence: number; agent: string; status: string; progress: number; message: string };
type Item = Record<string, unknown>;

let server: TestServer;
const wsClients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ GENERATION_STEP_DELAY: '150ms', GENERATION_HEARTBEAT: '150ms', STREAMS_PER_USER: '50' });
}, 60_000);
afterAll(async () => {
  await Promise.all(wsClients.map((client) => client.dispose()));
  await server?.close();
});

function wsClient(key: string): Client {
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': key },
    retryAttempts: 0,
    lazy: true,
  });
  wsClients.push(client);
  return client;
}

/** A user who can start runs, and more API keys of theirs: `[secret, id]` pairs. */
async function userWithKeys(scopesPerKey: string[][]): Promise<{ userId: string; keys: { secret: string; id: string }[] }> {
  const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  await fetch(`${server.url}/api/stickies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ content: 'Quarter-end: reconcile custodian returns', tags: ['close'] }),
  });
  const keys = [];
  for (const scopes of scopesPerKey) {
    const { secret, record: created } = await server.services.apiKeys.create({ userId: user.userId, name: `key ${keys.length}`, scopes });
    keys.push({ secret, id: created.id });
  }
  return { userId: user.userId, keys };
}

async function startRun(key: string): Promise<string> {
  const started = await graphql(server.url, { 'x-api-key': key }, START);
  return (started.body.data as { startGeneration: { id: string } }).startGeneration.id;
}

async function subscriptionResults(): Promise<{ executed: number; shared: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (outcome: string) => Number(new RegExp(`^gateway_subscription_results_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { executed: value('executed'), shared: value('shared') };
}

/** graphql-ws: every result's generationProgress until the subscription completes. */
async function followOverWs(client: Client, query: string, variables: Record<string, unknown>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const result of client.iterate({ query, variables })) {
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    items.push((result.data as { generationProgress: Item }).generationProgress);
  }
  return items;
}

function sseItems(recording: Recording): Item[] {
  return recording.results.map((result) => {
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return result.data!.generationProgress as Item;
  });
}

const isEventA = (item: Item) => item.__typename === 'GenerationEvent';
const isEventB = (item: Item) => 'sequence' in item;

describe('subscription events executed once per group of followers', () => {
  it('followers with the same selection and scopes share each execution; other selections and scopes get their own; everyone gets exactly their selection of every stored event', async () => {
    const { keys } = await userWithKeys([['read:workspace', 'write:workspace'], ['write:workspace', 'read:workspace'], ['read:workspace']]);
    const [first, second, readOnly] = keys;
    const before = await subscriptionResults();
    const runId = await startRun(first.secret);
    const variables = { runId, after: 0 };

    // Group 1 (selection A, read+write scopes): two WebSocket followers with different keys, and graphql-sse distinct connections.
    const group1 = [followOverWs(wsClient(first.secret), SELECTION_A, variables), followOverWs(wsClient(second.secret), SELECTION_A, variables)];
    const distinct = record(sseClient(server.url, 'distinct', { 'x-api-key': first.secret }), SELECTION_A, variables);
    // Group 2: another selection (graphql-sse single connection). Group 3: selection A with other scopes.
    const single = record(sseClient(server.url, 'single', { 'x-api-key': second.secret }), SELECTION_B, variables);
    const otherScopes = followOverWs(wsClient(readOnly.secret), SELECTION_A, variables);

    const [ws1, ws2, wsReadOnly] = await Promise.all([...group1, otherScopes]);
    expect((await distinct.ended).kind).toBe('complete');
    expect((await single.ended).kind).toBe('complete');
    const stored = ((await graphql(server.url, { 'x-api-key': first.secret }, STORED, { id: runId })).body.data as { generationRun: { events: Stored[] } })
      .generationRun.events;
    expect(stored.at(-1)).toMatchObject({ agent: 'run', status: 'complete' });

    const expectedA = stored.map((event) => ({ __typename: 'GenerationEvent', sequence: event.sequence, agent: event.agent, status: event.status }));
    const expectedB = stored.map((event) => ({ sequence: event.sequence, progress: event.progress, message: event.message }));
    for (const items of [ws1, ws2, sseItems(distinct), wsReadOnly]) {
      expect(items.filter(isEventA)).toEqual(expectedA);
      // Heartbeats carry nothing but their type in selection A.
      for (const item of items.filter((item) => !isEventA(item))) expect(item).toEqual({ __typename: 'GenerationHeartbeat' });
    }
    const singleItems = sseItems(single);
    expect(singleItems.filter(isEventB)).toEqual(expectedB);
    for (const item of singleItems.filter((item) => !isEventB(item))) expect(Object.keys(item)).toEqual(['lastSequence']);

    // Each result handed out was executed or shared, and the three followers of group 1 shared each event's execution.
    const after = await subscriptionResults();
    const executed = after.executed - before.executed;
    const shared = after.shared - before.shared;
    const delivered = [ws1, ws2, sseItems(distinct), wsReadOnly, singleItems].reduce((sum, items) => sum + items.length, 0);
    expect(executed + shared).toBe(delivered);
    expect(executed).toBeGreaterThanOrEqual(3 * stored.length);
    expect(shared).toBeGreaterThanOrEqual(2 * stored.length);
  }, 60_000);

  it('a credential revoked mid-run ends its streams (graphql-ws and REST) within a heartbeat; another credential follows to the end; the revoked one is refused', async () => {
    const { keys } = await userWithKeys([
      ['read:workspace', 'write:workspace'],
      ['read:workspace', 'write:workspace'],
    ]);
    const [revoked, kept] = keys;
    const runId = await startRun(kept.secret);
    const variables = { runId, after: 0 };

    const revokedItems: Item[] = [];
    let revokedDone!: () => void;
    const revokedEnded = new Promise<void>((resolve) => (revokedDone = resolve));
    let firstEvent!: () => void;
    const gotFirstEvent = new Promise<void>((resolve) => (firstEvent = resolve));
    const revokedWs = wsClient(revoked.secret);
    revokedWs.subscribe(
      { query: SELECTION_A, variables },
      {
        next: (result) => {
          revokedItems.push((result.data as { generationProgress: Item }).generationProgress);
          if (revokedItems.some(isEventA)) firstEvent();
        },
        error: (error) => {
          revokedItems.push({ error: String(error) });
          revokedDone();
        },
        complete: () => revokedDone(),
      },
    );
    const rest = await openStream(`${server.url}/api/generate?run_id=${runId}`, { 'x-api-key': revoked.secret });
    expect(rest.status).toBe(200);
    const keptFollower = followOverWs(wsClient(kept.secret), SELECTION_A, variables);

    await gotFirstEvent;
    await rest.reader!.nextEvent();
    await server.services.apiKeys.revoke({ id: revoked.id });

    await revokedEnded;
    const blocks = await rest.reader!.readToEnd();
    const keptItems = await keptFollower;
    const finalSequence = keptItems.filter(isEventA).at(-1)!.sequence as number;
    expect(keptItems.filter(isEventA).at(-1)).toMatchObject({ agent: 'run', status: 'complete' });
    // The revoked credential's streams ended before the run did, without an error or a `done` event.
    expect(revokedItems.filter(isEventA).at(-1)!.sequence).toBeLessThan(finalSequence);
    expect(revokedItems.some((item) => 'error' in item)).toBe(false);
    expect(blocks.some((block) => block.event === 'done')).toBe(false);
    expect(Math.max(...blocks.filter((block) => block.id !== undefined).map((block) => Number(block.id)))).toBeLessThan(finalSequence);

    // Its next subscription is refused, as any request with it would be.
    const refused = await (async () => {
      try {
        await followOverWs(wsClient(revoked.secret), SELECTION_A, variables);
        return null;
      } catch (error) {
        return String((error as Error).message ?? error);
      }
    })();
    expect(refused).toMatch(/UNAUTHENTICATED/);
    const again = await openStream(`${server.url}/api/generate?run_id=${runId}`, { 'x-api-key': revoked.secret });
    expect(again.status).toBe(401);
  }, 60_000);
});
