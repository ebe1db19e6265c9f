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

const { values } = parseArgs({ options: { events: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '4' } } });
const events = Number(values.events);
const rounds = Number(values.rounds);
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl || !/@(localhost|127\.0\.0\.1)[:/]/.test(baseUrl)) throw new Error('DATABASE_URL must name a local PostgreSQL (its backends are read from /proc)');

const { schema, url } = await createSchema(baseUrl);
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
    (['copy', 'audit_append'] as const).map(async (name) => {
      const db = await open();
      const { rows } = await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // One chain per path, as the service's events of one organization.
      const organizationId = randomUUID();
      const recorder = new AuditRecorder({
        pool: db.pool,
        database: name === 'copy' ? 'postgresql' : 'pglite',
        log,
        queueMax: Number.MAX_SAFE_INTEGER,
        flushMs: 60_000,
      });
      return { name, backend: rows[0].pid, recorder, organizationId };
    }),
  );
  console.log(
    `audit writer: PostgreSQL, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${rounds} rounds of ${events} events in batches of 500`,
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
      for (let i = 0; i < batch.length; i += 500) {
        for (const event of batch.slice(i, i + 500)) recorder.record(event);
        await recorder.flush();
      }
      const used = process.cpuUsage(process0);
      // Round 0 warms up (and makes each chain's head).
      if (round === 0) continue;
      console.log(
        `round ${round} ${name.padEnd(12)}: this process ${((used.user + used.system) / batch.length).toFixed(1)} us, ` +
          `its backend ${(((cpuTicks(backend) - backend0) * 1e6) / TICKS / batch.length).toFixed(1)} us an event`,
      );
    }
  }
} finally {
  for (const db of databases) await db.close();
  await dropSchema(baseUrl, schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
