/**
 * The progress hub (src/generation/progress-hub.ts) on its own: an in-memory event log standing
 * in for the RunStore (the hub only reads `events(runId, after)`), and an in-process pub/sub that
 * can lose messages, count subscriptions and hold them back, so that what Redis does on a bad
 * day (drop a message while reconnecting) can be staged exactly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProgressHub, runChannel, type ProgressItem } from '../../src/generation/progress-hub.ts';
import type { AgentStatus, GenerationEventRecord, RunStore } from '../../src/generation/run-store.ts';
import { MemoryPubSub, type MessageListener, type PubSub } from '../../src/pubsub/pubsub.ts';
import { createLogger } from '../../src/log.ts';
import { endingWith, mapAsyncIterator, pushSourceOf } from '../../src/util/async-iterator.ts';

const log = createLogger('silent');

/** The durable log: what RunStore.append would have stored, read back as RunStore.events does. */
class MemoryRunLog {
  readonly logs = new Map<string, GenerationEventRecord[]>();
  reads = 0;
  /** While set, reads take their snapshot at once but answer only when it resolves. */
  gate: Promise<void> | null = null;
  failures = 0;

  append(runId: string, event: Partial<Pick<GenerationEventRecord, 'agent' | 'status' | 'progress' | 'message' | 'data'>> = {}): GenerationEventRecord {
    const log = this.logs.get(runId) ?? [];
    this.logs.set(runId, log);
    const stored: GenerationEventRecord = {
      runId,
      sequence: log.length + 1,
      agent: event.agent ?? 'collector',
      status: event.status ?? 'active',
      progress: event.progress ?? Math.min(99, log.length),
      message: event.message ?? `step ${log.length + 1}`,
      data: event.data ?? { step: log.length + 1 },
      createdAt: new Date(),
    };
    log.push(stored);
    return stored;
  }

  async events(runId: string, after = 0, limit = 10_000): Promise<GenerationEventRecord[]> {
    this.reads++;
    const snapshot = (this.logs.get(runId) ?? [])
      .filter((event) => event.sequence > after)
      .slice(0, limit)
      .map((event) => ({ ...event }));
    if (this.gate) await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('the database is unreachable');
    }
    return snapshot;
  }

  asStore(): RunStore {
    return this as unknown as RunStore;
  }
}

/** MemoryPubSub that can drop chosen messages and counts subscriptions per channel. */
class LossyPubSub implements PubSub {
  readonly kind = 'memory' as const;
  readonly connected = true;
  private readonly inner = new MemoryPubSub();
  readonly subscribeCalls = new Map<string, number>();
  readonly active = new Map<string, number>();
  readonly dropped: number[] = [];
  drop: (sequence: number) => boolean = () => false;

  async publish(channel: string, message: string): Promise<void> {
    const sequence = (JSON.parse(message) as { sequence: number }).sequence;
    if (this.drop(sequence)) {
      this.dropped.push(sequence);
      return;
    }
    await this.inner.publish(channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    this.subscribeCalls.set(channel, (this.subscribeCalls.get(channel) ?? 0) + 1);
    this.active.set(channel, (this.active.get(channel) ?? 0) + 1);
    const unsubscribe = await this.inner.subscribe(channel, listener);
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.active.set(channel, this.active.get(channel)! - 1);
      await unsubscribe();
    };
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}

interface Setup {
  store: MemoryRunLog;
  pubsub: LossyPubSub;
  hub: ProgressHub;
  /** Stores an event, then publishes it, as the run executor does. */
  emit(runId: string, event?: Parameters<MemoryRunLog['append']>[1]): Promise<GenerationEventRecord>;
  /** The run's final event. */
  finish(runId: string): Promise<GenerationEventRecord>;
}

const hubs: ProgressHub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.close();
});

