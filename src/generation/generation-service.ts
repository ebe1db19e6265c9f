/**
 * Summary generation for a user: start a run (a durable record + a job, in one transaction),
 * read runs, cancel them, and follow their progress. Knows nothing about HTTP: the REST stream,
 * the GraphQL subscription and the JSON-RPC tools all come through here.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../errors.ts';
import type { GenerationRun, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { PrismaSelection } from '../db/prisma-selection.ts';
import { enqueueSql } from '../jobs/job-queue.ts';
import type { PubSub } from '../pubsub/pubsub.ts';
import { agentPlan, controlChannel } from './run-executor.ts';
import type { ProgressHub, ProgressItem } from './progress-hub.ts';
import { endRun } from './end-run.ts';
import type { StreamSlots } from '../ratelimit/stream-slots.ts';
import { endingWith } from '../util/async-iterator.ts';
import type { Credential, CredentialWatch } from '../auth/credential-watch.ts';
import { isFinalState, RUN_AGENT, type GenerationRunRecord, type RunState, type RunStore } from './run-store.ts';
import { GENERATION_SOURCES, SUMMARY_LENGTHS, type GenerationOptions, type GenerationSource, type SummaryLength } from './types.ts';

export const GENERATION_QUEUE = 'generation';

export const GENERATION_LIMITS = {
  days: { min: 1, max: 90, default: 7 },
  /** Runs of one user that may be queued or running at once. */
  activeRunsPerUser: 3,
} as const;

export interface GenerationOptionsInput {
  days?: number | null;
  sources?: readonly GenerationSource[] | null;
  length?: SummaryLength | null;
}

/** What to load of each run and, for a page, which rows (a Pothos prismaConnection's query). */
export type RunSelection = PrismaSelection<Prisma.GenerationRunFindManyArgs>;

export interface GenerationServiceDeps {
  pool: pg.Pool;
  /** The GraphQL reads of runs (listRuns, run), which load what the query selects. */
  prisma: PrismaClient;
  store: RunStore;
  hub: ProgressHub;
  pubsub: PubSub;
  /** Tells the local worker a job is waiting (it would find it at its next poll anyway). */
  wakeWorker: () => void;
  /** Each follower holds one of its user's stream slots while it follows (STREAMS_PER_USER). */
  streams: StreamSlots;
  /** Ends a follower's stream when its credential is revoked. */
  credentials: CredentialWatch;
}

export class GenerationService {
  constructor(private readonly deps: GenerationServiceDeps) {}

