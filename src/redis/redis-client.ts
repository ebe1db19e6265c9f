import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from '../log.ts';

/**
 * The Redis connections of the service, set up so that Redis being away costs requests nothing
 * but the shared state: a command fails at once while the connection is down (no offline queue
 * that piles requests up behind reconnect attempts), a command sent on a connection that does not
 * answer fails after REDIS_COMMAND_TIMEOUT_MS, and the client reconnects by itself, at least
 * every RECONNECT_MAX_DELAY_MS, for as long as it takes. Callers fall back when a command fails
 * (rate limits count locally, progress streams read the event log).
 */

/** The longest a request waits on one Redis command (docs/authentication.md, "Rate limits"). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** Reconnect attempts back off to one every two seconds: Redis is used again at most ~2 s after it returns. */
const RECONNECT_MAX_DELAY_MS = 2_000;
/** A connection attempt that gets no answer (a host that drops packets) is given up after this. */
const CONNECT_TIMEOUT_MS = 5_000;

export const REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  // Commands caught in flight by a disconnect are not retried for long: the fallback is better.
  maxRetriesPerRequest: 1,
  connectTimeout: CONNECT_TIMEOUT_MS,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, RECONNECT_MAX_DELAY_MS),
};

/**
 * The main client, connected. Redis must answer at start (a wrong REDIS_URL should stop a
 * deployment, not leave every instance counting budgets alone); once started, an outage never
 * fails requests.
 */
export async function connectRedis(url: string, log: Logger): Promise<Redis> {
  // Loaded only when Redis is configured (a third of a second of every start otherwise).
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { ...REDIS_OPTIONS, lazyConnect: true });
  let firstError: unknown;
  const remember = (error: unknown) => (firstError ??= error);
  client.on('error', remember);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    const reason = firstError ?? error;
    throw new Error(`Redis at ${redactedUrl(url)} is unreachable: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
  }
  client.off('error', remember);
  watchConnection(client, log, 'main');
  return client;
}

/**
 * Logs a connection's outages: one warning when it is lost (ioredis reports every failed
 * reconnect attempt as an 'error'; only the first of an outage is logged) and one info line when
 * it is back. Listening to 'error' also keeps ioredis from printing "[ioredis] Unhandled error
 * event" lines, which are not JSON, to stderr.
 */
export function watchConnection(client: Redis, log: Logger, connection: string): void {
  let lostAt: number | null = null;
  const lost = (error?: unknown) => {
    if (lostAt !== null) return;
    lostAt = Date.now();
    log.warn({ connection, ...(error ? { err: error } : {}) }, 'Redis connection lost; reconnecting');
  };
  client.on('error', (error: unknown) => {
    if (client.status === 'ready') log.warn({ connection, err: error }, 'Redis client error');
    else lost(error);
  });
  // Only an unexpected close schedules a reconnect (disconnect() at shutdown does not).
  client.on('reconnecting', () => lost());
  client.on('ready', () => {
    if (lostAt === null) return;
    log.info({ connection, downMs: Date.now() - lostAt }, 'Redis connection restored');
    lostAt = null;
  });
}

/** host:port of a Redis URL, without its credentials, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(invalid URL)';
  }
}
