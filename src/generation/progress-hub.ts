/**
 * Live progress of generation runs for any number of local subscribers.
 *
 * One feed per followed run and process: it subscribes once to the run's pub/sub channel, loads
 * the run's event log once, and keeps it in memory while anyone follows the run, so a thousand
 * subscribers cost one channel subscription and one query, not a thousand. Pub/sub messages
 * are only trusted in order: a message that skips a sequence number (one was lost, e.g. while
 * Redis reconnected) makes the feed read the missing events from the log, and every heartbeat
 * interval an unfinished run's log is checked too, so a lost message delays an event by at most
 * one interval and never loses it. While the pub/sub is down (Redis unreachable) no message comes
 * at all: the feed then reads the log every second instead, so followers, new or old, still get
 * every event, a little late; when Redis is back, messages flow again on the same subscription.
 *
 * A follower reads the events after its cursor from the feed's memory, replayed and live alike,
 * by its own index into the log: no gap, no duplicate, and no queue per follower. Every follower
 * gets the same event objects, so what is made from an event (a GraphQL result, an SSE frame) can
 * be made once for all of them. A heartbeat goes to every follower
 * of a feed at each interval (a UI tells a quiet run from a dead connection by it).
 */
import type { Logger } from '../log.ts';
import type { PubSub } from '../pubsub/pubsub.ts';
import { isFinalEvent, type GenerationEventRecord, type RunStore } from './run-store.ts';
import { PUSH, type PushSource } from '../util/async-iterator.ts';

/** How often a feed reads the event log while the pub/sub is down (at most every heartbeat otherwise). */
const POLL_WHILE_DISCONNECTED_MS = 1_000;

/** A heartbeat is one object for all followers of a run, like an event, so its result and frame are made once. */
export type ProgressItem = { kind: 'event'; event: GenerationEventRecord } | { kind: 'heartbeat'; runId: string; at: Date; lastSequence: number };

export function runChannel(runId: string): string {
  return `generation:${runId}`;
}

/** Events cross the pub/sub as JSON; dates come back as strings. */
export function encodeEvent(event: GenerationEventRecord): string {
  return JSON.stringify(event);
}

function decodeEvent(message: string): GenerationEventRecord | null {
  try {
    const parsed = JSON.parse(message) as GenerationEventRecord & { createdAt: string };
    if (typeof parsed.sequence !== 'number' || typeof parsed.runId !== 'string') return null;
    return { ...parsed, createdAt: new Date(parsed.createdAt) };
  } catch {
    return null;
  }
}

/** Told what the hub publishes and delivers (the metrics: src/metrics). */
export interface ProgressObserver {
  /** An event was stored and is being published (run endings and agent durations are read from them). */
  published(event: GenerationEventRecord): void;
  /** A live event was handed to this instance's followers of its run, `delayMs` after it was stored. */
  fannedOut(delayMs: number): void;
}

/** A follower of a feed: woken when events were appended, handed each heartbeat. */
interface Listener {
  wake(): void;
  heartbeat(item: HeartbeatItem): void;
}

type HeartbeatItem = Extract<ProgressItem, { kind: 'heartbeat' }>;

class RunFeed {
  readonly events: GenerationEventRecord[] = [];
  readonly listeners = new Set<Listener>();
  private unsubscribe: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private repairing: Promise<void> | null = null;
  private loaded = false;
  private early: GenerationEventRecord[] = [];
  /** The highest sequence number a message announced: the log holds at least that many events. */
  private highestSeen = 0;

  constructor(
    readonly runId: string,
    private readonly store: RunStore,
    private readonly pubsub: PubSub,
    private readonly heartbeatMs: number,
    private readonly log: Logger,
    private readonly observer?: ProgressObserver,
  ) {}

  get lastSequence(): number {
    return this.events.at(-1)?.sequence ?? 0;
  }

  get finished(): boolean {
    const last = this.events.at(-1);
    return last !== undefined && isFinalEvent(last);
  }

