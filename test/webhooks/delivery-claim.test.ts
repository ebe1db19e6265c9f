/**
 * The webhook queue's batch claim (src/webhooks/delivery-claim.ts) on a real database: one claim
 * takes as many jobs as asked within each endpoint's and owner's free send slots, oldest first,
 * reserves those slots, skips the jobs of a full endpoint or owner without claiming them, and reads
 * each job's delivery and endpoint with it (previousSecretExpiresAt a Date, a missing or malformed
 * deliveryId read as no delivery, never a failed claim).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookJobQueue } from '../../src/webhooks/delivery-claim.ts';
import { WEBHOOK_QUEUE, type WebhookJobPayload } from '../../src/webhooks/dispatch.ts';
import { SendSlots, WEBHOOK_ENDPOINT_CONCURRENCY } from '../../src/webhooks/send-slots.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const PER_OWNER = 6;
let db: TestDatabase;
let userId: string;
let slots: SendSlots;
let queue: WebhookJobQueue;

beforeAll(async () => {
  db = await createTestDatabase();
  userId = (await db.prisma.user.create({ data: { email: `claim-${Date.now()}@example.com`, name: 'Claim' } })).id;
}, 120_000);
afterAll(() => db?.cleanup());
beforeEach(async () => {
  await db.pool.query('DELETE FROM "Job"');
  slots = new SendSlots(PER_OWNER);
  queue = new WebhookJobQueue(db.pool, slots, 1000);
});

/** An endpoint with one pending delivery per job enqueued for it, `ageMs` old and older in order. */
async function endpointWithJobs(owner: string, jobs: number, ageMs: number): Promise<{ endpointId: string; jobIds: string[]; deliveryIds: string[] }> {
  const endpoint = await db.prisma.webhookEndpoint.create({
    data: {
      userId,
      url: 'https://receiver.example/hook',
      events: ['webhook.test'],
      secretCiphertext: 'sealed',
      previousSecretCiphertext: 'old',
      previousSecretExpiresAt: new Date('2030-01-02T03:04:05.678Z'),
    },
  });
  const jobIds: string[] = [];
  const deliveryIds: string[] = [];
  for (let i = 0; i < jobs; i++) {
    const delivery = await db.prisma.webhookDelivery.create({
      data: { endpointId: endpoint.id, messageId: `msg_${i}`, eventType: 'webhook.test', payload: { type: 'webhook.test', n: i }, status: 'pending' },
    });
    const payload: WebhookJobPayload = { deliveryId: delivery.id, attempt: 1, endpointId: endpoint.id, owner };
    jobIds.push((await queue.enqueue(WEBHOOK_QUEUE, payload, { runAt: new Date(Date.now() - ageMs + i) })).id);
    deliveryIds.push(delivery.id);
  }
  return { endpointId: endpoint.id, jobIds, deliveryIds };
}

describe('the webhook claim', () => {
  it('takes the oldest jobs within each endpoint’s free slots, reserves them, and reads each delivery with its job', async () => {
    const busy = await endpointWithJobs('org-a', WEBHOOK_ENDPOINT_CONCURRENCY + 2, 60_000); // the oldest, more than its slots
    const other = await endpointWithJobs('org-b', 2, 30_000);
    const claimed = await queue.claimMany<WebhookJobPayload>(WEBHOOK_QUEUE, 'w', 20);
    expect(claimed.map((job) => job.id)).toEqual([...busy.jobIds.slice(0, WEBHOOK_ENDPOINT_CONCURRENCY), ...other.jobIds]);
    expect(slots.room().fullEndpoints).toEqual([busy.endpointId]);
    // Each job's delivery, read with the claim, once.
    const first = queue.delivery(claimed[0]!.id);
    expect(first).toMatchObject({
      id: busy.deliveryIds[0],
      endpointId: busy.endpointId,
      status: 'pending',
      attemptCount: 0,
      enabled: true,
      userId,
      url: 'https://receiver.example/hook',
    });
    expect(first!.payload).toEqual({ type: 'webhook.test', n: 0 });
    expect(first!.previousSecretExpiresAt).toEqual(new Date('2030-01-02T03:04:05.678Z'));
    expect(queue.delivery(claimed[0]!.id)).toBeUndefined();

    // The busy endpoint's other jobs wait, queued, until a slot is released.
    expect(await queue.claimMany(WEBHOOK_QUEUE, 'w', 20)).toEqual([]);
    queue.reservation(claimed[0]!.id)!();
    queue.enqueued();
    const next = await queue.claimMany(WEBHOOK_QUEUE, 'w', 20);
    expect(next.map((job) => job.id)).toEqual([busy.jobIds[WEBHOOK_ENDPOINT_CONCURRENCY]]);
  });

  it('keeps each owner within WEBHOOK_MAX_IN_FLIGHT across its endpoints', async () => {
    const endpoints = [];
    for (let i = 0; i < 3; i++) endpoints.push(await endpointWithJobs('org-a', 3, 60_000 - i * 10_000));
    const lone = await endpointWithJobs('org-b', 1, 1_000);
    const claimed = await queue.claimMany<WebhookJobPayload>(WEBHOOK_QUEUE, 'w', 20);
    const ofOwnerA = claimed.filter((job) => job.payload.owner === 'org-a');
    expect(ofOwnerA).toHaveLength(PER_OWNER);
    expect(ofOwnerA.map((job) => job.id)).toEqual([...endpoints[0]!.jobIds, ...endpoints[1]!.jobIds]); // oldest first
    expect(claimed.map((job) => job.id)).toContain(lone.jobIds[0]);
    expect(slots.room().fullOwners).toEqual(['org-a']);
  });

  it('a job without a delivery (gone, or a malformed id) is claimed with none, and the claim still succeeds', async () => {
    const gone = await queue.enqueue(WEBHOOK_QUEUE, { deliveryId: '00000000-0000-4000-8000-000000000000', attempt: 1 });
    const malformed = await queue.enqueue(WEBHOOK_QUEUE, { deliveryId: 'not-a-uuid', attempt: 1 });
    const claimed = await queue.claimMany(WEBHOOK_QUEUE, 'w', 5);
    expect(claimed.map((job) => job.id).sort()).toEqual([gone.id, malformed.id].sort());
    expect(queue.delivery(gone.id)).toBeNull();
    expect(queue.delivery(malformed.id)).toBeNull();
    expect(queue.reservation(gone.id)).toBeUndefined(); // an older payload names no endpoint: the sender takes its slot
  });
});
