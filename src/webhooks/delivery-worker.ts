/**
 * Sending webhook deliveries (issue 27, docs/webhooks.md#retries): the worker of the `webhook`
 * job queue and its wiring, like the ingest's (src/ingest/ingest-worker.ts).
 *
 * - A job is one attempt of one delivery (`{deliveryId, attempt}`). The queue's lease means two
 *   instances never send the same attempt at once; a job whose instance died (kill -9) is
 *   requeued by the stale sweep and another instance sends it (the receiver may then see the
 *   message twice: at least once, same `webhook-id`).
 * - The attempt: the endpoint's address checked again and pinned (sender.ts), the secret (and the
 *   previous one while a rotation's overlap lasts) decrypted, one POST. Then, in one transaction,
 *   the WebhookAttempt row, the delivery (attemptCount, lastStatusCode, status, nextAttemptAt,
 *   completedAt), the next attempt's job when one is due on the schedule (WEBHOOK_RETRY_SCHEDULE),
 *   and the endpoint's failing run: a success clears `failingSince`, a failure starts it, and an
 *   endpoint failing for WEBHOOK_DISABLE_AFTER_MS is disabled with its reason.
 * - A job that is not the delivery's next attempt (a duplicate, or the delivery already ended) does
 *   nothing; the attempt row's (deliveryId, number) key and the delivery's expected attemptCount
 *   make a late writer (its lease lost mid-attempt) record nothing.
 * - Nothing waits on a receiver but its own slot: at most WEBHOOK_ENDPOINT_CONCURRENCY attempts per
 *   endpoint, WEBHOOK_MAX_IN_FLIGHT per owner (organization, or a user's own endpoints) and
 *   WEBHOOK_CONCURRENCY in all run at once on an instance. The claim (delivery-claim.ts) takes
 *   only jobs whose endpoint and owner have a free slot, reserves it, and reads each job's delivery
 *   with it. A job that still finds its endpoint or owner full (a job of an older payload) is put
 *   back for a moment (a new job, `WEBHOOK_DEFER_MS` later).
 * - A disabled endpoint gets nothing but `webhook.test`: its pending deliveries end `failed` with an
 *   attempt saying so (not sent).
 * - `now` (the clock of failingSince and of the 5 days) can be injected, for tests.
 */
import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DatabaseOutageLog } from '../db/outage-log.ts';
import { JobWorker } from '../jobs/job-worker.ts';
import { workerOptionsFor } from '../jobs/worker-options.ts';
import { completeJobSql, type JobQueue } from '../jobs/job-queue.ts';
import type { Logger } from '../log.ts';
import type { HostResolver } from './address-guard.ts';
import { WEBHOOK_JOB_MAX_ATTEMPTS, WEBHOOK_QUEUE, WebhookDispatcher, type WebhookJobPayload } from './dispatch.ts';
import { decryptSecret } from './secrets.ts';
import { sendWebhook, type WebhookOutcome } from './sender.ts';
import { loadDelivery, WebhookJobQueue, type DeliveryRow } from './delivery-claim.ts';
import { SendSlots } from './send-slots.ts';

/** An endpoint failing (no success) for this long is disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
/** How long a job whose endpoint or owner is at its cap waits before it is tried again. */
const WEBHOOK_DEFER_MS = 250;

export interface WebhookDeliveryWiring {
  config: Config;
  db: Database;
  jobs: JobQueue;
  log: Logger;
  /** The AES key of the stored secrets (webhookSecretKey of secrets.ts). */
  secretKey: Buffer;
  /** `gateway-webhooks/<version>`. */
  userAgent: string;
  databaseOutage?: DatabaseOutageLog;
  /** The clock of `failingSince` and of disabling (tests move it on). */
  now?: () => Date;
  /** Per attempt; default WEBHOOK_TIMEOUT_MS (tests shorten it). */
  timeoutMs?: number;
  /** Replaces DNS (tests). */
  resolver?: HostResolver;
}

export interface WebhookDelivering {
  dispatcher: WebhookDispatcher;
  worker: JobWorker<WebhookJobPayload>;
}

/** The dispatcher (what emits) and the worker (what sends), wired to each other. */
export function createWebhookDelivery(wiring: WebhookDeliveryWiring): WebhookDelivering {
  const log = wiring.log.child({ component: 'webhooks' });
  const dispatcher = new WebhookDispatcher({ pool: wiring.db.pool, log });
  const slots = new SendSlots(wiring.config.webhooks.maxInFlightPerOwner);
  const jobs = new WebhookJobQueue(wiring.db.pool, slots, wiring.config.worker.pollIntervalMs);
  const sender = new DeliverySender({ ...wiring, log, slots });
  const worker = new JobWorker<WebhookJobPayload>({
    queue: WEBHOOK_QUEUE,
    ...workerOptionsFor(wiring.config, wiring.db, wiring.databaseOutage),
    jobs,
    log,
    concurrency: wiring.config.webhooks.concurrency,
    handle: async (job, signal) => {
      const reserved = jobs.reservation(job.id);
      try {
        return await sender.attempt(job.payload, signal, {
          reserved,
          delivery: jobs.delivery(job.id),
          job: { id: job.id, workerId: job.lockedBy, attempt: job.attempts },
        });
      } finally {
        reserved?.();
      }
    },
    // A database error while recording: the attempt is run again (at least once), with the queue's backoff.
    retryPolicy: { retry: true },
    onFailure: (job, error) => sender.interrupted(job.payload, `could not be recorded: ${error instanceof Error ? error.message : String(error)}`),
    onAbandoned: async (job, outcome) => {
      if (outcome === 'failed') await sender.interrupted(job.payload, 'interrupted: the instance sending it stopped, repeatedly');
    },
  });
  dispatcher.wake = () => {
    jobs.enqueued();
    worker.wake();
  };
  sender.wake = () => worker.wake();
  return { dispatcher, worker };
}

