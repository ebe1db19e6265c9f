import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { Database } from '../db/database.ts';
import { DEFAULT_MIGRATIONS_DIR } from '../db/migrator.ts';
import { MESSAGES } from '../errors.ts';
import { shortReason } from '../health/health-service.ts';
import { plural } from '../util/plural.ts';

/**
 * The self-test suite: real checks of the running service, executed by the SelfTestScheduler on
 * its cron schedule and on manual trigger. A check resolves with a short human-readable detail
 * when it passes and throws (with a short message) when it fails. The scheduler bounds each
 * check by a timeout and aborts `signal` when it expires.
 */
export interface SelfTestCheck {
  name: string;
  run(signal: AbortSignal): Promise<string>;
}

/** The part of the blob store (src/storage/blob-store.ts `BlobStore`) the storage check uses. */
export interface SelfTestBlobStore {
  put(key: string, source: Readable, opts: { maxBytes: number }): Promise<unknown>;
  /** The stored bytes as a stream (or a promise of a stream, Buffer or string). */
  get(key: string): unknown;
  delete(key: string): Promise<unknown>;
  /** When present, used to verify that the blob is gone after `delete`. */
  exists?(key: string): Promise<boolean>;
}

export type JobQueueDepths = () => Promise<Record<'queued' | 'running' | 'completed' | 'failed', number>>;

export interface BuiltInCheckDeps {
  db: Database;
  blobs: SelfTestBlobStore;
  /** The service's own base URL (e.g. `http://127.0.0.1:4000`), or undefined while it is not listening. */
  baseUrl: () => string | undefined;
  jobQueueDepths: JobQueueDepths;
  /** Defaults to the project's `prisma/migrations`. */
  migrationsDir?: string;
  /** Queues whose due jobs must not wait longer than `stuckAfterMs` (default `['ingest']`). */
  watchedQueues?: string[];
  /** How long a job may be running, or a watched queue's due job queued, before it counts as stuck (default 15 min). */
  stuckAfterMs?: number;
}

export const HTTP_SKIPPED_DETAIL = 'skipped: server not listening';
export const DEFAULT_STUCK_AFTER_MS = 15 * 60_000;

/** The names of the built-in checks, in the order they run. */
export const BUILT_IN_CHECK_NAMES = [
  'database round trip',
  'migrations applied',
  'returns query',
  'storage write/read/delete',
  'unauthenticated request refused',
  'health endpoint',
  'job queue not stuck',
] as const;

