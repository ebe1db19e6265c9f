/**
 * Database spans for every pooled connection, including one opened before tracing was installed:
 * a configured PostgreSQL is asked `SELECT 1` before the pool is traced (openDatabase), and that
 * idle connection is handed out to later requests like any other. Before the fix its statements
 * went untraced, which made the traceparent test of tracing.test.ts fail whenever the file
 * listing happened to run on it. Runs on the embedded database and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import type pg from 'pg';
import { exportSpansTo, startTracing, tracePool, tracer } from '../../src/tracing/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const exporter = new InMemorySpanExporter();
let db: TestDatabase;
let tracing: Awaited<ReturnType<typeof startTracing>>;

beforeAll(async () => {
  db = await createTestDatabase({ poolSize: 3 });
  exportSpansTo(exporter);
  tracing = await startTracing({
    enabled: true,
    exporters: ['otlp'],
    otlpProtocol: 'http/protobuf',
    serviceName: 'pg-test',
    resourceAttributes: {},
    sampler: 'always_on',
  });
}, 60_000);

afterAll(async () => {
  await tracing?.shutdown();
  exportSpansTo(undefined);
  await db?.cleanup();
});

/** Checks out `count` connections at once, so each is opened, then releases them to the idle list. */
async function openConnections(pool: pg.Pool, count: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  for (const client of clients) client.release();
}

describe('database spans', () => {
  it('a statement on a connection that was idle in the pool before tracing was installed is traced', async () => {
    expect(tracing).toBeDefined();
    await openConnections(db.pool, 3); // every connection the pool may hand out exists before tracePool
    expect(db.pool.totalCount).toBe(3);
    tracePool(db.pool);

    // Each of the pool's connections, checked out at once inside one span, runs one statement.
    const marker = `traced_${Date.now()}`;
    await tracer().startActiveSpan('caller', async (caller) => {
      const clients = await Promise.all([0, 1, 2].map(() => db.pool.connect()));
      await Promise.all(clients.map((client, i) => client.query(`SELECT ${i} AS ${marker}`)));
      for (const client of clients) client.release();
      // pool.query (Prisma's path for single statements) picks an idle connection too.
      await db.pool.query(`SELECT 3 AS ${marker}`);
      caller.end();
    });
    expect(db.pool.totalCount).toBe(3); // no connection was opened after tracePool

    const statements = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT && String(s.attributes['db.query.text']).includes(marker));
    expect(statements.map((s) => s.attributes['db.query.text']).sort()).toEqual([0, 1, 2, 3].map((i) => `SELECT ${i} AS ${marker}`));
    expect(statements.every((s) => s.name === 'SELECT' && s.attributes['db.system.name'] === 'postgresql')).toBe(true);
  });

  it('outside a trace, statements make no spans', async () => {
    const before = exporter.getFinishedSpans().length;
    expect(trace.getSpan(context.active())).toBeUndefined();
    await db.pool.query('SELECT 1');
    expect(exporter.getFinishedSpans().length).toBe(before);
  });
});
