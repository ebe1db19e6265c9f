import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { Cron } from 'croner';
import type { Database, PrismaClient } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { shortReason } from '../health/health-service.ts';
import { truncate, type SelfTestCheck } from './self-test-checks.ts';
import type { AuditRecorder } from '../audit/recorder.ts';

export type { SelfTestCheck } from './self-test-checks.ts';

/**
 * Runs the self-test suite on a cron schedule and on demand, and keeps its results in the
 * SelfTestRun / SelfTestCheck tables.
 *
 * Several instances may share one PostgreSQL database:
 *  - "at most one run at a time" is decided in the database: the check for a `running` row and
 *    the insert of the new one happen in one transaction holding the advisory lock RUN_LOCK_KEY,
 *    so two instances (or two requests) can never both start a run;
 *  - a `running` row older than `abandonAfterMs` (default 10 min; the suite itself is bounded by
 *    the per-check timeout) belongs to a process that died mid-run: it is marked `failed` with an
 *    `abandoned` check instead of blocking the scheduler forever;
 *  - only the leader executes scheduled runs: the instance holding the session-level
 *    advisory lock LEADER_LOCK_KEY (`pg_try_advisory_lock`) on a dedicated pool connection.
 *    Followers try again on every tick, so leadership moves when the leader goes away. On
 *    embedded PGlite there is only one process and one shared session, where the try-lock always
 *    succeeds.
 * Both locks are keyed per schema (see RUN_LOCK_KEY), so other schemas of the database are not
 * affected.
 * Manual triggers run on whichever instance receives them.
 *
 * The transactions use one dedicated pool connection and never wait on another connection
 * inside them (on PGlite every connection shares one session, so that would deadlock).
 */

export type RunTrigger = 'manual' | 'schedule';
export type RunStatus = 'running' | 'passed' | 'failed';
export type SchedulerState = 'idle' | 'running' | 'disabled' | 'stopped';

export interface CheckResult {
  name: string;
  passed: boolean;
  durationMs: number;
  detail: string | null;
}

export interface RunSummary {
  id: string;
  trigger: RunTrigger;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  checks: CheckResult[];
}

export interface SchedulerStatus {
  state: SchedulerState;
  cron: string;
  enabled: boolean;
  /** The next scheduled run (UTC cron), or null when scheduling is disabled or stopped. */
  nextRunAt: Date | null;
  secondsUntilNextRun: number | null;
  /** The newest run, whatever its status (it may still be running). */
  lastRun: RunSummary | null;
}

export interface SelfTestSchedulerDeps {
  db: Database;
  prisma: PrismaClient;
  log: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** 5-field cron expression (or 6 with seconds first), evaluated in UTC. */
  cron: string;
  /** When false nothing runs on the schedule; manual triggers still work. */
  enabled: boolean;
  checks: SelfTestCheck[];
  /** Per-check timeout (default 10 s). */
  checkTimeoutMs?: number;
  /** A `running` row older than this is marked failed as abandoned (default 10 min). */
  abandonAfterMs?: number;
  /** How many runs to keep; older ones are deleted after each run (default 500). */
  retainRuns?: number;
  /** Told of each scheduled trigger this instance leads (the audit log; manual triggers are mutations, recorded there). */
  audit?: Pick<AuditRecorder, 'record'>;
  /** Told of each run this instance finished, whatever its trigger (webhooks: `selftest.failed`); it must not throw or block. */
  onRunFinished?: (run: RunSummary) => void;
}

/**
 * Advisory locks use the two-key form: a fixed first key per purpose, and as second key
 * `hashtext(current_schema())`, so instances sharing a schema exclude each other while services
 * (or test runs) in other schemas of the same database do not.
 */
