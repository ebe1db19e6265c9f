/**
 * GET /api/generate: summary generation as a client sees it. A real service (in-process, random
 * port) with seeded workspaces; the stream is read both with fetch (raw framing, status codes,
 * headers, hanging up mid-stream) and with a real SSE client (the `eventsource` package), and
 * the run is also looked at, and cancelled, through POST /graphql. Failing agents are staged
 * through the provider interfaces: a fake OpenAI-compatible writer model, a fake transcript
 * service, and the agent timeout.
 *
 * Three services, started together: `main` (short step delay), `slow` (long steps, fast
 * heartbeats, a small generate budget) and `providers` (CHAT_API_URL and TRANSCRIPT_PROVIDER=http
 * at local fakes, and a short GENERATION_AGENT_TIMEOUT that a hanging fake outlasts).
 */
import http from 'node:http';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import { UUID } from '../helpers/formats.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser, signInCookie } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { openStream, type GenerationPayload, type SseEvent, type SseReader } from '../helpers/sse.ts';
import { seedStickies } from '../../src/seed/workspace-stickies.ts';
import { seedLinks } from '../../src/seed/workspace-links.ts';
import { seedNews } from '../../src/seed/workspace-news.ts';
import { seedTasks } from '../../src/seed/workspace-tasks.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';
import type { Services } from '../../src/services.ts';

const ALL_AGENTS = ['collector', 'notes', 'meetings', 'tasks', 'news', 'writer', 'editor'];
const ANALYSTS = ['notes', 'meetings', 'tasks', 'news'];
const ALL_SOURCES = ['stickies', 'links', 'transcripts', 'tasks', 'news'];
const PAYLOAD_KEYS = ['agent', 'data', 'message', 'progress', 'status'];
const RW = ['read:workspace', 'write:workspace'];

const CHAT_KEY = 'sk-fake-generation-9c1e5a7b3d';
const CHAT_MODEL = 'writer-model-1';
const TRANSCRIPT_KEY = 'tk_fake_generation_4b8d2f6a';
/** Generous enough for a loaded CI machine; the agent's message says "Timed out after 2 s". */
const AGENT_TIMEOUT_MS = 2000;
/** How long a hanging fake takes to answer: well past the agent timeout, well before the provider's own. */
const HANG_MS = AGENT_TIMEOUT_MS * 2;

// ---------------------------------------------------------------------------------------------
// Fake upstreams: one local server that is both the OpenAI-compatible chat API (/v1/chat/...)
// and the transcript service (/v1/transcripts...), each switchable between working and failing.
// ---------------------------------------------------------------------------------------------

interface ChatRequest {
  authorization: string | undefined;
  body: { model: string; messages: { role: string; content: string }[] };
}

type UpstreamMode = 'ok' | 'status500' | 'hang';

const upstream = {
  chat: { mode: 'ok' as UpstreamMode, reply: (_prompt: string) => 'A summary without citations.' },
  transcripts: { mode: 'ok' as UpstreamMode },
  chatRequests: [] as ChatRequest[],
  transcriptRequests: 0,
};

const fake = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const json = (status: number, payload: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const later = (answer: () => void) => {
      const timer = setTimeout(answer, HANG_MS);
      res.on('close', () => clearTimeout(timer));
    };
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (path === '/v1/chat/completions' && req.method === 'POST') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest['body'];
      upstream.chatRequests.push({ authorization: req.headers.authorization, body });
      if (upstream.chat.mode === 'status500') return json(500, { error: { message: `model overloaded; key ${req.headers.authorization}` } });
      const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const answer = () =>
        json(200, {
          id: 'chatcmpl-gen-1',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: CHAT_MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: upstream.chat.reply(prompt) }, finish_reason: 'stop' }],
        });
      return upstream.chat.mode === 'hang' ? later(answer) : answer();
    }
    if (path.startsWith('/v1/transcripts')) {
      upstream.transcriptRequests += 1;
      if (req.headers.authorization !== `Bearer ${TRANSCRIPT_KEY}`) return json(401, { error: 'unauthorized' });
      if (upstream.transcripts.mode === 'status500') return json(500, { error: `transcription backend down (${TRANSCRIPT_KEY})` });
      if (path !== '/v1/transcripts') return json(404, { error: 'transcript not found' });
      const answer = () => json(200, { data: [], next_cursor: null });
      return upstream.transcripts.mode === 'hang' ? later(answer) : answer();
    }
    json(404, { error: 'not found' });
  });
});

// ---------------------------------------------------------------------------------------------
// Services
// ---------------------------------------------------------------------------------------------

let main: TestServer;
let slow: TestServer;
let providers: TestServer;

