/**
 * Two instances of the service behind one load balancer: they share the PostgreSQL schema and
 * Redis. A run executes on instance A (B's worker is off), and whoever follows it on instance B
 * (the REST event stream, GraphQL subscriptions in both graphql-sse modes) hears every event
 * through Redis; a cancel sent to B reaches the run on A the same way.
 *
 * Needs DATABASE_URL and REDIS_URL (the embedded database is one process's).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { record, sseClient, type Recording } from '../helpers/graphql-sse.ts';
import { loadConfig } from '../../src/config.ts';
import { startService, type RunningService } from '../../server/app.ts';
import { createLogger } from '../../src/log.ts';
import { RunStore } from '../../src/generation/run-store.ts';

const EVENT_FIELDS = 'runId sequence agent status progress message data createdAt';
const PROGRESS = `subscription Progress($runId: UUID!, $after: Int) {
  generationProgress(runId: $runId, after: $after) {
    __typename ... on GenerationEvent { ${EVENT_FIELDS} } ... on GenerationHeartbeat { lastSequence } } }`;
const RUN = `query Run($id: UUID!) { generationRun(id: $id) { id state finished cancelRequested lastSequence events { ${EVENT_FIELDS} } } }`;

interface StoredEvent {
  runId: string;
  sequence: number;
  agent: string;
  status: string;
  progress: number;
  message: string;
  data: Record<string, any>;
  createdAt: string;
}

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** A REST event stream read as it arrives. */
interface RestStream {
  status: number;
  frames: SseFrame[];
  /** Resolves when the server closes the stream. */
  closed: Promise<void>;
  until(predicate: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  abort(): void;
}

async function openRestStream(url: string, headers: Record<string, string>): Promise<RestStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const closed = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: SseFrame = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon);
              const value = line.slice(colon + 1).replace(/^ /, '');
              if (field === 'id' || field === 'event') frame[field] = value;
              else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
            }
          }
          frames.push(frame);
          for (const waiter of [...waiters]) waiter();
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      done = true;
      for (const waiter of [...waiters]) waiter();
    }
  })();
  return {
    status: response.status,
    frames,
    closed,
    until(predicate, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`REST stream: timed out after ${timeoutMs} ms with ${frames.length} frame(s)`)), timeoutMs);
        function finish(error?: Error) {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve();
        }
        function check() {
          if (predicate(frames)) finish();
          else if (done) finish(new Error(`REST stream closed before the condition held; ${frames.length} frame(s), last ${JSON.stringify(frames.at(-1))}`));
        }
        waiters.add(check);
        check();
      });
    },
    abort: () => controller.abort(),
  };
}