type SenderDeps = WebhookDeliveryWiring & { slots: SendSlots };

/** The queue's job of an attempt, as its worker holds it (completeJobSql's owner). */
interface HeldJob {
  id: string;
  workerId: string | null;
  attempt: number;
}

/** What the claim brought with a job: its send slot, its delivery (null: gone), the job itself. */
interface ClaimedWith {
  reserved?: () => void;
  delivery?: DeliveryRow | null;
  job?: HeldJob;
}

class DeliverySender {
  wake: () => void = () => {};
  private readonly pool: pg.Pool;
  private readonly schedule: readonly number[];
  private readonly now: () => Date;

  constructor(private readonly deps: SenderDeps) {
    this.pool = deps.db.pool;
    this.schedule = deps.config.webhooks.retryScheduleMs;
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * One attempt of one delivery (a job of the queue), in the send slot reserved by the claim and
   * with the delivery read by the claim, when there are.
   */
  async attempt(job: WebhookJobPayload, signal: AbortSignal, claimed: ClaimedWith = {}): Promise<void | 'completed'> {
    const { reserved } = claimed;
    const row = claimed.delivery !== undefined ? claimed.delivery : await loadDelivery(this.pool, job.deliveryId);
    if (!row || row.status !== 'pending' || row.attemptCount !== job.attempt - 1) return; // ended, or a duplicate job
    if (!row.enabled && row.eventType !== 'webhook.test') {
      await this.record(row, job.attempt, this.now(), notSent('the endpoint is disabled'), { final: true });
      return;
    }
    const release = reserved ?? this.deps.slots.take(row.endpointId, ownerKey(row));
    if (!release) {
      await this.deps.jobs.enqueue(
        WEBHOOK_QUEUE,
        { ...job, endpointId: row.endpointId, owner: ownerKey(row) },
        { runAt: new Date(Date.now() + WEBHOOK_DEFER_MS), maxAttempts: WEBHOOK_JOB_MAX_ATTEMPTS },
      );
      return;
    }
    const startedAt = this.now();
    let outcome: WebhookOutcome;
    try {
      outcome = await this.send(row, startedAt);
    } finally {
      release();
    }
    if (signal.aborted) return; // taken over (or stopping): the job's new holder sends and records it
    return this.record(row, job.attempt, startedAt, outcome, { job: claimed.job });
  }

  /** A job that could not run to its end (its attempts used up): recorded as a failed attempt. */
  async interrupted(job: WebhookJobPayload, why: string): Promise<void> {
    const row = await loadDelivery(this.pool, job.deliveryId);
    if (!row || row.status !== 'pending' || row.attemptCount !== job.attempt - 1) return;
    await this.record(row, job.attempt, this.now(), { ok: false, statusCode: null, durationMs: 0, error: why, responseExcerpt: null });
  }

  private async send(row: DeliveryRow, startedAt: Date): Promise<WebhookOutcome> {
    let secrets: string[];
    try {
      secrets = this.secretsOf(row, startedAt);
    } catch {
      return notSent('its signing secret could not be decrypted (was WEBHOOK_SECRET_KEY changed?)');
    }
    const { config, userAgent, timeoutMs, resolver } = this.deps;
    return sendWebhook({
      url: row.url,
      messageId: row.messageId,
      body: JSON.stringify(row.payload),
      secrets,
      guard: { allowPrivate: config.webhooks.allowPrivate, production: config.env === 'production' },
      userAgent,
      timeoutMs,
      resolver,
    });
  }

  /** The current secret, and the previous one until its overlap ends. */
  private secretsOf(row: DeliveryRow, at: Date): string[] {
    const { secretKey } = this.deps;
    const secrets = [decryptSecret(row.secretCiphertext, secretKey)];
    if (row.previousSecretCiphertext && row.previousSecretExpiresAt && row.previousSecretExpiresAt > at) {
      secrets.push(decryptSecret(row.previousSecretCiphertext, secretKey));
    }
    return secrets;
  }

  /**
   * The attempt, the delivery's new state, its next attempt's job and the endpoint's failing run,
   * in one statement (atomic, one round trip: the embedded database serves one query at a time;
   * every sub-statement of a WITH runs, read or not).
   * Nothing is written when this attempt was already recorded (by a previous holder of the job).
   * With `opts.job` (the queue's job, as held), the job is completed in the same statement:
   * 'completed' says it was (the worker then does not complete it again).
   */
  private async record(
    row: DeliveryRow,
    number: number,
    startedAt: Date,
    outcome: WebhookOutcome,
    opts: { final?: boolean; job?: HeldJob } = {},
  ): Promise<void | 'completed'> {
    // schedule[0] was the first attempt's delay; a final outcome (the endpoint is disabled) is not retried.
    const retryInMs = outcome.ok || opts.final ? undefined : this.schedule[number];
    const status = outcome.ok ? 'succeeded' : retryInMs === undefined ? 'failed' : 'pending';
    const { rows } = await this.pool.query<{ written: number; completed: number; failingSince: Date | null; enabled: boolean | null }>(
      `WITH attempt AS (
         INSERT INTO "WebhookAttempt" (id, "deliveryId", number, "startedAt", "durationMs", "statusCode", error, "responseExcerpt")
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT ("deliveryId", number) DO NOTHING
         RETURNING "deliveryId"),
       delivery AS (
         UPDATE "WebhookDelivery"
            SET "attemptCount" = $2, "lastStatusCode" = $5, status = $8,
                "nextAttemptAt" = CASE WHEN $9::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $9::float8 / 1000.0) END,
                "completedAt" = CASE WHEN $8 = 'pending' THEN NULL ELSE now() END, "updatedAt" = now()
          WHERE id = (SELECT "deliveryId" FROM attempt) AND status = 'pending' AND "attemptCount" = $2 - 1
          RETURNING id, "nextAttemptAt"),
       next AS (
         INSERT INTO "Job" (id, queue, payload, state, attempts, "maxAttempts", "runAt", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), '${WEBHOOK_QUEUE}', jsonb_build_object('deliveryId', id, 'attempt', $2 + 1, 'endpointId', $11::text, 'owner', $13::text),
                'queued', 0, ${WEBHOOK_JOB_MAX_ATTEMPTS}, "nextAttemptAt", now(), now()
           FROM delivery WHERE "nextAttemptAt" IS NOT NULL
         RETURNING id),
       endpoint AS (
         UPDATE "WebhookEndpoint"
            SET "failingSince" = CASE WHEN $10::boolean THEN NULL ELSE COALESCE("failingSince", $3) END, "updatedAt" = now()
          WHERE id = $11::text::uuid AND EXISTS (SELECT 1 FROM delivery) AND NOT $12::boolean AND (NOT $10::boolean OR "failingSince" IS NOT NULL)
          RETURNING "failingSince", enabled),
       done AS (${completeJobSql('$14', '$15', '$16')} RETURNING id)
       SELECT (SELECT count(*)::int FROM delivery) AS written, (SELECT count(*)::int FROM done) AS completed,
              (SELECT "failingSince" FROM endpoint) AS "failingSince", (SELECT enabled FROM endpoint) AS enabled`,
      [
        row.id,
        number,
        startedAt,
        outcome.durationMs,
        outcome.statusCode,
        outcome.error,
        outcome.responseExcerpt,
        status,
        retryInMs ?? null,
        outcome.ok,
        row.endpointId,
        opts.final ?? false,
        ownerKey(row),
        opts.job?.id ?? null,
        opts.job?.workerId ?? null,
        opts.job?.attempt ?? null,
      ],
    );
    const result = rows[0];
    const completed = result?.completed ? 'completed' : undefined;
    if (!result || result.written === 0) return completed;
    if (!outcome.ok && result.enabled && result.failingSince) await this.disableWhenFailingTooLong(row.endpointId, result.failingSince, startedAt, outcome);
    // A retry due sooner than the next poll: poll then.
    if (retryInMs !== undefined && retryInMs < this.deps.config.worker.pollIntervalMs) setTimeout(() => this.wake(), retryInMs).unref();
    return completed;
  }

  /** An endpoint failing for WEBHOOK_DISABLE_AFTER_MS is disabled, with the reason its owner sees. */
  private async disableWhenFailingTooLong(endpointId: string, failingSince: Date, at: Date, outcome: WebhookOutcome): Promise<void> {
    if (at.getTime() - failingSince.getTime() < WEBHOOK_DISABLE_AFTER_MS) return;
    const reason = `Disabled ${at.toISOString()}: every delivery has failed since ${failingSince.toISOString()} (5 days or more); the last error: ${outcome.error ?? 'unknown'}. Fix the receiver, then enable the endpoint again.`;
    const { rowCount } = await this.pool.query(
      `UPDATE "WebhookEndpoint" SET enabled = false, "disabledReason" = $2, "updatedAt" = now() WHERE id = $1 AND enabled`,
      [endpointId, reason],
    );
    if (rowCount) this.deps.log.warn({ endpointId, reason }, 'webhook endpoint disabled');
  }
}

/** The owner key a job's payload carries (dispatch.ts OWNER_KEY_SQL). */
function ownerKey(row: Pick<DeliveryRow, 'organizationId' | 'userId'>): string {
  return row.organizationId ?? `user:${row.userId}`;
}

function notSent(why: string): WebhookOutcome {
  return { ok: false, statusCode: null, durationMs: 0, error: `not sent: ${why}`, responseExcerpt: null };
}
