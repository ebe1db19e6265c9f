/**
 * Summary generation through GraphQL, as a client sees it: the startGeneration / cancelGeneration
 * mutations, the generationRun(s) queries, and the generationProgress subscription over
 * server-sent events with the official graphql-sse client in both of its modes (distinct
 * connections at /graphql, single connection at /graphql/stream), against a real server.
 *
 * Two servers: `fast` runs generations without pauses; `slow` pauses GENERATION_STEP_DELAY before
 * each progress step and runs one generation at a time, so a run lasts long enough to be
 * followed, left, resumed and cancelled midway, and a second run stays queued behind the first.
 * (250 ms a step: at 60 ms a run finished before the test could cancel it on a machine at load 19.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { record, sseClient, subscriptionErrors, SSE_MODES, type Recording, type SseMode } from '../helpers/graphql-sse.ts';
import { seedStickies } from '../../src/seed/workspace-stickies.ts';
import { seedLinks } from '../../src/seed/workspace-links.ts';
import { seedTasks } from '../../src/seed/workspace-tasks.ts';
import { seedNews } from '../../src/seed/workspace-news.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';

const HEARTBEAT_MS = 200;
const EVENT_FIELDS = 'runId sequence agent status progress message data createdAt';
const PROGRESS = `subscription Progress($runId: UUID!, $after: Int) {
  generationProgress(runId: $runId, after: $after) {
    __typename
    ... on GenerationEvent { ${EVENT_FIELDS} }
    ... on GenerationHeartbeat { runId at lastSequence }
  } }`;
const RUN_FIELDS = `id state options { days sources length } summary references { kind id title } summaryProvider degraded failedAgents
  error finished cancelRequested lastSequence createdAt startedAt finishedAt agents { agent status progress message updatedAt }`;
const RUN = `query Run($id: UUID!, $after: Int) { generationRun(id: $id) { ${RUN_FIELDS} events(after: $after) { ${EVENT_FIELDS} } } }`;
const START = `mutation Start($input: StartGenerationInput) { startGeneration(input: $input) { ${RUN_FIELDS} } }`;
const CANCEL = `mutation Cancel($id: UUID!) { cancelGeneration(id: $id) { ${RUN_FIELDS} } }`;
const RUNS = `query Runs($first: Int, $after: String, $state: GenerationRunState) {
  generationRuns(first: $first, after: $after, state: $state) { edges { cursor node { id state } } pageInfo { hasNextPage endCursor } } }`;

interface GenEvent {
  __typename: 'GenerationEvent';
  runId: string;
  sequence: number;
  agent: string;
  status: string;
  progress: number;
  message: string;
  data: Record<string, any>;
  createdAt: string;
}
interface Heartbeat {
  __typename: 'GenerationHeartbeat';
  runId: string;
  at: string;
  lastSequence: number;
}
type Item = GenEvent | Heartbeat;

let fast: TestServer;
let slow: TestServer;

beforeAll(async () => {
  [fast, slow] = await Promise.all([
    startTestServer({ GENERATION_HEARTBEAT: `${HEARTBEAT_MS}ms` }),
    startTestServer({ GENERATION_HEARTBEAT: `${HEARTBEAT_MS}ms`, GENERATION_STEP_DELAY: '250ms', GENERATION_CONCURRENCY: '1' }),
  ]);
});

afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
});

const WORKSPACE_SCOPES = ['read:workspace', 'write:workspace'];

async function seededUser(server: TestServer, scopes = WORKSPACE_SCOPES): Promise<TestUser> {
  const user = await createUser(server.services, { scopes, role: 'member' });
  await seedStickies(server.services, user.userId);
  await seedLinks(server.services, user.userId);
  await seedTasks(server.services, user.userId);
  await seedNews(server.services, user.userId);
  await seedTranscripts(server.services, user.userId);
  return user;
}

async function gql(server: TestServer, user: TestUser | null, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await graphql(server.url, user ? { 'x-api-key': user.key } : {}, query, variables);
  return body as { data?: any; errors?: { message: string; extensions?: { code?: string; field?: string } }[] };
}

async function ok(server: TestServer, user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  const body = await gql(server, user, query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

async function startRun(server: TestServer, user: TestUser, input: Record<string, unknown> = {}) {
  return (await ok(server, user, START, { input })).startGeneration;
}

async function getRun(server: TestServer, user: TestUser, id: string, after = 0) {
  return (await ok(server, user, RUN, { id, after })).generationRun;
}

async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const waitFinished = (server: TestServer, user: TestUser, id: string) =>
  eventually(
    async () => {
      const run = await getRun(server, user, id);
      return run.finished ? run : undefined;
    },
    30_000,
    `run ${id} to finish`,
  );

function subscribe(server: TestServer, user: TestUser | null, mode: SseMode, variables: Record<string, unknown>): Recording {
  return record(sseClient(server.url, mode, user ? { 'x-api-key': user.key } : {}), PROGRESS, variables);
}

/** The payloads of a subscription (which must carry no errors). */
function itemsOf(recording: Recording): Item[] {
  return recording.results.map((result) => {
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    return (result.data as { generationProgress: Item }).generationProgress;
  });
}

