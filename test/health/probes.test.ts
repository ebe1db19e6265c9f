/**
 * The probes (server/http/probes.ts, src/health/readiness.ts) on real servers over real HTTP:
 * - a healthy service: /livez and /readyz 200, right after start (the service migrates before it
 *   listens), without a credential, GET and HEAD, `Cache-Control: no-store`, never rate limited;
 * - Redis away (a redis-server of this file's own, killed by pid): /readyz 503 `redis`, /livez
 *   200, and ready again when Redis is back;
 * - the object store away (BLOB_STORE=s3 on an s3rver of this file's own, stopped): /readyz 503 `storage`;
 * - PostgreSQL away (DATABASE_URL runs only: the service reaches the shared server through a TCP
 *   proxy of this file's own, which the test closes): /readyz 503 `database`, /livez 200;
 * - SIGTERM (the service as its own process, SHUTDOWN_DRAIN=3s): /readyz 503 `shutting down` at
 *   once while an event stream stays open and /livez and new connections are still served; the
 *   stream ends after the drain and the process exits 0. Probes leave no access-log lines.
 *
 * Runs on the embedded database, or on PostgreSQL when DATABASE_URL is set (and the shared Redis
 * when REDIS_URL is set).
 */
import http from 'node:http';
import { CuttableProxy } from '../helpers/cuttable-proxy.ts';
import { RedisProcess } from '../helpers/redis-process.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUserWithCli, freePort, startChildService, type ChildService } from '../helpers/child-service.ts';
import { createSchema, dropSchema } from '../helpers/postgres-schema.ts';
import { startS3Server, useS3rverCredentials, type S3TestServer } from '../helpers/s3-server.ts';
import { READINESS_CACHE_MS } from '../../src/health/readiness.ts';

interface Probe {
  status: number;
  headers: Headers;
  body: any;
}

async function probe(url: string, path: '/livez' | '/readyz'): Promise<Probe> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Polls `condition` every 100 ms until it holds (things that happen "soon" on a loaded machine). */
async function until<T>(read: () => Promise<T>, condition: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (condition(value)) return value;
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A request over node:http (HEAD and other methods the fetch wrapper's validation does not cover). */
function rawRequest(url: string, path: string, method: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a healthy service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it('answers /readyz 200 right after start (migrations ran before listening), and /livez 200', async () => {
    const ready = await probe(server.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { migrations: 'ok', database: 'ok', storage: 'ok', ...(process.env.REDIS_URL ? { redis: 'ok' } : {}) },
    });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(ready.headers.get('content-type')).toMatch(/^application\/json/);
    const live = await probe(server.url, '/livez');
    expect(live).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(live.headers.get('cache-control')).toBe('no-store');
    expect(live.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/);
  });

  it('needs no credential, ignores a bad one, answers HEAD without a body, and 405 for other methods', async () => {
    const withBadKey = await fetch(`${server.url}/readyz`, { headers: { 'x-api-key': `sk_${'ab'.repeat(16)}`, authorization: 'Bearer nonsense' } });
    expect(withBadKey.status).toBe(200);
    await withBadKey.body?.cancel();
    for (const path of ['/livez', '/readyz']) {
      const head = await rawRequest(server.url, path, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['cache-control']).toBe('no-store');
      const post = await rawRequest(server.url, path, 'POST');
      expect(post.status).toBe(405);
      expect(post.headers.allow).toBe('GET, HEAD');
    }
  });

  it('is never rate limited: 100 quick probes of each all answer 200', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const response = await fetch(`${server.url}${i % 2 ? '/livez' : '/readyz'}`);
        await response.body?.cancel();
        return response.status;
      }),
    );
    const more = await Promise.all(Array.from({ length: 100 }, () => rawRequest(server.url, '/readyz', 'GET').then((r) => r.status)));
    expect(new Set([...answers, ...more])).toEqual(new Set([200]));
  });

  it('a probe storm costs the database at most about one SELECT 1 per cache period', async () => {
    let selects = 0;
    const pool = server.services.db.pool;
    const original = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (args[0] === 'SELECT 1') selects += 1;
      return original(...args);
    };
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 50 }, () => rawRequest(server.url, '/readyz', 'GET')));
      const periods = Math.ceil((Date.now() - started) / READINESS_CACHE_MS) + 1;
      expect(selects).toBeLessThanOrEqual(periods);
    } finally {
      (pool as unknown as { query: unknown }).query = original;
    }
  });

  it('keeps /health and /health?detailed=true as they were', async () => {
    const basic = await fetch(`${server.url}/health`);
    expect(basic.status).toBe(200);
    expect(await basic.json()).toEqual({ status: 'healthy' });
  });
});