  /** Subscribes first, then reads the log, so nothing published in between is missed. */
  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(runChannel(this.runId), (message) => this.onMessage(message));
    let stored: GenerationEventRecord[];
    try {
      stored = await this.store.events(this.runId);
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.loaded = true;
    this.accept([...stored, ...this.early], false);
    this.early = [];
    this.timer = setInterval(() => this.tick(), this.heartbeatMs);
    this.timer.unref();
    this.pollTimer = setInterval(() => this.pollWhileDisconnected(), Math.min(POLL_WHILE_DISCONNECTED_MS, this.heartbeatMs));
    this.pollTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.timer = null;
    this.pollTimer = null;
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private onMessage(message: string): void {
    const event = decodeEvent(message);
    if (!event) return;
    this.highestSeen = Math.max(this.highestSeen, event.sequence);
    if (!this.loaded) {
      this.early.push(event);
      return;
    }
    if (event.sequence <= this.lastSequence) return;
    if (event.sequence === this.lastSequence + 1) this.accept([event]);
    else void this.repair();
  }

  /** Appends the events that continue the log without a gap and hands them to the listeners. */
  private accept(events: GenerationEventRecord[], live = true): void {
    const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
    for (const event of sorted) {
      if (event.sequence !== this.lastSequence + 1) continue;
      this.events.push(event);
      // Followers read the event from `events`, by their own cursor: they are only woken here, and
      // nothing is queued per follower (a slow one falls behind in the log, not in memory).
      for (const listener of this.listeners) listener.wake();
      if (live && this.observer && this.listeners.size > 0) this.observer.fannedOut(Date.now() - event.createdAt.getTime());
    }
    if (sorted.some((event) => event.sequence > this.lastSequence) && !this.repairing) void this.repair();
  }

  /**
   * Reads the events after the last one held from the log, one read at a time, and again while
   * messages announced events beyond what the reads returned (they arrived during a read).
   */
  private repair(): Promise<void> {
    this.repairing ??= (async () => {
      try {
        do {
          this.accept(await this.store.events(this.runId, this.lastSequence));
        } while (this.highestSeen > this.lastSequence && this.listeners.size > 0);
      } catch (error) {
        this.log.warn({ err: error, runId: this.runId }, 'could not read generation events');
      } finally {
        this.repairing = null;
      }
    })();
    return this.repairing;
  }

  /** A heartbeat to every follower at each interval; an unfinished run's log is checked too. */
  private tick(): void {
    const heartbeat: HeartbeatItem = { kind: 'heartbeat', runId: this.runId, at: new Date(), lastSequence: this.lastSequence };
    for (const listener of this.listeners) listener.heartbeat(heartbeat);
    if (!this.finished) void this.repair();
  }

  /** No message can arrive while the pub/sub is down: read the log instead. */
  private pollWhileDisconnected(): void {
    if (!this.pubsub.connected && !this.finished) void this.repair();
  }
}

export interface ProgressHubOptions {
  store: RunStore;
  pubsub: PubSub;
  heartbeatMs: number;
  log: Logger;
  observer?: ProgressObserver;
}

export class ProgressHub {
  /** Feeds by run id, with the number of followers holding each (counted before the feed is ready). */
  private readonly feeds = new Map<string, { feed: Promise<RunFeed>; holders: number }>();

  /** Set at shutdown: every stream ends (its client reconnects to another instance). */
  private closing = false;
  private readonly followers = new Set<Follower>();
  /** What every follower asks of the hub: one object for all of them, not closures per follower. */
  private readonly host: FollowerHost = {
    acquire: (runId) => this.acquire(runId),
    release: (feed) => this.release(feed),
    forget: (follower) => this.followers.delete(follower),
  };

  constructor(private readonly options: ProgressHubOptions) {}

  /** Ends every follower's stream now and any that starts later (shutdown). */
  endStreams(): void {
    this.closing = true;
    for (const follower of this.followers) void follower.return();
  }

  /** Number of runs followed in this process (for health output and tests). */
  get followedRuns(): number {
    return this.feeds.size;
  }

  /** Publishes a stored event to every instance's followers. */
  async publish(event: GenerationEventRecord): Promise<void> {
    this.options.observer?.published(event);
    await this.options.pubsub.publish(runChannel(event.runId), encodeEvent(event));
  }

  /**
   * The events of a run after `after`, then live ones until the final event, with heartbeats in
   * between; return() ends it at once. The caller has checked that the viewer owns the run.
   */
  follow(runId: string, after: number): AsyncIterableIterator<ProgressItem> {
    const follower = new Follower(this.host, runId, after);
    if (this.closing) void follower.return();
    else this.followers.add(follower);
    return follower;
  }

  private async acquire(runId: string): Promise<RunFeed> {
    let entry = this.feeds.get(runId);
    if (!entry) {
      const feed = new RunFeed(runId, this.options.store, this.options.pubsub, this.options.heartbeatMs, this.options.log, this.options.observer);
      entry = { feed: feed.start().then(() => feed), holders: 0 };
      this.feeds.set(runId, entry);
    }
    entry.holders++;
    try {
      return await entry.feed;
    } catch (error) {
      if (--entry.holders === 0 && this.feeds.get(runId) === entry) this.feeds.delete(runId);
      throw error;
    }
  }

  private async release(feed: RunFeed): Promise<void> {
    const entry = this.feeds.get(feed.runId);
    if (!entry || --entry.holders > 0) return;
    this.feeds.delete(feed.runId);
    await feed.stop();
  }

