/**
 * A durable job queue over the `Job` table, the same SQL on PGlite and PostgreSQL.
 *
 * Life of a job:  queued --claim--> running --complete--> completed
 *                                          \--fail-----> queued (retry with backoff, while attempts < maxAttempts)
 *                                           \-----------> failed  (no retry asked, or attempts used up)
 *                 running --requeueStale--> queued (its worker died), or failed when its attempts are used up
 *
 * - Ownership: a claim is identified by (lockedBy, attempts): `claim` sets the worker and counts
 *   the attempt, so after a takeover (the lock went stale, the job was requeued and claimed again)
 *   the old owner's `heartbeat`, `complete` and `fail` with its `JobOwner` match no row and return
 *   false / null. Pass the owner: without it a stale owner could finish a job another worker runs.
 *
 * - `claim` takes the oldest due job with `FOR UPDATE SKIP LOCKED` in one UPDATE statement, so
 *   several workers (several instances on PostgreSQL) never take the same job, and increments
 *   `attempts` as it does.
 * - `enqueue` can run inside the caller's transaction, so that a job exists if and only if the
 *   row it is about exists: pass `{ tx }` with a Prisma interactive-transaction client (or a
 *   pg client inside BEGIN/COMMIT). `enqueueSql` gives the raw statement for other callers.
 * - Backoff after a failed attempt n (1-based): min(backoffMaxMs, backoffBaseMs * 2^(n-1)), with
 *   the queue's options or the ones `fail` is given (a job definition's retry policy).
 * - Timestamps are TIMESTAMPTZ(3): PostgreSQL rounds now() to the millisecond on store, so a job
 *   enqueued "now" can be stored up to 0.5 ms in the future; `claim` allows for that (runAt < now() + 1 ms).
 * - `"updatedAt"` has no database default (Prisma's @updatedAt is client-side): every statement
 *   here sets it.
 *
 * All statements are single autocommit statements on the pool unless a client is passed.
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql-client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { withTraceContext } from '../tracing/jobs.ts';

export type JobState = 'queued' | 'running' | 'completed' | 'failed';

export interface JobRow<P = unknown> {
  id: string;
  queue: string;
  payload: P;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  lockedAt: Date | null;
  lockedBy: string | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type { SqlClient };

/** Where `enqueue` writes: a Prisma (transaction) client or a pg client. */
export type JobExecutor = Prisma.TransactionClient | SqlClient;

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** Run the INSERT in this transaction (Prisma interactive transaction or pg client in BEGIN). */
  tx?: JobExecutor;
}

export interface JobQueueOptions {
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  defaultMaxAttempts?: number;
}

export type JobDepths = Record<JobState, number>;

/** Who holds a running job: the claiming worker and the attempt its claim counted. */
export interface JobOwner {
  workerId: string;
  attempt: number;
}

/** SQL condition on the owner parameters ($w text, $a int): true when no owner is given. */
/**
 * The UPDATE that completes a running job held by a worker and attempt (null: by anyone), for a
 * handler that completes its job in the statement that records its outcome (a CTE: atomic, one
 * round trip; the JobWorker is told so by the handler's 'completed').
 */
export function completeJobSql(idParam: string, workerParam: string, attemptParam: string): string {
  return `UPDATE "Job" SET state = 'completed', "lockedAt" = NULL, "lastError" = NULL, "updatedAt" = now()
        WHERE id = ${idParam}::uuid AND state = 'running' AND ${ownedBy(workerParam, attemptParam)}`;
}

function ownedBy(workerParam: string, attemptParam: string): string {
  return `(${workerParam}::text IS NULL OR ("lockedBy" = ${workerParam}::text AND attempts = ${attemptParam}::int))`;
}

export interface FailResult {
  /** queued again (with a later runAt) or failed for good */
  state: 'queued' | 'failed';
  runAt: Date | null;
  attempts: number;
}

export interface FailOptions {
  /** Queue the job again when it has attempts left. */
  retry: boolean;
  /** Only when held by this owner. */
  owner?: JobOwner;
  /** This job's backoff instead of the queue's (`backoffBaseMs`, `backoffMaxMs`). */
  backoff?: { baseMs: number; maxMs: number };
}

export interface StaleResult {
  requeued: Array<Pick<JobRow, 'id' | 'queue' | 'payload'>>;
  /** jobs that were running with no attempts left: now failed */
  failed: Array<Pick<JobRow, 'id' | 'queue' | 'payload'>>;
}

const JOB_COLUMNS = [
  'id',
  'queue',
  'payload',
  'state',
  'attempts',
  '"maxAttempts"',
  '"runAt"',
  '"lockedAt"',
  '"lockedBy"',
  '"lastError"',
  '"createdAt"',
  '"updatedAt"',
];
const RETURNING = JOB_COLUMNS.join(', ');
/** The SET list of a claim by worker `workerParam`, on a job aliased `j` (JobQueue.claimMany and the webhook claim). */
export const CLAIMED_BY = (workerParam: string): string =>
  `state = 'running', "lockedAt" = now(), "lockedBy" = ${workerParam}, attempts = j.attempts + 1, "updatedAt" = now()`;