beforeAll(async () => {
  const fakeUrl = `${await listenLocally(fake)}/v1`;
  [main, slow, providers] = await Promise.all([
    startTestServer({ GENERATION_STEP_DELAY: '25ms', RATE_LIMIT_GENERATE_PER_MINUTE: '1000' }),
    startTestServer({ GENERATION_STEP_DELAY: '500ms', GENERATION_HEARTBEAT: '200ms', RATE_LIMIT_GENERATE_PER_MINUTE: '2' }),
    startTestServer({
      RATE_LIMIT_GENERATE_PER_MINUTE: '1000',
      CHAT_API_URL: fakeUrl,
      CHAT_API_KEY: CHAT_KEY,
      CHAT_MODEL,
      CHAT_TIMEOUT: '10s',
      TRANSCRIPT_PROVIDER: 'http',
      TRANSCRIPT_API_URL: fakeUrl,
      TRANSCRIPT_API_KEY: TRANSCRIPT_KEY,
      TRANSCRIPT_API_TIMEOUT: '10s',
      GENERATION_AGENT_TIMEOUT: `${AGENT_TIMEOUT_MS}ms`,
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([main, slow, providers].map((server) => server?.close()));
  fake.closeAllConnections();
  await new Promise<void>((resolve) => fake.close(() => resolve()));
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Seed = 'stickies' | 'links' | 'news' | 'tasks' | 'transcripts';
const SEEDS: Record<Seed, (services: Services, userId: string) => Promise<unknown>> = {
  stickies: seedStickies,
  links: seedLinks,
  news: seedNews,
  tasks: seedTasks,
  transcripts: seedTranscripts,
};

/** A user with a read/write workspace key and the demo records of the given sources (default all). */
async function seededUser(server: TestServer, seeds: Seed[] = ['stickies', 'links', 'news', 'tasks', 'transcripts']): Promise<TestUser> {
  const user = await createUser(server.services, { scopes: RW, role: 'member' });
  for (const seed of seeds) await SEEDS[seed](server.services, user.userId);
  return user;
}

/** Another API key of the same user. */
async function extraKey(server: TestServer, user: TestUser, scopes: string[]): Promise<TestUser> {
  const { secret } = await server.services.apiKeys.create({ userId: user.userId, name: `extra ${scopes.join(' ')}`, scopes });
  return { ...user, key: secret };
}

function keyHeaders(user: TestUser, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': user.key, ...extra };
}

/** GET /api/generate as an open stream; fails the test unless the answer is a 200 event stream. */
async function open(server: TestServer, user: TestUser, query = '', headers: Record<string, string> = {}): Promise<SseReader> {
  const response = await openStream(`${server.url}/api/generate${query}`, keyHeaders(user, headers));
  expect(response.status, response.text).toBe(200);
  return response.reader!;
}

/** Starts a run and reads its first event (the announcement); the stream stays open. */
async function start(server: TestServer, user: TestUser, query = ''): Promise<{ reader: SseReader; runId: string; first: SseEvent }> {
  const reader = await open(server, user, query);
  const first = (await reader.nextEvent())!;
  expect(first).toMatchObject({ id: 1, event: 'run', payload: { agent: 'run', status: 'queued' } });
  return { reader, runId: first.payload.data.run_id as string, first };
}

/** Reads a whole stream over fetch (to the server closing it). */
async function readAll(
  server: TestServer,
  user: TestUser,
  query = '',
  headers: Record<string, string> = {},
): Promise<{ reader: SseReader; events: SseEvent[] }> {
  const reader = await open(server, user, query, headers);
  await reader.readToEnd();
  return { reader, events: reader.events };
}

const gql = (server: TestServer, user: TestUser, query: string, variables: Record<string, unknown> = {}) =>
  graphql(server.url, { 'x-api-key': user.key }, query, variables);

const RUN_QUERY = `query Run($id: UUID!) { generationRun(id: $id) {
  id state finished cancelRequested lastSequence summary summaryProvider degraded failedAgents error
  references { kind id title } events(first: 1000) { sequence agent status progress message data } } }`;

async function runById(server: TestServer, user: TestUser, id: string) {
  const response = await gql(server, user, RUN_QUERY, { id });
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data.generationRun as {
    id: string;
    state: string;
    finished: boolean;
    cancelRequested: boolean;
    lastSequence: number;
    summary: string | null;
    summaryProvider: string | null;
    degraded: boolean;
    failedAgents: string[];
    error: string | null;
    references: { kind: string; id: string; title: string }[];
    events: ({ sequence: number } & GenerationPayload)[];
  };
}

/** Polls the run through GraphQL until it has ended. */
async function waitFinished(server: TestServer, user: TestUser, id: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await runById(server, user, id);
    if (run.finished) return run;
    if (Date.now() > deadline) throw new Error(`Run ${id} still ${run.state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const CANCEL = `mutation Cancel($id: UUID!) { cancelGeneration(id: $id) { id state cancelRequested } }`;

/** Cancels the user's unfinished runs and waits for them to end (keeps the slow service's worker free). */
async function cancelAll(server: TestServer, user: TestUser, ids: string[]): Promise<void> {
  for (const id of ids) {
    const run = await runById(server, user, id);
    if (!run.finished) await gql(server, user, CANCEL, { id });
  }
  for (const id of ids) await waitFinished(server, user, id);
}

async function runCount(services: Services, userId: string): Promise<number> {
  return services.prisma.generationRun.count({ where: { userId } });
}

/** `kind:id` of every record the user has (the demo seeds stay well under one page each). */
async function recordsOf(services: Services, userId: string): Promise<Set<string>> {
  const keys = new Set<string>();
  const page = { limit: 100, cursor: null };
  for (const sticky of (await services.stickies.list(userId, page)).rows) keys.add(`sticky:${sticky.id}`);
  for (const link of (await services.links.list(userId, page)).rows) keys.add(`link:${link.id}`);
  for (const article of (await services.news.list(userId, page)).rows) keys.add(`news:${article.id}`);
  for (const task of (await services.tasks.list(userId, page)).rows) keys.add(`task:${task.id}`);
  for (const transcript of (await services.transcripts.list(userId, page)).rows) keys.add(`transcript:${transcript.id}`);
  return keys;
}

/** Ids are 1, 2, 3... with no gap and no duplicate. */
function expectConsecutive(events: SseEvent[], from = 1): void {
  expect(events.map((event) => event.id)).toEqual(events.map((_, index) => from + index));
}

function ofAgent(events: SseEvent[], agent: string): SseEvent[] {
  return events.filter((event) => event.payload.agent === agent);
}

function indexOf(events: SseEvent[], agent: string, status: string): number {
  const index = events.findIndex((event) => event.payload.agent === agent && event.payload.status === status);
  expect(index, `${agent} ${status}`).toBeGreaterThanOrEqual(0);
  return index;
}

/** Every agent goes queued -> started -> active... -> complete (or ends `failed`), progress rising within 0..100. */
function expectLifecycle(events: SseEvent[], agent: string, ending: 'complete' | 'failed' = 'complete'): void {
  const own = ofAgent(events, agent);
  const statuses = own.map((event) => event.payload.status).join(' ');
  expect(statuses, agent).toMatch(ending === 'complete' ? /^queued started( active)* complete$/ : /^queued started( active)* failed$/);
  const progress = own.map((event) => event.payload.progress);
  for (const value of progress) {
    expect(Number.isInteger(value), `${agent} progress ${value}`).toBe(true);
    expect(value).toBeGreaterThanOrEqual(0);
    expect(value).toBeLessThanOrEqual(100);
  }
  for (let i = 1; i < progress.length; i++) expect(progress[i], `${agent} progress ${progress.join(',')}`).toBeGreaterThanOrEqual(progress[i - 1]);
  expect(progress.slice(0, 2)).toEqual([0, 0]);
  for (const event of own.filter((e) => e.payload.status === 'active')) {
    expect(event.payload.progress).toBeGreaterThanOrEqual(1);
    expect(event.payload.progress).toBeLessThanOrEqual(99);
  }
  if (ending === 'complete') expect(progress.at(-1)).toBe(100);
}

function expectPayloadShape(events: SseEvent[]): void {
  for (const event of events) {
    expect(Object.keys(event.payload).sort(), JSON.stringify(event.payload)).toEqual(PAYLOAD_KEYS);
    expect(typeof event.payload.message).toBe('string');
    expect(event.payload.message.length).toBeGreaterThan(0);
    expect(typeof event.payload.data).toBe('object');
    expect(event.event).toBe(
      event.payload.agent !== 'run' ? 'progress' : event === events.at(-1) && ['complete', 'failed'].includes(event.payload.status) ? 'done' : 'run',
    );
  }
}

/** The stream's payloads, in order, are the run's event log. */
function expectSameAsLog(events: SseEvent[], log: ({ sequence: number } & GenerationPayload)[]): void {
  expect(events.map(({ id, payload }) => ({ sequence: id, ...payload }))).toEqual(log);
}

// ---------------------------------------------------------------------------------------------
// A successful run
// ---------------------------------------------------------------------------------------------

describe('GET /api/generate: a successful run', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await seededUser(main);
  });

  it('streams retry, then run/progress/done events with consecutive ids in agent order, and closes after done', async () => {
    const { reader, events } = await readAll(main, user);
    expect(reader.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(reader.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(reader.headers.get('x-accel-buffering')).toBe('no');
    expect(reader.headers.get('content-encoding')).toBeNull();

    // Framing: the retry hint first, then only events (no heartbeat at the default 15 s), nothing after done.
    expect(reader.blocks[0]).toEqual({ retry: 3000, comments: [], raw: 'retry: 3000' });
    expect(reader.blocks.slice(1).every((block) => block.id !== undefined && block.event !== undefined && block.data !== undefined)).toBe(true);
    expect(reader.closedByServer).toBe(true);
    expect(reader.unterminated).toBe('');
    expect(reader.text.startsWith('retry: 3000\n\nid: 1\nevent: run\ndata: {')).toBe(true);
    expect(reader.text.endsWith('}\n\n')).toBe(true);
    for (const block of reader.blocks.slice(1)) expect(block.raw).toMatch(/^id: \d+\nevent: (run|progress|done)\ndata: \{.*\}$/);

    expectConsecutive(events);
    expectPayloadShape(events);

    // 1: the run queued, with its id, options and agents; 2: started; then every agent queued, in plan order.
    const runId = events[0].payload.data.run_id;
    expect(runId).toMatch(UUID);
    expect(events[0]).toMatchObject({ id: 1, event: 'run', payload: { agent: 'run', status: 'queued', progress: 0 } });
    expect(events[0].payload.data).toEqual({ run_id: runId, options: { days: 7, sources: ALL_SOURCES, length: 'medium' }, agents: ALL_AGENTS });
    expect(events[1]).toMatchObject({ id: 2, event: 'run', payload: { agent: 'run', status: 'started', progress: 0, data: { run_id: runId } } });
    expect(events.slice(2, 2 + ALL_AGENTS.length).map((e) => [e.payload.agent, e.payload.status])).toEqual(ALL_AGENTS.map((agent) => [agent, 'queued']));

    for (const agent of ALL_AGENTS) expectLifecycle(events, agent);
    expect(ofAgent(events, 'run').map((e) => e.payload.status)).toEqual(['queued', 'started', 'complete']);

    // collector before the analysts, analysts before the writer, writer before the editor.
    const collectorDone = indexOf(events, 'collector', 'complete');
    for (const analyst of ANALYSTS) expect(indexOf(events, analyst, 'started')).toBeGreaterThan(collectorDone);
    const writerStarted = indexOf(events, 'writer', 'started');
    for (const analyst of ANALYSTS) expect(indexOf(events, analyst, 'complete')).toBeLessThan(writerStarted);
    expect(indexOf(events, 'editor', 'started')).toBeGreaterThan(indexOf(events, 'writer', 'complete'));
    expect(indexOf(events, 'editor', 'complete')).toBe(events.length - 2);

    // The collector counts what the seeds put in the window.
    expect(ofAgent(events, 'collector').at(-1)!.payload.data.counts).toEqual({ stickies: 4, links: 12, transcripts: 3, tasks: 5, news: 8 });

    const done = events.at(-1)!;
    expect(done).toMatchObject({ event: 'done', payload: { agent: 'run', status: 'complete', progress: 100, message: 'Summary ready' } });
    const data = done.payload.data;
    expect(data).toMatchObject({ run_id: runId, state: 'completed', degraded: false, failed_agents: [], summary_provider: 'offline' });
    expect(Object.keys(data).sort()).toEqual(['degraded', 'duration_ms', 'failed_agents', 'references', 'run_id', 'state', 'summary', 'summary_provider']);
    expect(data.duration_ms).toBeGreaterThanOrEqual(0);
    expect(data.summary).toMatch(/^# Workspace summary\n/);
    expect(data.summary).toContain('\n## References\n');
    expect(data.references.length).toBeGreaterThan(0);
    // [n] is references[n - 1]: every marker points into the list, and the list is rendered in that order.
    const cited = [...(data.summary as string).matchAll(/\[(\d+)\](?!\()/g)].map((m) => Number(m[1]));
    expect(Math.max(...cited)).toBe(data.references.length);
    expect(new Set(cited).size).toBe(data.references.length);
    const records = await recordsOf(main.services, user.userId);
    for (const reference of data.references as { kind: string; id: string; title: string }[]) {
      expect(Object.keys(reference).sort()).toEqual(['id', 'kind', 'title']);
      expect(records.has(`${reference.kind}:${reference.id}`), `${reference.kind}:${reference.id}`).toBe(true);
      expect(reference.title.length).toBeGreaterThan(0);
    }
    expect(new Set((data.references as { kind: string }[]).map((r) => r.kind))).toEqual(new Set(['sticky', 'link', 'transcript', 'task', 'news']));

    // The stream is the run's stored log, and the run holds the same result.
    const run = await runById(main, user, runId);
    expect(run).toMatchObject({
      state: 'completed',
      finished: true,
      lastSequence: events.length,
      summary: data.summary,
      summaryProvider: 'offline',
      degraded: false,
      failedAgents: [],
      error: null,
    });
    expect(run.references).toEqual(data.references);
    expectSameAsLog(events, run.events);
  });

  it('days, sources and length shape the run: only the analysts of the requested sources, sources in canonical order', async () => {
    const { events } = await readAll(main, user, '?days=14&sources=tasks,stickies&length=short');
    expectConsecutive(events);
    const agents = ['collector', 'notes', 'tasks', 'writer', 'editor'];
    expect(events[0].payload.data).toMatchObject({ options: { days: 14, sources: ['stickies', 'tasks'], length: 'short' }, agents });
    expect([...new Set(events.map((e) => e.payload.agent))]).toEqual(['run', ...agents]);
    for (const agent of agents) expectLifecycle(events, agent);
    expect(ofAgent(events, 'collector').at(-1)!.payload.data.counts).toEqual({ stickies: 4, tasks: 5 });
    const done = events.at(-1)!.payload;
    expect(done).toMatchObject({ status: 'complete', data: { state: 'completed', degraded: false } });
    expect(new Set((done.data.references as { kind: string }[]).map((r) => r.kind))).toEqual(new Set(['sticky', 'task']));
  });
});

// ---------------------------------------------------------------------------------------------
// The real SSE client
// ---------------------------------------------------------------------------------------------

/**
 * A response whose body ends after `events` complete events, the connection to the server cut
 * (a dropped connection, as EventSource sees it).
 */
function cutAfter(response: Response, events: number): Response {
  const upstreamBody = response.body!.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  let seen = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await upstreamBody.read();
        if (done) return controller.close();
        buffer += decoder.decode(value, { stream: true });
        let out = '';
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 2);
          out += block;
          if (/^id: /m.test(block) && ++seen >= events) {
            controller.enqueue(encoder.encode(out));
            controller.close();
            await upstreamBody.cancel();
            return;
          }
        }
        if (out) return controller.enqueue(encoder.encode(out));
      }
    },
    cancel: () => upstreamBody.cancel(),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

interface EventSourceSession {
  requests: { url: string; lastEventId: string | undefined; status?: number }[];
  received: { type: string; lastEventId: string; payload: GenerationPayload }[];
  opens: number;
  error: { code?: number; message?: string };
  readyState: number;
}

/** Follows `url` with EventSource (the key added by its fetch) until it stops for good. */
async function eventSourceSession(url: string, user: TestUser, options: { cutFirstAfter?: number } = {}): Promise<EventSourceSession> {
  const session: EventSourceSession = { requests: [], received: [], opens: 0, error: {}, readyState: -1 };
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const request: EventSourceSession['requests'][number] = { url: String(input), lastEventId: init.headers['Last-Event-ID'] };
      session.requests.push(request);
      const response = await fetch(input, { ...init, headers: { ...init.headers, 'x-api-key': user.key } });
      request.status = response.status;
      return options.cutFirstAfter && session.requests.length === 1 ? cutAfter(response, options.cutFirstAfter) : response;
    },
  });
  source.addEventListener('open', () => (session.opens += 1));
  for (const type of ['run', 'progress', 'done']) {
    source.addEventListener(type, (event) => session.received.push({ type, lastEventId: event.lastEventId, payload: JSON.parse(event.data) }));
  }
  try {
    session.error = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`EventSource did not stop; requests ${JSON.stringify(session.requests)}`)), 25_000);
      source.addEventListener('error', (event) => {
        // An error while CONNECTING is the end of a response (it reconnects); CLOSED means it stopped.
        if (source.readyState === source.CLOSED) {
          clearTimeout(timer);
          resolve({ code: event.code, message: event.message });
        }
      });
    });
  } finally {
    session.readyState = source.readyState;
    source.close();
  }
  return session;
}

describe('GET /api/generate with an EventSource client', () => {
  it('receives every event in order, and its reconnect after the final event gets 204 and stops; no second run', async () => {
    const user = await seededUser(main, ['stickies', 'links']);
    const url = `${main.url}/api/generate?sources=stickies,links&length=short`;
    const { requests, received, opens, error, readyState } = await eventSourceSession(url, user);

    expect(error).toEqual({ code: 204, message: 'Server sent HTTP 204, not reconnecting' });
    expect(readyState).toBe(EventSource.CLOSED);
    expect(opens).toBe(1);
    const ids = received.map((event) => Number(event.lastEventId));
    expect(ids).toEqual(received.map((_, index) => index + 1));
    expect(received[0]).toMatchObject({ type: 'run', payload: { agent: 'run', status: 'queued' } });
    expect(received.at(-1)).toMatchObject({ type: 'done', payload: { agent: 'run', status: 'complete', data: { state: 'completed' } } });
    expect(received.slice(1, -1).every((event) => event.type === (event.payload.agent === 'run' ? 'run' : 'progress'))).toBe(true);
    const last = String(received.length);

    // The reconnect went to the URL it was opened with (no run_id), carrying the last id.
    expect(requests).toEqual([
      { url, lastEventId: undefined, status: 200 },
      { url, lastEventId: last, status: 204 },
    ]);
    const runId = received[0].payload.data.run_id as string;
    expect(await runCount(main.services, user.userId)).toBe(1);
    const runs = await gql(main, user, '{ generationRuns(first: 10) { edges { node { id state lastSequence } } } }');
    expect(runs.body.data.generationRuns.edges).toEqual([{ node: { id: runId, state: 'completed', lastSequence: received.length } }]);
    const run = await runById(main, user, runId);
    expect(received.map((event) => ({ sequence: Number(event.lastEventId), ...event.payload }))).toEqual(run.events);
  });

  it('a connection dropped mid-run: EventSource reconnects to the start URL with Last-Event-ID and gets the rest, no gap, no duplicate, one run', async () => {
    const user = await seededUser(main, ['stickies', 'links', 'tasks']);
    const url = `${main.url}/api/generate?sources=stickies,links,tasks`;
    const { requests, received, opens, error } = await eventSourceSession(url, user, { cutFirstAfter: 5 });

    expect(error).toMatchObject({ code: 204 });
    expect(opens).toBe(2);
    expect(received.map((event) => Number(event.lastEventId))).toEqual(received.map((_, index) => index + 1));
    const last = String(received.length);
    expect(requests).toEqual([
      { url, lastEventId: undefined, status: 200 },
      { url, lastEventId: '5', status: 200 },
      { url, lastEventId: last, status: 204 },
    ]);
    const runId = received[0].payload.data.run_id as string;
    expect(received.at(-1)).toMatchObject({ type: 'done', payload: { status: 'complete', data: { run_id: runId } } });
    expect(await runCount(main.services, user.userId)).toBe(1);
    const run = await runById(main, user, runId);
    expect(received.map((event) => ({ sequence: Number(event.lastEventId), ...event.payload }))).toEqual(run.events);
  });
});

// ---------------------------------------------------------------------------------------------
// Resuming and disconnecting
// ---------------------------------------------------------------------------------------------

describe('GET /api/generate: resuming', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await seededUser(main);
  });

  it('run_id with Last-Event-ID (header or last_event_id) continues right after that event: no gap, no duplicate', async () => {
    const { reader, runId } = await start(main, user);
    const before = [...reader.events];
    while (before.length < 5) before.push((await reader.nextEvent())!);
    reader.close();
    expect(before.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);

    const resumed = await readAll(main, user, `?run_id=${runId}`, { 'Last-Event-ID': '5' });
    expect(resumed.reader.blocks[0].retry).toBe(3000);
    expect(resumed.events[0].id).toBe(6);
    const all = [...before, ...resumed.events];
    expectConsecutive(all);
    expect(all.at(-1)).toMatchObject({ event: 'done', payload: { status: 'complete' } });
    expect(resumed.reader.closedByServer).toBe(true);
    const run = await runById(main, user, runId);
    expectSameAsLog(all, run.events);

    const byQuery = await readAll(main, user, `?run_id=${runId}&last_event_id=7`);
    expect(byQuery.events.map((e) => e.id)).toEqual(run.events.slice(7).map((e) => e.sequence));
    expectSameAsLog(byQuery.events, run.events.slice(7));

    // From 0: everything; at the last event of a finished run: 204, nothing to send.
    const fromZero = await readAll(main, user, `?run_id=${runId}`, { 'Last-Event-ID': '0' });
    expectSameAsLog(fromZero.events, run.events);
    const atEnd = await fetch(`${main.url}/api/generate?run_id=${runId}`, { headers: keyHeaders(user, { 'Last-Event-ID': String(run.lastSequence) }) });
    expect(atEnd.status).toBe(204);
    expect(await atEnd.text()).toBe('');
  });

  it('Last-Event-ID without run_id follows the newest run (as EventSource reconnects to the start URL) and starts none', async () => {
    await start(main, user).then(({ reader }) => reader.close()); // an older run
    const { reader, runId } = await start(main, user, '?days=3');
    await reader.nextEvent();
    await reader.nextEvent();
    reader.close();
    const count = await runCount(main.services, user.userId);

    const resumed = await readAll(main, user, '?days=3', { 'Last-Event-ID': '3' });
    expect(resumed.events[0].id).toBe(4);
    const done = resumed.events.at(-1)!;
    expect(done).toMatchObject({ event: 'done', payload: { data: { run_id: runId, state: 'completed' } } });
    const run = await runById(main, user, runId);
    expectSameAsLog(resumed.events, run.events.slice(3));

    const byQuery = await readAll(main, user, '?last_event_id=2');
    expectSameAsLog(byQuery.events, run.events.slice(2));
    expect(await runCount(main.services, user.userId)).toBe(count);
  });

  it('a client that hangs up does not stop the run; a later run_id stream replays it all', async () => {
    const { reader, runId } = await start(main, user);
    await reader.nextEvent();
    reader.close();
    const during = await runById(main, user, runId);
    expect(during.finished).toBe(false);

    const run = await waitFinished(main, user, runId);
    expect(run).toMatchObject({ state: 'completed', degraded: false, summaryProvider: 'offline' });
    expect(run.summary).toMatch(/^# Workspace summary\n/);
    // Nobody follows the run any more: the server let go of the stream it was writing.
    const deadline = Date.now() + 5000;
    while (main.services.progress.followedRuns > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(main.services.progress.followedRuns).toBe(0);

    const replay = await readAll(main, user, `?run_id=${runId}`);
    expectConsecutive(replay.events);
    expect(replay.events.length).toBe(run.lastSequence);
    expectSameAsLog(replay.events, run.events);
    expect(replay.events.at(-1)).toMatchObject({ event: 'done', payload: { status: 'complete', data: { run_id: runId, summary: run.summary } } });
  });
});

// ---------------------------------------------------------------------------------------------
// Long runs: cancel, heartbeats, the generate budget, runs in progress per user
// ---------------------------------------------------------------------------------------------

describe('GET /api/generate: long runs', () => {
  it('cancelGeneration ends the stream: running agents fail "Cancelled", done is failed with state cancelled; cancelling again is CONFLICT', async () => {
    const user = await seededUser(slow, ['stickies', 'tasks']);
    const { reader, runId } = await start(slow, user, '?sources=stickies,tasks');
    // Wait until both analysts are running, then cancel.
    const started = new Set<string>();
    await reader.until((event) => {
      if (event.payload.status === 'started') started.add(event.payload.agent);
      return started.has('notes') && started.has('tasks');
    });
    const cancelled = await gql(slow, user, CANCEL, { id: runId });
    expect(cancelled.body.errors).toBeUndefined();
    expect(cancelled.body.data.cancelGeneration).toMatchObject({ id: runId, cancelRequested: true });
    expect(['running', 'cancelled']).toContain(cancelled.body.data.cancelGeneration.state);

    await reader.readToEnd();
    const events = reader.events;
    expectConsecutive(events);
    expect(reader.closedByServer).toBe(true);
    expectLifecycle(events, 'collector');
    for (const agent of ['notes', 'tasks']) {
      expectLifecycle(events, agent, 'failed');
      expect(ofAgent(events, agent).at(-1)!.payload).toMatchObject({ status: 'failed', message: 'Cancelled', data: { reason: 'cancelled' } });
    }
    for (const agent of ['writer', 'editor']) expect(ofAgent(events, agent).map((e) => e.payload.status)).toEqual(['queued']);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      event: 'done',
      payload: {
        agent: 'run',
        status: 'failed',
        progress: 100,
        message: 'Generation cancelled by its owner',
        data: { run_id: runId, state: 'cancelled', reason: 'cancelled', error: 'Cancelled by its owner' },
      },
    });

    const run = await runById(slow, user, runId);
    expect(run).toMatchObject({ state: 'cancelled', finished: true, cancelRequested: true, summary: null, error: 'Cancelled by its owner' });
    expectSameAsLog(events, run.events);

    const again = await gql(slow, user, CANCEL, { id: runId });
    expect(again.body.errors?.[0]).toMatchObject({ message: 'The run has already ended', extensions: { code: 'CONFLICT' } });
  });

  it('sends ": heartbeat <time>" comments while the run is quiet', async () => {
    const user = await seededUser(slow, ['stickies']);
    const { reader, runId } = await start(slow, user, '?sources=stickies');
    try {
      const beats: string[] = [];
      while (beats.length < 2) {
        const block = (await reader.next(3000))!;
        expect(block).not.toBeNull();
        if (block.data === undefined && block.retry === undefined) beats.push(block.raw);
      }
      for (const beat of beats) {
        expect(beat).toMatch(/^: heartbeat \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
        expect(Date.now() - Date.parse(beat.slice(': heartbeat '.length))).toBeLessThan(5000);
      }
      expect(reader.text).toMatch(/\n\n: heartbeat [^\n]+\n\n/);
      // Heartbeats carry no id: the events around them stay consecutive.
      expectConsecutive(reader.events);
    } finally {
      reader.close();
      await cancelAll(slow, user, [runId]);
    }
  });

  it('a client that hangs up while its stream is being set up is let go at once, not held until the run ends', async () => {
    const user = await seededUser(slow, ['stickies']);
    const { reader, runId } = await start(slow, user, '?sources=stickies');
    reader.close();
    try {
      // Hang up right after sending the request, a little later each time, to land in the set-up.
      for (let delayMs = 0; delayMs < 20; delayMs++) {
        await new Promise<void>((resolve) => {
          const request = http.get(`${slow.url}/api/generate?run_id=${runId}`, { headers: keyHeaders(user), agent: false });
          request.on('error', () => resolve());
          request.on('response', () => {
            request.destroy();
            resolve();
          });
          request.on('finish', () =>
            setTimeout(() => {
              request.destroy();
              resolve();
            }, delayMs),
          );
        });
      }
      const deadline = Date.now() + 1000;
      while (slow.services.progress.followedRuns > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      // The run is still going (so nothing ended those streams but the hang-ups)...
      expect((await runById(slow, user, runId)).finished).toBe(false);
      // ...and nobody follows it any more.
      expect(slow.services.progress.followedRuns).toBe(0);
    } finally {
      await cancelAll(slow, user, [runId]);
    }
  });

  it('RATE_LIMIT_GENERATE_PER_MINUTE: the third start in a minute is 429 with Retry-After, and starts nothing', async () => {
    const user = await seededUser(slow, ['stickies']);
    const ids: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const { reader, runId } = await start(slow, user, '?sources=stickies');
        reader.close();
        ids.push(runId);
      }
      const refused = await getJson(`${slow.url}/api/generate?sources=stickies`, { headers: keyHeaders(user) });
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: expect.any(String) });
      expect(refused.body.error.length).toBeGreaterThan(0);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await runCount(slow.services, user.userId)).toBe(2);
      // Following a run is not a start: it costs nothing.
      const follow = await openStream(`${slow.url}/api/generate?run_id=${ids[0]}`, keyHeaders(user));
      expect(follow.status).toBe(200);
      follow.reader!.close();
    } finally {
      await cancelAll(slow, user, ids);
    }
  });

  it("a 4th run in progress for the same user is 409 (whichever of the user's keys starts it)", async () => {
    const user = await seededUser(slow, ['stickies']);
    const second = await extraKey(slow, user, RW);
    const ids: string[] = [];
    try {
      for (const key of [user, user, second]) {
        const { reader, runId } = await start(slow, key, '?sources=stickies');
        reader.close();
        ids.push(runId);
      }
      const refused = await getJson(`${slow.url}/api/generate?sources=stickies`, { headers: keyHeaders(second) });
      expect(refused).toMatchObject({
        status: 409,
        body: { error: 'You already have 3 summary generations in progress; wait for one to finish or cancel it' },
      });
      expect(await runCount(slow.services, user.userId)).toBe(3);

      // GENERATION_CONCURRENCY is 2: the third run waits in the queue. Cancelled there, it ends at once.
      const third = ids[2];
      expect((await runById(slow, user, third)).state).toBe('queued');
      const follower = await open(slow, user, `?run_id=${third}`);
      expect((await follower.nextEvent())!.payload.status).toBe('queued');
      expect((await gql(slow, user, CANCEL, { id: third })).body.data.cancelGeneration).toEqual({ id: third, state: 'cancelled', cancelRequested: true });
      await follower.readToEnd();
      expect(follower.events).toEqual([
        expect.objectContaining({ id: 1, event: 'run' }),
        {
          id: 2,
          event: 'done',
          payload: {
            agent: 'run',
            status: 'failed',
            progress: 100,
            message: 'Generation cancelled by its owner',
            data: { run_id: third, failed_agents: [], state: 'cancelled', error: 'Cancelled by its owner', reason: 'cancelled', duration_ms: null },
          },
        },
      ]);
      // Another user is not held up by them.
      const other = await seededUser(slow, ['stickies']);
      const { reader, runId } = await start(slow, other, '?sources=stickies');
      reader.close();
      await cancelAll(slow, other, [runId]);
    } finally {
      await cancelAll(slow, user, ids);
    }
    // The cancelled queued run never runs once the worker is free.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await runById(slow, user, ids[2])).lastSequence).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Failing agents, through the provider interfaces
// ---------------------------------------------------------------------------------------------

describe('GET /api/generate: failing agents', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await seededUser(providers);
  });
  beforeEach(() => {
    upstream.chat.mode = 'ok';
    upstream.transcripts.mode = 'ok';
    upstream.chatRequests.length = 0;
  });

  it('the writer model (CHAT_API_URL) answering 500: writer failed, the extractive summary is used, the run is degraded', async () => {
    upstream.chat.mode = 'status500';
    const { events } = await readAll(providers, user, '?sources=stickies,links,tasks,news');
    expectConsecutive(events);
    expect(upstream.chatRequests).toHaveLength(1);
    expect(upstream.chatRequests[0]).toMatchObject({ authorization: `Bearer ${CHAT_KEY}`, body: { model: CHAT_MODEL } });

    expectLifecycle(events, 'writer', 'failed');
    const writerFailed = ofAgent(events, 'writer').at(-1)!.payload;
    expect(writerFailed).toMatchObject({ status: 'failed', message: 'Chat provider error: 500', data: { reason: 'error' } });
    expectLifecycle(events, 'editor');
    for (const agent of ['collector', 'notes', 'tasks', 'news']) expectLifecycle(events, agent);

    const done = events.at(-1)!.payload;
    expect(done).toMatchObject({ status: 'complete', message: 'Summary ready (degraded: writer failed)' });
    expect(done.data).toMatchObject({ state: 'completed', degraded: true, failed_agents: ['writer'], summary_provider: 'offline' });
    expect(done.data.summary).toMatch(/^# Workspace summary\n/);
    expect(done.data.references.length).toBeGreaterThan(0);
    const text = JSON.stringify(events);
    expect(text).not.toContain(CHAT_KEY);
  });

  it('the writer model answering with [n] citations: summary_provider openai, citations renumbered 1, 2... against real records', async () => {
    let promptRefs: { n: number; line: string }[] = [];
    upstream.chat.reply = (prompt) => {
      promptRefs = [...prompt.matchAll(/^\[(\d+)\] (.+)$/gm)].map((m) => ({ n: Number(m[1]), line: m[2] }));
      const [a, b] = promptRefs;
      return `# Workspace summary\n\n## Highlights\n\n- The second record matters most [${b.n}].\n- Then the first [${a.n}], and a made-up one [999].\n`;
    };
    const { events } = await readAll(providers, user, '?sources=stickies,links,tasks,news');
    expect(upstream.chatRequests).toHaveLength(1);
    expect(upstream.chatRequests[0].body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(promptRefs.length).toBeGreaterThanOrEqual(2);
    expectLifecycle(events, 'writer');
    expect(ofAgent(events, 'writer').at(-1)!.payload.data).toMatchObject({ provider: 'openai' });

    const done = events.at(-1)!.payload;
    expect(done.data).toMatchObject({ state: 'completed', degraded: false, failed_agents: [], summary_provider: 'openai' });
    const summary = done.data.summary as string;
    expect(
      summary.startsWith('# Workspace summary\n\n## Highlights\n\n- The second record matters most [1].\n- Then the first [2], and a made-up one.\n'),
    ).toBe(true);
    expect(summary).not.toContain('[999]');
    const references = done.data.references as { kind: string; id: string; title: string }[];
    const labels: Record<string, string> = { sticky: 'Sticky', link: 'Link', transcript: 'Meeting', task: 'Task', news: 'News' };
    expect(`${labels[references[0].kind]}: ${references[0].title}`).toBe(promptRefs[1].line);
    expect(`${labels[references[1].kind]}: ${references[1].title}`).toBe(promptRefs[0].line);
    // The reference list under the summary numbers the same references.
    expect(summary).toContain(`\n## References\n\n1. ${promptRefs[1].line}\n2. ${promptRefs[0].line}\n`);
    const records = await recordsOf(providers.services, user.userId);
    for (const reference of references) expect(records.has(`${reference.kind}:${reference.id}`)).toBe(true);
    const run = await runById(providers, user, done.data.run_id);
    expect(run).toMatchObject({ summaryProvider: 'openai', summary, degraded: false });
  });

  it('the transcript service (TRANSCRIPT_PROVIDER=http) answering 500: the collector fails, so the run fails', async () => {
    upstream.transcripts.mode = 'status500';
    const before = upstream.transcriptRequests;
    const { events } = await readAll(providers, user);
    expect(upstream.transcriptRequests).toBeGreaterThan(before);
    expectConsecutive(events);
    expectLifecycle(events, 'collector', 'failed');
    const failed = ofAgent(events, 'collector').at(-1)!.payload;
    expect(failed.message).toBe('Transcript service error: the service answered HTTP 500');
    expect(failed.data).toEqual({ reason: 'error' });
    expect(JSON.stringify(events)).not.toContain(TRANSCRIPT_KEY);
    for (const agent of ['notes', 'meetings', 'tasks', 'news', 'writer', 'editor'])
      expect(ofAgent(events, agent).map((e) => e.payload.status)).toEqual(['queued']);
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      event: 'done',
      payload: {
        agent: 'run',
        status: 'failed',
        progress: 100,
        data: { state: 'failed', failed_agents: ['collector'], error: `The collector failed: ${failed.message}` },
      },
    });
    const run = await runById(providers, user, done.payload.data.run_id);
    expect(run).toMatchObject({
      state: 'failed',
      finished: true,
      summary: null,
      failedAgents: ['collector'],
      error: `The collector failed: ${failed.message}`,
    });
  });

  it('GENERATION_AGENT_TIMEOUT: a writer model slower than that fails the writer "Timed out after ..."; the run completes degraded', async () => {
    upstream.chat.mode = 'hang';
    const started = Date.now();
    const { events } = await readAll(providers, user, '?sources=stickies,tasks');
    expect(Date.now() - started).toBeLessThan(HANG_MS);
    expect(upstream.chatRequests).toHaveLength(1);
    expectLifecycle(events, 'writer', 'failed');
    expect(ofAgent(events, 'writer').at(-1)!.payload).toMatchObject({
      status: 'failed',
      message: `Timed out after ${AGENT_TIMEOUT_MS / 1000} s`,
      data: { reason: 'timeout' },
    });
    expectLifecycle(events, 'editor');
    expect(events.at(-1)!.payload).toMatchObject({
      status: 'complete',
      data: { state: 'completed', degraded: true, failed_agents: ['writer'], summary_provider: 'offline' },
    });
  });

  it('GENERATION_AGENT_TIMEOUT: a transcript service slower than that fails the collector "Timed out after ..."; the run fails', async () => {
    upstream.transcripts.mode = 'hang';
    const started = Date.now();
    const { events } = await readAll(providers, user, '?sources=stickies,transcripts');
    expect(Date.now() - started).toBeLessThan(HANG_MS);
    expectConsecutive(events);
    expectLifecycle(events, 'collector', 'failed');
    const failed = ofAgent(events, 'collector').at(-1)!.payload;
    expect(failed).toMatchObject({ status: 'failed', message: `Timed out after ${AGENT_TIMEOUT_MS / 1000} s`, data: { reason: 'timeout' } });
    // It had reported the stickies before it waited on the transcripts.
    expect(failed.progress).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      payload: {
        status: 'failed',
        data: { state: 'failed', failed_agents: ['collector'], error: `The collector failed: Timed out after ${AGENT_TIMEOUT_MS / 1000} s` },
      },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Errors before the stream
// ---------------------------------------------------------------------------------------------

describe('GET /api/generate: errors before the stream are JSON', () => {
  let owner: TestUser;
  let other: TestUser;
  let runId: string;
  let lastSequence: number;
  beforeAll(async () => {
    owner = await seededUser(main, ['stickies']);
    other = await seededUser(main, ['stickies']);
    const { events } = await readAll(main, owner, '?sources=stickies');
    runId = events[0].payload.data.run_id;
    lastSequence = events.at(-1)!.id;
  });

  const get = (user: TestUser | null, query: string, headers: Record<string, string> = {}) =>
    getJson(`${main.url}/api/generate${query}`, { headers: { ...(user ? { 'x-api-key': user.key } : {}), ...headers } });

  it('401 without a key or with a bad one; 403 without the workspace scopes', async () => {
    for (const query of ['', `?run_id=${runId}`]) {
      const none = await get(null, query);
      expect(none.status, query).toBe(401);
      expect(none.headers.get('content-type')).toMatch(/^application\/json/);
      expect(none.body).toEqual({ error: 'Invalid or expired API key' });
      expect(await get(null, query, { 'x-api-key': 'sk_00000000000000000000000000000000' })).toMatchObject({
        status: 401,
        body: { error: 'Invalid or expired API key' },
      });
    }
    const outsider = await createUser(main.services, { scopes: ['read:returns'] });
    expect(await get(outsider, '')).toEqual(expect.objectContaining({ status: 403, body: { error: 'Insufficient permissions' } }));
    const ownersReturnsKey = await extraKey(main, owner, ['read:returns']);
    expect(await get(ownersReturnsKey, `?run_id=${runId}`)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(await runCount(main.services, outsider.userId)).toBe(0);
  });

  it('a read:workspace key can follow a run but not start one', async () => {
    const reader = await extraKey(main, owner, ['read:workspace']);
    const count = await runCount(main.services, owner.userId);
    expect(await get(reader, '?sources=stickies')).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(await runCount(main.services, owner.userId)).toBe(count);
    const { events } = await readAll(main, reader, `?run_id=${runId}`);
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: lastSequence }, (_, i) => i + 1));
    expect(events.at(-1)).toMatchObject({ event: 'done', payload: { data: { run_id: runId } } });
  });

  it("another user's run is 404, like an unknown one; Last-Event-ID without run_id never reaches another user's run", async () => {
    expect(await get(other, `?run_id=${runId}`)).toMatchObject({ status: 404, body: { error: 'Generation run not found' } });
    expect(await get(other, `?run_id=${runId}`, { 'Last-Event-ID': '1' })).toMatchObject({ status: 404, body: { error: 'Generation run not found' } });
    expect(await get(owner, '?run_id=6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b')).toMatchObject({ status: 404, body: { error: 'Generation run not found' } });
    const newcomer = await createUser(main.services, { scopes: RW });
    expect(await get(newcomer, '', { 'Last-Event-ID': '1' })).toMatchObject({ status: 404, body: { error: 'Run to resume not found' } });
    expect(await runCount(main.services, newcomer.userId)).toBe(0);
  });

  it('400 naming the parameter for a bad run_id, days, sources or length, and nothing is started', async () => {
    const count = await runCount(main.services, owner.userId);
    expect(await get(owner, '?run_id=not-a-uuid')).toMatchObject({ status: 400, body: { error: 'Invalid run_id: must be a UUID, got "not-a-uuid"' } });
    const cases: [string, string][] = [
      ['?days=0', 'Invalid days: must be an integer from 1 to 90'],
      ['?days=91', 'Invalid days: must be an integer from 1 to 90'],
      ['?days=abc', 'Invalid days: must be an integer, got "abc"'],
      ['?days=2.5', 'Invalid days: must be an integer, got "2.5"'],
      ['?sources=', 'Invalid sources: must name at least one source'],
      ['?length=huge', 'Invalid length: must be one of short, medium, long, got "huge"'],
    ];
    for (const [query, error] of cases) {
      const response = await get(owner, query);
      expect({ query, status: response.status, body: response.body }).toEqual({ query, status: 400, body: { error } });
    }
    expect(await runCount(main.services, owner.userId)).toBe(count);
  });

  it('400 for an unknown source says which values are allowed, like every other enumerated REST parameter', async () => {
    for (const query of ['?sources=bogus', '?sources=stickies,bogus']) {
      const response = await get(owner, query);
      expect({ query, status: response.status, body: response.body }).toEqual({
        query,
        status: 400,
        body: { error: 'Invalid sources: must be one of stickies, links, transcripts, tasks, news, got "bogus"' },
      });
    }
  });

  it("400 for a Last-Event-ID that is not an event id, or is beyond the run's last event", async () => {
    for (const value of ['abc', '-1', '1.5']) {
      expect(await get(owner, `?run_id=${runId}`, { 'Last-Event-ID': value })).toMatchObject({
        status: 400,
        body: { error: 'Invalid Last-Event-ID: must be the id (a non-negative integer) of an event of the stream' },
      });
    }
    expect(await get(owner, `?run_id=${runId}&last_event_id=abc`)).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/^Invalid Last-Event-ID: /) },
    });
    expect(await get(owner, `?run_id=${runId}`, { 'Last-Event-ID': String(lastSequence + 1) })).toMatchObject({
      status: 400,
      body: { error: `Invalid Last-Event-ID: the run's last event is ${lastSequence}` },
    });
  });

  it('POST /api/generate is 405 with Allow: GET', async () => {
    const response = await getJson(`${main.url}/api/generate`, { method: 'POST', headers: keyHeaders(owner) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.body).toEqual({ error: 'Method not allowed; use GET' });
  });

  it('a start with the session cookie from another site (Sec-Fetch-Site: cross-site) is 403; from the same site it streams', async () => {
    const user = await seededUser(main, ['stickies']);
    const cookie = await signInCookie(main.url, user);
    const crossSite = await getJson(`${main.url}/api/generate?sources=stickies`, { headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(crossSite).toMatchObject({ status: 403, body: { error: 'CSRF check failed: a generation cannot be started from another site' } });
    expect(await runCount(main.services, user.userId)).toBe(0);

    const sameSite = await openStream(`${main.url}/api/generate?sources=stickies`, { cookie, 'sec-fetch-site': 'same-origin' });
    expect(sameSite.status).toBe(200);
    await sameSite.reader!.readToEnd();
    expect(sameSite.reader!.events.at(-1)).toMatchObject({ event: 'done', payload: { status: 'complete' } });
    expect(await runCount(main.services, user.userId)).toBe(1);
  });
});
