import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';

export type MessageListener = (message: string) => void;

/**
 * Fan-out of messages to subscribers of a channel: in-process by default, through Redis when
 * REDIS_URL is set so that a subscriber on one instance hears what another instance publishes.
 * Delivery is best effort (Redis pub/sub drops messages while a connection is down): callers
 * that must not lose anything keep a durable log and use messages only as a prompt to read it.
 */
export interface PubSub {
  readonly kind: 'memory' | 'redis';
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export class MemoryPubSub implements PubSub {
  readonly kind = 'memory' as const;
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
 * SUBSCRIBE per channel however many local listeners it has.
 */
export class RedisPubSub implements PubSub {
  readonly kind = 'redis' as const;
  private readonly subscriber: Redis;
  private readonly local = new MemoryPubSub();
  /** Local listener count and the Redis SUBSCRIBE of each channel (awaited by every subscriber). */
  private readonly channels = new Map<string, { count: number; ready: Promise<unknown> }>();

  constructor(
    private readonly publisher: Redis,
    private readonly log: Logger,
  ) {
    this.subscriber = publisher.duplicate();
    this.subscriber.on('message', (channel: string, message: string) => void this.local.publish(channel, message));
    this.subscriber.on('error', (error: unknown) => this.log.warn({ err: error }, 'redis subscriber connection error'));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.publisher.publish(channel, message);
  }

  async subscribe(channel: string, listener: MessageListener): Promise<() => Promise<void>> {
    const unsubscribeLocal = await this.local.subscribe(channel, listener);
    let entry = this.channels.get(channel);
    if (!entry) {
      entry = { count: 0, ready: this.subscriber.subscribe(channel) };
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
        await this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
    try {
      await entry.ready;
    } catch (error) {
      await unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    await this.local.close();
  }
}
