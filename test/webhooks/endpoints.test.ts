/**
 * Webhook endpoints as clients manage them (docs/webhooks.md#endpoints): a real service, real
 * HTTP. REST's every route with its success and errors (401, 403 without write:webhooks, 404 for
 * an endpoint the caller does not manage, 400 naming the field, 409 past the cap), who sees which
 * endpoint (an organization's admins, a user's own), the secret shown only by create and rotate,
 * rotation keeping the old secret for 24 hours, paging; a test event and a redelivery received by
 * a receiver of the test's own and verified with the `standardwebhooks` library; the same through
 * GraphQL. The MCP tools are called in test/mcp/tools.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ISO, MISSING, UUID } from '../helpers/formats.ts';
import type { TestServer } from '../helpers/server.ts';
import { startServerWithUsers } from '../helpers/server-with-users.ts';
import { callApi, getJson, type ApiCallArgs, type TestUser } from '../helpers/fixtures.ts';
import { decryptSecret, webhookSecretKey } from '../../src/webhooks/secrets.ts';
import { PREVIOUS_SECRET_OVERLAP_MS, WEBHOOK_DESCRIPTION_MAX } from '../../src/webhooks/endpoint-service.ts';
import { WEBHOOK_EVENT_PAYLOADS } from '../../src/webhooks/event-payloads.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const ENDPOINT_KEYS = [
  'id',
  'url',
  'description',
  'events',
  'enabled',
  'disabled_reason',
  'failing_since',
  'organization_id',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
];
const ORG = 'Webhook Holdings';
const ajv = new Ajv2020({ strict: false });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
const MAX_ENDPOINTS = 20;
/** test events and redeliveries a credential may ask for in a minute (no other user here asks for more than 4) */
const WEBHOOKS_BUDGET = 5;

let server: TestServer;
/** admin of ORG with write:webhooks only */
let orgAdmin: TestUser;
/** another admin of ORG, with the admin scope */
let coAdmin: TestUser;
/** a member of ORG with write:webhooks: own endpoints only */
let member: TestUser;
/** an admin (admin scope) of another organization */
let stranger: TestUser;
/** an admin of ORG whose key lacks write:webhooks */
let noScope: TestUser;
/** fills its own endpoints up to the cap */
let capper: TestUser;
/** pages through its own endpoints */
let pager: TestUser;
/** sends test events until the budget refuses */
let spammer: TestUser;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}
let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
const waiters: (() => void)[] = [];

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('received');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ({ server, orgAdmin, coAdmin, member, stranger, noScope, capper, pager, spammer } = await startServerWithUsers(
    {
      orgAdmin: { org: ORG, role: 'admin', scopes: ['write:webhooks'] },
      coAdmin: { org: ORG, role: 'admin', scopes: ['admin'] },
      member: { org: ORG, role: 'member', scopes: ['write:webhooks'] },
      stranger: { role: 'admin', scopes: ['admin'] },
      noScope: { org: ORG, role: 'admin', scopes: ['read:pnl', 'read:workspace', 'write:workspace'] },
      capper: { role: 'member', scopes: ['write:webhooks'] },
      pager: { role: 'member', scopes: ['write:webhooks'] },
      spammer: { role: 'member', scopes: ['write:webhooks'] },
    },
    {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_MAX_ENDPOINTS: String(MAX_ENDPOINTS),
      WEBHOOK_RETRY_SCHEDULE: '0,200ms',
      RATE_LIMIT_WEBHOOKS_PER_MINUTE: String(WEBHOOKS_BUDGET),
    },
  ));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const call = (...args: ApiCallArgs) => callApi(server.url, ...args);

async function createEndpoint(user: TestUser, body: Record<string, unknown>) {
  const response = await call(user, 'POST', '/api/webhooks', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data as { endpoint: Record<string, unknown> & { id: string }; secret: string };
}

const orgEndpoint = (user: TestUser, extra: Record<string, unknown> = {}) =>
  createEndpoint(user, { url: `${receiverUrl}/org`, events: ['file.processed', 'file.failed'], organization_id: user.orgId, ...extra });
const ownEndpoint = (user: TestUser, extra: Record<string, unknown> = {}) =>
  createEndpoint(user, { url: `${receiverUrl}/own`, events: ['generation.completed'], ...extra });

async function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
}