const eventFrames = (stream: RestStream) => stream.frames.filter((frame) => frame.id !== undefined);
const gqlEvents = (recording: Recording): StoredEvent[] =>
  recording.results.flatMap((result) => {
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const item = (result.data as { generationProgress: StoredEvent & { __typename: string } }).generationProgress;
    if (item.__typename !== 'GenerationEvent') return [];
    const { __typename, ...event } = item;
    return [event];
  });
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('two instances sharing PostgreSQL and Redis', () => {
  let a: TestServer;
  let b: RunningService;
  let bDataDir: string;

  beforeAll(async () => {
    // A runs the generations, slowly enough to be followed and cancelled midway.
    a = await startTestServer({ GENERATION_STEP_DELAY: '50ms', GENERATION_HEARTBEAT: '60s' });
    bDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-server-b-'));
    // B runs none, and its heartbeat (when a feed also rereads the log) is far off: whatever B's
    // followers get of a live run came to B as a Redis message.
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: a.services.config.databaseUrl,
      REDIS_URL: process.env.REDIS_URL,
      RATE_LIMIT_KEY_PREFIX: `rl-${randomBytes(4).toString('hex')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: bDataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      SEED_DEMO_DATA: 'false',
      SELF_TEST_ENABLED: 'false',
      COOKIE_SECURE: 'false',
      WORKER_ENABLED: 'false',
      GENERATION_HEARTBEAT: '60s',
    });
    b = await startService(config, { log: createLogger(config.logLevel) });
    expect(a.services.pubsub.kind).toBe('redis');
    expect(b.services.pubsub.kind).toBe('redis');
  });

  afterAll(async () => {
    await b?.stop();
    if (bDataDir) await fs.rm(bDataDir, { recursive: true, force: true });
    await a?.close();
  });

  const newUser = () => createUser(a.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });

  async function gql(server: { url: string }, user: TestUser, query: string, variables: Record<string, unknown> = {}) {
    const { body } = await graphql(server.url, { 'x-api-key': user.key }, query, variables);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    return body.data;
  }

  async function storedRun(user: TestUser, id: string) {
    return (await gql(a, user, RUN, { id })).generationRun as {
      state: string;
      finished: boolean;
      cancelRequested: boolean;
      lastSequence: number;
      events: StoredEvent[];
    };
  }

  async function waitFinished(user: TestUser, id: string, timeoutMs = 20_000) {
    const giveUp = Date.now() + timeoutMs;
    for (;;) {
      const run = await storedRun(user, id);
      if (run.finished) return run;
      if (Date.now() > giveUp) throw new Error(`run ${id} still ${run.state} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The REST frames of a stream, checked against the stored log. */
  function expectRestMatchesLog(stream: RestStream, log: StoredEvent[], after = 0) {
    const frames = eventFrames(stream);
    expect(frames.map((frame) => Number(frame.id))).toEqual(range(after + 1, log.length));
    for (const [index, frame] of frames.entries()) {
      const event = log[after + index];
      const final = event.agent === 'run' && (event.status === 'complete' || event.status === 'failed');
      expect(frame.event).toBe(event.agent !== 'run' ? 'progress' : final ? 'done' : 'run');
      expect(JSON.parse(frame.data!)).toEqual({ agent: event.agent, status: event.status, progress: event.progress, message: event.message, data: event.data });
    }
  }

  it('followers on B get every event of a run executing on A, live, through Redis', async () => {
    const user = await newUser();
    const processedBefore = a.services.generationWorker.status().processed;
    const run = (await gql(a, user, `mutation { startGeneration(input: { sources: [stickies, links, tasks] }) { id } }`)).startGeneration as { id: string };

    const rest = await openRestStream(`${b.url}/api/generate?run_id=${run.id}`, { 'x-api-key': user.key });
    expect(rest.status).toBe(200);
    const distinct = record(sseClient(b.url, 'distinct', { 'x-api-key': user.key }), PROGRESS, { runId: run.id, after: 0 });
    const single = record(sseClient(b.url, 'single', { 'x-api-key': user.key }), PROGRESS, { runId: run.id, after: 0 });
    await Promise.all([
      rest.until((frames) => frames.some((frame) => frame.id !== undefined)),
      distinct.until((results) => results.length > 0),
      single.until((results) => results.length > 0),
    ]);
    const followingSince = Date.now();
    // Three followers on B, one feed (and one Redis subscription) for the run.
    expect(b.services.progress.followedRuns).toBe(1);
    expect((await storedRun(user, run.id)).finished).toBe(false);

    await rest.closed;
    expect((await distinct.ended).kind).toBe('complete');
    expect((await single.ended).kind).toBe('complete');

    const stored = await storedRun(user, run.id);
    expect(stored.state).toBe('completed');
    const log = stored.events;
    expect(log.at(-1)).toMatchObject({ agent: 'run', status: 'complete' });
    expect(Date.parse(log.at(-1)!.createdAt)).toBeGreaterThan(followingSince);
    expectRestMatchesLog(rest, log);
    expect(gqlEvents(distinct)).toEqual(log);
    expect(gqlEvents(single)).toEqual(log);
    // A ran it; B, whose worker is off, did not.
    expect(a.services.generationWorker.status().processed).toBe(processedBefore + 1);
    expect(b.services.generationWorker.status().processed).toBe(0);
    expect(b.services.progress.followedRuns).toBe(0);
  });

  it('a run started on B executes on A and streams on B; a client resuming on B with Last-Event-ID misses nothing', async () => {
    const user = await newUser();
    const started = await openRestStream(`${b.url}/api/generate?sources=tasks,stickies`, { 'x-api-key': user.key });
    expect(started.status).toBe(200);
    await started.until((frames) => eventFrames({ frames } as RestStream).length >= 6);
    started.abort();
    const seen = eventFrames(started);
    const lastId = Number(seen.at(-1)!.id);
    const runId = JSON.parse(seen[0].data!).data.run_id as string;
    expect((await storedRun(user, runId)).finished).toBe(false);

    const resumed = await openRestStream(`${b.url}/api/generate?run_id=${runId}`, { 'x-api-key': user.key, 'last-event-id': String(lastId) });
    expect(resumed.status).toBe(200);
    await resumed.closed;
    const stored = await storedRun(user, runId);
    expect(stored.state).toBe('completed');
    expectRestMatchesLog(resumed, stored.events, lastId);
    expect([...seen, ...eventFrames(resumed)].map((frame) => Number(frame.id))).toEqual(range(1, stored.lastSequence));
    expect(b.services.generationWorker.status().processed).toBe(0);
  });

  it('cancelling on B stops the run executing on A', async () => {
    const user = await newUser();
    const run = (await gql(a, user, `mutation { startGeneration(input: { sources: [stickies, links, transcripts, tasks, news] }) { id } }`))
      .startGeneration as { id: string };
    const rest = await openRestStream(`${b.url}/api/generate?run_id=${run.id}`, { 'x-api-key': user.key });
    await rest.until((frames) => frames.some((frame) => frame.event === 'progress' && JSON.parse(frame.data!).status === 'active'));
    expect((await storedRun(user, run.id)).state).toBe('running');

    const cancelledAt = Date.now();
    const cancel = (await gql(b, user, `mutation($id: UUID!) { cancelGeneration(id: $id) { id cancelRequested finished } }`, { id: run.id })).cancelGeneration;
    expect(cancel).toMatchObject({ id: run.id, cancelRequested: true });
    await rest.closed;
    expect(Date.now() - cancelledAt).toBeLessThan(3_000);

    const stored = await storedRun(user, run.id);
    expect(stored).toMatchObject({ state: 'cancelled', finished: true, cancelRequested: true });
    expectRestMatchesLog(rest, stored.events);
    const done = JSON.parse(eventFrames(rest).at(-1)!.data!);
    expect(done).toMatchObject({ agent: 'run', status: 'failed', data: { state: 'cancelled', reason: 'cancelled' } });
    const stopped = stored.events.filter((event) => event.agent !== 'run' && event.status === 'failed');
    expect(stopped.length).toBeGreaterThan(0);
    for (const event of stopped) expect(event.message).toBe('Cancelled');
    expect(stored.events.some((event) => event.agent === 'editor' && event.status === 'complete')).toBe(false);
  });

  it('a cancel whose Redis message is lost is still honoured by the run at its next agent', async () => {
    // GenerationService.cancel: "its worker, on any instance, hears it through the pub/sub and,
    // failing that, sees the flag at its next agent". Redis pub/sub drops messages while a
    // connection is down; here the flag is set exactly as cancel sets it, without the message.
    const user = await newUser();
    const run = (await gql(a, user, `mutation { startGeneration(input: { sources: [stickies, links, transcripts, tasks, news] }) { id } }`))
      .startGeneration as { id: string };
    const rest = await openRestStream(`${b.url}/api/generate?run_id=${run.id}`, { 'x-api-key': user.key });
    await rest.until((frames) =>
      frames.some((frame) => frame.event === 'progress' && JSON.parse(frame.data!).agent === 'collector' && JSON.parse(frame.data!).status === 'started'),
    );
    const flagged = await new RunStore(b.services.db.pool).requestCancel(run.id);
    expect(flagged?.cancelRequestedAt).toBeInstanceOf(Date);
    expect(flagged?.state).toBe('running');
    await rest.closed;
    const stored = await storedRun(user, run.id);
    expect(stored.state).toBe('cancelled');
    expect(stored.events.some((event) => event.agent === 'editor' && event.status === 'complete')).toBe(false);
  });
});
