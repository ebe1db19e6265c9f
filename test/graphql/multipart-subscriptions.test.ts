/**
 * Subscriptions over multipart HTTP as Apollo Client's HttpLink asks for them
 * (`Accept: multipart/mixed;boundary=graphql;subscriptionSpec=1.0`): the run's events through the
 * final one, as stored, with the same authentication and `after` cursor as the other transports.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const PROGRESS = `subscription Progress($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) {
  __typename ... on GenerationEvent { sequence agent status } } }`;
const START = 'mutation { startGeneration(input: { days: 7, sources: [stickies] }) { id } }';

type Item = { __typename: string; sequence?: number; agent?: string; status?: string };

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ GENERATION_STEP_DELAY: '20ms' });
}, 60_000);
afterAll(async () => server?.close());

async function startRun(user: TestUser): Promise<string> {
  return ((await graphql(server.url, { 'x-api-key': user.key }, START)).body.data as { startGeneration: { id: string } }).startGeneration.id;
}

/** The sequences an Apollo HttpLink subscription receives until the run's final event (or an error). */
function follow(key: string | undefined, runId: string, after: number): Promise<{ sequences: number[]; error?: unknown }> {
  const apollo = new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({ uri: `${server.url}/graphql`, headers: key ? { 'x-api-key': key } : {} }),
  });
  const sequences: number[] = [];
  return new Promise((resolve) => {
    const subscription = apollo.subscribe({ query: gql(PROGRESS), variables: { runId, after } }).subscribe({
      next: ({ data, error }) => {
        if (error) {
          subscription.unsubscribe();
          return resolve({ sequences, error });
        }
        const item = (data as { generationProgress?: Item } | undefined)?.generationProgress;
        if (item?.__typename === 'GenerationEvent') sequences.push(item.sequence!);
        if (item?.agent === 'run' && (item.status === 'complete' || item.status === 'failed')) {
          subscription.unsubscribe();
          resolve({ sequences });
        }
      },
      error: (error) => resolve({ sequences, error }),
      complete: () => resolve({ sequences }),
    });
  });
}

describe('multipart HTTP subscriptions (Apollo Client HttpLink)', () => {
  it('streams a run through its final event, as stored, and resumes after a sequence', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const runId = await startRun(user);
    const whole = await follow(user.key, runId, 0);
    expect(whole.error).toBeUndefined();
    expect(whole.sequences).toEqual(whole.sequences.map((_, i) => i + 1));
    const stored = await graphql(server.url, { 'x-api-key': user.key }, 'query ($id: UUID!) { generationRun(id: $id) { lastSequence } }', { id: runId });
    expect(whole.sequences).toHaveLength((stored.body.data as { generationRun: { lastSequence: number } }).generationRun.lastSequence);
    const resumed = await follow(user.key, runId, 3);
    expect(resumed.sequences).toEqual(whole.sequences.slice(3));
  });

  it('answers the multipart media type Apollo asks for, and refuses without a credential', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const runId = await startRun(user);
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json', 'x-api-key': user.key },
      body: JSON.stringify({ query: PROGRESS, variables: { runId, after: 0 } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const text = await response.text();
    expect(text).toContain('"payload":{"data":{"generationProgress"');
    expect(text.trimEnd().endsWith('--graphql--')).toBe(true);
    const refused = await follow(undefined, runId, 0);
    expect(refused.sequences).toEqual([]);
    expect(String(refused.error)).toMatch(/credential|API key|authenticat/i);
  });
});