const secretKey = () => webhookSecretKey(server.services.config.webhooks.secretKey, server.services.config.dataDir);

/** Waits until the receiver has `count` requests (the delivery worker sends in the background). */
async function receivedCount(count: number): Promise<Received[]> {
  while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  return received.slice(0, count);
}

describe('POST /api/webhooks', () => {
  it("an organization's admin creates its endpoint: 201 with the endpoint and its whsec_ secret, stored encrypted", async () => {
    const response = await call(orgAdmin, 'POST', '/api/webhooks', {
      url: `${receiverUrl}/files`,
      events: ['file.processed', 'reconciliation.investigate', 'file.processed'],
      description: '  Back office  ',
      organization_id: orgAdmin.orgId,
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body.data)).toEqual(['endpoint', 'secret']);
    const { endpoint, secret } = response.body.data;
    expect(Object.keys(endpoint)).toEqual(ENDPOINT_KEYS);
    expect(endpoint).toMatchObject({
      url: `${receiverUrl}/files`,
      description: 'Back office',
      events: ['file.processed', 'reconciliation.investigate'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      organization_id: orgAdmin.orgId,
      previous_secret_expires_at: null,
    });
    expect(endpoint.id).toMatch(UUID);
    expect(endpoint.created_at).toMatch(ISO);
    // Standard Webhooks' form: whsec_ + base64 of 24 random bytes.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(24);

    const row = await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.userId).toBe(orgAdmin.userId);
    expect(row.secretCiphertext).not.toContain(secret.slice(6));
    expect(decryptSecret(row.secretCiphertext, secretKey())).toBe(secret);
  });

  it("a user's own endpoint (no organization_id) takes the user's events; the admin scope may add selftest.failed", async () => {
    const own = await ownEndpoint(member, { events: ['generation.completed', 'generation.failed', 'webhook.test'] });
    expect(own.endpoint).toMatchObject({ organization_id: null, events: ['generation.completed', 'generation.failed', 'webhook.test'], description: null });
    const withSelfTest = await orgEndpoint(coAdmin, { events: ['selftest.failed'] });
    expect(withSelfTest.endpoint.events).toEqual(['selftest.failed']);
  });

  it('401 without a credential, 403 without write:webhooks', async () => {
    const body = { url: receiverUrl, events: ['generation.completed'] };
    const anonymous = await call(null, 'POST', '/api/webhooks', body);
    expect(anonymous.status).toBe(401);
    const refused = await call(noScope, 'POST', '/api/webhooks', body);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Insufficient permissions' });
  });

  it("404 for an organization the caller is not an admin of (a member, or another organization's admin)", async () => {
    for (const user of [member, stranger]) {
      const response = await call(user, 'POST', '/api/webhooks', { url: receiverUrl, events: ['file.processed'], organization_id: orgAdmin.orgId });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Organization not found' });
    }
  });

  it.each<[string, Record<string, unknown>, string, string | RegExp]>([
    ['url: not http(s)', { url: 'ftp://example.com/x', events: ['webhook.test'] }, 'url', /^Invalid url: /],
    ['url: not a URL', { url: 'not a url', events: ['webhook.test'] }, 'url', 'Invalid url: must be an absolute http(s) URL'],
    ['url: credentials', { url: 'https://user:pw@example.com/x', events: ['webhook.test'] }, 'url', 'Invalid url: must not carry a user name or password'],
    ['url: too long', { url: `https://example.com/${'x'.repeat(2048)}`, events: ['webhook.test'] }, 'url', 'Invalid url: must be at most 2048 characters'],
    ['url: empty', { url: '   ', events: ['webhook.test'] }, 'url', 'Invalid url: must not be empty'],
    ['events: empty', { url: 'https://example.com/x', events: [] }, 'events', 'Invalid events: must name at least one event type'],
    [
      'events: unknown',
      { url: 'https://example.com/x', events: ['file.deleted'] },
      'events',
      /^Invalid events: unknown event type "file.deleted"; known: file.processed, /,
    ],
    [
      'events: an organization event on an own endpoint',
      { url: 'https://example.com/x', events: ['file.processed'] },
      'events',
      /^Invalid events: file.processed is an organization's event: give organizationId/,
    ],
    [
      'description: too long',
      { url: 'https://example.com/x', events: ['webhook.test'], description: 'd'.repeat(WEBHOOK_DESCRIPTION_MAX + 1) },
      'description',
      /^Invalid description: must be at most 500/,
    ],
  ])('400 naming the field, %s', async (_label, body, field, message) => {
    const before = await server.services.prisma.webhookEndpoint.count();
    const response = await call(member, 'POST', '/api/webhooks', body);
    expect(response.status).toBe(400);
    expect(response.body.error.startsWith(`Invalid ${field}: `)).toBe(true);
    expect(response.body.error).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect(await server.services.prisma.webhookEndpoint.count()).toBe(before);
  });

  it("400 naming events: a user's event on an organization's endpoint; selftest.failed without the admin scope", async () => {
    const userEvent = await call(orgAdmin, 'POST', '/api/webhooks', { url: receiverUrl, events: ['generation.failed'], organization_id: orgAdmin.orgId });
    expect(userEvent.status).toBe(400);
    expect(userEvent.body.error).toMatch(/^Invalid events: generation.failed is a user's event/);
    const selfTest = await call(orgAdmin, 'POST', '/api/webhooks', { url: receiverUrl, events: ['selftest.failed'], organization_id: orgAdmin.orgId });
    expect(selfTest.status).toBe(400);
    expect(selfTest.body.error).toBe('Invalid events: selftest.failed needs a credential with the admin scope');
  });

  it('400 for a missing or mistyped field', async () => {
    expect((await call(member, 'POST', '/api/webhooks', { events: ['webhook.test'] })).body.error).toBe('Missing required parameter: url');
    expect((await call(member, 'POST', '/api/webhooks', { url: receiverUrl })).body.error).toBe('Missing required parameter: events');
    expect((await call(member, 'POST', '/api/webhooks', { url: receiverUrl, events: 'webhook.test', secret: 'x' })).status).toBe(400);
  });

  it(`409 past ${MAX_ENDPOINTS} endpoints of one owner; another owner is not counted`, async () => {
    for (let i = 0; i < MAX_ENDPOINTS; i += 1) await ownEndpoint(capper);
    const refused = await call(capper, 'POST', '/api/webhooks', { url: receiverUrl, events: ['generation.completed'] });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(
      `You already have ${MAX_ENDPOINTS} webhook endpoints, the most allowed (WEBHOOK_MAX_ENDPOINTS); delete one you no longer use, then create a new one`,
    );
    expect(await server.services.prisma.webhookEndpoint.count({ where: { userId: capper.userId } })).toBe(MAX_ENDPOINTS);
    // Deleting one makes room.
    const [first] = (await call(capper, 'GET', '/api/webhooks')).body.data as { id: string }[];
    expect((await call(capper, 'DELETE', `/api/webhooks/${first!.id}`)).status).toBe(204);
    await ownEndpoint(capper);
  });

  it("409 past the cap of an organization's endpoints, counted for the organization whoever created them", async () => {
    const existing = await server.services.prisma.webhookEndpoint.count({ where: { organizationId: orgAdmin.orgId } });
    for (let i = existing; i < MAX_ENDPOINTS; i += 1) await orgEndpoint(i % 2 === 0 ? orgAdmin : coAdmin);
    const refused = await call(coAdmin, 'POST', '/api/webhooks', { url: receiverUrl, events: ['file.failed'], organization_id: orgAdmin.orgId });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(new RegExp(`^The organization already has ${MAX_ENDPOINTS} webhook endpoints, the most allowed`));
    // The admins' own endpoints are not the organization's.
    await ownEndpoint(coAdmin);
    // Make room again for the tests below.
    const orgRows = (await call(coAdmin, 'GET', '/api/webhooks?limit=200')).body.data.filter((row: { organization_id: string | null }) => row.organization_id);
    for (const row of orgRows) expect((await call(orgAdmin, 'DELETE', `/api/webhooks/${row.id}`)).status).toBe(204);
  });
});

describe('GET /api/webhooks and /api/webhooks/:id', () => {
  it('lists newest first, never with a secret; limit + cursor page through without overlap', async () => {
    const created = [await ownEndpoint(pager), await ownEndpoint(pager), await ownEndpoint(pager)];
    const first = await call(pager, 'GET', '/api/webhooks?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((row: { id: string }) => row.id)).toEqual([created[2]!.endpoint.id, created[1]!.endpoint.id]);
    expect(first.body.pagination).toEqual({ has_more: true, next_cursor: expect.any(String) });
    const second = await call(pager, 'GET', `/api/webhooks?limit=2&cursor=${first.body.pagination.next_cursor}`);
    expect(second.body.data.map((row: { id: string }) => row.id)).toEqual([created[0]!.endpoint.id]);
    expect(second.body.pagination).toEqual({ has_more: false, next_cursor: null });
    for (const row of [...first.body.data, ...second.body.data]) expect(Object.keys(row)).toEqual(ENDPOINT_KEYS);
    const text = JSON.stringify([first.body, second.body]);
    for (const { secret } of created) expect(text).not.toContain(secret);
    expect((await call(pager, 'GET', '/api/webhooks?cursor=nonsense')).status).toBe(400);
    expect((await call(pager, 'GET', '/api/webhooks?limit=201')).status).toBe(400);
  });

  it("an organization's endpoints are seen by each of its admins, not by its members nor other organizations", async () => {
    const { endpoint, secret } = await createEndpoint(orgAdmin, { url: `${receiverUrl}/seen`, events: ['file.failed'], organization_id: orgAdmin.orgId });
    for (const admin of [orgAdmin, coAdmin]) {
      const got = await call(admin, 'GET', `/api/webhooks/${endpoint.id}`);
      expect(got.status).toBe(200);
      expect(Object.keys(got.body.data)).toEqual(ENDPOINT_KEYS);
      expect(JSON.stringify(got.body)).not.toContain(secret);
      const listed = (await call(admin, 'GET', '/api/webhooks?limit=200')).body.data.map((row: { id: string }) => row.id);
      expect(listed).toContain(endpoint.id);
    }
    for (const outsider of [member, stranger]) {
      expect(await call(outsider, 'GET', `/api/webhooks/${endpoint.id}`)).toMatchObject({ status: 404, body: { error: 'Webhook endpoint not found' } });
      const listed = (await call(outsider, 'GET', '/api/webhooks?limit=200')).body.data.map((row: { id: string }) => row.id);
      expect(listed).not.toContain(endpoint.id);
    }
  });

  it("a user's own endpoint is theirs alone, even to their organization's admins", async () => {
    const { endpoint } = await ownEndpoint(member);
    expect((await call(member, 'GET', `/api/webhooks/${endpoint.id}`)).status).toBe(200);
    for (const other of [orgAdmin, coAdmin, stranger]) expect((await call(other, 'GET', `/api/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it('401, 403, 404 for an unknown id, 400 for a malformed one', async () => {
    expect((await call(null, 'GET', '/api/webhooks')).status).toBe(401);
    expect((await call(noScope, 'GET', '/api/webhooks')).status).toBe(403);
    expect((await call(member, 'GET', `/api/webhooks/${MISSING}`)).status).toBe(404);
    expect((await call(member, 'GET', '/api/webhooks/not-a-uuid')).status).toBe(400);
  });
});

describe('PATCH and DELETE /api/webhooks/:id', () => {
  it('changes only what it names; enabling again clears the reason and the failing run', async () => {
    const { endpoint } = await ownEndpoint(member, { description: 'first' });
    const renamed = await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, { description: 'second' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ description: 'second', url: endpoint.url, events: endpoint.events });
    const moved = await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, { url: `${receiverUrl}/moved`, events: ['generation.failed', 'webhook.test'] });
    expect(moved.body.data).toMatchObject({ url: `${receiverUrl}/moved`, events: ['generation.failed', 'webhook.test'], description: 'second' });
    expect((await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, { description: null })).body.data.description).toBeNull();

    await server.services.prisma.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { enabled: false, disabledReason: 'failing for 5 days', failingSince: new Date() },
    });
    const disabled = (await call(member, 'GET', `/api/webhooks/${endpoint.id}`)).body.data;
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing for 5 days', failing_since: expect.stringMatching(ISO) });
    const enabled = await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    expect((await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, { enabled: false })).body.data).toMatchObject({
      enabled: false,
      disabled_reason: null,
    });
  });

  it('400 naming the field; 404 for an endpoint the caller does not manage; 403 without the scope', async () => {
    const { endpoint } = await ownEndpoint(member);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: 'gopher://x' }, /^Invalid url: /],
      [{ events: [] }, /^Invalid events: must name at least one/],
      [{ events: ['file.processed'] }, /^Invalid events: file.processed is an organization's event/],
      [{ events: null }, /^Invalid events: must not be null/],
      [{ description: 'x'.repeat(WEBHOOK_DESCRIPTION_MAX + 1) }, /^Invalid description: /],
      [{ enabled: 'yes' }, /enabled/],
    ];
    for (const [body, message] of cases) {
      const response = await call(member, 'PATCH', `/api/webhooks/${endpoint.id}`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(message);
    }
    expect((await call(orgAdmin, 'PATCH', `/api/webhooks/${endpoint.id}`, { description: 'hijacked' })).status).toBe(404);
    expect((await call(noScope, 'PATCH', `/api/webhooks/${endpoint.id}`, { description: 'hijacked' })).status).toBe(403);
    expect((await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).description).toBeNull();
  });

  it('an admin keeps selftest.failed that another admin with the admin scope subscribed', async () => {
    const { endpoint } = await orgEndpoint(coAdmin, { events: ['selftest.failed'] });
    const kept = await call(orgAdmin, 'PATCH', `/api/webhooks/${endpoint.id}`, { events: ['selftest.failed', 'file.failed'] });
    expect(kept.status).toBe(200);
    expect(kept.body.data.events).toEqual(['selftest.failed', 'file.failed']);
  });

  it('DELETE: 204, the endpoint and its deliveries gone; 404 the second time and for someone else', async () => {
    const { endpoint } = await ownEndpoint(member);
    expect((await call(orgAdmin, 'DELETE', `/api/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await call(noScope, 'DELETE', `/api/webhooks/${endpoint.id}`)).status).toBe(403);
    const deleted = await call(member, 'DELETE', `/api/webhooks/${endpoint.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(await server.services.prisma.webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
    expect((await call(member, 'DELETE', `/api/webhooks/${endpoint.id}`)).status).toBe(404);
  });
});

describe('POST /api/webhooks/:id/rotate-secret', () => {
  it('a new secret, shown once; the old one kept encrypted in the row for 24 hours', async () => {
    const { endpoint, secret: old } = await ownEndpoint(member);
    const before = Date.now();
    const response = await call(member, 'POST', `/api/webhooks/${endpoint.id}/rotate-secret`);
    expect(response.status).toBe(200);
    const { secret, endpoint: rotated } = response.body.data;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(old);
    expect(rotated.id).toBe(endpoint.id);
    const expires = Date.parse(rotated.previous_secret_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + PREVIOUS_SECRET_OVERLAP_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + PREVIOUS_SECRET_OVERLAP_MS);
    const row = await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(decryptSecret(row.secretCiphertext, secretKey())).toBe(secret);
    expect(decryptSecret(row.previousSecretCiphertext!, secretKey())).toBe(old);
    expect(row.previousSecretExpiresAt?.getTime()).toBe(expires);
    // Neither secret is read back.
    const got = JSON.stringify((await call(member, 'GET', `/api/webhooks/${endpoint.id}`)).body);
    expect(got).not.toContain(secret);
    expect(got).not.toContain(old);
  });

  it('404 for an endpoint the caller does not manage, 403 without the scope; nothing changes', async () => {
    const { endpoint } = await ownEndpoint(member);
    expect((await call(stranger, 'POST', `/api/webhooks/${endpoint.id}/rotate-secret`)).status).toBe(404);
    expect((await call(noScope, 'POST', `/api/webhooks/${endpoint.id}/rotate-secret`)).status).toBe(403);
    const row = await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.previousSecretCiphertext).toBeNull();
  });
});

describe('test events, deliveries and redelivery', () => {
  it('POST /test: 202 with the pending delivery; the receiver gets a webhook.test it verifies with the secret; GET deliveries lists its attempt', async () => {
    const { endpoint, secret } = await ownEndpoint(member, { url: `${receiverUrl}/test`, events: ['generation.completed'] });
    // Counted before the request: the delivery may arrive before its 202 does.
    const start = received.length;
    const response = await call(member, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect(response.status).toBe(202);
    const delivery = response.body.data;
    expect(delivery).toMatchObject({ id: expect.stringMatching(UUID), event_type: 'webhook.test', message_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/) });
    expect(delivery.payload).toMatchObject({ type: 'webhook.test', timestamp: expect.stringMatching(ISO), data: { endpoint_id: endpoint.id } });
    // The documented shape (docs/webhooks.md#events, openapi.json `webhooks`).
    const documented = ajv.compile(WEBHOOK_EVENT_PAYLOADS['webhook.test'].data);
    expect(documented(delivery.payload.data), JSON.stringify(documented.errors)).toBe(true);

    const [request] = (await receivedCount(start + 1)).slice(start);
    const verified = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>);
    expect(verified).toEqual(delivery.payload);
    expect(request!.headers['webhook-id']).toBe(delivery.message_id);

    let listed: { status: string; attempts: unknown[] }[] = [];
    while (listed[0]?.status !== 'SUCCEEDED') {
      listed = (await call(member, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).body.data;
      if (listed[0]?.status !== 'SUCCEEDED') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: delivery.id, status: 'SUCCEEDED', attempt_count: 1, last_status_code: 200, next_attempt_at: null });
    expect(listed[0]!.attempts).toEqual([
      {
        number: 1,
        started_at: expect.stringMatching(ISO),
        duration_ms: expect.any(Number),
        status_code: 200,
        error: null,
        response_excerpt: expect.anything(),
      },
    ]);

    // Redelivery: a new delivery with the same webhook-id and payload, received again.
    const again = await call(member, 'POST', `/api/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.data).toMatchObject({ message_id: delivery.message_id, payload: delivery.payload, event_type: 'webhook.test' });
    expect(again.body.data.id).not.toBe(delivery.id);
    const [redelivered] = (await receivedCount(start + 2)).slice(start + 1);
    expect(new Webhook(secret).verify(redelivered!.body, redelivered!.headers as Record<string, string>)).toEqual(delivery.payload);
    expect(redelivered!.headers['webhook-id']).toBe(delivery.message_id);
  });

  it("404: another user's endpoint, a delivery of another endpoint; 403 without the scope", async () => {
    const { endpoint } = await ownEndpoint(member);
    const test = await call(member, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    expect((await call(stranger, 'POST', `/api/webhooks/${endpoint.id}/test`)).status).toBe(404);
    expect((await call(stranger, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).status).toBe(404);
    expect((await call(noScope, 'POST', `/api/webhooks/${endpoint.id}/test`)).status).toBe(403);
    expect((await call(stranger, 'POST', `/api/webhooks/${endpoint.id}/deliveries/${test.body.data.id}/redeliver`)).status).toBe(404);
    const { endpoint: other } = await ownEndpoint(member);
    const wrongPair = await call(member, 'POST', `/api/webhooks/${other.id}/deliveries/${test.body.data.id}/redeliver`);
    expect(wrongPair).toMatchObject({ status: 404, body: { error: 'Webhook delivery not found' } });
  });
});

describe('the webhooks rate budget', () => {
  it(`a credential's ${WEBHOOKS_BUDGET + 1}th test event or redelivery in a minute is 429 on REST and RATE_LIMITED on GraphQL; reads are not charged`, async () => {
    const { endpoint } = await ownEndpoint(spammer);
    const sent: string[] = [];
    for (let i = 0; i < WEBHOOKS_BUDGET - 1; i += 1) {
      const response = await call(spammer, 'POST', `/api/webhooks/${endpoint.id}/test`);
      expect(response.status).toBe(202);
      sent.push(response.body.data.id);
    }
    expect((await call(spammer, 'POST', `/api/webhooks/${endpoint.id}/deliveries/${sent[0]}/redeliver`)).status).toBe(202);
    expect((await call(spammer, 'GET', `/api/webhooks/${endpoint.id}/deliveries`)).status).toBe(200);
    const refused = await call(spammer, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const viaGraphql = await graphql(spammer, `mutation($id: UUID!) { redeliverWebhook(endpointId: $id, deliveryId: "${sent[0]}") { id } }`, {
      id: endpoint.id,
    });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(await server.services.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(WEBHOOKS_BUDGET);
  });
});

describe('GraphQL', () => {
  const FIELDS = 'id url description events enabled organizationId previousSecretExpiresAt';

  it('create, read, list, update, rotate, test, delete: the same rules as REST', async () => {
    const created = await graphql(
      orgAdmin,
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${FIELDS} } } }`,
      { input: { url: `${receiverUrl}/gql`, events: ['generation.completed'], description: 'gql' } },
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, endpoint } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({ url: `${receiverUrl}/gql`, events: ['generation.completed'], description: 'gql', enabled: true, organizationId: null });

    const read = await graphql(orgAdmin, `query($id: UUID!) { webhookEndpoint(id: $id) { ${FIELDS} deliveries(first: 5) { edges { node { id } } } } }`, {
      id: endpoint.id,
    });
    expect(read.body.data.webhookEndpoint).toMatchObject({ id: endpoint.id, deliveries: { edges: [] } });
    const listed = await graphql(orgAdmin, `{ webhookEndpoints(first: 200) { edges { node { id } } pageInfo { hasNextPage } } }`);
    expect(listed.body.data.webhookEndpoints.edges.map((edge: { node: { id: string } }) => edge.node.id)).toContain(endpoint.id);

    const updated = await graphql(orgAdmin, `mutation($id: UUID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { ${FIELDS} } }`, {
      id: endpoint.id,
    });
    expect(updated.body.data.updateWebhookEndpoint).toMatchObject({ enabled: false, description: 'gql' });

    const rotated = await graphql(orgAdmin, `mutation($id: UUID!) { rotateWebhookSecret(id: $id) { secret endpoint { previousSecretExpiresAt } } }`, {
      id: endpoint.id,
    });
    expect(rotated.body.data.rotateWebhookSecret.secret).not.toBe(secret);
    expect(rotated.body.data.rotateWebhookSecret.endpoint.previousSecretExpiresAt).toMatch(ISO);

    const tested = await graphql(orgAdmin, `mutation($id: UUID!) { sendTestWebhook(id: $id) { id eventType status messageId } }`, { id: endpoint.id });
    expect(tested.body.data.sendTestWebhook).toMatchObject({ eventType: 'webhook.test', status: 'PENDING' });
    const deliveries = await graphql(orgAdmin, `query($id: UUID!) { webhookDeliveries(endpointId: $id) { edges { node { id eventType } } } }`, {
      id: endpoint.id,
    });
    expect(deliveries.body.data.webhookDeliveries.edges.map((edge: { node: { id: string } }) => edge.node.id)).toEqual([tested.body.data.sendTestWebhook.id]);

    const hidden = await graphql(stranger, `query($id: UUID!) { webhookEndpoint(id: $id) { id } }`, { id: endpoint.id });
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const forbidden = await graphql(noScope, `{ webhookEndpoints { edges { node { id } } } }`);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await graphql(orgAdmin, `mutation { createWebhookEndpoint(input: { url: "https://example.com", events: ["nope"] }) { secret } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'events' });

    const deleted = await graphql(orgAdmin, `mutation($id: UUID!) { deleteWebhookEndpoint(id: $id) { id url } }`, { id: endpoint.id });
    expect(deleted.body.data.deleteWebhookEndpoint).toEqual({ id: endpoint.id, url: `${receiverUrl}/gql` });
    expect(await server.services.prisma.webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
  });

  it('webhookEventTypes lists every event with whose endpoints may subscribe', async () => {
    const response = await graphql(member, '{ webhookEventTypes { type ownerKind adminOnly description } }');
    const types = response.body.data.webhookEventTypes as { type: string; ownerKind: string; adminOnly: boolean }[];
    expect(types.map((info) => [info.type, info.ownerKind, info.adminOnly])).toEqual([
      ['file.processed', 'organization', false],
      ['file.failed', 'organization', false],
      ['reconciliation.investigate', 'organization', false],
      ['generation.completed', 'user', false],
      ['generation.failed', 'user', false],
      ['selftest.failed', 'organization', true],
      ['webhook.test', 'any', false],
    ]);
  });
});
