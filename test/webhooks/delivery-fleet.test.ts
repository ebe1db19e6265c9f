/**
 * Webhook delivery in a fleet (issue 27): two service processes on one PostgreSQL schema and one
 * DATA_DIR. An upload through REST emits `file.processed`; the instance that claimed its delivery
 * is killed with SIGKILL while its receiver holds the request open; the other instance notices the
 * stale lease (JOB_STALE_AFTER, 3 s here), sends the same attempt again (same webhook-id) and
 * records it: the delivery ends `succeeded`, with one attempt, recorded by the survivor. The
 * receiver verifies both requests with the `standardwebhooks` npm package.
 *
 * PostgreSQL only: two processes cannot open the same embedded database.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithCli, startChildService, type ChildService } from '../helpers/child-service.ts';
import { restUpload, sample } from '../helpers/upload.ts';
import { encryptSecret, newWebhookSecret, webhookSecretKey } from '../../src/webhooks/secrets.ts';
import { startReceiver, verified, type Receiver } from './receiver.ts';

const onPostgres = Boolean(process.env.DATABASE_URL?.trim());
const SECRET_KEY = 'webhook-fleet-test-key-0123456789abcdef-xyz';
const INSTANCE_ENV: Record<string, string> = {
  // http: receivers on loopback (production takes https: only)
  NODE_ENV: 'test',
  JOB_STALE_AFTER: '3s',
  WORKER_POLL_INTERVAL: '200ms',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_SECRET_KEY: SECRET_KEY,
};

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!onPostgres)('a webhook delivery whose instance is killed (PostgreSQL only)', () => {
  let first: ChildService;
  let second: ChildService;
  let database: pg.Client;
  let receiver: Receiver;

  beforeAll(async () => {
    first = await startChildService({ env: INSTANCE_ENV });
    second = await startChildService({ reuse: { dataDir: first.dataDir, tmpDir: first.tmpDir, env: first.env }, env: INSTANCE_ENV });
    const schema = new URL(first.env.DATABASE_URL).searchParams.get('schema')!;
    database = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path="${schema}"` });
    await database.connect();
    // The first request hangs (its instance is killed meanwhile); every later one is answered 200.
    receiver = await startReceiver((n) => (n === 0 ? 'hang' : 200));
  }, 240_000);

  afterAll(async () => {
    await database?.end();
    await receiver?.close();
    await second?.cleanup().catch(() => {});
    await first?.cleanup();
  }, 60_000);

  it('is finished by the other instance: same webhook-id, one attempt, recorded by the survivor', async () => {
    const user = await createUserWithCli(first, ['write:upload', 'read:pnl']);
    const secret = newWebhookSecret();
    const { rows } = await database.query<{ id: string }>(
      `INSERT INTO "WebhookEndpoint" (id, "organizationId", "userId", url, events, "secretCiphertext", "updatedAt")
       VALUES (gen_random_uuid(), $1, $2, $3, ARRAY['file.processed'], $4, now()) RETURNING id`,
      [user.orgId, user.userId, receiver.url, encryptSecret(secret, webhookSecretKey(SECRET_KEY, first.dataDir))],
    );
    const endpointId = rows[0].id;

    const upload = await restUpload(first.url, user.key, { orgId: user.orgId, file: { name: 'pnl-sample.csv', bytes: await sample('pnl-sample.csv') } });
    expect(upload.status).toBe(201);

    // The receiver holds the first request open: the delivery's job is running on one instance.
    await poll(
      async () => receiver.received.length,
      (n) => n >= 1,
      'the first request',
    );
    const job = await poll(
      async () =>
        (
          await database.query<{ id: string; lockedBy: string | null; state: string }>(
            `SELECT j.id, j."lockedBy", j.state::text AS state FROM "Job" j JOIN "WebhookDelivery" d ON d.id::text = j.payload->>'deliveryId'
              WHERE j.queue = 'webhook' AND d."endpointId" = $1`,
            [endpointId],
          )
        ).rows[0],
      (row) => row?.state === 'running',
      'the delivery job to be running',
    );
    const holderPid = Number(job.lockedBy!.split(':').at(-1));
    const [holder, survivor] = holderPid === first.pid ? [first, second] : [second, first];
    expect(holder.pid).toBe(holderPid);
    holder.process.kill('SIGKILL');
    await holder.exited;

    const delivery = await poll(
      async () =>
        (
          await database.query<{ id: string; status: string; attemptCount: number; lastStatusCode: number | null }>(
            `SELECT id, status, "attemptCount", "lastStatusCode" FROM "WebhookDelivery" WHERE "endpointId" = $1`,
            [endpointId],
          )
        ).rows[0],
      (row) => row?.status !== 'pending',
      'the delivery to end',
    );
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: 200 });
    const attempts = await database.query(`SELECT number, "statusCode", error FROM "WebhookAttempt" WHERE "deliveryId" = $1 ORDER BY number`, [delivery.id]);
    expect(attempts.rows).toEqual([{ number: 1, statusCode: 200, error: null }]);
    const finished = await database.query<{ state: string; attempts: number; lockedBy: string | null; lastError: string | null }>(
      `SELECT state::text AS state, attempts, "lockedBy", "lastError" FROM "Job" WHERE id = $1`,
      [job.id],
    );
    expect(finished.rows[0]).toMatchObject({ state: 'completed', attempts: 2 });
    expect(survivor.process.exitCode).toBeNull();

    // The receiver got the message twice (at least once), both verified, with the same webhook-id.
    expect(receiver.received).toHaveLength(2);
    const [killed, retried] = receiver.received;
    expect(retried.headers['webhook-id']).toBe(killed.headers['webhook-id']);
    expect(verified(secret, killed)).toEqual(verified(secret, retried));
    expect(verified(secret, retried)).toMatchObject({ type: 'file.processed', data: { file: { file_name: 'pnl-sample.csv' } } });
  }, 300_000);
});
