/**
 * The audit log's parts on their own: the redaction rule, the canonical JSON the hash covers, the
 * recorder's back-pressure and its drain on close (a clean shutdown loses nothing, the service's
 * included), and retention keeping the chain verifiable.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { fromRow } from '../../src/audit/queries.ts';
import type { AuditPool } from '../../src/audit/recorder.ts';
import { runCli } from '../helpers/cli.ts';

/**
 * The pool, with every statement the writer sends through it listed (a COPY by its text): which
 * way a batch went (COPY on PostgreSQL, audit_append on the embedded database, the fallback).
 */
function watchedPool(pool: AuditPool): { pool: AuditPool; statements: string[] } {
  const statements: string[] = [];
  const note = (args: unknown[]) => {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === 'string' ? first : (first.text ?? ''));
  };
  const watched = {
    query: (...args: unknown[]) => {
      note(args);
      return (pool.query as (...a: unknown[]) => unknown).apply(pool, args);
    },
    connect: async () => {
      const client = await pool.connect();
      return new Proxy(client, {
        get(target, property, receiver) {
          if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
          return (...args: unknown[]) => {
            note(args);
            return (target.query as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
  };
  return { pool: watched as unknown as AuditPool, statements };
}

const count = (statements: string[], pattern: RegExp) => statements.filter((statement) => pattern.test(statement)).length;

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
    const recorder = new AuditRecorder({ pool: server.services.db.pool, database: server.services.db.kind, log, queueMax: 3, flushMs: 60_000 });
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
    const recorder = new AuditRecorder({
      pool: server.services.db.pool,
      database: server.services.db.kind,
      log: createLogger('silent'),
      queueMax: 100,
      flushMs: 10,
    });
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

  it('stores awkward text (tabs, newlines, backslashes, quotes, unicode, NUL) as exactly the text its hash covers: read back byte for byte, and audit:verify verifies', async () => {
    // The embedded database both ways: a batch file it COPYs (the service's way) and audit_append.
    for (const embeddedDataDir of embeddedPaths()) await awkwardText(embeddedDataDir);
  });

  /** On PostgreSQL: COPY (no embedded path). On the embedded database: the data directory's file, or none (audit_append). */
  const embeddedPaths = () => (server.services.db.kind === 'pglite' ? [server.services.db.embeddedDataDir, undefined] : [undefined]);

  async function awkwardText(embeddedDataDir: string | undefined): Promise<void> {
    const { pool, statements } = watchedPool(server.services.db.pool);
    const recorder = new AuditRecorder({
      pool,
      database: server.services.db.kind,
      embeddedDataDir,
      log: createLogger('silent'),
      queueMax: 100,
      flushMs: 60_000,
    });
    const chain = randomUUID();
    const awkward = 'tab\there, line\nbreak, return\r, back\\slash, \\N, \\.\n\\.\n, "quoted" \'single\', é ü 中文 😀 \u2028 \u007f \b \f';
    const variables = {
      [`key\twith\ntab`]: awkward,
      'back\\slash': ['\\', '\\\\', '\\N', '\\t', '"', '\u0000', 'nul\u0000inside'],
      nested: { deeper: { text: awkward, n: 1.5, none: null, yes: true } },
      empty: '',
    };
    const events = [
      { userAgent: awkward, targetId: '\\N', requestId: '', traceId: 'tab\t', variables },
      { userAgent: '\\', targetId: 'line\nbreak', requestId: '\\.', traceId: null, variables: { only: '\\.' } },
      { userAgent: 'agent\u0000nul', targetId: '\r\n', requestId: 'x', traceId: 'y', variables: null },
    ];
    // Two batches: the first from heads locked and read, the second from the head this writer left.
    for (const batch of [events, events]) {
      for (const event of batch) {
        recorder.record({
          front: 'system',
          operation: `test.awkward\t${event.targetId}`,
          outcome: 'ok',
          organizationId: chain,
          target: { type: 'Awkward\\Type', id: event.targetId },
          userAgent: event.userAgent,
          requestId: event.requestId,
          traceId: event.traceId,
          variables: event.variables,
        });
      }
      await recorder.flush();
    }
    await recorder.close();
    const { rows } = await server.services.db.pool.query<Parameters<typeof fromRow>[0]>(
      `SELECT id, chain, seq::text AS seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
         front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash
       FROM "AuditEvent" WHERE chain = $1 ORDER BY seq`,
      [chain],
    );
    const stored = rows.map(fromRow);
    // NUL is the one character PostgreSQL cannot store: U+FFFD instead, before the hash.
    const storedText = (text: string | null) => text?.replaceAll('\u0000', '\uFFFD') ?? null;
    const storedVariables = (value: unknown): unknown => JSON.parse(JSON.stringify(value).replaceAll('\\u0000', '\uFFFD'));
    expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [index, event] of stored.entries()) {
      const input = events[index % 3];
      expect(event).toMatchObject({
        operation: `test.awkward\t${input.targetId}`,
        targetType: 'Awkward\\Type',
        targetId: input.targetId,
        userAgent: storedText(input.userAgent),
        requestId: input.requestId,
        traceId: input.traceId,
        clientAddress: null,
        actorId: null,
      });
      expect(canonicalJson(event.variables)).toBe(canonicalJson(input.variables === null ? null : storedVariables(input.variables)));
    }
    expect(stored[0].variables).toEqual(storedVariables(variables));
    expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
    const databaseUrl = server.services.config.databaseUrl;
    const cli = await runCli(['audit:verify'], databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: server.dataDir, DATABASE_URL: '' });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    // On PostgreSQL both batches went by COPY (the second from the remembered head); the embedded
    // database has no COPY FROM STDIN: the second by the file it COPYs, or by audit_append.
    if (server.services.db.kind === 'postgresql') {
      expect(count(statements, /^COPY "AuditEvent"/)).toBe(2);
      expect(count(statements, /expected_seq/)).toBe(1);
      expect(count(statements, /audit_append/)).toBe(0);
    } else {
      expect(count(statements, /^COPY/)).toBe(0);
      expect(count(statements, /audit_append_file/)).toBe(embeddedDataDir ? 1 : 0);
      expect(count(statements, /"audit_append"\(/)).toBe(embeddedDataDir ? 0 : 1);
      expect(recorder.appended).toEqual({ file: embeddedDataDir ? 1 : 0, statement: embeddedDataDir ? 0 : 1, locked: 1 });
    }
    if (embeddedDataDir) expect(fs.readdirSync(path.join(embeddedDataDir, 'audit-spool'))).toEqual([]);
  }

  it('two writers of one chain (two instances, or the service and the CLI) each notice the other moved its head, and the chain stays whole', async () => {
    for (const embeddedDataDir of embeddedPaths()) await twoWriters(embeddedDataDir);
  });

  async function twoWriters(embeddedDataDir: string | undefined): Promise<void> {
    const log = createLogger('silent');
    const { pool, statements } = watchedPool(server.services.db.pool);
    const writers = [0, 1].map(() => new AuditRecorder({ pool, database: server.services.db.kind, embeddedDataDir, log, queueMax: 100, flushMs: 60_000 }));
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
    const { rows } = await server.services.db.pool.query<{ seq: string }>('SELECT e.seq::text AS seq FROM "AuditEvent" e WHERE chain = $1 ORDER BY e.seq', [
      chain,
    ]);
    expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 28 }, (_, i) => i + 1));
    expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
    // 12 batches: the first of each writer from heads locked and read; 8 found their head moved
    // (each writer's first of a round but the first, and the first of each pair at the end) and
    // fell back to locking and reading; the second of each pair at the end went from the head.
    // (11 reads of locked heads: the very first batch reads again once it has made the chain's head.)
    expect(count(statements, /FOR UPDATE/)).toBe(11);
    if (server.services.db.kind === 'postgresql') {
      expect(count(statements, /^COPY "AuditEvent"/)).toBe(12);
      expect(count(statements, /expected_seq/)).toBe(10);
      expect(count(statements, /^ROLLBACK$/)).toBe(8);
      expect(count(statements, /audit_append/)).toBe(0);
    } else {
      expect(count(statements, embeddedDataDir ? /audit_append_file/ : /"audit_append"\(/)).toBe(10);
      expect(count(statements, /audit_append/)).toBe(10);
      expect(count(statements, /^COPY/)).toBe(0);
    }
  }

  it('on the embedded database, a data directory it cannot read (not its own) makes the writer append with audit_append, losing nothing', async () => {
    if (server.services.db.kind !== 'pglite') return;
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-elsewhere-'));
    const warnings: string[] = [];
    const log = createLogger('silent');
    log.warn = ((_fields: unknown, message: string) => void warnings.push(message)) as typeof log.warn;
    const { pool, statements } = watchedPool(server.services.db.pool);
    const recorder = new AuditRecorder({ pool, database: 'pglite', embeddedDataDir: elsewhere, log, queueMax: 100, flushMs: 60_000 });
    const chain = randomUUID();
    try {
      for (let batch = 0; batch < 3; batch++) {
        recorder.record({ front: 'system', operation: 'test.elsewhere', outcome: 'ok', organizationId: chain, variables: { batch } });
        await recorder.flush();
      }
      await recorder.close();
      const { rows } = await server.services.db.pool.query<{ seq: string }>('SELECT seq::text AS seq FROM "AuditEvent" WHERE chain = $1 ORDER BY seq', [chain]);
      expect(rows.map((row) => Number(row.seq))).toEqual([1, 2, 3]);
      expect((await verifyAuditLog(server.services.db.pool)).broken).toEqual([]);
      // The second batch tried the file once, then both went by audit_append; the file is gone.
      expect(count(statements, /audit_append_file/)).toBe(1);
      expect(count(statements, /"audit_append"\(/)).toBe(2);
      expect(warnings).toHaveLength(1);
      expect(fs.readdirSync(path.join(elsewhere, 'audit-spool'))).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('retention deletes the oldest events of a chain and leaves it verifiable', async () => {
    const log = createLogger('silent');
    const recorder = new AuditRecorder({ pool: server.services.db.pool, database: server.services.db.kind, log, queueMax: 100, flushMs: 10 });
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
