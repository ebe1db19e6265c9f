/**
 * A Redis outage as the service's clients and operators meet it. The service runs as its own
 * process (logs captured line by line) with REDIS_URL pointing at a redis-server this file starts
 * on a free port; the test kills that redis-server (SIGKILL) and later starts it again on the same
 * port. While Redis is away, every budgeted endpoint answers as without Redis, quickly, with the
 * budget still enforced by the instance itself; sign-in works; a generation run is started and
 * followed to its final event; the log stays JSON with one warning per outage. When Redis is
 * back, the counters are in Redis again without a restart.
 *
 * The second part drives RedisPubSub directly: a subscription made while Redis is down becomes
 * live by itself when Redis returns.
 *
 * Runs on the embedded database, or on PostgreSQL when DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisProcess } from '../helpers/redis-process.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startChildService, type ChildService } from '../helpers/child-service.ts';
import { openStream, type SseEvent } from '../helpers/sse.ts';
import { RedisPubSub } from '../../src/pubsub/pubsub.ts';
import { connectRedis } from '../../src/redis/redis-client.ts';
import { createLogger } from '../../src/log.ts';

const RETURNS_PER_MINUTE = 5;
/** Generous: the bound in the README is far lower; this only tells "answers" from "hangs". */
const ANSWER_WITHIN_MS = 5_000;
const PASSWORD = 'outage-password-123';

/** Polls `condition` (every 100 ms, up to `timeoutMs`): for things that happen "soon" on a loaded machine. */
async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A request and how long it took to answer (headers in). */
async function timed(url: string, init: RequestInit = {}): Promise<{ status: number; ms: number; headers: Headers; text: string }> {
  const started = Date.now();
  const response = await fetch(url, { redirect: 'manual', ...init });
  const ms = Date.now() - started;
  return { status: response.status, ms, headers: response.headers, text: await response.text() };
}

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