  async close(): Promise<void> {
    const feeds = await Promise.allSettled([...this.feeds.values()].map((entry) => entry.feed));
    this.feeds.clear();
    await Promise.all(feeds.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
  }
}

/** The hub's side of its followers: joining and leaving a run's feed, and forgetting a follower that ended. */
interface FollowerHost {
  acquire(runId: string): Promise<RunFeed>;
  release(feed: RunFeed): Promise<void>;
  forget(follower: Follower): void;
}

/**
 * One follower of a run, as a hand-written async iterator: cheap to hold by the thousand, and
 * return() ends it at once even while a next() waits for the next event (a generator would only
 * notice at its next yield). It reads the feed's events after its cursor straight from the feed's
 * log, the same event objects for every follower, so it holds no queue of its own: at most one
 * heartbeat waits for it (a newer one replaces it). It is its own push side: no closures of its
 * own, only fields (an idle follower's memory is what matters here).
 */
class Follower implements AsyncIterableIterator<ProgressItem>, Listener, PushSource<ProgressItem> {
  private feed: RunFeed | null = null;
  private readIndex = 0;
  private pendingHeartbeat: HeartbeatItem | null = null;
  private waiting: (() => void) | null = null;
  private done = false;
  /** A consumer reading without promises (PushSource): told when items are ready. */
  private ready: (() => void) | null = null;
  private started = false;
  private failure: { error: unknown } | null = null;

  /** The push side (src/util/async-iterator.ts): drain() takes every ready item at once. */
  readonly [PUSH]: PushSource<ProgressItem> = this;

  constructor(
    private readonly host: FollowerHost,
    private readonly runId: string,
    private cursor: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** True once the follower has ended (PushSource). */
  get ended(): boolean {
    return this.done;
  }

  /** PushSource: `ready` is called whenever items may be ready; the first call joins the run's feed. */
  onReady(ready: () => void): void {
    this.ready = ready;
    if (this.started) return;
    this.started = true;
    // A feed that cannot start (its first read failed) is reported by the next drain(), as next() would throw it.
    this.attach().then(ready, (error: unknown) => {
      this.failure = { error };
      void this.return().then(ready);
    });
  }

  wake(): void {
    this.waiting?.();
    this.ready?.();
  }

  heartbeat(item: HeartbeatItem): void {
    this.pendingHeartbeat = item;
    this.waiting?.();
    this.ready?.();
  }

  /** Joins the run's feed (once). */
  private async attach(): Promise<void> {
    if (this.feed || this.done) return;
    const feed = await this.host.acquire(this.runId);
    if (this.done) {
      await this.host.release(feed);
      return;
    }
    this.feed = feed;
    feed.listeners.add(this);
  }

  /** PushSource: every item ready now; after the final event the follower has ended. */
  drain(): ProgressItem[] {
    if (this.failure) {
      const { error } = this.failure;
      this.failure = null;
      throw error;
    }
    const items: ProgressItem[] = [];
    for (let item = this.feed && !this.done ? this.take(this.feed) : undefined; item; item = this.done ? undefined : this.take(this.feed!)) {
      items.push(item);
      if (item.kind === 'event' && isFinalEvent(item.event)) void this.return();
    }
    return items;
  }

  async next(): Promise<IteratorResult<ProgressItem, undefined>> {
    if (!this.feed && !this.done) await this.attach();
    while (!this.done && this.feed) {
      const item = this.take(this.feed);
      if (item) {
        if (item.kind === 'event' && isFinalEvent(item.event)) await this.return();
        return { done: false, value: item };
      }
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
    return { done: true, value: undefined };
  }

  async return(): Promise<IteratorResult<ProgressItem, undefined>> {
    if (this.done) return { done: true, value: undefined };
    this.done = true;
    this.host.forget(this);
    this.waiting?.();
    // A push consumer learns of the end (a revoked credential, shutdown) through its ready callback.
    const ready = this.ready;
    this.ready = null;
    if (ready) queueMicrotask(ready);
    const feed = this.feed;
    this.feed = null;
    this.pendingHeartbeat = null;
    if (feed) {
      feed.listeners.delete(this);
      await this.host.release(feed);
    }
    return { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<ProgressItem, undefined>> {
    await this.return();
    throw error;
  }

  /** The next item to deliver: the next event after the cursor in the feed's log, else a waiting heartbeat. */
  private take(feed: RunFeed): ProgressItem | undefined {
    while (this.readIndex < feed.events.length) {
      const event = feed.events[this.readIndex++];
      if (event.sequence <= this.cursor) continue;
      this.cursor = event.sequence;
      return { kind: 'event', event };
    }
    const heartbeat = this.pendingHeartbeat;
    this.pendingHeartbeat = null;
    return heartbeat ?? undefined;
  }
}