  /** Validates the options, stores the run with its announcement event and queues its job. */
  async start(userId: string, input: GenerationOptionsInput = {}): Promise<GenerationRunRecord> {
    const options = validateOptions(input);
    const id = randomUUID();
    const agents = agentPlan(options);
    const client = await this.deps.pool.connect();
    let created: Awaited<ReturnType<RunStore['create']>>;
    try {
      await client.query('BEGIN');
      // One start at a time per user, so two simultaneous starts cannot both pass the limit.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('generation-start:' || $1))`, [userId]);
      if ((await this.deps.store.activeCount(userId, client)) >= GENERATION_LIMITS.activeRunsPerUser) {
        throw AppError.conflict(`You already have ${GENERATION_LIMITS.activeRunsPerUser} summary generations in progress; wait for one to finish or cancel it`);
      }
      created = await this.deps.store.create(
        { id, userId, options },
        { agent: RUN_AGENT, status: 'queued', progress: 0, message: 'Summary generation queued', data: { run_id: id, options, agents } },
        client,
      );
      const job = enqueueSql(GENERATION_QUEUE, { runId: id }, { maxAttempts: 1 });
      await client.query(job.sql, job.params);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.deps.hub.publish(created.event).catch(() => undefined);
    this.deps.wakeWorker();
    return created.run;
  }

  /** One of the user's runs; another user's run is NOT_FOUND, like a missing one. */
  async get(userId: string, runId: string): Promise<GenerationRunRecord> {
    const run = await this.deps.store.get(runId);
    if (!run || run.userId !== userId) throw AppError.notFound('Generation run');
    return run;
  }

  /** The user's runs, newest first (only those in `state` when given). */
  listRuns(userId: string, filter: { state?: RunState | null }, selection: RunSelection = {}): Promise<GenerationRun[]> {
    return this.deps.prisma.generationRun.findMany({
      ...selection,
      where: { userId, ...(filter.state ? { state: filter.state } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
  }

  /** One of the user's runs as its row, loading what `selection` asks; another user's run is NOT_FOUND, like a missing one. */
  async run(userId: string, runId: string, selection: Omit<RunSelection, 'take' | 'skip' | 'cursor'> = {}): Promise<GenerationRun> {
    const run = await this.deps.prisma.generationRun.findFirst({ ...selection, where: { id: runId, userId } });
    if (!run) throw AppError.notFound('Generation run');
    return run;
  }

  /** The user's newest run (for a stream resumed without a run id). */
  async latest(userId: string): Promise<GenerationRunRecord | null> {
    return this.deps.store.latest(userId);
  }

  events(runId: string, after = 0, limit = 1000) {
    return this.deps.store.events(runId, after, limit);
  }

  /**
   * Cancels a run: a queued run ends at once; a running one is told to stop (its worker, on any
   * instance, hears it through the pub/sub and, failing that, sees the flag at its next agent).
   * A finished run is a CONFLICT.
   */
  async cancel(userId: string, runId: string): Promise<GenerationRunRecord> {
    await this.get(userId, runId);
    const run = await this.deps.store.requestCancel(runId);
    if (!run || isFinalState(run.state)) throw AppError.conflict(`The run has already ${run?.state === 'completed' ? 'completed' : 'ended'}`);
    if (run.state === 'queued') {
      await endRun(this.deps, runId, {
        state: 'cancelled',
        message: 'Generation cancelled by its owner',
        update: { error: 'Cancelled by its owner' },
        data: { error: 'Cancelled by its owner', reason: 'cancelled' },
      });
    } else {
      await this.deps.pubsub.publish(controlChannel(runId), 'cancel');
    }
    return (await this.deps.store.get(runId)) ?? run;
  }

  /**
   * The run's events after `after`, then live ones until its final event, with heartbeats.
   * `after` beyond the run's last event is a client mistake (BAD_USER_INPUT).
   */
  /**
   * The run's events after `after`, then live ones. With the follower's credential, the stream
   * ends when the credential is revoked or expires (checked every GENERATION_HEARTBEAT).
   */
  async follow(userId: string, runId: string, after: number, credential?: Credential): Promise<AsyncIterableIterator<ProgressItem>> {
    if (!Number.isInteger(after) || after < 0) throw AppError.badInput('after', 'must be a non-negative integer');
    // The slot first: a user past the cap is refused before the run is even read.
    const release = this.deps.streams.take(userId);
    try {
      const run = await this.get(userId, runId);
      if (after > run.lastSequence) throw AppError.badInput('after', `is beyond the run's last event (${run.lastSequence})`);
      // The client has seen the end of a finished run: nothing will ever follow.
      if (isFinalState(run.state) && after >= run.lastSequence) {
        release();
        return emptyIterator();
      }
      const items = this.deps.hub.follow(runId, after);
      const unwatch = credential ? this.deps.credentials.watch(credential, () => void items.return?.()) : undefined;
      return endingWith(items, () => {
        unwatch?.();
        release();
      });
    } catch (error) {
      release();
      throw error;
    }
  }
}

export function validateOptions(input: GenerationOptionsInput): GenerationOptions {
  const days = input.days ?? GENERATION_LIMITS.days.default;
  if (!Number.isInteger(days) || days < GENERATION_LIMITS.days.min || days > GENERATION_LIMITS.days.max) {
    throw AppError.badInput('days', `must be an integer from ${GENERATION_LIMITS.days.min} to ${GENERATION_LIMITS.days.max}`);
  }
  const requested = input.sources ?? GENERATION_SOURCES;
  if (requested.length === 0) throw AppError.badInput('sources', 'must name at least one source');
  for (const source of requested) {
    if (!GENERATION_SOURCES.includes(source))
      throw AppError.badInput('sources', `unknown source ${JSON.stringify(source)}; use ${GENERATION_SOURCES.join(', ')}`);
  }
  // Stored in the canonical order, each once.
  const sources = GENERATION_SOURCES.filter((source) => requested.includes(source));
  const length = input.length ?? 'medium';
  if (!SUMMARY_LENGTHS.includes(length)) throw AppError.badInput('length', `must be one of ${SUMMARY_LENGTHS.join(', ')}`);
  return { days, sources, length };
}

function emptyIterator<T>(): AsyncIterableIterator<T> {
  return (async function* () {})();
}