/** The job's columns, qualified by `alias` (an UPDATE ... FROM has two tables with an `id`). */
export const RETURNING_OF = (alias: string): string => JOB_COLUMNS.map((column) => `${alias}.${column}`).join(', ');
const MAX_ERROR_LENGTH = 4000;

function isPrismaClient(executor: JobExecutor): executor is Prisma.TransactionClient {
  return typeof (executor as Prisma.TransactionClient).job?.create === 'function';
}

/**
 * The INSERT for a new job, for callers that run their own SQL transaction. While tracing is on,
 * the payload (an object) carries the caller's trace context under `_trace` (src/tracing/jobs.ts).
 */
export function enqueueSql(
  queue: string,
  payload: unknown,
  opts: { runAt?: Date; maxAttempts?: number; id?: string } = {},
): { sql: string; params: unknown[] } {
  return {
    sql: `INSERT INTO "Job" (id, queue, payload, state, attempts, "maxAttempts", "runAt", "createdAt", "updatedAt")
          VALUES ($1::uuid, $2, $3::jsonb, 'queued', 0, $4, COALESCE($5::timestamptz, now()), now(), now())
          RETURNING ${RETURNING}`,
    params: [opts.id ?? randomUUID(), queue, JSON.stringify(withTraceContext(payload) ?? null), opts.maxAttempts ?? 3, opts.runAt?.toISOString() ?? null],
  };
}

export class JobQueue {
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly defaultMaxAttempts: number;

  constructor(
    private readonly pool: SqlClient,
    options: JobQueueOptions = {},
  ) {
    this.backoffBaseMs = options.backoffBaseMs ?? 5_000;
    this.backoffMaxMs = options.backoffMaxMs ?? 10 * 60_000;
    this.defaultMaxAttempts = options.defaultMaxAttempts ?? 3;
  }

  /** Adds a job; inside `opts.tx` when given. Returns the new job's id. */
  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<{ id: string }> {
    const maxAttempts = opts.maxAttempts ?? this.defaultMaxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer');
    if (opts.tx && isPrismaClient(opts.tx)) {
      const job = await opts.tx.job.create({
        data: {
          queue,
          payload: (withTraceContext(payload) ?? null) as Prisma.InputJsonValue,
          maxAttempts,
          ...(opts.runAt ? { runAt: opts.runAt } : {}),
        },
        select: { id: true },
      });
      return job;
    }
    const { sql, params } = enqueueSql(queue, payload, { runAt: opts.runAt, maxAttempts });
    const executor = (opts.tx as SqlClient | undefined) ?? this.pool;
    const { rows } = await executor.query<{ id: string }>(sql, params);
    return { id: rows[0].id };
  }

  /** Takes the oldest due job of `queue` for `workerId`, or null when none is due. */
  async claim<P = unknown>(queue: string, workerId: string): Promise<JobRow<P> | null> {
    return (await this.claimMany<P>(queue, workerId, 1))[0] ?? null;
  }

  /**
   * Takes up to `max` due jobs of `queue` for `workerId` in one statement, oldest first (a worker
   * with room for several asks once, not once per job). Empty when none is due.
   */
  async claimMany<P = unknown>(queue: string, workerId: string, max: number): Promise<JobRow<P>[]> {
    const { rows } = await this.pool.query<JobRow<P>>(
      // The chosen ids are materialized once: a subquery with LIMIT under IN may be run again per row.
      `WITH chosen AS MATERIALIZED (
         SELECT id FROM "Job"
          WHERE queue = $1 AND state = 'queued' AND "runAt" < now() + interval '1 millisecond'
          ORDER BY "runAt", "createdAt"
          FOR UPDATE SKIP LOCKED
          LIMIT $3)
       UPDATE "Job" j
          SET ${CLAIMED_BY('$2')}
         FROM chosen WHERE j.id = chosen.id
        RETURNING ${RETURNING_OF('j')}`,
      [queue, workerId, Math.max(1, Math.floor(max))],
    );
    return oldestFirst(rows);
  }

