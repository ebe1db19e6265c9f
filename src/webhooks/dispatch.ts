/**
 * Turning an event into deliveries (issue 27, docs/webhooks.md#delivery-and-signatures): one
 * WebhookDelivery row per subscribed endpoint and one job of the `webhook` queue per delivery,
 * written together by one SQL statement (a job exists exactly when its delivery does, and an
 * instance that stops right after loses nothing). Sending is the delivery worker's
 * (src/webhooks/delivery-worker.ts): the caller's action never waits for a receiver.
 *
 * Who receives an event: an organization's endpoints for an organization's event
 * (`organizationId`), a user's own endpoints for a user's event (`userId`), and every
 * organization's endpoints subscribed to it for a service-wide event (neither: `selftest.failed`).
 * Only enabled endpoints, subscribed to the type. Access checks are the caller's (A's endpoint
 * service checks the viewer before `sendTest` and `redeliver`).
 */
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql-client.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { WebhookEventType } from './events.ts';

/** The job queue of deliveries; a job is one attempt of one delivery. */
export const WEBHOOK_QUEUE = 'webhook';

/**
 * A job's payload: which delivery, and which attempt of it (1-based) the job is; its endpoint and
 * owner (an organization's id, or `user:<id>`) let a worker skip the jobs of an endpoint or owner
 * already at its cap of sends at once without claiming them (delivery-worker.ts).
 */
export interface WebhookJobPayload {
  deliveryId: string;
  attempt: number;
  endpointId?: string;
  owner?: string;
}

/** SQL: the owner key of endpoint row `e` (the organization, or the user for a user's own endpoint). */
const OWNER_KEY_SQL = `COALESCE(e."organizationId"::text, 'user:' || e."userId"::text)`;

/** How often a job is retried when its instance dies or the database fails under it (not the receiver's failures: those are the schedule's). */
export const WEBHOOK_JOB_MAX_ATTEMPTS = 3;

interface WebhookEvent {
  type: WebhookEventType;
  data: object;
  organizationId?: string;
  userId?: string;
}

/** The body sent: `{type, timestamp, data}`. */
interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: object;
}

/** A Standard Webhooks message id: `msg_` and a UUID's 32 hex digits. */
function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** The INSERT of a delivery's first job, from the rows of CTE `d` (the deliveries' ids and endpoints). */
const ENQUEUE_FIRST_ATTEMPT = `
  INSERT INTO "Job" (id, queue, payload, state, attempts, "maxAttempts", "runAt", "createdAt", "updatedAt")
  SELECT gen_random_uuid(), '${WEBHOOK_QUEUE}',
         jsonb_build_object('deliveryId', d.id, 'attempt', 1, 'endpointId', d."endpointId", 'owner', ${OWNER_KEY_SQL}),
         'queued', 0, ${WEBHOOK_JOB_MAX_ATTEMPTS}, now(), now(), now()
    FROM d JOIN "WebhookEndpoint" e ON e.id = d."endpointId"
  RETURNING payload->>'deliveryId' AS id`;

export class WebhookDispatcher {
  /** Set by the wiring once the worker exists: poll now, a delivery was just written. */
  wake: () => void = () => {};

  constructor(private readonly deps: { pool: SqlClient; log: Logger }) {}

  /**
   * Writes a delivery for each enabled endpoint subscribed to the event, and its job. Never
   * throws: emitting is never the reason an upload, a generation or a self-test fails (an error
   * is logged). Callers need not await it.
   */
  async publish(event: { type: WebhookEventType; data: object; organizationId?: string; userId?: string }): Promise<void> {
    try {
      const ids = await this.deliver(event);
      if (ids.length > 0) this.wake();
    } catch (error) {
      this.deps.log.error(
        { err: error, eventType: event.type, organizationId: event.organizationId, userId: event.userId },
        'could not write webhook deliveries',
      );
    }
  }

  /** A `webhook.test` event to this endpoint, subscribed to it or not, enabled or not. The delivery's id. */
  async sendTest(endpointId: string): Promise<string> {
    const payload = envelope('webhook.test', { endpoint_id: endpointId, message: 'A test event: your endpoint receives and verifies webhooks.' });
    const { rows } = await this.deps.pool.query<{ id: string }>(
      `WITH d AS (
         INSERT INTO "WebhookDelivery" (id, "endpointId", "messageId", "eventType", payload, status, "attemptCount", "nextAttemptAt", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), id, $2, 'webhook.test', $3::jsonb, 'pending', 0, now(), now(), now() FROM "WebhookEndpoint" WHERE id = $1
         RETURNING id, "endpointId")
       ${ENQUEUE_FIRST_ATTEMPT}`,
      [endpointId, newMessageId(), JSON.stringify(payload)],
    );
    return this.woken(rows[0]?.id, 'Webhook endpoint');
  }

  /** The delivery again, as a new pending delivery with the same message id and body. The new delivery's id. */
  async redeliver(deliveryId: string): Promise<string> {
    const { rows } = await this.deps.pool.query<{ id: string }>(
      `WITH d AS (
         INSERT INTO "WebhookDelivery" (id, "endpointId", "messageId", "eventType", payload, status, "attemptCount", "nextAttemptAt", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), "endpointId", "messageId", "eventType", payload, 'pending', 0, now(), now(), now() FROM "WebhookDelivery" WHERE id = $1
         RETURNING id, "endpointId")
       ${ENQUEUE_FIRST_ATTEMPT}`,
      [deliveryId],
    );
    return this.woken(rows[0]?.id, 'Webhook delivery');
  }

  private woken(id: string | undefined, what: string): string {
    if (!id) throw AppError.notFound(what);
    this.wake();
    return id;
  }

  /** One statement: the deliveries of every endpoint that receives the event, and their jobs. */
  private async deliver(event: WebhookEvent): Promise<string[]> {
    const payload = envelope(event.type, event.data);
    const { rows } = await this.deps.pool.query<{ id: string }>(
      `WITH targets AS (
         SELECT id FROM "WebhookEndpoint"
          WHERE enabled AND $1 = ANY(events)
            AND CASE WHEN $4::uuid IS NOT NULL THEN "organizationId" = $4::uuid
                     WHEN $5::uuid IS NOT NULL THEN "organizationId" IS NULL AND "userId" = $5::uuid
                     ELSE "organizationId" IS NOT NULL END),
       d AS (
         INSERT INTO "WebhookDelivery" (id, "endpointId", "messageId", "eventType", payload, status, "attemptCount", "nextAttemptAt", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), id, $2, $1, $3::jsonb, 'pending', 0, now(), now(), now() FROM targets
         RETURNING id, "endpointId")
       ${ENQUEUE_FIRST_ATTEMPT}`,
      [event.type, newMessageId(), JSON.stringify(payload), event.organizationId ?? null, event.organizationId ? null : (event.userId ?? null)],
    );
    return rows.map((row) => row.id);
  }
}

function envelope(type: WebhookEventType, data: object): WebhookPayload {
  return { type, timestamp: new Date().toISOString(), data };
}