function setup(heartbeatMs = 60_000): Setup {
  const store = new MemoryRunLog();
  const pubsub = new LossyPubSub();
  const hub = new ProgressHub({ store: store.asStore(), pubsub, heartbeatMs, log });
  hubs.push(hub);
  const emit = async (runId: string, event?: Parameters<MemoryRunLog['append']>[1]) => {
    const stored = store.append(runId, event);
    await hub.publish(stored);
    return stored;
  };
  return {
    store,
    pubsub,
    hub,
    emit,
    finish: (runId) => emit(runId, { agent: 'run', status: 'complete' as AgentStatus, progress: 100, message: 'Summary ready' }),
  };
}

let runCounter = 0;
function newRunId(): string {
  runCounter++;
  return `00000000-0000-4000-8000-${String(runCounter).padStart(12, '0')}`;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Everything a follower gets until its iterator ends (rejects if that takes longer than `timeoutMs`). */
async function drain(iterator: AsyncIterator<ProgressItem>, timeoutMs = 5_000): Promise<ProgressItem[]> {
  const items: ProgressItem[] = [];
  const giveUp = sleep(timeoutMs).then(() => 'timeout' as const);
  for (;;) {
    const result = await Promise.race([iterator.next(), giveUp]);
    if (result === 'timeout') {
      await iterator.return?.();
      throw new Error(`follower still open after ${timeoutMs} ms; got ${items.length} item(s), last ${JSON.stringify(items.at(-1))}`);
    }
    if (result.done) return items;
    items.push(result.value);
  }
}

const sequences = (items: ProgressItem[]) => items.flatMap((item) => (item.kind === 'event' ? [item.event.sequence] : []));
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);