export const RUN_LOCK_KEY = 723_380_101;
export const LEADER_LOCK_KEY = 723_380_102;
export const SCHEMA_KEY_SQL = 'hashtext(current_schema())';

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
export const DEFAULT_ABANDON_AFTER_MS = 10 * 60_000;
export const DEFAULT_RETAIN_RUNS = 500;
export const MAX_HISTORY_LIMIT = 500;
export const RUN_IN_PROGRESS_MESSAGE = 'A self-test run is already in progress';
const MAX_DETAIL_LENGTH = 500;

const CRON_OPTIONS = { timezone: 'UTC', mode: '5-or-6-parts' } as const;

/** Throws an Error naming the expression and what is wrong with it. */
export function validateCron(expression: string): Cron {
  try {
    const cron = new Cron(expression, { ...CRON_OPTIONS, paused: true });
    if (cron.nextRun() === null) throw new Error('it never fires');
    return cron;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Invalid self-test cron expression ${JSON.stringify(expression)} (SELF_TEST_CRON): ${reason}. ` +
        `Expected 5 fields "minute hour day-of-month month day-of-week" (UTC), e.g. "*/15 * * * *".`,
    );
  }
}

interface RunRow {
  id: string;
  trigger: string;
  status: RunStatus;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  checks?: { name: string; passed: boolean; durationMs: number; detail: string | null; position: number }[];
}

export class SelfTestScheduler {
  private readonly deps: SelfTestSchedulerDeps;
  private readonly pattern: Cron;
  private readonly checkTimeoutMs: number;
  private readonly abandonAfterMs: number;
  private readonly retainRuns: number;
  private job: Cron | undefined;
  private started = false;
  private stopped = false;
  /** The suite executing in this process, if any. */
  private current: Promise<RunSummary> | undefined;
  /** A trigger between its call and the start of its suite (stop() waits for it too). */
  private starting: Promise<unknown> | undefined;
  private leader: pg.PoolClient | undefined;
  private onLeaderError: ((error: Error) => void) | undefined;
  private tick: Promise<void> | undefined;

  constructor(deps: SelfTestSchedulerDeps) {
    this.pattern = validateCron(deps.cron);
    this.deps = deps;
    this.checkTimeoutMs = deps.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.abandonAfterMs = deps.abandonAfterMs ?? DEFAULT_ABANDON_AFTER_MS;
    this.retainRuns = deps.retainRuns ?? DEFAULT_RETAIN_RUNS;
    const names = new Set<string>();
    for (const check of deps.checks) {
      if (names.has(check.name)) throw new Error(`Duplicate self-test check name: ${check.name}`);
      names.add(check.name);
    }
  }

  /** Starts the schedule (no-op when disabled or already started). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    if (!this.deps.enabled) {
      this.deps.log.info({ cron: this.deps.cron }, 'self-test schedule disabled');
      return;
    }
    this.job = new Cron(this.deps.cron, { ...CRON_OPTIONS, protect: true }, () => {
      this.tick = this.onTick();
      return this.tick;
    });
    this.deps.log.info({ cron: this.deps.cron, nextRunAt: this.job.nextRun() }, 'self-test scheduler started');
  }

  /** Stops the schedule, waits for a run executing in this process, and gives up leadership. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.job?.stop();
    this.job = undefined;
    await this.tick?.catch(() => {});
    await this.starting?.catch(() => {});
    await this.current?.catch(() => {});
    await this.releaseLeadership();
  }

  async status(): Promise<SchedulerStatus> {
    const [last] = await this.history(1);
    const scheduling = this.deps.enabled && !this.stopped;
    const now = Date.now();
    const nextRunAt = scheduling ? (this.job ?? this.pattern).nextRun() : null;
    const runningElsewhere = last !== undefined && last.status === 'running' && now - last.startedAt.getTime() < this.abandonAfterMs;
    const state: SchedulerState =
      this.current !== undefined || this.starting !== undefined || runningElsewhere
        ? 'running'
        : this.stopped
          ? 'stopped'
          : !this.deps.enabled
            ? 'disabled'
            : 'idle';
    return {
      state,
      cron: this.deps.cron,
      enabled: this.deps.enabled,
      nextRunAt,
      secondsUntilNextRun: nextRunAt ? Math.max(0, Math.ceil((nextRunAt.getTime() - now) / 1000)) : null,
      lastRun: last ?? null,
    };
  }

  /** The newest `limit` runs (1..500), newest first, each with its checks in execution order. */
  async history(limit = 20): Promise<RunSummary[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
      throw AppError.badInput('limit', `must be an integer between 1 and ${MAX_HISTORY_LIMIT}`);
    }
    const rows = await this.deps.prisma.selfTestRun.findMany({
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: { checks: { orderBy: { position: 'asc' } } },
    });
    return rows.map(toSummary);
  }

  /** One run by id, or undefined. */
  async get(id: string): Promise<RunSummary | undefined> {
    const row = await this.deps.prisma.selfTestRun.findUnique({
      where: { id },
      include: { checks: { orderBy: { position: 'asc' } } },
    });
    return row ? toSummary(row) : undefined;
  }

  /**
   * Creates a run and starts the suite in the background; resolves at once with the `running`
   * run. Throws AppError CONFLICT while a run is in progress (on any instance).
   */
  async trigger(trigger: RunTrigger = 'manual'): Promise<RunSummary> {
    return (await this.begin(trigger)).summary;
  }

  /** Triggers a run and waits for it to finish (tests, CLI); resolves with the finished run. */
  async runNow(trigger: RunTrigger = 'manual'): Promise<RunSummary> {
    return (await this.begin(trigger)).execution;
  }

  /** Waits for the run executing in this process, if any (tests). */
  async idle(): Promise<void> {
    await this.current?.catch(() => {});
  }

  // --------------------------------------------------------------------------------------------

  private async begin(trigger: RunTrigger): Promise<{ summary: RunSummary; execution: Promise<RunSummary> }> {
    if (this.stopped) throw new AppError('SERVICE_UNAVAILABLE', 'The self-test scheduler is stopped');
    if (this.current !== undefined || this.starting !== undefined) {
      throw AppError.conflict(RUN_IN_PROGRESS_MESSAGE);
    }
    const creating = this.createRun(trigger);
    this.starting = creating;
    let summary: RunSummary;
    try {
      summary = await creating;
    } finally {
      this.starting = undefined;
    }
    const execution = this.execute(summary);
    this.current = execution;
    void execution
      .catch((error: unknown) => this.deps.log.error({ err: error, runId: summary.id }, 'self-test run crashed'))
      .finally(() => {
        if (this.current === execution) this.current = undefined;
      });
    return { summary, execution };
  }

  private async onTick(): Promise<void> {
    try {
      if (this.stopped) return;
      if (!(await this.acquireLeadership())) {
        this.deps.log.debug({}, 'self-test: another instance leads scheduled runs; skipping');
        return;
      }
      const run = await this.trigger('schedule');
      this.deps.audit?.record({ front: 'system', operation: 'self-test.schedule', outcome: 'ok', target: { type: 'SelfTestRun', id: run.id } });
    } catch (error) {
      if (this.stopped) return;
      this.deps.audit?.record({ front: 'system', operation: 'self-test.schedule', outcome: error instanceof AppError ? error.code : 'INTERNAL_SERVER_ERROR' });
      if (error instanceof AppError && error.code === 'CONFLICT') {
        this.deps.log.info({}, 'self-test: scheduled run skipped, a run is already in progress');
      } else {
        this.deps.log.error({ err: error }, 'self-test: scheduled run could not start');
      }
    }
  }

  private async acquireLeadership(): Promise<boolean> {
    if (this.leader) {
      // A leadership connection that died quietly loses the lock: verify it before relying on it.
      const client = this.leader;
      try {
        await client.query('SELECT 1');
        return true;
      } catch (error) {
        if (this.leader === client) this.dropLeader(client, asError(error));
      }
    }
    const client = await this.deps.db.pool.connect();
    let locked = false;
    try {
      const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock($1::int, ${SCHEMA_KEY_SQL}) AS locked`, [LEADER_LOCK_KEY]);
      locked = rows[0]?.locked === true;
    } catch (error) {
      client.release(asError(error));
      throw error;
    }
    if (!locked) {
      client.release();
      return false;
    }
    // A broken leadership connection loses the lock with it; the next tick competes again.
    this.onLeaderError = (error: Error) => {
      if (this.leader === client) this.dropLeader(client, error);
    };
    client.on('error', this.onLeaderError);
    this.leader = client;
    this.deps.log.info({}, 'self-test: this instance now runs the scheduled self-tests');
    return true;
  }

  private dropLeader(client: pg.PoolClient, error: Error): void {
    this.leader = undefined;
    if (this.onLeaderError) client.off('error', this.onLeaderError);
    this.onLeaderError = undefined;
    this.deps.log.warn({ err: error }, 'self-test: lost the scheduler leadership connection');
    client.release(error);
  }

  private async releaseLeadership(): Promise<void> {
    const client = this.leader;
    if (!client) return;
    this.leader = undefined;
    if (this.onLeaderError) client.off('error', this.onLeaderError);
    this.onLeaderError = undefined;
    try {
      await client.query(`SELECT pg_advisory_unlock($1::int, ${SCHEMA_KEY_SQL})`, [LEADER_LOCK_KEY]);
      client.release();
    } catch (error) {
      client.release(asError(error));
    }
  }

  /** The check-and-insert, serialized across instances by a transaction-scoped advisory lock. */
  private async createRun(trigger: RunTrigger): Promise<RunSummary> {
    const client = await this.deps.db.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      try {
        await client.query(`SELECT pg_advisory_xact_lock($1::int, ${SCHEMA_KEY_SQL})`, [RUN_LOCK_KEY]);
        const abandoned = await client.query<{ id: string }>(
          `UPDATE "SelfTestRun"
              SET "status" = 'failed', "finishedAt" = now(),
                  "durationMs" = LEAST(2147483647, (EXTRACT(EPOCH FROM (now() - "startedAt")) * 1000)::bigint)::int
            WHERE "status" = 'running' AND "startedAt" < now() - make_interval(secs => $1)
          RETURNING "id"`,
          [this.abandonAfterMs / 1000],
        );
        if (abandoned.rows.length > 0) {
          const ids = abandoned.rows.map((r) => r.id);
          await client.query(
            `INSERT INTO "SelfTestCheck" ("id", "runId", "name", "passed", "durationMs", "detail", "position")
             SELECT gen_random_uuid(), r."id", 'abandoned', false, 0, $2,
                    COALESCE((SELECT MAX(c."position") + 1 FROM "SelfTestCheck" c WHERE c."runId" = r."id"), 0)
               FROM "SelfTestRun" r WHERE r."id" = ANY($1::uuid[])`,
            [ids, `abandoned: still running after ${Math.round(this.abandonAfterMs / 1000)} s ` + `(the process executing it probably stopped)`],
          );
          this.deps.log.warn({ runIds: ids }, 'self-test: marked abandoned runs as failed');
        }
        const running = await client.query('SELECT 1 FROM "SelfTestRun" WHERE "status" = \'running\' LIMIT 1');
        if (running.rows.length > 0) {
          await client.query('COMMIT');
          throw AppError.conflict(RUN_IN_PROGRESS_MESSAGE);
        }
        const { rows } = await client.query<RunRow>(
          `INSERT INTO "SelfTestRun" ("id", "trigger", "status", "startedAt")
           VALUES ($1, $2, 'running', now())
           RETURNING "id", "trigger", "status", "startedAt", "finishedAt", "durationMs"`,
          [randomUUID(), trigger],
        );
        await client.query('COMMIT');
        return toSummary({ ...rows[0], checks: [] });
      } catch (error) {
        if (!(error instanceof AppError)) {
          await client.query('ROLLBACK').catch((rollbackError: unknown) => {
            broken = asError(rollbackError);
          });
        }
        throw error;
      }
    } catch (error) {
      if (!(error instanceof AppError)) broken ??= asError(error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Runs every check in order, storing each result as it completes, then closes the run. */
  private async execute(run: RunSummary): Promise<RunSummary> {
    const log = this.deps.log;
    const started = performance.now();
    log.info({ runId: run.id, trigger: run.trigger }, 'self-test run started');
    const results: CheckResult[] = [];
    for (const [position, check] of this.deps.checks.entries()) {
      const result = await this.runCheck(check);
      results.push(result);
      try {
        await this.deps.prisma.selfTestCheck.create({ data: { runId: run.id, position, ...result } });
      } catch (error) {
        log.error({ err: error, runId: run.id, check: check.name }, 'self-test: could not store a check result');
      }
    }
    const passed = results.every((r) => r.passed);
    const durationMs = Math.round(performance.now() - started);
    const finishedAt = new Date();
    const status: RunStatus = passed ? 'passed' : 'failed';
    try {
      await this.deps.prisma.selfTestRun.update({
        where: { id: run.id },
        data: { status, finishedAt, durationMs },
      });
    } catch (error) {
      log.error({ err: error, runId: run.id }, 'self-test: could not store the run result');
    }
    log[passed ? 'info' : 'warn']({ runId: run.id, status, durationMs, failed: results.filter((r) => !r.passed).map((r) => r.name) }, 'self-test run finished');
    await this.prune();
    const finished: RunSummary = { ...run, status, finishedAt, durationMs, checks: results };
    try {
      this.deps.onRunFinished?.(finished);
    } catch (error) {
      log.error({ err: error, runId: run.id }, 'self-test: a listener of finished runs failed');
    }
    return finished;
  }

  private async runCheck(check: SelfTestCheck): Promise<CheckResult> {
    const controller = new AbortController();
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error(`timed out after ${this.checkTimeoutMs} ms`));
        }, this.checkTimeoutMs);
      });
      const work = Promise.resolve().then(() => check.run(controller.signal));
      work.catch(() => {}); // a late failure after the timeout is not an unhandled rejection
      const detail = await Promise.race([work, timeout]);
      return { name: check.name, passed: true, durationMs: elapsed(started), detail: clean(detail) };
    } catch (error) {
      return { name: check.name, passed: false, durationMs: elapsed(started), detail: clean(failureDetail(error)) ?? 'failed' };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps the newest `retainRuns` runs; their checks go with them (ON DELETE CASCADE). */
  private async prune(): Promise<void> {
    try {
      await this.deps.db.pool.query(
        `DELETE FROM "SelfTestRun" WHERE "id" IN (
           SELECT "id" FROM "SelfTestRun" ORDER BY "startedAt" DESC, "id" DESC OFFSET $1
         ) AND "status" <> 'running'`,
        [this.retainRuns],
      );
    } catch (error) {
      this.deps.log.error({ err: error }, 'self-test: could not delete old runs');
    }
  }
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    trigger: row.trigger === 'schedule' ? 'schedule' : 'manual',
    status: row.status,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    durationMs: row.durationMs,
    checks: (row.checks ?? []).map((c) => ({
      name: c.name,
      passed: c.passed,
      durationMs: c.durationMs,
      detail: c.detail,
    })),
  };
}

/**
 * A check's own errors carry a short message written for the detail. Driver and system errors
 * (they have a `code`) can name hosts, users or paths: they are reduced to a fixed reason.
 */
function failureDetail(error: unknown): string {
  if (error instanceof Error && (error as { code?: unknown }).code === undefined) return error.message;
  return shortReason(error);
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function clean(detail: unknown): string | null {
  if (typeof detail !== 'string' || detail.trim() === '') return null;
  return truncate(detail.replace(/\s+/g, ' ').trim(), MAX_DETAIL_LENGTH);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