const eventsOf = (recording: Recording) => itemsOf(recording).filter((item): item is GenEvent => item.__typename === 'GenerationEvent');
const heartbeatsOf = (recording: Recording) => itemsOf(recording).filter((item): item is Heartbeat => item.__typename === 'GenerationHeartbeat');
const isFinal = (event: GenEvent) => event.agent === 'run' && (event.status === 'complete' || event.status === 'failed');
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
const lastEventSequence = (recording: Recording) => eventsOf(recording).at(-1)?.sequence ?? 0;

/** Stored events as the subscription gives them (with the union's __typename). */
async function storedLog(server: TestServer, user: TestUser, id: string): Promise<GenEvent[]> {
  const run = await getRun(server, user, id);
  return run.events.map((event: Omit<GenEvent, '__typename'>) => ({ __typename: 'GenerationEvent', ...event }));
}

/** A heartbeat says which event is the run's newest: the one the follower has just had (or its cursor). */
function expectHeartbeatsInStep(recording: Recording, after: number, runId: string) {
  let last = after;
  for (const item of itemsOf(recording)) {
    if (item.__typename === 'GenerationEvent') last = item.sequence;
    else {
      expect(item.runId).toBe(runId);
      expect(Number.isNaN(Date.parse(item.at))).toBe(false);
      expect(item.lastSequence).toBe(last);
    }
  }
}

/** Per agent: queued, started, active..., then complete or failed; progress 0..100 never decreasing. */
function expectAgentProtocol(events: GenEvent[]) {
  const byAgent = new Map<string, GenEvent[]>();
  for (const event of events) {
    if (event.agent === 'run') continue;
    byAgent.set(event.agent, [...(byAgent.get(event.agent) ?? []), event]);
  }
  for (const [agent, own] of byAgent) {
    const statuses = own.map((event) => event.status).join(' ');
    expect(statuses, agent).toMatch(/^queued( started( active)*( complete| failed)?)?$/);
    for (let index = 1; index < own.length; index++) expect(own[index].progress, agent).toBeGreaterThanOrEqual(own[index - 1].progress);
    for (const event of own) {
      expect(Number.isInteger(event.progress)).toBe(true);
      expect(event.progress).toBeGreaterThanOrEqual(0);
      expect(event.progress).toBeLessThanOrEqual(100);
    }
  }
  return byAgent;
}

