/**
 * What an idle follower of GET /api/generate holds (issue 29: memory per idle follower): once its
 * stream follows, nothing of the request's setup. The request context (the viewer, the rate
 * budgets, the logger) and what the pipeline made for the subscription are let go while the
 * stream stays open and keeps delivering; the follower keeps only what following needs.
 *
 * The contexts are watched through WeakRefs (src/context.ts createContext, wrapped: this file has a
 * module graph of its own, vitest.config.ts OWN_MODULES), and the garbage collector is run by hand.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { openStream, type SseReader } from '../helpers/sse.ts';

/** The contexts made for requests that carry an `x-test-follower` header. */
const followerContexts: WeakRef<object>[] = [];

vi.mock('../../src/context.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/context.ts')>();
  return {
    ...original,
    createContext: async (...args: Parameters<typeof original.createContext>) => {
      const ctx = await original.createContext(...args);
      if (args[1].headers['x-test-follower'] !== undefined) followerContexts.push(new WeakRef(ctx));
      return ctx;
    },
  };
});

// vitest runs the tests with --expose-gc (vitest.config.ts).
const gc = (globalThis as { gc?: () => void }).gc!;

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  // Slow steps: the run is still going while the streams are looked at.
  server = await startTestServer({ GENERATION_STEP_DELAY: '1s', GENERATION_HEARTBEAT: '500ms' });
  user = await createUser(server.services);
}, 120_000);
afterAll(async () => server?.close());

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data: T; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** Collects garbage until every watched context is gone, or gives up after a few rounds. */
async function contextsLeft(): Promise<number> {
  for (let round = 0; round < 20; round++) {
    gc();
    // A WeakRef holds its target until the end of the job that last read it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (followerContexts.every((ref) => ref.deref() === undefined)) return 0;
  }
  return followerContexts.filter((ref) => ref.deref() !== undefined).length;
}

describe('an idle follower of GET /api/generate', () => {
  it('holds nothing of its request context once it follows, and still gets every event', async () => {
    const { startGeneration } = await gql<{ startGeneration: { id: string } }>(`mutation { startGeneration(input: { sources: [stickies] }) { id } }`);
    const runId = startGeneration.id;
    const readers: SseReader[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const opened = await openStream(`${server.url}/api/generate?run_id=${runId}`, { 'x-api-key': user.key, 'x-test-follower': String(i) });
        expect(opened.status).toBe(200);
        readers.push(opened.reader!);
      }
      // Each has its replay of the first event: every stream follows.
      for (const reader of readers) expect((await reader.nextEvent())?.id).toBe(1);
      expect(followerContexts).toHaveLength(3);

      expect(await contextsLeft()).toBe(0);
      expect(server.services.progress.followedRuns).toBe(1);
      expect(server.services.streams.held(user.userId)).toBe(3);

      // ...and each stream goes on: the next event, in order, on every one of them.
      for (const reader of readers) expect((await reader.nextEvent())?.id).toBe(2);
    } finally {
      for (const reader of readers) reader.close();
      await gql(`mutation($id: UUID!) { cancelGeneration(id: $id) { id } }`, { id: runId }).catch(() => undefined);
    }
  });
});
