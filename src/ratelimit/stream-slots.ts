import { AppError } from '../errors.ts';
import { KeyedQuota } from '../util/keyed-quota.ts';

/**
 * Event streams a user holds open at once on this instance, every transport counted together
 * (the REST event stream, graphql-sse, graphql-ws, multipart subscriptions, MCP progress): each
 * stream of progress costs memory and a share of the fan-out, so one client with one key must not
 * be able to open thousands while other organizations wait. Counted per instance (a stream lives
 * on the instance that serves it): behind a balancer of N instances a user may hold up to N times
 * the cap, which still bounds what any one instance gives them.
 */
export class StreamSlots {
  private readonly quota: KeyedQuota;

  constructor(readonly maxPerUser: number) {
    this.quota = new KeyedQuota(maxPerUser);
  }

  /**
   * Takes one of the user's slots, or refuses with RATE_LIMITED (429, Retry-After) when all are
   * held; the returned function gives the slot back (calling it again does nothing).
   */
  take(userId: string): () => void {
    const release = this.quota.take(userId);
    if (release) return release;
    throw this.refusal();
  }

  /**
   * Refuses now, as take() would, when the user holds every slot: a front checks before work that
   * only makes sense with a stream (finding or starting the run to follow), so a refusal costs
   * nothing and starts nothing. The slot itself is taken by follow(), on every front alike.
   */
  ensureRoom(userId: string): void {
    const refusal = this.refusalIfFull(userId);
    if (refusal) throw refusal;
  }

  /** The refusal take() would throw now, or undefined while the user has room. */
  refusalIfFull(userId: string): AppError | undefined {
    return this.quota.hasRoom(userId) ? undefined : this.refusal();
  }

  private refusal(): AppError {
    return new AppError('RATE_LIMITED', `Too many open event streams: at most ${this.maxPerUser} per user at once (STREAMS_PER_USER); close one and retry`, {
      retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS,
      limit: 'streams',
    });
  }

  /** Streams the user holds open now (for tests). */
  held(userId: string): number {
    return this.quota.count(userId);
  }
}

/** A slot frees when a stream ends, which no clock predicts: the client is told to wait a few seconds. */
export const STREAM_RETRY_AFTER_SECONDS = 5;