describe('Redis unreachable', () => {
  let redis: RedisProcess;
  let server: TestServer;
  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
    server = await startTestServer({ REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.kill();
  });

  it('readiness fails while the configured Redis is away (liveness does not), and recovers', async () => {
    expect((await probe(server.url, '/readyz')).body.checks.redis).toBe('ok');
    await redis.kill();
    const down = await until(
      () => probe(server.url, '/readyz'),
      (p) => p.status === 503,
      '/readyz 503',
    );
    expect(down.body).toMatchObject({
      status: 'not_ready',
      checks: { migrations: 'ok', database: 'ok', storage: 'ok' },
      reason: expect.stringContaining('redis'),
    });
    expect(['unreachable', 'timeout']).toContain(down.body.checks.redis);
    expect(down.headers.get('cache-control')).toBe('no-store');
    expect((await probe(server.url, '/livez')).status).toBe(200);

    await redis.start();
    const back = await until(
      () => probe(server.url, '/readyz'),
      (p) => p.status === 200,
      '/readyz 200 again',
    );
    expect(back.body.checks.redis).toBe('ok');
  });
});

describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL unreachable', () => {
  let proxy: CuttableProxy;
  let server: TestServer;
  let schema: string;
  const baseUrl = process.env.DATABASE_URL ?? '';

  beforeAll(async () => {
    const created = await createSchema(baseUrl);
    schema = created.schema;
    const target = new URL(created.url);
    proxy = new CuttableProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    const proxied = new URL(created.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    server = await startTestServer({ DATABASE_URL: proxied.toString() });
  });
  afterAll(async () => {
    await proxy?.open().catch(() => undefined);
    await server?.close();
    await proxy?.cut();
    if (schema) await dropSchema(baseUrl, schema);
  });

  it('readiness fails while the database is away (liveness does not), and recovers', async () => {
    expect(await probe(server.url, '/readyz')).toMatchObject({ status: 200, body: { checks: { database: 'ok' } } });
    await proxy.cut();
    const down = await until(
      () => probe(server.url, '/readyz'),
      (p) => p.status === 503,
      '/readyz 503',
    );
    expect(down.body).toMatchObject({ status: 'not_ready', checks: { migrations: 'ok', storage: 'ok' }, reason: expect.stringContaining('database') });
    expect(['unreachable', 'timeout']).toContain(down.body.checks.database);
    expect((await probe(server.url, '/livez')).status).toBe(200);

    await proxy.open();
    const back = await until(
      () => probe(server.url, '/readyz'),
      (p) => p.status === 200,
      '/readyz 200 again',
    );
    expect(back.body.checks.database).toBe('ok');
  });
});

