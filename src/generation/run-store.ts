/**
 * Durable generation runs and their ordered event logs (tables GenerationRun, GenerationEvent).
 *
 * Every event is appended by one statement that bumps the run's `lastSequence` and inserts the
 * event with that number, so sequence numbers are gap-free and ordered even with several writers
 * (the row lock on the run serialises them). A run in a final state (completed, failed,
 * cancelled) takes no more events: the statement matches no row and `append` returns null.
 * The same statement can change the run's columns, so a final state and its final event are
 * written together (end-run.ts's endRun is how every path ends a run).
 */
import type { SqlClient } from '../db/sql-client.ts';
import type { GenerationOptions, SourceReference } from './types.ts';

export const AGENT_STATUSES = ['queued', 'started', 'active', 'complete', 'failed'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const RUN_STATES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];
/** The states a run ends in: it takes no more events (the one definition; the SQL below is built from it). */
export const FINAL_RUN_STATES: readonly RunState[] = ['completed', 'failed', 'cancelled'];
export type FinalRunState = 'completed' | 'failed' | 'cancelled';

/** True when the run has ended (completed, failed or cancelled): its event log is complete. */
export function isFinalState(state: RunState): state is FinalRunState {
  return FINAL_RUN_STATES.includes(state);
}

/** FINAL_RUN_STATES as an SQL list, for `state NOT IN ...`. */
const FINAL_STATES_SQL = `(${FINAL_RUN_STATES.map((state) => `'${state}'`).join(', ')})`;

/** The agent name of run-level events (announcement, start, final event). */
export const RUN_AGENT = 'run';

export interface GenerationEventRecord {
  runId: string;
  sequence: number;
  agent: string;
  status: AgentStatus;
  /** 0..100 */
  progress: number;
  message: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export type NewEvent = Pick<GenerationEventRecord, 'agent' | 'status' | 'progress' | 'message' | 'data'>;

export interface GenerationRunRecord {
  id: string;
  userId: string;
  state: RunState;
  options: GenerationOptions;
  lastSequence: number;
  summary: string | null;
  references: SourceReference[] | null;
  summaryProvider: string | null;
  failedAgents: string[];
  error: string | null;
  cancelRequestedAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
}

/** Columns an append may change along with its event. */
export interface RunUpdate {
  state?: RunState;
  summary?: string;
  references?: SourceReference[];
  summaryProvider?: string;
  failedAgents?: string[];
  error?: string;
  startedAt?: 'now';
  finishedAt?: 'now';
}

/** True for the event that ends a run's stream (the run's own `complete` or `failed`). */
export function isFinalEvent(event: Pick<GenerationEventRecord, 'agent' | 'status'> | Readonly<Record<string, unknown>>): boolean {
  return event.agent === RUN_AGENT && (event.status === 'complete' || event.status === 'failed');
}

const RUN_COLUMNS = `id, "userId", state::text AS state, options, "lastSequence", summary, "references", "summaryProvider",
  coalesce("failedAgents", '{}') AS "failedAgents", error, "cancelRequestedAt", "createdAt", "startedAt", "finishedAt", "updatedAt"`;
const EVENT_COLUMNS = `"runId", sequence, agent, status, progress, message, data, "createdAt"`;

export class RunStore {
  constructor(private readonly pool: SqlClient) {}

  /** A new queued run with its first event (the announcement), in the caller's transaction when given. */
  async create(
    run: { id: string; userId: string; options: GenerationOptions },
    announcement: NewEvent,
    executor: SqlClient = this.pool,
  ): Promise<{ run: GenerationRunRecord; event: GenerationEventRecord }> {
    const { rows } = await executor.query<GenerationRunRecord>(
      `INSERT INTO "GenerationRun" (id, "userId", state, options, "lastSequence", "failedAgents", "createdAt", "updatedAt")
       VALUES ($1, $2, 'queued', $3::jsonb, 1, '{}', now(), now()) RETURNING ${RUN_COLUMNS}`,
      [run.id, run.userId, JSON.stringify(run.options)],
    );
    const inserted = await executor.query<GenerationEventRecord>(
      `INSERT INTO "GenerationEvent" (${EVENT_COLUMNS}) VALUES ($1, 1, $2, $3, $4, $5, $6::jsonb, clock_timestamp()) RETURNING ${EVENT_COLUMNS}`,
      [run.id, announcement.agent, announcement.status, announcement.progress, announcement.message, JSON.stringify(announcement.data)],
    );
    return { run: rows[0], event: inserted.rows[0] };
  }

