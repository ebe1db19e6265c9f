/**
 * Live progress of generation runs for any number of local subscribers.
 *
 * One feed per followed run and process: it subscribes once to the run's pub/sub channel, loads
 * the run's event log once, and keeps it in memory while anyone follows the run, so a thousand
 * subscribers cost one channel subscription and one query, not a thousand. Pub/sub messages
 * are only trusted in order: a message that skips a sequence number (one was lost, e.g. while
 * Redis reconnected) makes the feed read the missing events from the log, and every heartbeat
 * interval an unfinished run's log is checked too, so a lost message delays an event by at most
 * one interval and never loses it.
 *
 * A follower replays the events after its cursor from the feed's memory and then receives live
 * ones, skipping any it has already had: no gap, no duplicate. Heartbeats go to every follower
 * of a feed at the configured interval.
 */
import type { Logger } from '../log.ts';
import type { PubSub } from '../pubsub/pubsub.ts';
import { isFinalEvent, type GenerationEventRecord, type RunStore } from './run-store.ts';

export type ProgressItem =
  | { kind: 'event'; event: GenerationEventRecord }
  | { kind: 'heartbeat'; at: Date; lastSequence: number };

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

type Listener = (item: ProgressItem) => void;

class RunFeed {
  readonly events: GenerationEventRecord[] = [];
  readonly listeners = new Set<Listener>();
  private unsubscribe: (() => Promise<void>) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private repairing: Promise<void> | null = null;
  private loaded = false;
  private early: GenerationEventRecord[] = [];

  constructor(
    readonly runId: string,
    private readonly store: RunStore,
    private readonly pubsub: PubSub,
    private readonly heartbeatMs: number,
    private readonly log: Logger,
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
    this.accept([...stored, ...this.early]);
    this.early = [];
    this.timer = setInterval(() => this.tick(), this.heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private onMessage(message: string): void {
    const event = decodeEvent(message);
    if (!event) return;
    if (!this.loaded) {
      this.early.push(event);
      return;
    }
    if (event.sequence <= this.lastSequence) return;
    if (event.sequence === this.lastSequence + 1) this.accept([event]);
    else void this.repair();
  }

  /** Appends the events that continue the log without a gap and hands them to the listeners. */
  private accept(events: GenerationEventRecord[]): void {
    const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
    for (const event of sorted) {
      if (event.sequence !== this.lastSequence + 1) continue;
      this.events.push(event);
      for (const listener of this.listeners) listener({ kind: 'event', event });
    }
    if (sorted.some((event) => event.sequence > this.lastSequence)) void this.repair();
  }

  /** Reads the events after the last one held from the log (one read at a time). */
  private repair(): Promise<void> {
    this.repairing ??= this.store
      .events(this.runId, this.lastSequence)
      .then((missing) => this.accept(missing))
      .catch((error: unknown) => this.log.warn({ err: error, runId: this.runId }, 'could not read generation events'))
      .finally(() => {
        this.repairing = null;
      });
    return this.repairing;
  }

  private tick(): void {
    const heartbeat: ProgressItem = { kind: 'heartbeat', at: new Date(), lastSequence: this.lastSequence };
    for (const listener of this.listeners) listener(heartbeat);
    if (!this.finished) void this.repair();
  }
}

export interface ProgressHubOptions {
  store: RunStore;
  pubsub: PubSub;
  heartbeatMs: number;
  log: Logger;
}

export class ProgressHub {
  /** Feeds by run id, with the number of followers holding each (counted before the feed is ready). */
  private readonly feeds = new Map<string, { feed: Promise<RunFeed>; holders: number }>();

  /** Aborted at shutdown: every stream ends (its client reconnects to another instance). */
  private readonly closing = new AbortController();

  constructor(private readonly options: ProgressHubOptions) {}

  /** Ends every follower's stream now and any that starts later (shutdown). */
  endStreams(): void {
    this.closing.abort();
  }

  /** Number of runs followed in this process (for health output and tests). */
  get followedRuns(): number {
    return this.feeds.size;
  }

  /** Publishes a stored event to every instance's followers. */
  async publish(event: GenerationEventRecord): Promise<void> {
    await this.options.pubsub.publish(runChannel(event.runId), encodeEvent(event));
  }

  /**
   * The events of a run after `after`, then live ones until the final event, with heartbeats in
   * between; ends early when `signal` aborts. The caller has checked that the viewer owns the run.
   */
  follow(runId: string, after: number, callerSignal?: AbortSignal): AsyncIterableIterator<ProgressItem> {
    // return() must end a follower that is waiting for the next event at once (a GraphQL client
    // went away), which a plain generator would only do at its next yield.
    const stop = new AbortController();
    const signals = [stop.signal, this.closing.signal, ...(callerSignal ? [callerSignal] : [])];
    const loop = this.followLoop(runId, after, AbortSignal.any(signals));
    return {
      next: () => loop.next(),
      return: async () => {
        stop.abort();
        return loop.return(undefined);
      },
      throw: async (error?: unknown) => {
        stop.abort();
        return loop.throw(error);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  private async *followLoop(runId: string, after: number, signal: AbortSignal): AsyncGenerator<ProgressItem, undefined> {
    if (signal.aborted) return;
    const feed = await this.acquire(runId);
    const inbox: ProgressItem[] = [];
    let wake: (() => void) | null = null;
    const listener: Listener = (item) => {
      inbox.push(item);
      wake?.();
    };
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    feed.listeners.add(listener);
    try {
      let cursor = after;
      // Replay what the feed holds; events arriving meanwhile also land in the inbox and are skipped below.
      for (let index = 0; index < feed.events.length && !signal.aborted; index++) {
        const event = feed.events[index];
        if (event.sequence <= cursor) continue;
        cursor = event.sequence;
        yield { kind: 'event', event };
        if (isFinalEvent(event)) return;
      }
      while (!signal.aborted) {
        const item = inbox.shift();
        if (!item) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        if (item.kind === 'event') {
          if (item.event.sequence <= cursor) continue;
          cursor = item.event.sequence;
        }
        yield item;
        if (item.kind === 'event' && isFinalEvent(item.event)) return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      feed.listeners.delete(listener);
      await this.release(feed);
    }
  }

  private async acquire(runId: string): Promise<RunFeed> {
    let entry = this.feeds.get(runId);
    if (!entry) {
      const feed = new RunFeed(runId, this.options.store, this.options.pubsub, this.options.heartbeatMs, this.options.log);
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