  /**
   * Marks a running job done. Returns false when it was no longer running, or no longer held by
   * `owner` (requeued as stale, maybe claimed by another worker since).
   */
  async complete(id: string, owner?: JobOwner): Promise<boolean> {
    const { rowCount } = await this.pool.query(completeJobSql('$1', '$2', '$3'), [id, owner?.workerId ?? null, owner?.attempt ?? null]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Records a failed attempt. With `retry` and attempts left the job goes back to `queued`
   * with an exponential backoff; otherwise it is `failed` for good. Null when the job was not
   * running (or not held by `opts.owner`): nothing was changed.
   */
  async fail(id: string, error: unknown, opts: FailOptions): Promise<FailResult | null> {
    const message = errorText(error);
    const { rows } = await this.pool.query<{ state: 'queued' | 'failed'; runAt: Date; attempts: number }>(
      `UPDATE "Job" SET
          state = CASE WHEN $3::boolean AND attempts < "maxAttempts" THEN 'queued'::"JobState" ELSE 'failed'::"JobState" END,
          "runAt" = CASE WHEN $3::boolean AND attempts < "maxAttempts"
                         THEN now() + make_interval(secs => LEAST($5::float8, $4::float8 * power(2, GREATEST(attempts, 1) - 1)) / 1000.0)
                         ELSE "runAt" END,
          "lastError" = $2, "lockedAt" = NULL, "lockedBy" = NULL, "updatedAt" = now()
        WHERE id = $1 AND state = 'running' AND ${ownedBy('$6', '$7')}
        RETURNING state, "runAt", attempts`,
      [
        id,
        message,
        opts.retry,
        opts.backoff?.baseMs ?? this.backoffBaseMs,
        opts.backoff?.maxMs ?? this.backoffMaxMs,
        opts.owner?.workerId ?? null,
        opts.owner?.attempt ?? null,
      ],
    );
    const row = rows[0];
    if (!row) return null;
    return { state: row.state, runAt: row.state === 'queued' ? row.runAt : null, attempts: row.attempts };
  }

  /**
   * Moves the lock time of a running job forward (long jobs call this so they are not taken as
   * stale). False when the job is no longer held by this worker (or this attempt, given an owner):
   * it was taken over, and the caller must stop working on it.
   */
  async heartbeat(id: string, owner: string | JobOwner): Promise<boolean> {
    const { workerId, attempt } = typeof owner === 'string' ? { workerId: owner, attempt: null } : owner;
    const { rowCount } = await this.pool.query(
      `UPDATE "Job" SET "lockedAt" = now(), "updatedAt" = now()
        WHERE id = $1 AND state = 'running' AND "lockedBy" = $2 AND ($3::int IS NULL OR attempts = $3::int)`,
      [id, workerId, attempt],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Jobs left `running` for longer than `olderThanMs` (their worker crashed or was killed) go
   * back to `queued`, or to `failed` when they have no attempts left (a job that kills its worker
   * every time must not loop forever). Only the jobs of `queue` when given, never those in
   * `opts.except` (jobs the calling process is running itself: it knows they are alive, even when
   * their heartbeat is late because the database was busy). Both times are the database's clock,
   * so the instances' clocks need not agree. One UPDATE over the (queue, state, runAt) index.
   */
  async requeueStale(olderThanMs: number, queue?: string, opts: { except?: Iterable<string> } = {}): Promise<StaleResult> {
    const { rows } = await this.pool.query<{ id: string; queue: string; payload: unknown; state: JobState }>(
      `UPDATE "Job" SET
          state = CASE WHEN attempts < "maxAttempts" THEN 'queued'::"JobState" ELSE 'failed'::"JobState" END,
          "lastError" = 'abandoned by worker ' || COALESCE("lockedBy", '?') || ' (lock older than ' || $1::text || ' ms)',
          "lockedAt" = NULL, "lockedBy" = NULL, "updatedAt" = now()
        WHERE state = 'running' AND "lockedAt" <= now() - make_interval(secs => $1::float8 / 1000.0)
          AND ($2::text IS NULL OR queue = $2)
          AND NOT (id = ANY($3::uuid[]))
        RETURNING id, queue, payload, state`,
      [olderThanMs, queue ?? null, [...(opts.except ?? [])]],
    );
    const pick = ({ id, queue, payload }: (typeof rows)[number]) => ({ id, queue, payload });
    return {
      requeued: rows.filter((r) => r.state === 'queued').map(pick),
      failed: rows.filter((r) => r.state === 'failed').map(pick),
    };
  }

  /** Number of jobs in each state (all queues, or one). */
  async depths(queue?: string): Promise<JobDepths> {
    const { rows } = await this.pool.query<{ state: JobState; count: string }>(
      `SELECT state, count(*)::text AS count FROM "Job" WHERE ($1::text IS NULL OR queue = $1) GROUP BY state`,
      [queue ?? null],
    );
    const depths: JobDepths = { queued: 0, running: 0, completed: 0, failed: 0 };
    for (const row of rows) depths[row.state] = Number(row.count);
    return depths;
  }

  /** Retention: deletes `completed` (and, with `includeFailed`, `failed`) jobs last updated more than `olderThanMs` ago. */
  async deleteFinished(olderThanMs: number, opts: { includeFailed?: boolean } = {}): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM "Job" WHERE (state = 'completed' OR ($2::boolean AND state = 'failed'))
          AND "updatedAt" < now() - make_interval(secs => $1::float8 / 1000.0)`,
      [olderThanMs, opts.includeFailed ?? false],
    );
    return rowCount ?? 0;
  }

  async get<P = unknown>(id: string): Promise<JobRow<P> | null> {
    const { rows } = await this.pool.query<JobRow<P>>(`SELECT ${RETURNING} FROM "Job" WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }
}

/** RETURNING lists rows in no particular order: the oldest due first, as they were chosen. */
export function oldestFirst<R extends Pick<JobRow, 'runAt' | 'createdAt'>>(rows: R[]): R[] {
  return rows.sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