describe('object store unreachable (BLOB_STORE=s3)', () => {
  let s3: S3TestServer;
  let server: TestServer;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(async () => {
    useS3rverCredentials();
    s3 = await startS3Server();
    server = await startTestServer(s3.env);
  });
  afterAll(async () => {
    await server?.close();
    await s3?.stop();
    for (const [name, value] of [
      ['AWS_ACCESS_KEY_ID', saved.id],
      ['AWS_SECRET_ACCESS_KEY', saved.secret],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('readiness fails while the object store is away (liveness does not)', async () => {
    expect(await probe(server.url, '/readyz')).toMatchObject({ status: 200, body: { checks: { storage: 'ok' } } });
    await s3.stop();
    const down = await until(
      () => probe(server.url, '/readyz'),
      (p) => p.status === 503,
      '/readyz 503',
    );
    expect(down.body).toMatchObject({ status: 'not_ready', checks: { migrations: 'ok', database: 'ok' }, reason: expect.stringContaining('storage') });
    expect(['unreachable', 'timeout']).toContain(down.body.checks.storage);
    expect((await probe(server.url, '/livez')).status).toBe(200);
  });
});

describe('SIGTERM', () => {
  let service: ChildService;
  let key: string;
  beforeAll(async () => {
    // Each progress step waits 400 ms: the run outlasts the drain, so its stream is open throughout.
    service = await startChildService({ env: { SHUTDOWN_DRAIN: '3s', SHUTDOWN_TIMEOUT: '2s', GENERATION_STEP_DELAY: '400ms' } });
    ({ key } = await createUserWithCli(service, ['read:workspace', 'write:workspace']));
  }, 180_000);
  afterAll(async () => service?.cleanup());

  it('/readyz answers 503 at once, while /livez, new connections and an open event stream are still served during the drain', async () => {
    expect((await probe(service.url, '/readyz')).status).toBe(200);
    // An event stream (a summary generation's progress), open before the signal.
    let streamText = '';
    let streamEndedAt: number | undefined;
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(new URL('/api/generate?sources=stickies', service.url), { agent: false, headers: { 'x-api-key': key, accept: 'text/event-stream' } }, resolve)
        .on('error', reject);
    });
    expect(stream.statusCode).toBe(200);
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (streamText += chunk));
    const ended = new Promise<void>((resolve) => stream.on('close', () => resolve()));
    void ended.then(() => (streamEndedAt = Date.now()));
    await until(
      async () => streamText,
      (text) => text.includes('event: progress'),
      'the first progress event',
    );

    const signalledAt = Date.now();
    process.kill(service.pid, 'SIGTERM');
    await service.waitForLine((line) => line.includes('"signal received"'), 10_000);
    const notReady = await probe(service.url, '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ status: 'not_ready', reason: 'shutting down' });
    expect(notReady.headers.get('cache-control')).toBe('no-store');
    expect(notReady.headers.get('connection')).toBe('close');
    expect(await probe(service.url, '/livez')).toMatchObject({ status: 200, body: { status: 'ok' } });
    // The stream is still open and still carries events during the drain.
    const before = streamText.length;
    await until(
      async () => streamText.length,
      (length) => length > before,
      'another event during the drain',
      2_500,
    );
    expect(streamEndedAt).toBeUndefined();
    expect(service.process.exitCode).toBeNull();

    // After the drain the stream ends (the client resumes elsewhere) and the process exits 0.
    await ended;
    expect(streamEndedAt! - signalledAt).toBeGreaterThanOrEqual(2_500);
    const exit = await Promise.race([service.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(exit).toEqual({ code: 0, signal: null });

    const records = service.stdout.map((line) => JSON.parse(line) as { msg: string; path?: string; drainMs?: number });
    const messages = records.map((r) => r.msg);
    const draining = records.findIndex((r) => r.msg.startsWith('draining'));
    expect(draining).toBeGreaterThan(messages.indexOf('signal received'));
    expect(records[draining]!.drainMs).toBe(3_000);
    expect(messages.indexOf('shutting down')).toBeGreaterThan(draining);
    expect(messages).toContain('not ready: /readyz answers 503');
    // Probes leave no access-log line each.
    expect(records.filter((r) => r.msg === 'request' && (r.path === '/livez' || r.path === '/readyz'))).toEqual([]);
  }, 90_000);
});
