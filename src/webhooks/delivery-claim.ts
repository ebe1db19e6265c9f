/**
 * The webhook queue's claim (delivery-worker.ts runs what it claims). One statement takes as many
 * due jobs as the worker has room for, oldest first, within each endpoint's and owner's free send
 * slots on this instance, and returns each with its delivery and endpoint: the worker's round trips
 * per delivery are this claim's share, the attempt's record and the job's completion.
 *
 * - Slots: at most WEBHOOK_ENDPOINT_CONCURRENCY attempts per endpoint and WEBHOOK_MAX_IN_FLIGHT
 *   per owner (an organization, or a user's own endpoints) run at once here. Jobs of an endpoint
 *   or owner at its cap are skipped without being claimed (their payload names both); among the
 *   others, the n-th job of an endpoint (or owner) is claimed only when it has n free slots. A
 *   claimed job's slot is reserved as it is claimed; the handler releases it.
 * - A claim that skips a busy owner scans that owner's whole backlog, so while the same caps are
 *   full and the last claim found nothing, it is not run again before the poll interval has
 *   passed or a delivery has been written here (`enqueued`).
 */
import { CLAIMED_BY, JobQueue, oldestFirst, RETURNING_OF, type JobRow, type SqlClient } from '../jobs/job-queue.ts';
import type { WebhookJobPayload } from './dispatch.ts';
import { SendSlots } from './send-slots.ts';

/** A delivery with what sending it needs of its endpoint. */
export interface DeliveryRow {
  id: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  payload: unknown;
  status: string;
  attemptCount: number;
  url: string;
  enabled: boolean;
  organizationId: string | null;
  userId: string;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

/** DeliveryRow's fields and their SQL (delivery `d`, its endpoint `e`): one list for the load and the claim. */
const DELIVERY_FIELDS: ReadonlyArray<[keyof DeliveryRow, string]> = [
  ['id', 'd.id'],
  ['endpointId', 'd."endpointId"'],
  ['messageId', 'd."messageId"'],
  ['eventType', 'd."eventType"'],
  ['payload', 'd.payload'],
  ['status', 'd.status'],
  ['attemptCount', 'd."attemptCount"'],
  ['url', 'e.url'],
  ['enabled', 'e.enabled'],
  ['organizationId', 'e."organizationId"'],
  ['userId', 'e."userId"'],
  ['secretCiphertext', 'e."secretCiphertext"'],
  ['previousSecretCiphertext', 'e."previousSecretCiphertext"'],
  ['previousSecretExpiresAt', 'e."previousSecretExpiresAt"'],
];
const DELIVERY_JOIN = `"WebhookDelivery" d JOIN "WebhookEndpoint" e ON e.id = d."endpointId"`;

/** One delivery and its endpoint, or null when the delivery is gone. */
export async function loadDelivery(sql: SqlClient, deliveryId: string): Promise<DeliveryRow | null> {
  const { rows } = await sql.query<DeliveryRow>(
    `SELECT ${DELIVERY_FIELDS.map(([name, column]) => `${column} AS "${name}"`).join(', ')} FROM ${DELIVERY_JOIN} WHERE d.id = $1`,
    [deliveryId],
  );
  return rows[0] ?? null;
}

/** How many queued jobs one claim looks at, per job it has room for (the rest may be of endpoints at their cap). */
const CANDIDATES_PER_SLOT = 4;
/** A deliveryId that is not a UUID finds no delivery (the cast would fail the whole claim). */
const DELIVERY_ID_SQL = `CASE WHEN claimed.payload->>'deliveryId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (claimed.payload->>'deliveryId')::uuid END`;

export class WebhookJobQueue extends JobQueue {
  private readonly reserved = new Map<string, () => void>();
  private readonly loaded = new Map<string, DeliveryRow | null>();
  private lastEmpty: { full: string; at: number } | null = null;

  constructor(
    private readonly sql: SqlClient,
    private readonly slots: SendSlots,
    private readonly pollIntervalMs: number,
  ) {
    super(sql);
  }

  /** Deliveries were just written: the next claim looks again. */
  enqueued(): void {
    this.lastEmpty = null;
  }