describe('startGeneration input', () => {
  it.each([
    [{ days: 0 }, 'days'],
    [{ days: 91 }, 'days'],
    [{ days: -3 }, 'days'],
    [{ sources: [] }, 'sources'],
  ])('%j is BAD_USER_INPUT naming %s', async (input, field) => {
    const user = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const body = await gql(fast, user, START, { input });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toMatch(new RegExp(`\\b${field}\\b`));
    expect(body.errors![0].extensions?.field).toBe(field);
    const runs = await ok(fast, user, RUNS);
    expect(runs.generationRuns.edges).toEqual([]);
  });

  it('needs write:workspace to start and a credential to do anything', async () => {
    const reader = await createUser(fast.services, { scopes: ['read:workspace'] });
    const forbidden = await gql(fast, reader, START, { input: {} });
    expect(forbidden.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const anonymous = await gql(fast, null, START, { input: {} });
    expect(anonymous.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    const unscoped = await createUser(fast.services, { scopes: ['read:returns'] });
    expect((await gql(fast, unscoped, RUNS)).errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  it('returns the new run with its options in canonical order', async () => {
    const user = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const run = await startRun(fast, user, { days: 14, sources: ['tasks', 'stickies', 'tasks'], length: 'short' });
    expect(run.id).toMatch(/^[0-9a-f-]{36}$/);
    // Queued when stored; this server's idle worker may already have claimed it when the mutation reads it back.
    expect(['queued', 'running']).toContain(run.state);
    expect(run.finished).toBe(false);
    expect(run.options).toEqual({ days: 14, sources: ['stickies', 'tasks'], length: 'short' });
    expect(run.summary).toBeNull();
    expect(run.references).toEqual([]);
    expect(run.cancelRequested).toBe(false);
    expect(run.createdAt).toEqual(expect.any(String));
    const defaults = await startRun(fast, user);
    expect(defaults.options).toEqual({ days: 7, sources: ['stickies', 'links', 'transcripts', 'tasks', 'news'], length: 'medium' });
    for (const id of [run.id, defaults.id]) await waitFinished(fast, user, id);
    const stored = await getRun(fast, user, run.id);
    expect(stored.events[0]).toMatchObject({
      sequence: 1,
      agent: 'run',
      status: 'queued',
      progress: 0,
      data: {
        run_id: run.id,
        options: { days: 14, sources: ['stickies', 'tasks'], length: 'short' },
        agents: ['collector', 'notes', 'tasks', 'writer', 'editor'],
      },
    });
  });
});

describe.each(SSE_MODES)('a whole run followed in %s mode', (mode) => {
  it('streams every event in order through the final one, as stored, then completes; the run holds the summary', async () => {
    const user = await seededUser(fast);
    const started = await startRun(fast, user);
    const recording = subscribe(fast, user, mode, { runId: started.id, after: 0 });
    const ending = await recording.ended;
    expect(ending.kind).toBe('complete');
    const events = eventsOf(recording);
    expect(events.map((event) => event.sequence)).toEqual(range(1, events.length));
    expect(events.every((event) => event.runId === started.id)).toBe(true);
    expect(events[0]).toMatchObject({ agent: 'run', status: 'queued' });
    expect(events[1]).toMatchObject({ agent: 'run', status: 'started' });
    const final = events.at(-1)!;
    expect(final).toMatchObject({ agent: 'run', status: 'complete', progress: 100 });
    expect(events.filter(isFinal)).toEqual([final]);
    expect(itemsOf(recording).at(-1)).toEqual(final);
    expectHeartbeatsInStep(recording, 0, started.id);

    // Payloads are the stored log, field for field.
    expect(events).toEqual(await storedLog(fast, user, started.id));

    const plan = events[0].data.agents as string[];
    expect(plan).toEqual(['collector', 'notes', 'meetings', 'tasks', 'news', 'writer', 'editor']);
    const byAgent = expectAgentProtocol(events);
    expect([...byAgent.keys()].sort()).toEqual([...plan].sort());
    for (const agent of plan) expect(byAgent.get(agent)!.at(-1)).toMatchObject({ status: 'complete', progress: 100 });

    const run = await getRun(fast, user, started.id);
    expect(run).toMatchObject({
      id: started.id,
      state: 'completed',
      finished: true,
      degraded: false,
      failedAgents: [],
      error: null,
      cancelRequested: false,
      summaryProvider: 'offline',
      lastSequence: final.sequence,
      options: { days: 7, sources: ['stickies', 'links', 'transcripts', 'tasks', 'news'], length: 'medium' },
    });
    expect(final.data).toMatchObject({ run_id: started.id, state: 'completed', degraded: false, failed_agents: [], summary_provider: 'offline' });
    expect(run.summary.length).toBeGreaterThan(100);
    expect(run.summary).toBe(final.data.summary);
    expect(run.summary).toContain('[1]');
    expect(run.references.length).toBeGreaterThan(0);
    expect(run.references).toEqual(final.data.references);
    for (const reference of run.references) {
      expect(['sticky', 'link', 'transcript', 'task', 'news']).toContain(reference.kind);
      expect(reference.id).toEqual(expect.any(String));
      expect(reference.title).toEqual(expect.any(String));
    }
    expect(run.agents.map((agent: { agent: string }) => agent.agent)).toEqual(plan);
    for (const agent of run.agents) expect(agent).toMatchObject({ status: 'complete', progress: 100 });
    expect(Date.parse(run.createdAt)).toBeLessThanOrEqual(Date.parse(run.startedAt));
    expect(Date.parse(run.startedAt)).toBeLessThanOrEqual(Date.parse(run.finishedAt));
    expect(run.events).toHaveLength(final.sequence);
  });

  it('resubscribing to the finished run replays exactly the events after `after`, then completes', async () => {
    const user = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const started = await startRun(fast, user, { sources: ['tasks'] });
    const run = await waitFinished(fast, user, started.id);
    const stored = await storedLog(fast, user, started.id);
    expect(stored).toHaveLength(run.lastSequence);
    for (const after of [0, 1, 5, run.lastSequence - 1]) {
      const recording = subscribe(fast, user, mode, { runId: started.id, after });
      expect((await recording.ended).kind, `after ${after}`).toBe('complete');
      expect(eventsOf(recording), `after ${after}`).toEqual(stored.slice(after));
    }
  });

  it('a subscription after the final event of a finished run completes without events', async () => {
    const user = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const started = await startRun(fast, user, { sources: ['tasks'] });
    const run = await waitFinished(fast, user, started.id);
    const recording = subscribe(fast, user, mode, { runId: started.id, after: run.lastSequence });
    // Nothing more will ever come: the stream must end, not wait forever (heartbeats aside).
    const ended = await Promise.race([
      recording.ended,
      new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 3 * HEARTBEAT_MS + 1000)),
    ]);
    recording.unsubscribe();
    expect(ended).toEqual({ kind: 'complete' });
    expect(eventsOf(recording)).toEqual([]);
  });

  describe('refusals', () => {
    let owner: TestUser;
    let runId: string;
    let lastSequence: number;
    const users: Record<string, TestUser> = {};

    beforeAll(async () => {
      owner = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
      runId = (await startRun(fast, owner, { sources: ['tasks'] })).id;
      lastSequence = (await waitFinished(fast, owner, runId)).lastSequence;
      users.stranger = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
      users.strangerReader = await createUser(fast.services, { scopes: ['read:workspace'] });
      users.unscoped = await createUser(fast.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'] });
    });

    it.each<[string, string, () => Record<string, string>, () => Record<string, unknown>, RegExp?]>([
      ["another user's run", 'NOT_FOUND', () => ({ 'x-api-key': users.stranger.key }), () => ({ runId, after: 0 })],
      ["another user's run with a read-only key", 'NOT_FOUND', () => ({ 'x-api-key': users.strangerReader.key }), () => ({ runId, after: 0 })],
      ['an unknown run', 'NOT_FOUND', () => ({ 'x-api-key': owner.key }), () => ({ runId: '00000000-0000-4000-8000-000000000000', after: 0 })],
      ['a key without workspace scopes', 'FORBIDDEN', () => ({ 'x-api-key': users.unscoped.key }), () => ({ runId, after: 0 })],
      ['no credential', 'UNAUTHENTICATED', () => ({}), () => ({ runId, after: 0 })],
      ['an unknown key', 'UNAUTHENTICATED', () => ({ 'x-api-key': 'sk_0000000000000000000000000000dead' }), () => ({ runId, after: 0 })],
      ['`after` beyond the last event', 'BAD_USER_INPUT', () => ({ 'x-api-key': owner.key }), () => ({ runId, after: lastSequence + 1 }), /\bafter\b/],
      ['a negative `after`', 'BAD_USER_INPUT', () => ({ 'x-api-key': owner.key }), () => ({ runId, after: -1 }), /\bafter\b/],
    ])('%s: %s', async (_what, code, headers, variables, message) => {
      const client = sseClient(fast.url, mode, headers());
      const recording = record(client, PROGRESS, variables());
      const errors = await subscriptionErrors(recording);
      client.dispose();
      expect(
        errors.map((error) => error.code),
        JSON.stringify(errors),
      ).toEqual([code]);
      if (message) expect(errors[0].message).toMatch(message);
      expect(recording.results.filter((result) => result.data)).toEqual([]);
    });

    it("the owner's read-only key may follow the run", async () => {
      const { secret } = await fast.services.apiKeys.create({ userId: owner.userId, name: 'read-only', scopes: ['read:workspace'] });
      const readOnly = record(sseClient(fast.url, mode, { 'x-api-key': secret }), PROGRESS, { runId, after: lastSequence - 1 });
      expect((await readOnly.ended).kind).toBe('complete');
      expect(eventsOf(readOnly).map((event) => event.sequence)).toEqual([lastSequence]);
    });
  });
});

describe('reading runs', () => {
  it("generationRun of another user's run is NOT_FOUND, and so is cancelling it", async () => {
    const owner = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const stranger = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const started = await startRun(fast, owner, { sources: ['tasks'] });
    expect((await gql(fast, stranger, RUN, { id: started.id })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect((await gql(fast, stranger, CANCEL, { id: started.id })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    await waitFinished(fast, owner, started.id);
    // Once it has ended, cancelling is a CONFLICT.
    expect((await gql(fast, owner, CANCEL, { id: started.id })).errors?.[0].extensions?.code).toBe('CONFLICT');
  });

  it('generationRuns lists the caller’s runs newest first, page by page', async () => {
    const user = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const other = await createUser(fast.services, { scopes: WORKSPACE_SCOPES });
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      const run = await startRun(fast, user, { sources: ['tasks'], days: index + 1 });
      ids.push(run.id);
      await waitFinished(fast, user, run.id);
    }
    await waitFinished(fast, other, (await startRun(fast, other, { sources: ['tasks'] })).id);
    const newestFirst = [...ids].reverse();

    const all = (await ok(fast, user, RUNS)).generationRuns;
    expect(all.edges.map((edge: any) => edge.node.id)).toEqual(newestFirst);
    expect(all.pageInfo.hasNextPage).toBe(false);

    const first = (await ok(fast, user, RUNS, { first: 2 })).generationRuns;
    expect(first.edges.map((edge: any) => edge.node.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await ok(fast, user, RUNS, { first: 2, after: first.pageInfo.endCursor })).generationRuns;
    expect(second.edges.map((edge: any) => edge.node.id)).toEqual(newestFirst.slice(2));
    expect(second.pageInfo.hasNextPage).toBe(false);

    expect((await ok(fast, user, RUNS, { state: 'completed' })).generationRuns.edges.map((edge: any) => edge.node.id)).toEqual(newestFirst);
    expect((await ok(fast, user, RUNS, { state: 'cancelled' })).generationRuns.edges).toEqual([]);
    expect((await ok(fast, user, RUNS, { state: 'queued' })).generationRuns.edges).toEqual([]);
  });
});

describe.each(SSE_MODES)('a run in progress followed in %s mode', (mode) => {
  it('replays then delivers live events; a client that leaves and comes back with `after` gets the rest, no gap, no duplicate', async () => {
    const user = await seededUser(slow);
    const started = await startRun(slow, user);
    // Join late: the first events are replayed from the log, the rest arrive live.
    await eventually(async () => (await getRun(slow, user, started.id)).lastSequence >= 4, 20_000, 'a few events');
    const joinedAt = Date.now();
    const first = subscribe(slow, user, mode, { runId: started.id, after: 0 });
    await first.until(() => lastEventSequence(first) >= 14);
    first.unsubscribe();
    const seen = lastEventSequence(first);
    expect(eventsOf(first).map((event) => event.sequence)).toEqual(range(1, seen));
    expect(eventsOf(first).some((event) => Date.parse(event.createdAt) > joinedAt)).toBe(true);
    expectHeartbeatsInStep(first, 0, started.id);

    // The run goes on without anyone following it (the server lets go of the feed)...
    await eventually(async () => slow.services.progress.followedRuns === 0, 5_000, 'the feed to be released');
    await eventually(async () => (await getRun(slow, user, started.id)).lastSequence >= seen + 3, 20_000, 'more events');
    const midway = await getRun(slow, user, started.id);
    expect(midway.finished).toBe(false);

    // ...and the client resumes after the last event it saw, while the run is still going.
    const second = subscribe(slow, user, mode, { runId: started.id, after: seen });
    expect((await second.ended).kind).toBe('complete');
    const rest = eventsOf(second);
    expect(rest.length).toBeGreaterThan(3);
    expect(rest.map((event) => event.sequence)).toEqual(range(seen + 1, seen + rest.length));
    expect(rest.at(-1)).toMatchObject({ agent: 'run', status: 'complete' });
    expectHeartbeatsInStep(second, seen, started.id);
    expect(heartbeatsOf(first).length + heartbeatsOf(second).length).toBeGreaterThan(0);

    const stored = await storedLog(slow, user, started.id);
    expect([...eventsOf(first), ...rest]).toEqual(stored);
    expectAgentProtocol(stored);
    expect((await getRun(slow, user, started.id)).state).toBe('completed');
  });

  it('a client that unsubscribes mid-run does not stop the run', async () => {
    const user = await createUser(slow.services, { scopes: WORKSPACE_SCOPES });
    const started = await startRun(slow, user, { sources: ['stickies', 'tasks'] });
    const recording = subscribe(slow, user, mode, { runId: started.id, after: 0 });
    await recording.until(() => lastEventSequence(recording) >= 5);
    recording.unsubscribe();
    expect((await getRun(slow, user, started.id)).finished).toBe(false);
    await eventually(async () => slow.services.progress.followedRuns === 0, 5_000, 'the feed to be released');
    const run = await waitFinished(slow, user, started.id);
    expect(run.state).toBe('completed');
    expect(run.cancelRequested).toBe(false);
    expect(run.agents.every((agent: { status: string }) => agent.status === 'complete')).toBe(true);
  });

  it('heartbeats keep a quiet subscription alive; cancelling ends queued and running runs and their streams', async () => {
    const user = await createUser(slow.services, { scopes: WORKSPACE_SCOPES });
    // One run at a time on this server: the first runs, the other two wait behind it.
    const r1 = await startRun(slow, user);
    const r2 = await startRun(slow, user, { sources: ['tasks'] });
    const r3 = await startRun(slow, user, { sources: ['tasks'] });
    expect(r2).toMatchObject({ state: 'queued', lastSequence: 1, finished: false, startedAt: null });
    expect(r3).toMatchObject({ state: 'queued', lastSequence: 1, finished: false, startedAt: null });
    const follow1 = subscribe(slow, user, mode, { runId: r1.id, after: 0 });
    // The queued run is quiet: after its one event, only heartbeats, saying so.
    const follow3 = subscribe(slow, user, mode, { runId: r3.id, after: 0 });
    await follow1.until(() => eventsOf(follow1).some((event) => event.agent === 'collector' && event.status === 'started'));
    expect((await getRun(slow, user, r1.id)).state).toBe('running');

    // A fourth run while three are in progress: CONFLICT.
    const fourth = await gql(slow, user, START, { input: {} });
    expect(fourth.errors?.[0].extensions?.code).toBe('CONFLICT');

    await follow3.until(() => heartbeatsOf(follow3).length >= 2, 5 * HEARTBEAT_MS + 2000);
    expect(eventsOf(follow3).map((event) => event.sequence)).toEqual([1]);
    for (const beat of heartbeatsOf(follow3)) expect(beat).toMatchObject({ runId: r3.id, lastSequence: 1 });
    expect(follow3.ending).toBeUndefined();

    // Cancelling the queued run ends it at once, with its final event.
    const cancelled3 = (await ok(slow, user, CANCEL, { id: r3.id })).cancelGeneration;
    expect(cancelled3).toMatchObject({ id: r3.id, state: 'cancelled', finished: true, cancelRequested: true, lastSequence: 2 });
    expect((await follow3.ended).kind).toBe('complete');
    const final3 = eventsOf(follow3).at(-1)!;
    expect(final3).toMatchObject({ sequence: 2, agent: 'run', status: 'failed', data: { run_id: r3.id, state: 'cancelled' } });
    expect(eventsOf(follow3)).toEqual(await storedLog(slow, user, r3.id));
    expect((await gql(slow, user, CANCEL, { id: r3.id })).errors?.[0].extensions?.code).toBe('CONFLICT');

    // Cancelling the running run: its running agents fail "Cancelled", its stream ends with the cancelled final event.
    const cancelling1 = (await ok(slow, user, CANCEL, { id: r1.id })).cancelGeneration;
    expect(cancelling1).toMatchObject({ id: r1.id, cancelRequested: true });
    expect((await follow1.ended).kind).toBe('complete');
    const events1 = eventsOf(follow1);
    expect(events1.map((event) => event.sequence)).toEqual(range(1, events1.length));
    expect(events1.at(-1)).toMatchObject({ agent: 'run', status: 'failed', progress: 100, data: { state: 'cancelled', reason: 'cancelled' } });
    expect(events1.filter((event) => event.status === 'failed' && event.agent !== 'run').every((event) => event.message === 'Cancelled')).toBe(true);
    // Every agent the run had started ends complete or failed "Cancelled": none is left at work.
    // (Which agents were at work depends on when the cancel landed; the Summaries browser test
    // holds the writer to check an agent at work fails "Cancelled".)
    const startedAgents = new Set(events1.filter((event) => event.agent !== 'run' && event.status === 'started').map((event) => event.agent));
    for (const agent of startedAgents) {
      const last = events1.filter((event) => event.agent === agent).at(-1)!;
      expect(last.status === 'complete' || (last.status === 'failed' && last.message === 'Cancelled'), `${agent}: ${last.status} ${last.message}`).toBe(true);
    }
    expect(events1).toEqual(await storedLog(slow, user, r1.id));
    const run1 = await getRun(slow, user, r1.id);
    expect(run1).toMatchObject({ state: 'cancelled', finished: true, cancelRequested: true, summary: null });
    expect(run1.agents.filter((agent: { status: string }) => agent.status === 'started' || agent.status === 'active')).toEqual([]);

    // The second run, queued all along, now runs to completion.
    const run2 = await waitFinished(slow, user, r2.id);
    expect(run2.state).toBe('completed');

    const list = async (variables: Record<string, unknown>) => (await ok(slow, user, RUNS, variables)).generationRuns;
    const ids = (connection: any) => connection.edges.map((edge: any) => edge.node.id);
    expect(ids(await list({}))).toEqual([r3.id, r2.id, r1.id]);
    const page1 = await list({ first: 2 });
    expect(ids(page1)).toEqual([r3.id, r2.id]);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = await list({ first: 2, after: page1.pageInfo.endCursor });
    expect(ids(page2)).toEqual([r1.id]);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    expect(ids(await list({ state: 'cancelled' }))).toEqual([r3.id, r1.id]);
    expect(ids(await list({ state: 'completed' }))).toEqual([r2.id]);
    expect(ids(await list({ state: 'running' }))).toEqual([]);
  });
});