describe('gap repair', () => {
  it('a follower gets every event exactly once and in order although the pub/sub lost some', async () => {
    const { store, pubsub, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const lost = new Set([3, 7, 8, 9, 15, 21, 22]);
    pubsub.drop = (sequence) => lost.has(sequence);
    const follower = hub.follow(runId, 0);
    const received = drain(follower);
    await tick();
    for (let index = 2; index < 30; index++) {
      await emit(runId);
      if (index % 4 === 0) await tick();
    }
    await finish(runId);
    const items = await received;
    expect(pubsub.dropped).toEqual([...lost]);
    // No heartbeat interval passed (60 s): the next message after each loss is what repaired it.
    expect(items.every((item) => item.kind === 'event')).toBe(true);
    expect(sequences(items)).toEqual(range(1, 30));
    expect(items.map((item) => (item.kind === 'event' ? item.event : null))).toEqual(store.logs.get(runId));
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
  });

  it('a lost last message is repaired at the next heartbeat interval', async () => {
    const { store, pubsub, hub, emit, finish } = setup(100);
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const follower = hub.follow(runId, 0);
    const items: ProgressItem[] = [];
    const received = (async () => {
      for await (const item of follower) items.push(item);
    })();
    await tick();
    for (let index = 0; index < 5; index++) await emit(runId);
    // The run pauses after an event whose message is lost: the follower must not wait for the next message.
    pubsub.drop = (sequence) => sequence === 7;
    const quietFrom = Date.now();
    await emit(runId);
    await expectEventually(() => sequences(items).includes(7), 1_000);
    const repairedAfter = Date.now() - quietFrom;
    expect(repairedAfter).toBeLessThan(500);
    // The heartbeat that found the gap still reported the sequence the feed held.
    const index7 = items.findIndex((item) => item.kind === 'event' && item.event.sequence === 7);
    expect(items.slice(0, index7).some((item) => item.kind === 'heartbeat' && item.lastSequence === 6)).toBe(true);

    // And when the lost message is the run's final event, the stream still ends.
    pubsub.drop = (sequence) => sequence === 8;
    const final = await finish(runId);
    expect(final.sequence).toBe(8);
    await withTimeout(received, 1_000);
    expect(sequences(items)).toEqual(range(1, 8));
    expect(items.at(-1)).toMatchObject({ kind: 'event', event: { sequence: 8, agent: 'run', status: 'complete' } });
    expect(pubsub.dropped).toEqual([7, 8]);
    expect(hub.followedRuns).toBe(0);
  });

  it('messages that arrive while a gap is being read from the log are not held back until the next heartbeat', async () => {
    // Redis reconnects: a message is lost, then the next ones flow again at once. The first of
    // them reveals the gap and the feed reads the log; the ones arriving during that read, the
    // final event among them, must reach the follower when the read is done, not one heartbeat
    // interval (GENERATION_HEARTBEAT, 15 s by default; 60 s here) later.
    const { store, pubsub, hub, emit, finish } = setup(60_000);
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const received = drain(hub.follow(runId, 0), 2_000);
    await tick();
    await emit(runId); // 2
    pubsub.drop = (sequence) => sequence === 3;
    await emit(runId); // 3, lost
    pubsub.drop = () => false;
    let open!: () => void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    await emit(runId); // 4: the gap shows, the repair read (snapshot 3..4) waits at the gate
    expect(store.reads).toBe(2);
    await emit(runId); // 5, during the read
    await finish(runId); // 6, during the read
    store.gate = null;
    open();
    expect(sequences(await received)).toEqual(range(1, 6));
  });

  it('messages published while the feed reads the log are not lost (subscribe first, then read)', async () => {
    const { store, pubsub, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    let open!: () => void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    const received = drain(hub.follow(runId, 0));
    await expectEventually(() => store.reads === 1 && (pubsub.active.get(runChannel(runId)) ?? 0) === 1, 1_000);
    // The read took its snapshot (event 1 only); events 2..4 arrive as messages before it answers.
    await emit(runId);
    await emit(runId);
    await emit(runId);
    store.gate = null;
    open();
    await tick();
    await emit(runId);
    await finish(runId);
    expect(sequences(await received)).toEqual(range(1, 6));
  });

  it('a feed whose first read fails lets its followers fail and is released', async () => {
    const { store, pubsub, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    store.failures = 1;
    await expect(hub.follow(runId, 0).next()).rejects.toThrow(/unreachable/);
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
    // The next follower starts a fresh feed.
    const received = drain(hub.follow(runId, 0));
    await tick();
    await emit(runId);
    await finish(runId);
    expect(sequences(await received)).toEqual([1, 2, 3]);
  });
});

describe('fan-out', () => {
  it('500 followers of one run share one subscription and one read, and all get every event', async () => {
    const { store, pubsub, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const followers = Array.from({ length: 500 }, () => drain(hub.follow(runId, 0), 20_000));
    await expectEventually(() => hub.followedRuns === 1 && pubsub.subscribeCalls.get(runChannel(runId)) === 1, 1_000);
    await tick();
    for (let index = 0; index < 40; index++) await emit(runId);
    await finish(runId);
    const all = await Promise.all(followers);
    for (const items of all) expect(sequences(items)).toEqual(range(1, 42));
    expect(pubsub.subscribeCalls.get(runChannel(runId))).toBe(1);
    expect(store.reads).toBe(1);
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
  });

  it('followers joining mid-run get the replay then the live events, without gap or duplicate', async () => {
    const { store, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const first = drain(hub.follow(runId, 0));
    await tick();
    const joiners: { after: number; items: Promise<ProgressItem[]> }[] = [];
    // Followers join between events, right after a publication and from various cursors, while the run goes on.
    for (let index = 2; index <= 60; index++) {
      await emit(runId);
      if (index % 3 === 0) joiners.push({ after: 0, items: drain(hub.follow(runId, 0)) });
      if (index % 5 === 0) joiners.push({ after: index - 2, items: drain(hub.follow(runId, index - 2)) });
      if (index % 7 === 0) joiners.push({ after: index, items: drain(hub.follow(runId, index)) });
      if (index % 4 === 0) await tick();
    }
    await finish(runId);
    expect(sequences(await first)).toEqual(range(1, 61));
    expect(joiners.length).toBeGreaterThan(30);
    for (const joiner of joiners) expect(sequences(await joiner.items), `after ${joiner.after}`).toEqual(range(joiner.after + 1, 61));
    // The feed held the log: joiners were served from memory, not by reading the log again.
    expect(store.reads).toBe(1);
  });

  it('a follower of a finished run gets the events after its cursor and ends', async () => {
    const { store, hub } = setup();
    const runId = newRunId();
    for (let index = 0; index < 9; index++) store.append(runId);
    store.append(runId, { agent: 'run', status: 'failed', progress: 100, data: { state: 'cancelled' } });
    expect(sequences(await drain(hub.follow(runId, 0)))).toEqual(range(1, 10));
    expect(sequences(await drain(hub.follow(runId, 4)))).toEqual(range(5, 10));
    expect(hub.followedRuns).toBe(0);
  });

  it('events cross the pub/sub as JSON and reach followers with their dates as Dates', async () => {
    const { store, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const received = drain(hub.follow(runId, 0));
    await tick();
    const live = await emit(runId, { data: { nested: { list: [1, 'two'] } } });
    await finish(runId);
    const items = await received;
    const event = items.find((item) => item.kind === 'event' && item.event.sequence === live.sequence);
    expect(event).toEqual({ kind: 'event', event: live });
    expect(event?.kind === 'event' && event.event.createdAt instanceof Date).toBe(true);
  });
});

describe('ending followers', () => {
  it('return() ends a follower waiting for an event at once, and the feed is released', async () => {
    const { store, pubsub, hub } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const follower = hub.follow(runId, 0);
    expect(await follower.next()).toMatchObject({ done: false, value: { kind: 'event', event: { sequence: 1 } } });
    const pending = follower.next();
    await sleep(20);
    const startedAt = Date.now();
    const returned = await withTimeout(follower.return!(), 1_000);
    const next = await withTimeout(pending, 1_000);
    expect(Date.now() - startedAt).toBeLessThan(100);
    expect(returned).toEqual({ done: true, value: undefined });
    expect(next).toEqual({ done: true, value: undefined });
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
    expect(await follower.next()).toEqual({ done: true, value: undefined });
  });

  it('one follower leaving does not end the others; the feed goes when the last one leaves', async () => {
    const { store, pubsub, hub, emit, finish } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const leaving = hub.follow(runId, 0);
    await leaving.next();
    const staying = drain(hub.follow(runId, 0));
    await tick();
    await leaving.return!();
    expect(hub.followedRuns).toBe(1);
    await emit(runId);
    await finish(runId);
    expect(sequences(await staying)).toEqual([1, 2, 3]);
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
  });

  it('throw() ends a follower and releases the feed', async () => {
    const { store, pubsub, hub } = setup();
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const follower = hub.follow(runId, 0);
    await follower.next();
    const pending = follower.next();
    await sleep(20);
    await expect(withTimeout(follower.throw!(new Error('client gone')), 1_000)).rejects.toThrow('client gone');
    expect(await withTimeout(pending, 1_000)).toEqual({ done: true, value: undefined });
    expect(hub.followedRuns).toBe(0);
    expect(pubsub.active.get(runChannel(runId))).toBe(0);
  });

  it('endStreams() ends every follower, and any that starts later', async () => {
    const { store, pubsub, hub } = setup();
    const runs = [newRunId(), newRunId(), newRunId()];
    for (const runId of runs) store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    const followers = runs.flatMap((runId) => Array.from({ length: 5 }, () => drain(hub.follow(runId, 0))));
    await expectEventually(() => hub.followedRuns === 3, 1_000);
    await sleep(20);
    const startedAt = Date.now();
    hub.endStreams();
    const all = await withTimeout(Promise.all(followers), 1_000);
    expect(Date.now() - startedAt).toBeLessThan(100);
    for (const items of all) expect(sequences(items)).toEqual([1]);
    expect(hub.followedRuns).toBe(0);
    for (const runId of runs) expect(pubsub.active.get(runChannel(runId))).toBe(0);
    expect(await drain(hub.follow(runs[0], 0), 1_000)).toEqual([]);
  });

  it('heartbeats reach every follower of a quiet run with the newest sequence', async () => {
    const { store, hub, emit } = setup(100);
    const runId = newRunId();
    store.append(runId, { agent: 'run', status: 'queued', progress: 0 });
    await emit(runId);
    const followers = [hub.follow(runId, 0), hub.follow(runId, 2)];
    const items: ProgressItem[][] = [[], []];
    const running = followers.map(async (follower, index) => {
      for await (const item of follower) items[index].push(item);
    });
    await sleep(350);
    for (const follower of followers) await follower.return!();
    await Promise.all(running);
    expect(sequences(items[0])).toEqual([1, 2]);
    expect(sequences(items[1])).toEqual([]);
    for (const own of items) {
      const beats = own.filter((item) => item.kind === 'heartbeat');
      expect(beats.length).toBeGreaterThanOrEqual(2);
      for (const beat of beats) expect(beat).toMatchObject({ kind: 'heartbeat', lastSequence: 2, at: expect.any(Date) });
    }
  });
});

describe('the push side (drain without a promise per item)', () => {
  /** Reads a follower as the REST stream does: every ready item at each ready call. */
  function pushed(iterator: AsyncIterator<ProgressItem>): { items: ProgressItem[]; calls: number; ended: Promise<void> } {
    const push = pushSourceOf<ProgressItem>(iterator)!;
    expect(push).toBeDefined();
    const state = { items: [] as ProgressItem[], calls: 0, ended: undefined as unknown as Promise<void> };
    state.ended = new Promise((resolve) =>
      push.onReady(() => {
        state.calls++;
        state.items.push(...push.drain());
        if (push.ended) resolve();
      }),
    );
    return state;
  }

  it('replays, then takes live events in bursts, with heartbeats, and ends after the final event', async () => {
    const { hub, emit, finish } = setup(50);
    const runId = newRunId();
    await emit(runId);
    await emit(runId);
    const follower = pushed(hub.follow(runId, 1));
    await expectEventually(() => follower.items.length >= 1, 2_000);
    for (let i = 0; i < 4; i++) await emit(runId);
    await expectEventually(() => follower.items.some((item) => item.kind === 'heartbeat'), 2_000);
    await finish(runId);
    await withTimeout(follower.ended, 2_000);
    const sequences = follower.items.flatMap((item) => (item.kind === 'event' ? [item.event.sequence] : []));
    expect(sequences).toEqual([2, 3, 4, 5, 6, 7]);
    expect(hub.followedRuns).toBe(0);
  });

  it('return() (a revoked credential, a client gone) tells the consumer through its ready call; the feed is released', async () => {
    const { hub, emit } = setup();
    const runId = newRunId();
    await emit(runId);
    const iterator = hub.follow(runId, 0);
    const follower = pushed(iterator);
    await expectEventually(() => follower.items.length === 1, 2_000);
    await iterator.return!();
    await withTimeout(follower.ended, 2_000);
    expect(hub.followedRuns).toBe(0);
    await emit(runId);
    expect(follower.items).toHaveLength(1);
  });

  it('a feed whose first read fails: the push consumer gets the error from drain(), then the stream has ended', async () => {
    const { hub, store } = setup();
    const runId = newRunId();
    store.failures = 1;
    const push = pushSourceOf<ProgressItem>(hub.follow(runId, 0))!;
    const outcome = await withTimeout(
      new Promise<string>((resolve) =>
        push.onReady(() => {
          try {
            push.drain();
            if (push.ended) resolve('ended without error');
          } catch (error) {
            resolve(String((error as Error).message));
          }
        }),
      ),
      2_000,
    );
    expect(outcome).toBe('the database is unreachable');
    expect(push.ended).toBe(true);
    expect(hub.followedRuns).toBe(0);
  });

  it('the map and slot wrappers pass the push side on, and the slot is released when the stream ends', async () => {
    const { hub, emit, finish } = setup();
    const runId = newRunId();
    let released = 0;
    const wrapped = mapAsyncIterator(
      endingWith(hub.follow(runId, 0), () => released++),
      (item) => item,
    );
    const follower = pushed(wrapped);
    await emit(runId);
    await finish(runId);
    await withTimeout(follower.ended, 2_000);
    expect(follower.items.map((item) => item.kind)).toEqual(['event', 'event']);
    expect(released).toBe(1);
  });
});

async function expectEventually(condition: () => boolean, timeoutMs: number): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUp) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not settled within ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
