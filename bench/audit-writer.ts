/**
 * The audit writer alone against a local PostgreSQL (docs/audit.md#cost): batches of sticky-creation
 * events appended by COPY (the PostgreSQL path) and by audit_append (the embedded database's path,
 * which PostgreSQL runs too), in interleaved rounds. Each writer has a pool of one connection, so
 * its backend's CPU is read from /proc beside this process's: the database's cost of an event
 * without the request path around it, and without the neighbours' backends a shared machine has.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npx tsx bench/audit-writer.ts [--events 50000] [--rounds 4]
 *
 * Printed: per round and path, this process's CPU and the backend's, in microseconds an event
 * (the backend's in /proc clock ticks of 10 ms: a round of 50,000 events is a few hundred).
 *
 * Without DATABASE_URL, on the embedded database (PGlite, in this process: its CPU is this
 * process's), its two paths, audit_append (a JSON parameter) and `file` (audit_append_file: a file
 * COPYed from its data directory), in batches of --batch events (the service's 500 by default):
 *
 *   npx tsx bench/audit-writer.ts [--events 10000] [--rounds 6] [--batch 500]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createSchema, dropSchema } from '../test/helpers/postgres-schema.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { AuditRecorder } from '../src/audit/recorder.ts';
import type { AuditEventInput } from '../src/audit/types.ts';
import { createLogger } from '../src/log.ts';
import { cpuTicks, TICKS } from './proc-cpu.ts';

const { values } = parseArgs({
  options: { events: { type: 'string' }, rounds: { type: 'string' }, batch: { type: 'string', default: '500' } },
});
const baseUrl = process.env.DATABASE_URL;
const embedded = !baseUrl;
const events = Number(values.events ?? (embedded ? 10_000 : 50_000));
const rounds = Number(values.rounds ?? (embedded ? 6 : 4));
const batchSize = Number(values.batch);
if (baseUrl && !/@(localhost|127\.0\.0\.1)[:/]/.test(baseUrl)) throw new Error('DATABASE_URL must name a local PostgreSQL (its backends are read from /proc)');

const { schema, url } = baseUrl ? await createSchema(baseUrl) : { schema: undefined, url: undefined };
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-writer-'));
const databases: Database[] = [];
try {
  const open = async () => {
    const db = await openDatabase({ databaseUrl: url, dataDir, poolSize: 1 });
    databases.push(db);
    return db;
  };
  await migrate((await open()).pool, { log: () => undefined });
  const log = createLogger('silent');
  const paths = await Promise.all(
    (embedded ? (['audit_append', 'file'] as const) : (['copy', 'audit_append'] as const)).map(async (name) => {
      const db = embedded ? databases[0] : await open();
      const { rows } = embedded ? { rows: [{ pid: 0 }] } : await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // One chain per path, as the service's events of one organization.
      const organizationId = randomUUID();
      const recorder = new AuditRecorder({
        pool: db.pool,
        database: name === 'copy' ? 'postgresql' : 'pglite',
        // on the embedded database: `file` leaves each batch in its data directory (audit_append_file)
        embeddedDataDir: name === 'file' ? databases[0].embeddedDataDir : undefined,
        log,
        queueMax: Number.MAX_SAFE_INTEGER,
        flushMs: 60_000,
        batchSize,
      });
      return { name, backend: rows[0].pid, recorder, organizationId };
    }),
  );
  console.log(
    `audit writer: ${embedded ? 'PGlite' : 'PostgreSQL'}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${rounds} rounds of ${events} events in batches of ${batchSize}`,
  );
  for (let round = 0; round <= rounds; round++) {
    for (const { name, backend, recorder, organizationId } of round % 2 === 0 ? paths : [...paths].reverse()) {
      // What the pipeline hook hands the recorder for a sticky created over REST.
      const batch: AuditEventInput[] = Array.from({ length: round === 0 ? 5_000 : events }, (_, i) => ({
        front: 'rest',
        actorId: organizationId,
        credential: { kind: 'api_key', id: randomUUID(), prefix: 'sk_0123456789' },
        clientAddress: '127.0.0.1',
        userAgent: 'autocannon',
        requestId: `bench-${i}`,
        traceId: null,
        variables: { content: '[redacted]', tags: ['bench'] },
        orgHint: null,
        organizationId,
        operation: 'POST /api/stickies',
        outcome: 'ok',
        target: { type: 'Sticky', id: randomUUID() },
      }));
      const [process0, backend0] = [process.cpuUsage(), cpuTicks(backend)];
      for (let i = 0; i < batch.length; i += batchSize) {
        for (const event of batch.slice(i, i + batchSize)) recorder.record(event);
        await recorder.flush();
      }
      const used = process.cpuUsage(process0);
      // Round 0 warms up (and makes each chain's head).
      if (round === 0) continue;
      console.log(
        `round ${round} ${name.padEnd(12)}: this process ${((used.user + used.system) / batch.length).toFixed(1)} us` +
          (embedded
            ? ' an event (the database included)'
            : `, its backend ${(((cpuTicks(backend) - backend0) * 1e6) / TICKS / batch.length).toFixed(1)} us an event`),
      );
    }
  }
} finally {
  for (const db of databases) await db.close();
  if (baseUrl && schema) await dropSchema(baseUrl, schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
