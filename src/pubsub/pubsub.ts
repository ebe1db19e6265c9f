import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { watchConnection } from '../redis/redis-client.ts';

export type MessageListener = (message: string) => void;

/**
 * Fan-out of messages to subscribers of a channel: in-process by default, through Redis when
 * REDIS_URL is set so that a subscriber on one instance hears what another instance publishes.
 * Delivery is best effort (Redis pub/sub drops messages while a connection is down): callers
 * that must not lose anything keep a durable log and use messages only as a prompt to read it.
 * Neither publish nor subscribe ever fails because Redis is away.
 */
export interface PubSub {
  readonly kind: 'memory' | 'redis';
  /** False while messages cannot travel (Redis unreachable): callers read their durable log more often meanwhile. */
  readonly connected: boolean;
  /** Sends the message if it can; a message that cannot be sent now is dropped. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Resolves once the subscription is active, or at once if it cannot be made now (Redis
   * unreachable: it is made when Redis is back); the returned function unsubscribes.
   */
  subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class MemoryPubSub implements PubSub {
  readonly kind = 'memory' as const;
  readonly connected = true;
  private readonly emitter = new EventEmitter();

  constructor() {
    // Thousands of local subscribers per channel are expected (progress UIs).
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, message: string): Promise<void> {
    this.emitter.emit(channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    this.emitter.on(channel, listener);
    return async () => {
      this.emitter.off(channel, listener);
    };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * Redis pub/sub: one extra connection in subscriber mode for the whole process, one Redis
 * SUBSCRIBE per channel however many local listeners it has. The channels with listeners are
 * this class's to keep: each time the subscriber connection is (re)established they are all
 * subscribed again, those whose SUBSCRIBE failed while Redis was away included.
 */
export class RedisPubSub implements PubSub {
  readonly kind = 'redis' as const;
  private readonly subscriber: Redis;
  private readonly local = new MemoryPubSub();
  /** Local listener count and the Redis SUBSCRIBE of each channel (awaited by every subscriber; never rejects). */
  private readonly channels = new Map<string, { count: number; ready: Promise<void> }>();
  /** Publishing is failing: warned once, until a publish succeeds again. */
  private publishFailing = false;

  constructor(
    private readonly publisher: Redis,
    private readonly log: Logger,
  ) {
    // Connects now (the main client is lazy), and leaves re-subscribing to us (see above).
    this.subscriber = publisher.duplicate({ lazyConnect: false, autoResubscribe: false });
    this.subscriber.on('message', (channel: string, message: string) => void this.local.publish(channel, message));
    this.subscriber.on('ready', () => this.resubscribe());
    watchConnection(this.subscriber, log, 'subscriber');
  }

  get connected(): boolean {
    return this.publisher.status === 'ready' && this.subscriber.status === 'ready';
  }

  async publish(channel: string, message: string): Promise<void> {
    try {
      await this.publisher.publish(channel, message);
      this.publishFailing = false;
    } catch (error) {
      if (this.publishFailing) return;
      this.publishFailing = true;
      this.log.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'Redis unreachable: pub/sub messages are dropped until it answers (followers read the event log)',
      );
    }
  }

  async subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    const unsubscribeLocal = await this.local.subscribe(channel, listener);
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { count: 0, ready: this.subscribeInRedis([channel]) };
      this.channels.set(channel, entry);
    }
    entry.count++;
    let done = false;
    const unsubscribe = async () => {
      if (done) return;
      done = true;
      await unsubscribeLocal();
      const current = this.channels.get(channel);
      if (current && --current.count === 0) {
        this.channels.delete(channel);
        // Failing (Redis away) is fine: the reconnected subscriber starts without it.
        await this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    await entry.ready;
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.local.close();
  }

  /** SUBSCRIBE; a failure is left for the next (re)connection to repair. */
  private async subscribeInRedis(channels: string[]): Promise<void> {
    try {
      await this.subscriber.subscribe(...channels);
    } catch (error) {
      this.log.debug({ err: error, channels: channels.length }, 'Redis SUBSCRIBE failed; retried when the subscriber connection is ready');
    }
  }

  private resubscribe(): void {
    if (this.channels.size > 0) void this.subscribeInRedis([...this.channels.keys()]);
  }
}
