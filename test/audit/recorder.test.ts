/**
 * The audit log's parts on their own: the redaction rule, the canonical JSON the hash covers, the
 * recorder's back-pressure and its drain on close (a clean shutdown loses nothing, the service's
 * included), and retention keeping the chain verifiable.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser } from '../helpers/fixtures.ts';
import { openDatabase } from '../../src/db/database.ts';
import { createLogger } from '../../src/log.ts';
import { redactVariables, REDACTED } from '../../src/audit/redaction.ts';
import { canonicalJson } from '../../src/audit/hash-chain.ts';
import { AuditRecorder } from '../../src/audit/recorder.ts';
import { purgeAuditEvents } from '../../src/audit/retention.ts';
import { verifyAuditLog } from '../../src/audit/verify.ts';

describe('redaction', () => {
  it('replaces secrets and free text by name, keeps the rest, summarises files, cuts long text', () => {
    const file = { filename: 'pnl.csv', mimetype: 'text/csv', encoding: '7bit', createReadStream: () => undefined };
    expect(
      redactVariables({
        input: { content: 'my notes', tags: ['a'], id: 'x', apiKey: 'sk_1', client_secret: 's', newPassword: 'p' },
        description: { nested: 'anything' },
        orgId: 'org-1',
        fileType: 'pnl',
        file,
        name: 'x'.repeat(300),
        token: null,
        count: 3,
      }),
    ).toEqual({
      input: { content: REDACTED, tags: ['a'], id: 'x', apiKey: REDACTED, client_secret: REDACTED, newPassword: REDACTED },
      description: REDACTED,
      orgId: 'org-1',
      fileType: 'pnl',
      file: { file: 'pnl.csv', type: 'text/csv' },
      name: `${'x'.repeat(200)}…`,
      token: null,
      count: 3,
    });
    expect(redactVariables({})).toBeNull();
    expect(redactVariables({ keyId: 'kept', contentType: 'kept' })).toEqual({ keyId: 'kept', contentType: 'kept' });
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 2 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[2,{"e":2,"f":1}]},"b":1}');
  });
});

describe('the recorder', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUDIT_FLUSH_INTERVAL: '1s' });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('makes a mutation wait while its queue is full, and writes everything on close', async () => {
    const log = createLogger('silent');
    const recorder = new AuditRecorder({ pool: server.services.db.pool, log, queueMax: 3, flushMs: 60_000 });
    for (let i = 0; i < 3; i++) recorder.record({ front: 'system', operation: 'test.backpressure', outcome: 'ok', variables: { i } });
    const room = recorder.whenRoom();
    expect(room).toBeInstanceOf(Promise);
    await room;
    expect(recorder.queued).toBeLessThan(3);
    for (let i = 3; i < 10; i++) recorder.record({ front: 'system', operation: 'test.backpressure', outcome: 'ok', variables: { i } });
    await recorder.close();
    const { rows } = await server.services.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM "AuditEvent" WHERE operation = 'test.backpressure'`);
    expect(Number(rows[0].n)).toBe(10);
    expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
  });

  it('stores text PostgreSQL refuses (NUL, lone surrogates) as U+FFFD, so one event never blocks its batch, and the chain verifies', async () => {
    const recorder = new AuditRecorder({ pool: server.services.db.pool, log: createLogger('silent'), queueMax: 100, flushMs: 10 });
    const chain = randomUUID();
    recorder.record({
      front: 'system',
      operation: 'test.unstorable',
      outcome: 'ok',
      organizationId: chain,
      userAgent: 'agent\u0000with nul',
      variables: { tags: ['lone \ud800 high', 'lone \udc00 low', 'pair \ud83d\ude00 kept'], 'key\u0000': 'x' },
    });
    recorder.record({ front: 'system', operation: 'test.unstorable', outcome: 'ok', organizationId: chain });
    await recorder.close(20_000);
    expect(recorder.queued).toBe(0);
    const { rows } = await server.services.db.pool.query<{ userAgent: string | null; variables: unknown }>(
      `SELECT "userAgent", variables FROM "AuditEvent" WHERE chain = $1 ORDER BY seq`,
      [chain],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0].userAgent).toBe('agent\uFFFDwith nul');
    expect(rows[0].variables).toEqual({ tags: ['lone \uFFFD high', 'lone \uFFFD low', 'pair \ud83d\ude00 kept'], 'key\uFFFD': 'x' });
    expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
  });

  it('two writers of one chain (two instances, or the service and the CLI) each notice the other moved its head, and the chain stays whole', async () => {
    const log = createLogger('silent');
    const pool = server.services.db.pool;
    const writers = [0, 1].map(() => new AuditRecorder({ pool, log, queueMax: 100, flushMs: 60_000 }));
    const chain = randomUUID();
    // Alternating batches: from the second round on each writer remembers a head the other has moved.
    for (let round = 0; round < 4; round++) {
      for (const [index, writer] of writers.entries()) {
        for (let i = 0; i < 3; i++)
          writer.record({ front: 'system', operation: 'test.two-writers', outcome: 'ok', organizationId: chain, variables: { round, index, i } });
        await writer.flush();
      }
    }
    // And a batch each from the remembered head (the one-statement path) after the other has not written.
    for (const writer of writers) {
      writer.record({ front: 'system', operation: 'test.two-writers', outcome: 'ok', organizationId: chain });
      await writer.flush();
      writer.record({ front: 'system', operation: 'test.two-writers', outcome: 'ok', organizationId: chain });
      await writer.flush();
    }
    await Promise.all(writers.map((writer) => writer.close()));
    const { rows } = await pool.query<{ seq: string }>('SELECT e.seq::text AS seq FROM "AuditEvent" e WHERE chain = $1 ORDER BY e.seq', [chain]);
    expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 28 }, (_, i) => i + 1));
    expect((await verifyAuditLog(pool)).broken).toEqual([]);
  });

  it('retention deletes the oldest events of a chain and leaves it verifiable', async () => {
    const log = createLogger('silent');
    const recorder = new AuditRecorder({ pool: server.services.db.pool, log, queueMax: 100, flushMs: 10 });
    const day = 86_400_000;
    const now = Date.now();
    // A chain of its own (an organization id no other event has), written oldest first.
    const chain = randomUUID();
    for (const age of [500, 450, 10, 1]) {
      recorder.record({ front: 'system', operation: 'test.retention', outcome: 'ok', organizationId: chain, occurredAt: new Date(now - age * day) });
    }
    await recorder.close();
    const deleted = await purgeAuditEvents(server.services.db.pool, 400 * day);
    expect(deleted).toBe(2);
    const { rows } = await server.services.db.pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM "AuditEvent" WHERE operation = 'test.retention'`);
    expect(Number(rows[0].n)).toBe(2);
    expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
    // Deleting the first kept event is still found.
    await server.services.db.pool.query('DELETE FROM "AuditEvent" WHERE chain = $1 AND seq = (SELECT min(seq) FROM "AuditEvent" WHERE chain = $1)', [chain]);
    expect((await verifyAuditLog(server.services.db.pool)).broken).toMatchObject([{ chain }]);
  });
});

describe('a clean shutdown', () => {
  it("writes every queued event before the database closes (a flush interval longer than the service's life)", async () => {
    const server = await startTestServer({ AUDIT_FLUSH_INTERVAL: '1s' });
    try {
      const user = await createUser(server.services, { scopes: ['write:workspace', 'read:workspace'], role: 'member' });
      const created = await Promise.all([0, 1, 2, 3, 4].map((i) => callApi(server.url, user, 'POST', '/api/stickies', { content: `note ${i}` })));
      expect(created.map((response) => response.status)).toEqual([201, 201, 201, 201, 201]);
      expect(server.services.audit.queued).toBeGreaterThan(0);
      await server.stop();
      const db = await openDatabase({ dataDir: server.dataDir, databaseUrl: server.services.config.databaseUrl });
      try {
        const { rows } = await db.pool.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM "AuditEvent" WHERE operation = 'POST /api/stickies' AND "actorId" = $1`,
          [user.userId],
        );
        expect(Number(rows[0].n)).toBe(5);
      } finally {
        await db.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});