export function builtInChecks(deps: BuiltInCheckDeps): SelfTestCheck[] {
  const stuckAfterMs = deps.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS;
  const watchedQueues = deps.watchedQueues ?? ['ingest'];
  const [dbCheck, migrationsCheck, returnsCheck, storageCheck, unauthCheck, healthCheck, queueCheck] = BUILT_IN_CHECK_NAMES;

  return [
    {
      name: dbCheck,
      async run() {
        const started = performance.now();
        const { rows } = await deps.db.pool.query<{ one: number }>('SELECT 1 AS one');
        const ms = performance.now() - started;
        if (rows[0]?.one !== 1) throw new Error('SELECT 1 did not return 1');
        return `SELECT 1 in ${ms.toFixed(1)} ms (${deps.db.kind})`;
      },
    },
    {
      name: migrationsCheck,
      async run() {
        const dir = deps.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
        const entries = await fs.readdir(dir, { withFileTypes: true });
        const expected = entries
          .filter((e) => e.isDirectory())
          .map((e) => e.name)
          .sort();
        const { rows } = await deps.db.pool.query<{ migration_name: string }>(
          `SELECT migration_name FROM _prisma_migrations
            WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        );
        const applied = new Set(rows.map((r) => r.migration_name));
        const pending = expected.filter((name) => !applied.has(name));
        if (pending.length > 0) throw new Error(`not applied: ${pending.join(', ')}`);
        return `${expected.length} of ${expected.length} migrations applied`;
      },
    },
    {
      name: returnsCheck,
      async run() {
        // The comparison join behind GET /api/returns/comparison, over all organizations, bounded.
        const started = performance.now();
        const { rows } = await deps.db.pool.query(
          `SELECT e."accountCode", COALESCE(c."date", d."date") AS "date",
                  c."returnValue" AS "custodianReturn", d."returnValue" AS "computedReturn"
             FROM "CustodianReturn" c
             FULL OUTER JOIN "DailyReturn" d ON d."entityId" = c."entityId" AND d."date" = c."date"
             JOIN "Entity" e ON e."id" = COALESCE(c."entityId", d."entityId")
            ORDER BY "date" DESC, e."accountCode"
            LIMIT 20`,
        );
        const ms = performance.now() - started;
        return `comparison query returned ${rows.length} row${rows.length === 1 ? '' : 's'} in ${ms.toFixed(1)} ms`;
      },
    },
    {
      name: storageCheck,
      async run() {
        const key = `self-test/${randomUUID()}.txt`;
        const content = Buffer.from(`self-test ${key} ${new Date().toISOString()}\n`, 'utf8');
        let stored = false;
        try {
          stored = true; // a failed put may still leave something behind: delete in any case
          await deps.blobs.put(key, Readable.from([content]), { maxBytes: 1024 });
          const readBack = await readAllBytes(await deps.blobs.get(key));
          if (!readBack.equals(content)) {
            throw new Error(`read back ${readBack.length} bytes that differ from the ${content.length} written`);
          }
          await deps.blobs.delete(key);
          stored = false;
          if (deps.blobs.exists && (await deps.blobs.exists(key))) throw new Error('blob still exists after delete');
          return `wrote, read back and deleted ${content.length} bytes`;
        } finally {
          if (stored) await deps.blobs.delete(key).catch(() => {});
        }
      },
    },
    {
      name: unauthCheck,
      async run(signal) {
        const base = deps.baseUrl();
        if (base === undefined) return HTTP_SKIPPED_DETAIL;
        // No key, no cookie; ask for JSON so the SSO middleware answers 401 instead of redirecting.
        const { response, text } = await httpGet(base, '/api/returns/comparison', signal);
        if (response.status !== 401) {
          throw new Error(`expected 401, got ${response.status}`);
        }
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new Error('401 body is not JSON');
        }
        if (!isExactErrorBody(body, MESSAGES.invalidApiKey)) {
          throw new Error(`401 body is not {"error":"${MESSAGES.invalidApiKey}"}: ${truncate(text, 120)}`);
        }
        return `GET /api/returns/comparison without credentials: 401 ${JSON.stringify(body)}`;
      },
    },
    {
      name: healthCheck,
      async run(signal) {
        const base = deps.baseUrl();
        if (base === undefined) return HTTP_SKIPPED_DETAIL;
        const started = performance.now();
        const { response, text } = await httpGet(base, '/health', signal);
        const ms = performance.now() - started;
        if (response.status !== 200) throw new Error(`expected 200, got ${response.status}`);
        let status: unknown;
        try {
          status = (JSON.parse(text) as { status?: unknown }).status;
        } catch {
          throw new Error('body is not JSON');
        }
        if (status !== 'healthy') throw new Error(`status is ${JSON.stringify(status)}, expected "healthy"`);
        return `GET /health: 200 healthy in ${ms.toFixed(1)} ms`;
      },
    },
    {
      name: queueCheck,
      async run() {
        const seconds = Math.round(stuckAfterMs / 1000);
        const { rows } = await deps.db.pool.query<{ stuck_running: number; stuck_queued: number }>(
          `SELECT
             count(*) FILTER (WHERE "state" = 'running'
                                AND COALESCE("lockedAt", "updatedAt") < now() - make_interval(secs => $1))::int
               AS stuck_running,
             count(*) FILTER (WHERE "state" = 'queued' AND "queue" = ANY($2::text[])
                                AND "runAt" < now() - make_interval(secs => $1))::int
               AS stuck_queued
           FROM "Job"`,
          [seconds, watchedQueues],
        );
        const stuckRunning = rows[0]?.stuck_running ?? 0;
        const stuckQueued = rows[0]?.stuck_queued ?? 0;
        const minutes = `${Math.round(stuckAfterMs / 60_000)} min`;
        const problems: string[] = [];
        if (stuckRunning > 0) problems.push(`${plural(stuckRunning, 'job')} running for more than ${minutes}`);
        if (stuckQueued > 0) {
          problems.push(`${plural(stuckQueued, `${watchedQueues.join('/')} job`)} due for more than ${minutes}`);
        }
        if (problems.length > 0) throw new Error(problems.join('; '));
        const depths = await deps.jobQueueDepths();
        return `none stuck (queued ${depths.queued}, running ${depths.running}, failed ${depths.failed})`;
      },
    },
  ];
}

/** A plain GET without credentials; a network failure becomes a short reason (no host names). */
async function httpGet(base: string, path: string, signal: AbortSignal): Promise<{ response: Response; text: string }> {
  try {
    const response = await fetch(`${base.replace(/\/+$/, '')}${path}`, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal,
    });
    return { response, text: await response.text() };
  } catch (error) {
    if (signal.aborted) throw new Error(`GET ${path} aborted`);
    throw new Error(`GET ${path} failed: ${shortReason(error)}`);
  }
}

function isExactErrorBody(body: unknown, message: string): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 1 && (body as { error?: unknown }).error === message;
}

/** Collects whatever a blob store's `get` returns into one Buffer. */
export async function readAllBytes(value: unknown): Promise<Buffer> {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value && typeof value === 'object') {
    if (Symbol.asyncIterator in value) {
      const chunks: Buffer[] = [];
      for await (const chunk of value as AsyncIterable<Uint8Array | string>) {
        chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
      }
      return Buffer.concat(chunks);
    }
    const inner = (value as { body?: unknown; stream?: unknown }).body ?? (value as { stream?: unknown }).stream;
    if (inner !== undefined) return readAllBytes(typeof inner === 'function' ? await inner.call(value) : inner);
  }
  if (value === null || value === undefined) throw new Error('blob not found after writing it');
  throw new Error('blob store returned an unreadable value');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
