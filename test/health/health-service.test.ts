import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { HealthService, shortReason, withTimeout, type HealthDeps } from '../../src/health/health-service.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

let db: Database & { cleanup(): Promise<void> };

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.cleanup();
});

function deps(overrides: Partial<HealthDeps> = {}): HealthDeps {
  return {
    db,
    blobs: { stats: async () => ({ path: '/var/lib/gateway/blobs', freeBytes: 123_456_789 }) },
    queueDepths: async () => ({ queued: 2, running: 1, completed: 40, failed: 3 }),
    startedAt: new Date(Date.now() - 65_000),
    version: '1.2.3',
    rateLimitKind: 'memory',
    ...overrides,
  };
}

/** A TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('HealthService', () => {
  it('basic() is healthy without touching any dependency', () => {
    const health = new HealthService(
      deps({
        blobs: { stats: () => Promise.reject(new Error('must not be called')) },
        queueDepths: () => Promise.reject(new Error('must not be called')),
      }),
    );
    expect(health.basic()).toEqual({ status: 'healthy' });
  });

  it('detailed() reports every dependency up, with latency, storage, queue depths, uptime and version', async () => {
    const created = Date.now();
    const health = new HealthService(deps({ pubsubKind: 'memory' }));
    const before = Date.now();
    const startedAt = performance.now();
    const result = await health.detailed();
    const elapsedMs = performance.now() - startedAt;
    const after = Date.now();
    expect(result.status).toBe('healthy');
    expect(result.version).toBe('1.2.3');
    expect(result.uptimeSeconds).toBeGreaterThanOrEqual(65);
    // Bracketed by the clock around the call (started 65 s before `created`), not by a fixed allowance.
    expect(result.uptimeSeconds).toBeLessThanOrEqual(Math.ceil((after - created) / 1000) + 65);
    expect(result.checkedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(result.backends).toEqual({ database: db.kind, rateLimit: 'memory', pubsub: 'memory' });
    expect(result.checks.database).toEqual({ status: 'up', kind: db.kind, latencyMs: expect.any(Number) });
    expect(result.checks.database.latencyMs).toBeGreaterThanOrEqual(0);
    // Not a time limit: the latency is measured inside the call, so it cannot exceed the call's own
    // duration on the same clock (performance.now), whatever the load; + 0.05 (and a float's hair) for its 0.1 ms rounding.
    expect(result.checks.database.latencyMs).toBeLessThanOrEqual(elapsedMs + 0.051);
    expect(result.checks.storage).toEqual({ status: 'up', path: '/var/lib/gateway/blobs', freeBytes: 123_456_789 });
    expect(result.checks.jobQueue).toEqual({ status: 'up', queued: 2, running: 1, failed: 3, completed: 40 });
  });

  it('is unhealthy with a short reason when the database is unreachable, and never leaks the connection string', async () => {
    const port = await closedPort();
    const secretUrl = `postgresql://gateway_admin:s3cr3t-pw@127.0.0.1:${port}/prod_db`;
    const pool = new pg.Pool({ connectionString: secretUrl, connectionTimeoutMillis: 1000 });
    try {
      const health = new HealthService(deps({ db: { ...db, kind: 'postgresql', url: secretUrl, pool } }));
      const result = await health.detailed();
      expect(result.status).toBe('unhealthy');
      expect(result.checks.database).toEqual({
        status: 'down',
        kind: 'postgresql',
        latencyMs: null,
        error: 'connection refused',
      });
      const text = JSON.stringify(result);
      for (const secret of ['s3cr3t', 'gateway_admin', 'prod_db', String(port)]) expect(text).not.toContain(secret);
      // The other dependencies are still reported on their own.
      expect(result.checks.storage.status).toBe('up');
    } finally {
      await pool.end();
    }
  });

  it('is unhealthy when the database pool is closed', async () => {
    const pool = new pg.Pool({ connectionString: db.url });
    await pool.end();
    const health = new HealthService(deps({ db: { ...db, pool } }));
    const result = await health.detailed();
    expect(result.status).toBe('unhealthy');
    expect(result.checks.database).toMatchObject({ status: 'down', latencyMs: null, error: 'connection closed' });
  });

  it('times out a database that does not answer (2 s by default, configurable)', async () => {
    // A server that accepts the TCP connection and then never says anything.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const pool = new pg.Pool({ connectionString: `postgresql://u:pw@127.0.0.1:${port}/x` });
    pool.on('error', () => {});
    try {
      const health = new HealthService(deps({ db: { ...db, pool }, timeoutMs: 300 }));
      // Without the timeout this call would never return (the test's own time limit would end it).
      const result = await health.detailed();
      expect(result.status).toBe('unhealthy');
      expect(result.checks.database).toMatchObject({ status: 'down', error: 'timed out after 300 ms' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      await pool.end().catch(() => {});
    }
  });

  it('is unhealthy when storage stats fail, with a short reason only', async () => {
    const failure = Object.assign(new Error("EACCES: permission denied, statfs '/srv/secret/blobs'"), {
      code: 'EACCES',
    });
    const health = new HealthService(deps({ blobs: { stats: () => Promise.reject(failure) } }));
    const result = await health.detailed();
    expect(result.status).toBe('unhealthy');
    expect(result.checks.storage).toEqual({ status: 'down', error: 'permission denied' });
    expect(JSON.stringify(result)).not.toContain('/srv/secret');
    expect(result.checks.database.status).toBe('up');
  });

  it('is unhealthy when the job queue cannot be read', async () => {
    const health = new HealthService(deps({ queueDepths: () => Promise.reject(new Error('relation "Job" does not exist at postgres://x')) }));
    const result = await health.detailed();
    expect(result.status).toBe('unhealthy');
    expect(result.checks.jobQueue).toEqual({
      status: 'down',
      queued: null,
      running: null,
      failed: null,
      completed: null,
      error: 'unavailable',
    });
  });
});

describe('shortReason', () => {
  it('maps errno and SQLSTATE codes to fixed phrases, and nothing else of the message', () => {
    expect(shortReason(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }))).toBe('connection refused');
    expect(shortReason(Object.assign(new Error('password authentication failed for user "admin"'), { code: '28P01' }))).toBe('authentication failed');
    expect(shortReason(Object.assign(new Error('weird'), { code: 'XX000' }))).toBe('database error XX000');
    expect(shortReason(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })], 'all failed'))).toBe('connection refused');
    expect(shortReason(new Error('postgresql://user:pw@host/db is broken'))).toBe('unavailable');
    expect(shortReason('a string')).toBe('unavailable');
  });

  it('withTimeout rejects late promises and passes prompt ones through', async () => {
    await expect(withTimeout(Promise.resolve(7), 50)).resolves.toBe(7);
    await expect(withTimeout(new Promise(() => {}), 20)).rejects.toThrow('timed out after 20 ms');
  });
});