  override async claimMany<P = unknown>(queue: string, workerId: string, max: number): Promise<JobRow<P>[]> {
    const room = this.slots.room();
    const fullKey = room.fullEndpoints.length + room.fullOwners.length > 0 ? JSON.stringify([room.fullEndpoints, room.fullOwners]) : '';
    if (fullKey && this.lastEmpty?.full === fullKey && Date.now() - this.lastEmpty.at < this.pollIntervalMs) return [];
    const limit = Math.max(1, Math.floor(max));
    const { rows } = await this.sql.query<JobRow<P> & { delivery: DeliveryRow | null }>(
      `WITH candidates AS MATERIALIZED (
         SELECT id, "runAt", "createdAt", COALESCE(payload->>'endpointId', '') AS endpoint, COALESCE(payload->>'owner', '') AS owner
           FROM "Job"
          WHERE queue = $1 AND state = 'queued' AND "runAt" < now() + interval '1 millisecond'
            AND NOT (COALESCE(payload->>'endpointId', '') = ANY($3::text[]))
            AND NOT (COALESCE(payload->>'owner', '') = ANY($4::text[]))
          ORDER BY "runAt", "createdAt"
          FOR UPDATE SKIP LOCKED
          LIMIT $5),
       ranked AS (
         SELECT id, "runAt", "createdAt", endpoint, owner,
                row_number() OVER (PARTITION BY endpoint ORDER BY "runAt", "createdAt") AS nth_of_endpoint,
                row_number() OVER (PARTITION BY owner ORDER BY "runAt", "createdAt") AS nth_of_owner
           FROM candidates),
       chosen AS (
         SELECT id FROM ranked
          WHERE nth_of_endpoint <= COALESCE(($6::jsonb->>endpoint)::int, $7::int)
            AND nth_of_owner <= COALESCE(($8::jsonb->>owner)::int, $9::int)
          ORDER BY "runAt", "createdAt"
          LIMIT $10),
       claimed AS (
         UPDATE "Job" j
            SET ${CLAIMED_BY('$2')}
           FROM chosen WHERE j.id = chosen.id
         RETURNING ${RETURNING_OF('j')})
       SELECT claimed.*, CASE WHEN d.id IS NULL THEN NULL ELSE json_build_object(${DELIVERY_FIELDS.map(([name, column]) => `'${name}', ${column}`).join(', ')}) END AS delivery
         FROM claimed LEFT JOIN ${DELIVERY_JOIN} ON d.id = ${DELIVERY_ID_SQL}`,
      [
        queue,
        workerId,
        room.fullEndpoints,
        room.fullOwners,
        limit * CANDIDATES_PER_SLOT,
        JSON.stringify(room.freeByEndpoint),
        room.freePerEndpoint,
        JSON.stringify(room.freeByOwner),
        room.freePerOwner,
        limit,
      ],
    );
    if (rows.length === 0) {
      this.lastEmpty = fullKey ? { full: fullKey, at: Date.now() } : null;
      return [];
    }
    const jobs: JobRow<P>[] = [];
    for (const { delivery, ...job } of rows) {
      const { endpointId, owner } = (job.payload ?? {}) as WebhookJobPayload;
      const release = endpointId && owner ? this.slots.take(endpointId, owner) : null;
      if (release) this.reserved.set(job.id, release);
      this.loaded.set(job.id, delivery && withDates(delivery));
      jobs.push(job);
    }
    return oldestFirst(jobs);
  }

  /** The send slot reserved when `jobId` was claimed (taken from the queue: the handler releases it). */
  reservation(jobId: string): (() => void) | undefined {
    const release = this.reserved.get(jobId);
    this.reserved.delete(jobId);
    return release;
  }

  /** The delivery read with `jobId`'s claim (null: gone; undefined: not read, load it). Taken from the queue. */
  delivery(jobId: string): DeliveryRow | null | undefined {
    const row = this.loaded.get(jobId);
    this.loaded.delete(jobId);
    return row;
  }
}

/** json_build_object gives timestamps as text. */
function withDates(row: DeliveryRow): DeliveryRow {
  const expires = row.previousSecretExpiresAt as Date | string | null;
  return { ...row, previousSecretExpiresAt: expires === null ? null : new Date(expires) };
}
