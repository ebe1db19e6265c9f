/**
 * Webhook delivery end to end (issue 27): real receivers (HTTP servers of the test's own, receiver.ts)
 * get each event after the action that causes it — uploads through REST, generations through
 * GraphQL and MCP, a failed self-test — and verify every request with the `standardwebhooks` npm
 * package, never with the service's own signing code. Then the delivery rules: a 500 then 200 is
 * a retry that succeeds, a hanging receiver times out and is retried while another receiver gets
 * its event at once, redelivery keeps the webhook-id, both signatures verify during a rotation's
 * overlap, a name resolving to loopback is refused at delivery, and an endpoint failing for 5
 * days (an injected clock) is disabled.
 *
 * Endpoints are written straight into the database (receiver.ts insertEndpoint), so these tests
 * hold whatever the fronts do; the fronts' own tests are test/webhooks/endpoints*.test.ts.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createAccessToken } from '../helpers/fixtures.ts';
import { graphql, loadSamples, uploadCsv } from '../helpers/returns-data.ts';
import { EVERY_SCOPE, startServerWithUsers } from '../helpers/server-with-users.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { sample, waitForFileStatus } from '../helpers/upload.ts';
import { SelfTestScheduler } from '../../src/scheduler/self-test-scheduler.ts';
import { createWebhookDelivery, WEBHOOK_DISABLE_AFTER_MS } from '../../src/webhooks/delivery-worker.ts';
import { selfTestEvents } from '../../src/webhooks/emitters.ts';
import { encryptSecret, newWebhookSecret, webhookSecretKey } from '../../src/webhooks/secrets.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { WEBHOOK_EVENT_PAYLOADS } from '../../src/webhooks/event-payloads.ts';
import type { WebhookEventType } from '../../src/webhooks/events.ts';
import { deliveriesOf, eventsOf, insertEndpoint, receivedAtLeast, startReceiver, verified, type Receiver } from './receiver.ts';

const SECRET_KEY = 'webhook-delivery-test-key-0123456789abcdef';

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

/** Every event a receiver got has the documented shape: its `data` against the schema the docs and OpenAPI show. */
function expectDocumentedShapes(receiver: Receiver, secret: string): void {
  for (const request of receiver.received) {
    const event = verified(secret, request);
    expect(Object.keys(event).sort()).toEqual(['data', 'timestamp', 'type']);
    const validate = ajv.compile(WEBHOOK_EVENT_PAYLOADS[event.type as WebhookEventType].data);
    expect(validate(event.data), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

let server: TestServer;
let admin: TestUser;
const receivers: Receiver[] = [];

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

beforeAll(async () => {
  ({ server, admin } = await startServerWithUsers(
    { admin: EVERY_SCOPE },
    {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms',
      WEBHOOK_SECRET_KEY: SECRET_KEY,
      // Runs last long enough to be cancelled while they run.
      GENERATION_STEP_DELAY: '20ms',
    },
  ));
}, 120_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
});

function orgEndpoint(url: string, events: string[], user: TestUser = admin) {
  return insertEndpoint(server.services, server.dataDir, { userId: user.userId, organizationId: user.orgId, url, events });
}

function userEndpoint(url: string, events: string[], user: TestUser = admin) {
  return insertEndpoint(server.services, server.dataDir, { userId: user.userId, url, events });
}

async function settled(endpointId: string, count = 1) {
  await expect
    .poll(async () => (await deliveriesOf(server.services, endpointId)).filter((d) => d.status !== 'pending').length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(count);
  return deliveriesOf(server.services, endpointId);
}

describe('events after the actions that cause them', () => {
  it('file.processed and reconciliation.investigate after REST uploads, file.failed after a file with row errors; only to subscribed organization endpoints', async () => {
    const hook = await receiver();
    const endpoint = await orgEndpoint(hook.url, ['file.processed', 'file.failed', 'reconciliation.investigate']);
    const other = await receiver();
    await userEndpoint(other.url, ['generation.completed']); // the same user's own endpoint: no file events

    await loadSamples(server.url, admin.key, admin.orgId);
    const failedUpload = await uploadCsv(
      server.url,
      { 'x-api-key': admin.key },
      admin.orgId,
      'pnl-with-errors.csv',
      (await sample('pnl-with-errors.csv')).toString(),
    );
    expect(failedUpload.status).toBe(201);
    const failedFile = await waitForFileStatus(server.url, admin.key, admin.orgId, failedUpload.body.data.id, ['failed']);

    await receivedAtLeast(hook, 4);
    const processed = eventsOf(hook, endpoint.secret, 'file.processed');
    expect(processed.map(({ event }) => event.data.file.file_name).sort()).toEqual(['performance-sample.csv', 'pnl-sample.csv']);
    expect(processed[0].event.data.file).toMatchObject({ org_id: admin.orgId, status: 'processed' });
    expect(processed[0].event.data.row_errors_count).toBe(0);

    const [failed] = eventsOf(hook, endpoint.secret, 'file.failed');
    expect(failed.event.data.file).toMatchObject({ id: failedFile.id, file_name: 'pnl-with-errors.csv', status: 'failed' });
    expect(failed.event.data.row_errors_count).toBe(failedFile.error_count);
    expect(failed.event.data.row_errors_count).toBeGreaterThan(0);

    const investigate = eventsOf(hook, endpoint.secret, 'reconciliation.investigate');
    expect(investigate).toHaveLength(1);
    const { data } = investigate[0].event;
    expect(data.file.file_name).toBe('performance-sample.csv');
    const acc1001 = data.accounts.find((a: { account_code: string }) => a.account_code === 'ACC-1001');
    expect(acc1001).toMatchObject({ from: '2025-03-18', to: '2025-03-18', rows: 1 });
    expect(acc1001.comparison_url).toBe(`${server.url}/api/returns/comparison?status=investigate&account_code=ACC-1001`);
    expect(data.rows).toBe(data.accounts.reduce((sum: number, a: { rows: number }) => sum + a.rows, 0));
    // The link answers the rows it announces.
    const linked = await fetch(acc1001.comparison_url, { headers: { 'x-api-key': admin.key } }).then((r) => r.json());
    expect(linked.data.map((row: { date: string }) => row.date)).toEqual(['2025-03-18']);

    // Loading the same performance file again changes no comparison row: no new investigate event.
    await loadSamples(server.url, admin.key, admin.orgId);
    await receivedAtLeast(hook, 6);
    await settled(endpoint.id, 6);
    expect(eventsOf(hook, endpoint.secret, 'reconciliation.investigate')).toHaveLength(1);

    // Each request carries the Standard Webhooks headers, JSON and a User-Agent naming the service.
    for (const request of hook.received) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^gateway-webhooks\/\d+\.\d+\.\d+$/);
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    }
    expect(other.received).toHaveLength(0);
    expectDocumentedShapes(hook, endpoint.secret);
  });

  it('generation.completed after runs started through GraphQL and MCP, generation.failed after a cancel; to the user’s own endpoints only', async () => {
    const hook = await receiver();
    const endpoint = await userEndpoint(hook.url, ['generation.completed', 'generation.failed']);
    const orgHook = await receiver();
    await orgEndpoint(orgHook.url, ['file.processed']);

    const started = await graphql(server.url, { 'x-api-key': admin.key }, 'mutation { startGeneration(input: { days: 7 }) { id } }');
    expect(started.body.errors).toBeUndefined();
    const graphqlRun: string = started.body.data.startGeneration.id;

    const token = await createAccessToken(server.services, admin.userId);
    const mcp = await fetch(`${server.url}/api/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start_summary_generation', arguments: { days: 7 } } }),
    }).then((r) => r.json());
    const mcpRun: string = mcp.result.structuredContent.id;

    const third = await graphql(server.url, { 'x-api-key': admin.key }, 'mutation { startGeneration(input: { days: 7 }) { id } }');
    const cancelledRun: string = third.body.data.startGeneration.id;
    const cancelled = await graphql(server.url, { 'x-api-key': admin.key }, 'mutation($id: UUID!) { cancelGeneration(id: $id) { id state } }', {
      id: cancelledRun,
    });
    expect(cancelled.body.errors).toBeUndefined();

    await receivedAtLeast(hook, 3);
    const completed = eventsOf(hook, endpoint.secret, 'generation.completed').map(({ event }) => event.data);
    expect(completed.map((data) => data.run_id).sort()).toEqual([graphqlRun, mcpRun].sort());
    expect(completed[0]).toMatchObject({ state: 'completed', error: null });
    expect(completed[0].run_url).toBe(`${server.url}/api/generate?run_id=${completed[0].run_id}`);
    const [failed] = eventsOf(hook, endpoint.secret, 'generation.failed').map(({ event }) => event.data);
    expect(failed).toMatchObject({ run_id: cancelledRun, state: 'cancelled' });
    expect(orgHook.received).toHaveLength(0);
    expectDocumentedShapes(hook, endpoint.secret);
  });

  it('selftest.failed after a failing self-test run, to organization endpoints that subscribed', async () => {
    const hook = await receiver();
    const endpoint = await orgEndpoint(hook.url, ['selftest.failed']);
    const notSubscribed = await receiver();
    await orgEndpoint(notSubscribed.url, ['file.failed']);
    const { services } = server;
    // The service's scheduler with a check of the test's own that fails, wired as server/app.ts wires it.
    const scheduler = new SelfTestScheduler({
      db: services.db,
      prisma: services.prisma,
      log: services.log,
      cron: '0 0 1 1 *',
      enabled: false,
      checks: [
        { name: 'passes', run: async () => 'fine' },
        {
          name: 'always-fails',
          run: async () => {
            throw new Error('the probe answered 503');
          },
        },
      ],
      onRunFinished: selfTestEvents({ dispatcher: services.webhookDispatcher, pool: services.db.pool, log: services.log, baseUrl: () => server.url }),
    });
    const run = await scheduler.runNow('manual');
    expect(run.status).toBe('failed');
    const [request] = await receivedAtLeast(hook, 1);
    const event = verified(endpoint.secret, request);
    expect(event.type).toBe('selftest.failed');
    expect(event.data).toMatchObject({ run_id: run.id, failed_checks: [{ name: 'always-fails', detail: expect.stringContaining('503') }] });
    expect(notSubscribed.received).toHaveLength(0);
    expectDocumentedShapes(hook, endpoint.secret);
  });

  it('webhook.test to an endpoint, whatever it subscribes to', async () => {
    const hook = await receiver();
    const endpoint = await orgEndpoint(hook.url, ['file.processed']);
    const deliveryId = await server.services.webhookDispatcher.sendTest(endpoint.id);
    const [request] = await receivedAtLeast(hook, 1);
    expect(verified(endpoint.secret, request)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    const [delivery] = await settled(endpoint.id);
    expect(delivery).toMatchObject({ id: deliveryId, status: 'succeeded', attemptCount: 1, lastStatusCode: 204 });
    expectDocumentedShapes(hook, endpoint.secret);
  });
});

describe('delivery', () => {
  it('a receiver answering 500 then 200 gets a retry that succeeds; both attempts are recorded', async () => {
    const hook = await receiver((n) => (n === 0 ? 500 : 200));
    const endpoint = await orgEndpoint(hook.url, ['file.processed']);
    await server.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: admin.orgId, data: { file: { id: 'f-1' } } });
    const [delivery] = await settled(endpoint.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, lastStatusCode: 200, nextAttemptAt: null });
    expect(delivery.completedAt).not.toBeNull();
    expect(delivery.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 200, null],
    ]);
    expect(delivery.attempts[0].responseExcerpt).toBe('answer 0: 500');
    const [first, second] = hook.received;
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(endpoint.secret, second)).toEqual(verified(endpoint.secret, first));
    const { rows } = await server.services.db.pool.query('SELECT "failingSince" FROM "WebhookEndpoint" WHERE id = $1', [endpoint.id]);
    expect(rows[0].failingSince).toBeNull(); // the success ended the failing run the 500 started
  });

  it('after the last attempt of the schedule fails, the delivery is failed', async () => {
    const hook = await receiver(() => 503);
    const endpoint = await orgEndpoint(hook.url, ['file.processed']);
    await server.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: admin.orgId, data: {} });
    const [delivery] = await settled(endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 3, lastStatusCode: 503, nextAttemptAt: null });
    expect(hook.received).toHaveLength(3);
    const { rows } = await server.services.db.pool.query('SELECT "failingSince", enabled FROM "WebhookEndpoint" WHERE id = $1', [endpoint.id]);
    expect(rows[0]).toMatchObject({ enabled: true, failingSince: expect.any(Date) });
  });

  it('a hanging receiver gets a timeout and a retry, while another receiver gets the same event at once', async () => {
    const hanging = await receiver((n) => (n === 0 ? 'hang' : 204));
    const prompt = await receiver();
    const slow = await orgEndpoint(hanging.url, ['file.failed']);
    const fast = await orgEndpoint(prompt.url, ['file.failed']);
    await server.services.webhookDispatcher.publish({ type: 'file.failed', organizationId: admin.orgId, data: { file: { id: 'f-2' } } });
    await receivedAtLeast(hanging, 1);
    const [received] = await receivedAtLeast(prompt, 1);
    // The prompt receiver had its event while the hanging one's first attempt was still waiting.
    const [hangingDelivery] = await deliveriesOf(server.services, slow.id);
    expect(hangingDelivery.attempts).toHaveLength(0);
    expect(received.headers['webhook-id']).toBe(hanging.received[0].headers['webhook-id']);
    expect((await settled(fast.id))[0]).toMatchObject({ status: 'succeeded', attemptCount: 1 });

    const [delivery] = await settled(slow.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, lastStatusCode: 204 });
    expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: 'timeout after 10000 ms' });
    expect(delivery.attempts[0].durationMs).toBeGreaterThanOrEqual(10_000);
  }, 60_000);

  it('redelivery sends the same message again: same webhook-id and body, a new delivery', async () => {
    const hook = await receiver();
    const endpoint = await orgEndpoint(hook.url, ['file.processed']);
    await server.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: admin.orgId, data: { file: { id: 'f-3' } } });
    const [original] = await settled(endpoint.id);
    const again = await server.services.webhookDispatcher.redeliver(original.id);
    expect(again).not.toBe(original.id);
    const [first, second] = await receivedAtLeast(hook, 2);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(verified(endpoint.secret, second).data).toEqual({ file: { id: 'f-3' } });
    const deliveries = await settled(endpoint.id, 2);
    expect(deliveries.map((d) => [d.id, d.messageId, d.status])).toEqual([
      [original.id, original.messageId, 'succeeded'],
      [again, original.messageId, 'succeeded'],
    ]);
  });

  it('rotation: during the overlap the request carries both signatures and each secret verifies it; after it, only the new one', async () => {
    const hook = await receiver();
    const endpoint = await orgEndpoint(hook.url, ['file.processed']);
    const newSecret = newWebhookSecret();
    const key = webhookSecretKey(SECRET_KEY, server.dataDir);
    const rotate = (expiresAt: Date) =>
      server.services.db.pool.query(
        `UPDATE "WebhookEndpoint" SET "previousSecretCiphertext" = "secretCiphertext", "secretCiphertext" = $2, "previousSecretExpiresAt" = $3 WHERE id = $1`,
        [endpoint.id, encryptSecret(newSecret, key), expiresAt],
      );
    await rotate(new Date(Date.now() + 24 * 3_600_000));
    await server.services.webhookDispatcher.sendTest(endpoint.id);
    const [during] = await receivedAtLeast(hook, 1);
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verified(newSecret, during).type).toBe('webhook.test');
    expect(verified(endpoint.secret, during).type).toBe('webhook.test');

    await server.services.db.pool.query(`UPDATE "WebhookEndpoint" SET "previousSecretExpiresAt" = now() - interval '1 second' WHERE id = $1`, [endpoint.id]);
    await server.services.webhookDispatcher.sendTest(endpoint.id);
    const [, after] = await receivedAtLeast(hook, 2);
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verified(newSecret, after).type).toBe('webhook.test');
    expect(() => new Webhook(endpoint.secret).verify(after.body, after.headers)).toThrow();
  });
});

describe('with a clock and a worker of the test’s own', () => {
  // A service whose own worker sends nothing: this file's worker (createWebhookDelivery, as
  // server/app.ts builds it) is driven one job at a time.
  let quiet: TestServer;
  let owner: TestUser;

  beforeAll(async () => {
    quiet = await startTestServer({ WORKER_ENABLED: 'false', WEBHOOK_SECRET_KEY: SECRET_KEY, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0' });
    owner = await createUser(quiet.services);
  }, 120_000);
  afterAll(async () => quiet?.close());

  function worker(opts: { allowPrivate: boolean; now?: () => Date }) {
    const { config } = quiet.services;
    return createWebhookDelivery({
      config: { ...config, webhooks: { ...config.webhooks, allowPrivate: opts.allowPrivate } },
      db: quiet.services.db,
      jobs: quiet.services.jobs,
      log: pino({ level: 'silent' }),
      secretKey: webhookSecretKey(SECRET_KEY, quiet.dataDir),
      userAgent: 'gateway-webhooks/test',
      now: opts.now,
    }).worker;
  }

  it('refuses, at delivery, a name that resolves to loopback when WEBHOOK_ALLOW_PRIVATE is false (the receiver gets nothing)', async () => {
    const hook = await receiver();
    // Written past the registration check, as an endpoint whose name later resolves to loopback would be.
    const endpoint = await insertEndpoint(quiet.services, quiet.dataDir, {
      userId: owner.userId,
      organizationId: owner.orgId,
      url: `http://localhost:${hook.port}/hook`,
      events: ['file.failed'],
    });
    await quiet.services.webhookDispatcher.sendTest(endpoint.id);
    const strict = worker({ allowPrivate: false });
    expect(await strict.runOnce()).toBe(true);
    const [delivery] = await deliveriesOf(quiet.services, endpoint.id);
    expect(delivery.attempts[0]).toMatchObject({
      number: 1,
      statusCode: null,
      error: expect.stringMatching(/^refused address: localhost \((127\.0\.0\.1|::1)\) is a loopback address/),
    });
    expect(hook.received).toHaveLength(0);
    // The same delivery's next attempt, with private addresses allowed, reaches the receiver.
    expect(await worker({ allowPrivate: true }).runOnce()).toBe(true);
    expect(hook.received).toHaveLength(1);
    expect(verified(endpoint.secret, hook.received[0]).type).toBe('webhook.test');
  });

  it('an endpoint failing for 5 days is disabled, says why, and gets nothing more', async () => {
    const hook = await receiver(() => 500);
    const endpoint = await insertEndpoint(quiet.services, quiet.dataDir, {
      userId: owner.userId,
      organizationId: owner.orgId,
      url: hook.url,
      events: ['file.processed'],
    });
    const start = new Date();
    let clock = start;
    const sender = worker({ allowPrivate: true, now: () => clock });
    await quiet.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: owner.orgId, data: {} });
    const endpointRow = async () =>
      (await quiet.services.db.pool.query('SELECT enabled, "failingSince", "disabledReason" FROM "WebhookEndpoint" WHERE id = $1', [endpoint.id])).rows[0];

    expect(await sender.runOnce()).toBe(true); // attempt 1 fails: the failing run starts
    expect(await endpointRow()).toMatchObject({ enabled: true, failingSince: start, disabledReason: null });

    clock = new Date(start.getTime() + WEBHOOK_DISABLE_AFTER_MS - 60_000);
    expect(await sender.runOnce()).toBe(true); // attempt 2 fails, a minute short of 5 days
    expect(await endpointRow()).toMatchObject({ enabled: true, failingSince: start });

    clock = new Date(start.getTime() + WEBHOOK_DISABLE_AFTER_MS + 60_000);
    expect(await sender.runOnce()).toBe(true); // attempt 3 fails, 5 days on: disabled
    const disabled = await endpointRow();
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabledReason).toContain(`every delivery has failed since ${start.toISOString()}`);
    expect(disabled.disabledReason).toContain('HTTP 500');

    expect(await sender.runOnce()).toBe(true); // attempt 4: not sent
    expect(hook.received).toHaveLength(3);
    const [delivery] = await deliveriesOf(quiet.services, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 4 });
    expect(delivery.attempts[3].error).toBe('not sent: the endpoint is disabled');
    // A disabled endpoint is no longer given new events.
    await quiet.services.webhookDispatcher.publish({ type: 'file.processed', organizationId: owner.orgId, data: {} });
    expect(await deliveriesOf(quiet.services, endpoint.id)).toHaveLength(1);
  });
});