describe('a Redis outage while the service runs', () => {
  let redis: RedisProcess;
  let service: ChildService;
  let prefix: string;
  let email: string;
  const keys: Record<'before' | 'outage' | 'generate' | 'after', string> = { before: '', outage: '', generate: '', after: '' };

  const parsedLog = (): LogLine[] => service.stdout.map((line) => JSON.parse(line) as LogLine);
  const returnsWith = (key: string) => timed(`${service.url}/api/returns/comparison`, { headers: { 'x-api-key': key } });
  const signIn = () =>
    timed(`${service.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: PASSWORD }).toString(),
    });
  /** Redis keys of this service's budgets (a fresh client each time: the server may have restarted). */
  async function budgetKeys(): Promise<string[]> {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.keys(`${prefix}:*`);
    } finally {
      client.disconnect();
    }
  }

  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
    prefix = `rl-outage-${randomBytes(4).toString('hex')}`;
    service = await startChildService({
      env: {
        REDIS_URL: redis.url,
        RATE_LIMIT_KEY_PREFIX: prefix,
        RATE_LIMIT_RETURNS_PER_MINUTE: String(RETURNS_PER_MINUTE),
        // A heartbeat (when a feed also rereads the event log) far off: what a follower gets
        // during the outage comes from the feed reading the log because pub/sub is down.
        GENERATION_HEARTBEAT: '10m',
        GENERATION_STEP_DELAY: '100ms',
        COOKIE_SECURE: 'false',
      },
    });
    email = `outage-${randomBytes(4).toString('hex')}@test.local`;
    const user = await service.cli(['user:create', '--email', email, '--org', `Outage ${email}`, '--admin', '--password', PASSWORD, '--json']);
    expect(user.code, user.stderr).toBe(0);
    for (const [name, scopes] of [
      ['before', 'admin'],
      ['outage', 'admin'],
      ['generate', 'read:workspace,write:workspace'],
      ['after', 'admin'],
    ] as const) {
      const created = await service.cli(['key:create', '--email', email, '--scopes', scopes, '--json']);
      expect(created.code, created.stderr).toBe(0);
      keys[name] = (JSON.parse(created.stdout) as { key: string }).key;
    }
  });

  afterAll(async () => {
    await service?.cleanup();
    await redis?.kill();
  });

  it('with Redis up, the budgets are counted in Redis', async () => {
    expect((await returnsWith(keys.before)).status).toBe(200);
    expect(await budgetKeys()).not.toEqual([]);
  });

  it('with Redis down, budgeted endpoints answer as without Redis, quickly, and the budget is still enforced', async () => {
    await redis.kill();

    // Each instance counts alone: the limit+1th request in the minute is refused, as usual.
    for (let i = 0; i < RETURNS_PER_MINUTE; i++) {
      const response = await returnsWith(keys.outage);
      expect(response.status, response.text).toBe(200);
      expect(response.ms).toBeLessThan(ANSWER_WITHIN_MS);
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"returns";r=${RETURNS_PER_MINUTE - 1 - i};t=\\d+$`));
    }
    const refused = await returnsWith(keys.outage);
    expect(refused.status, refused.text).toBe(429);
    expect(JSON.parse(refused.text).error).toMatch(/^Rate limit exceeded: 5 requests per 60 seconds; retry in \d+ seconds$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.ms).toBeLessThan(ANSWER_WITHIN_MS);

    // The right password signs in: the outage is not taken for throttling.
    const signedIn = await signIn();
    expect(signedIn.status, signedIn.text).toBe(303);
    expect(signedIn.headers.getSetCookie().some((cookie) => cookie.startsWith('sso_token='))).toBe(true);
    expect(signedIn.ms).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it('with Redis down, a generation starts and its followers get every event through the final one', async () => {
    const started = Date.now();
    const start = await openStream(`${service.url}/api/generate?days=1&sources=stickies&length=short`, { 'x-api-key': keys.generate });
    expect(start.status, start.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
    const first = await start.reader!.nextEvent(30_000);
    const runId = String(first!.payload.data.run_id);

    // A new follower, joining while the run is in progress.
    const follower = await openStream(`${service.url}/api/generate?run_id=${runId}`, { 'x-api-key': keys.generate });
    expect(follower.status, follower.text).toBe(200);

    for (const stream of [start.reader!, follower.reader!]) {
      await stream.readToEnd(60_000);
      const events: SseEvent[] = stream.events;
      expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
      expect(events.at(-1)!.event).toBe('done');
      expect(events.at(-1)!.payload.data.state).toBe('completed');
    }
  });

  it('after a while of outage, requests still answer without waiting on Redis', async () => {
    // Several reconnect attempts have failed by now; nothing piles up behind them.
    await until(() => service.stdout.some((line) => line.includes('"Redis connection lost')), 'the outage warning');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const response = await returnsWith(keys.after);
    expect(response.status, response.text).toBe(200);
    expect(response.ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect((await signIn()).status).toBe(303);
  });

  it('the log stays JSON, with one warning per outage (not one per request)', () => {
    const lines = parsedLog();
    expect(service.stderr.filter((line) => /ioredis|Unhandled error/i.test(line))).toEqual([]);
    const warnings = lines.filter((line) => line.level === 40 && /redis/i.test(line.msg));
    expect(warnings.length).toBeGreaterThan(0);
    const counts = new Map<string, number>();
    for (const warning of warnings) {
      const what = `${String(warning.component)}/${String(warning.connection ?? '')}: ${warning.msg}`;
      counts.set(what, (counts.get(what) ?? 0) + 1);
    }
    for (const [what, count] of counts) expect(count, what).toBe(1);
    // The limiter said it counts locally, once.
    expect(warnings.filter((line) => line.component === 'ratelimit')).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain(PASSWORD);
  });

  it('when Redis returns, the service goes back to it by itself', async () => {
    await redis.start();
    expect(await budgetKeys()).toEqual([]);
    await until(() => parsedLog().some((line) => line.connection === 'main' && /restored/.test(line.msg)), 'the connection recovery line');
    // The next charge is counted in the (empty) restarted Redis, not in the local counter that
    // already holds this key's request from the outage: 4 left, not 3.
    const response = await returnsWith(keys.after);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"returns";r=${RETURNS_PER_MINUTE - 1};t=\\d+$`));
    expect((await budgetKeys()).length).toBeGreaterThan(0);
    await until(
      () => parsedLog().some((line) => line.component === 'ratelimit' && line.level === 30 && /Redis again/.test(line.msg)),
      'the limiter recovery line',
    );
    expect((await signIn()).status).toBe(303);

    // Live progress goes through Redis again: with the subscriber connection back (and the
    // heartbeat, when a feed would reread the log, minutes away) a new run is followed to its end.
    await until(() => parsedLog().some((line) => line.connection === 'subscriber' && /restored/.test(line.msg)), 'the subscriber recovery line');
    const run = await openStream(`${service.url}/api/generate?days=1&sources=stickies&length=short`, { 'x-api-key': keys.generate });
    expect(run.status, run.text).toBe(200);
    await run.reader!.readToEnd(60_000);
    expect(run.reader!.events.at(-1)!.event).toBe('done');
    for (const line of service.stdout) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('a Redis that does not answer costs a request at most the command timeout, not a hang', async () => {
    redis.pause(true);
    try {
      for (let i = 0; i < 3; i++) {
        const response = await returnsWith(keys.before);
        expect(response.status, response.text).toBe(200);
        expect(response.ms).toBeLessThan(ANSWER_WITHIN_MS);
      }
      const signedIn = await signIn();
      expect(signedIn.status, signedIn.text).toBe(303);
      expect(signedIn.ms).toBeLessThan(ANSWER_WITHIN_MS);
    } finally {
      redis.pause(false);
    }
    await until(
      async () =>
        (await returnsWith(keys.before)).status === 200 && parsedLog().filter((line) => /Rate limits are counted in Redis again/.test(line.msg)).length >= 2,
      'the limiter to use Redis again',
    );
  });
});

describe('RedisPubSub across an outage', () => {
  let redis: RedisProcess;
  let client: Redis;
  let pubsub: RedisPubSub;

  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
    client = await connectRedis(redis.url, createLogger('silent'));
    pubsub = new RedisPubSub(client, createLogger('silent'));
  });

  afterAll(async () => {
    await pubsub?.close();
    client?.disconnect();
    await redis?.kill();
  });

  it('a subscription made while Redis is down resolves at once and becomes live when Redis returns', async () => {
    await redis.kill();
    await until(() => client.status !== 'ready', 'the client to notice the outage');
    expect(pubsub.connected).toBe(false);

    const received: string[] = [];
    const started = Date.now();
    const unsubscribe = await pubsub.subscribe('outage-channel', (message) => received.push(message));
    expect(Date.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
    // Publishing fails quietly: delivery is best effort, the callers keep a durable log.
    await expect(pubsub.publish('outage-channel', 'lost')).resolves.toBeUndefined();

    await redis.start();
    await until(() => pubsub.connected, 'pub/sub to reconnect');
    // The subscription is re-made by itself: a message published now arrives.
    await until(async () => {
      await pubsub.publish('outage-channel', 'after');
      return received.includes('after');
    }, 'a message after Redis returned');
    expect(received).not.toContain('lost');
    await unsubscribe();
  });
});

describe('Redis configured but down at start', () => {
  it('the service does not start, and says why in a JSON log line without the credentials', async () => {
    const port = await freePort();
    const service = await startChildService({ env: { REDIS_URL: `redis://:hunter2-redis-password@127.0.0.1:${port}` }, waitUntilReady: false });
    try {
      const { code } = await service.exited;
      expect(code).toBe(1);
      const lines = service.stdout.map((line) => JSON.parse(line) as LogLine);
      const fatal = lines.find((line) => line.msg === 'failed to start');
      expect((fatal?.err as { message?: string } | undefined)?.message).toMatch(
        new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${port} is unreachable: .*ECONNREFUSED`),
      );
      expect([...service.stdout, ...service.stderr].join('\n')).not.toContain('hunter2');
      expect(service.stderr.filter((line) => /ioredis/i.test(line))).toEqual([]);
    } finally {
      await service.cleanup();
    }
  });
});