  /** Appends an event (and applies `update`); null when the run is unknown or already final. */
  async append(runId: string, event: NewEvent, update: RunUpdate = {}): Promise<GenerationEventRecord | null> {
    const params: unknown[] = [runId, event.agent, event.status, event.progress, event.message, JSON.stringify(event.data)];
    const sets = ['"lastSequence" = "lastSequence" + 1', '"updatedAt" = now()'];
    const set = (column: string, value: unknown, cast = '') => {
      params.push(value);
      sets.push(`"${column}" = $${params.length}${cast}`);
    };
    if (update.state) set('state', update.state, '::"GenerationRunState"');
    if (update.summary !== undefined) set('summary', update.summary);
    if (update.references) set('references', JSON.stringify(update.references), '::jsonb');
    if (update.summaryProvider) set('summaryProvider', update.summaryProvider);
    if (update.failedAgents) set('failedAgents', update.failedAgents, '::text[]');
    if (update.error !== undefined) set('error', update.error);
    if (update.startedAt) sets.push('"startedAt" = now()');
    if (update.finishedAt) sets.push('"finishedAt" = now()');
    const { rows } = await this.pool.query<GenerationEventRecord>(
      `WITH next AS (
         UPDATE "GenerationRun" SET ${sets.join(', ')}
          WHERE id = $1 AND state NOT IN ${FINAL_STATES_SQL}
          RETURNING "lastSequence")
       INSERT INTO "GenerationEvent" (${EVENT_COLUMNS})
       SELECT $1, next."lastSequence", $2, $3, $4, $5, $6::jsonb, clock_timestamp() FROM next
       RETURNING ${EVENT_COLUMNS}`,
      params,
    );
    return rows[0] ?? null;
  }

  async get(runId: string): Promise<GenerationRunRecord | null> {
    const { rows } = await this.pool.query<GenerationRunRecord>(`SELECT ${RUN_COLUMNS} FROM "GenerationRun" WHERE id = $1`, [runId]);
    return rows[0] ?? null;
  }

  /** The user's newest run, if any. */
  async latest(userId: string): Promise<GenerationRunRecord | null> {
    const { rows } = await this.pool.query<GenerationRunRecord>(
      `SELECT ${RUN_COLUMNS} FROM "GenerationRun" WHERE "userId" = $1 ORDER BY "createdAt" DESC, id DESC LIMIT 1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  /** Events after `after`, in order (at most `limit`). */
  async events(runId: string, after = 0, limit = 10_000): Promise<GenerationEventRecord[]> {
    const { rows } = await this.pool.query<GenerationEventRecord>(
      `SELECT ${EVENT_COLUMNS} FROM "GenerationEvent" WHERE "runId" = $1 AND sequence > $2 ORDER BY sequence LIMIT $3`,
      [runId, after, limit],
    );
    return rows;
  }

  /** Runs of a user that have not finished. */
  async activeCount(userId: string, executor: SqlClient = this.pool): Promise<number> {
    const { rows } = await executor.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM "GenerationRun" WHERE "userId" = $1 AND state IN ('queued', 'running')`,
      [userId],
    );
    return rows[0].count;
  }

  /** Records the owner's cancel request; returns the run as it is now (null when unknown). */
  async requestCancel(runId: string): Promise<GenerationRunRecord | null> {
    const { rows } = await this.pool.query<GenerationRunRecord>(
      `UPDATE "GenerationRun" SET "cancelRequestedAt" = coalesce("cancelRequestedAt", now()), "updatedAt" = now()
        WHERE id = $1 AND state NOT IN ${FINAL_STATES_SQL} RETURNING ${RUN_COLUMNS}`,
      [runId],
    );
    return rows[0] ?? (await this.get(runId));
  }
}
