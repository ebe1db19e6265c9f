/**
 * The audit log (docs/audit.md) through real clients: the same mutation through every front gives
 * one event each, with its front, operation, credential and target; secrets and free text are
 * redacted; 401 and 403 refusals are recorded; readers see their own events and their
 * organization's (admins), never another organization's; the export streams NDJSON; the hash
 * chain finds an edited and a deleted row.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { auditEventsOf } from '../helpers/audit.ts';
import { callApi, createAccessToken, createUser, getJson, signInCookie, type TestUser } from '../helpers/fixtures.ts';
import { verifyAuditLog } from '../../src/audit/verify.ts';
import type { AuditEvent } from '../../src/audit/types.ts';

let server: TestServer;
/** An admin of organization A. */
let admin: TestUser;
/** A member of organization A (workspace scopes only). */
let member: TestUser;
/** An admin of organization B. */
let outsider: TestUser;

beforeAll(async () => {
  server = await startTestServer({ AUDIT_FLUSH_INTERVAL: '20ms' });
  admin = await createUser(server.services, { role: 'admin' });
  member = await createUser(server.services, { role: 'member', scopes: ['read:workspace', 'write:workspace'], org: `Org ${admin.email}` });
  outsider = await createUser(server.services, { role: 'admin' });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const eventsOf = (requestId: string) => auditEventsOf(server.services, requestId);

async function graphqlCall(user: TestUser | null, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { 'x-api-key': user.key } : {}), ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

const CREATE_STICKY = 'mutation CreateNote($input: CreateStickyInput!) { createSticky(input: $input) { id } }';

describe('one event per front for the same mutation', () => {
  it('REST: the route template, the API key and its prefix, the user agent, the target; the content redacted', async () => {
    const response = await callApi(
      server.url,
      member,
      'POST',
      '/api/stickies',
      { content: 'secret plans', tags: ['q3'] },
      {
        'x-request-id': 'audit-rest-1',
        'user-agent': 'audit-test/1.0',
      },
    );
    expect(response.status).toBe(201);
    const [event] = await eventsOf('audit-rest-1');
    expect(event).toMatchObject({
      front: 'rest',
      operation: 'POST /api/stickies',
      outcome: 'ok',
      actorId: member.userId,
      organizationId: member.orgId,
      chain: member.orgId,
      credentialKind: 'api_key',
      credentialPrefix: member.key.slice(0, event.credentialPrefix?.length ?? 0),
      targetType: 'Sticky',
      targetId: response.body.data.id,
      userAgent: 'audit-test/1.0',
      clientAddress: expect.stringContaining('127.0.0.1'),
      variables: { content: '[redacted]', tags: ['q3'] },
    });
    expect(event.credentialPrefix).toMatch(/^sk_/);
    expect(JSON.stringify(event)).not.toContain(member.key);
    expect(JSON.stringify(event)).not.toContain('secret plans');
  });

  it('GraphQL over HTTP: the operation and its field', async () => {
    const response = await graphqlCall(member, CREATE_STICKY, { input: { content: 'over http' } }, { 'x-request-id': 'audit-graphql-1' });
    expect(response.body.errors).toBeUndefined();
    const [event] = await eventsOf('audit-graphql-1');
    expect(event).toMatchObject({
      front: 'graphql',
      operation: 'CreateNote.createSticky',
      outcome: 'ok',
      actorId: member.userId,
      targetType: 'Sticky',
      targetId: response.body.data.createSticky.id,
      variables: { input: { content: '[redacted]' } },
    });
  });

  it('GraphQL over WebSocket (graphql-ws)', async () => {
    const client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': member.key },
      retryAttempts: 0,
    });
    try {
      const result = await new Promise<{ data?: { createSticky: { id: string } } | null }>((resolve, reject) => {
        client.subscribe(
          { query: CREATE_STICKY, variables: { input: { content: 'over a socket' } } },
          { next: resolve, error: reject, complete: () => undefined },
        );
      });
      const id = result.data!.createSticky.id;
      await server.services.audit.flush();
      const { rows } = await server.services.db.pool.query<AuditEvent>('SELECT * FROM "AuditEvent" WHERE "targetId" = $1', [id]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        front: 'graphql-ws',
        operation: 'CreateNote.createSticky',
        outcome: 'ok',
        actorId: member.userId,
        credentialKind: 'api_key',
      });
    } finally {
      await client.dispose();
    }
  });

  it('MCP: the tool, with the access token and its prefix', async () => {
    const token = await createAccessToken(server.services, member.userId);
    const response = await getJson(`${server.url}/api/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': 'audit-mcp-1' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_sticky', arguments: { content: 'from an agent' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.body.result.isError).toBeFalsy();
    const [event] = await eventsOf('audit-mcp-1');
    expect(event).toMatchObject({
      front: 'mcp',
      operation: 'tool create_sticky',
      outcome: 'ok',
      actorId: member.userId,
      credentialKind: 'access_token',
      targetType: 'Sticky',
      variables: { content: '[redacted]' },
    });
    expect(event.credentialPrefix).toMatch(/^pat_/);
    expect(JSON.stringify(event)).not.toContain(token);
  });

  it('the dashboard (GraphQL with a browser session), and the sign-in before it', async () => {
    const cookie = await signInCookie(server.url, member);
    const response = await graphqlCall(null, CREATE_STICKY, { input: { content: 'from the dashboard' } }, { cookie, 'x-request-id': 'audit-dashboard-1' });
    expect(response.body.errors).toBeUndefined();
    const [event] = await eventsOf('audit-dashboard-1');
    expect(event).toMatchObject({ front: 'dashboard', operation: 'CreateNote.createSticky', credentialKind: 'session', credentialId: member.userId });
    const { rows } = await server.services.db.pool.query<AuditEvent>(
      `SELECT * FROM "AuditEvent" WHERE operation = 'sign-in' AND "actorId" = $1 AND outcome = 'ok'`,
      [member.userId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows[0]).toMatchObject({ front: 'web', organizationId: member.orgId });
    expect(JSON.stringify(rows[0])).not.toContain(member.password);
  });

  it('a failed sign-in is recorded against the account, without the password', async () => {
    const response = await fetch(`${server.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'audit-signin-fail' },
      body: new URLSearchParams({ email: member.email, password: 'wrong-password-123' }).toString(),
    });
    expect(response.status).toBe(401);
    const [event] = await eventsOf('audit-signin-fail');
    expect(event).toMatchObject({ front: 'web', operation: 'sign-in', outcome: 'UNAUTHENTICATED', actorId: null, organizationId: member.orgId });
    expect(JSON.stringify(event)).not.toContain('wrong-password-123');
  });
});

describe('refusals', () => {
  it('401 on REST, recorded with the route template and no actor', async () => {
    const response = await callApi(server.url, null, 'POST', '/api/stickies', { content: 'x' }, { 'x-request-id': 'audit-401' });
    expect(response.status).toBe(401);
    const [event] = await eventsOf('audit-401');
    expect(event).toMatchObject({ front: 'rest', operation: 'POST /api/stickies', outcome: 'UNAUTHENTICATED', actorId: null, chain: 'none' });
  });

  it('403 for a missing scope on REST, a query too', async () => {
    const reader = await createUser(server.services, { role: 'member', scopes: ['read:workspace'], org: `Org ${admin.email}` });
    const write = await callApi(server.url, reader, 'POST', '/api/stickies', { content: 'x' }, { 'x-request-id': 'audit-403-write' });
    expect(write.status).toBe(403);
    expect(await eventsOf('audit-403-write')).toMatchObject([{ operation: 'POST /api/stickies', outcome: 'FORBIDDEN', actorId: reader.userId }]);
    const read = await callApi(server.url, reader, 'GET', '/api/returns/comparison', undefined, { 'x-request-id': 'audit-403-read' });
    expect(read.status).toBe(403);
    expect(await eventsOf('audit-403-read')).toMatchObject([{ operation: 'GET /api/returns/comparison', outcome: 'FORBIDDEN' }]);
  });

  it("an upload refused before its body is read (the route's preflight)", async () => {
    const form = new FormData();
    form.set('file', new Blob(['a,b\n']), 'x.csv');
    const response = await fetch(`${server.url}/api/storage/upload`, { method: 'POST', body: form, headers: { 'x-request-id': 'audit-upload-401' } });
    expect(response.status).toBe(401);
    expect(await eventsOf('audit-upload-401')).toMatchObject([{ front: 'rest', operation: 'POST /api/storage/upload', outcome: 'UNAUTHENTICATED' }]);
  });

  it('401 at the MCP endpoint, before any tool runs', async () => {
    const response = await fetch(`${server.url}/api/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'audit-mcp-401' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(await eventsOf('audit-mcp-401')).toMatchObject([{ front: 'mcp', operation: 'POST /api/service', outcome: 'UNAUTHENTICATED', actorId: null }]);
  });

  it('an error that is not a refusal is recorded on a mutation with its code', async () => {
    const response = await callApi(server.url, member, 'DELETE', '/api/stickies/00000000-0000-4000-8000-000000000000', undefined, {
      'x-request-id': 'audit-404',
    });
    expect(response.status).toBe(404);
    expect(await eventsOf('audit-404')).toMatchObject([
      { operation: 'DELETE /api/stickies/:id', outcome: 'NOT_FOUND', targetId: '00000000-0000-4000-8000-000000000000' },
    ]);
  });

  it('queries that succeed are not recorded', async () => {
    await callApi(server.url, member, 'GET', '/api/stickies', undefined, { 'x-request-id': 'audit-read-ok' });
    expect(await eventsOf('audit-read-ok')).toEqual([]);
  });
});

describe('reading: GET /api/audit-events, auditEvents, the export', () => {
  beforeAll(async () => {
    await callApi(server.url, outsider, 'POST', '/api/stickies', { content: 'the other organization' });
    await server.services.audit.flush();
  });

  it("a member sees only their own events; an admin their organization's; nobody another organization's", async () => {
    const own = await callApi(server.url, member, 'GET', '/api/audit-events?limit=500');
    expect(own.status).toBe(200);
    expect(own.body.data.length).toBeGreaterThan(0);
    expect(own.body.data.every((event: { actor_id: string }) => event.actor_id === member.userId)).toBe(true);

    const organization = await callApi(server.url, admin, 'GET', `/api/audit-events?actor=${member.userId}&limit=500`);
    expect(organization.body.data.length).toBe(own.body.data.length);

    const other = await callApi(server.url, outsider, 'GET', `/api/audit-events?actor=${member.userId}`);
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([]);
    const mine = await callApi(server.url, outsider, 'GET', '/api/audit-events?limit=500');
    expect(
      mine.body.data.every(
        (event: { organization_id: string | null; actor_id: string }) => event.actor_id === outsider.userId || event.organization_id === outsider.orgId,
      ),
    ).toBe(true);
    expect(mine.body.data.some((event: { organization_id: string }) => event.organization_id === admin.orgId)).toBe(false);
  });

  it('filters and pages with limit and cursor', async () => {
    // The member's REST events: the sticky created (ok) and the sticky not found (NOT_FOUND).
    const first = await callApi(server.url, member, 'GET', '/api/audit-events?front=rest&limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toMatchObject({ front: 'rest', outcome: 'NOT_FOUND' });
    expect(first.body.pagination.has_more).toBe(true);
    const second = await callApi(server.url, member, 'GET', `/api/audit-events?front=rest&limit=1&cursor=${first.body.pagination.next_cursor}`);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0]).toMatchObject({ front: 'rest', outcome: 'ok', operation: 'POST /api/stickies' });
    const ok = await callApi(server.url, member, 'GET', '/api/audit-events?front=rest&outcome=ok');
    expect(ok.body.data.map((event: { id: string }) => event.id)).toEqual([second.body.data[0].id]);
    const errors = await callApi(server.url, admin, 'GET', '/api/audit-events?outcome=error&limit=500');
    expect(errors.body.data.length).toBeGreaterThan(0);
    expect(errors.body.data.every((event: { outcome: string }) => event.outcome !== 'ok')).toBe(true);
    const future = await callApi(server.url, member, 'GET', `/api/audit-events?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(future.body.data).toEqual([]);
    const badFront = await callApi(server.url, member, 'GET', '/api/audit-events?front=fax');
    expect(badFront.status).toBe(400);
  });

  it('the auditEvents connection answers the same', async () => {
    const response = await graphqlCall(
      member,
      '{ auditEvents(first: 5, front: "rest") { edges { node { front actorId operation credential { kind prefix } } } } }',
    );
    expect(response.body.errors).toBeUndefined();
    const nodes = response.body.data.auditEvents.edges.map((edge: { node: unknown }) => edge.node);
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((node: { actorId: string; front: string }) => node.actorId === member.userId && node.front === 'rest')).toBe(true);
    const anonymous = await graphqlCall(null, '{ auditEvents { edges { node { id } } } }');
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('the export streams NDJSON with the same filters and audience', async () => {
    const response = await fetch(`${server.url}/api/audit-events/export?front=rest`, { headers: { 'x-api-key': member.key } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { front: string; actor_id: string; hash: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.front === 'rest' && line.actor_id === member.userId && /^[0-9a-f]{64}$/.test(line.hash))).toBe(true);
    const refused = await fetch(`${server.url}/api/audit-events/export`, { headers: { 'x-request-id': 'audit-export-401' } });
    expect(refused.status).toBe(401);
    expect(await eventsOf('audit-export-401')).toMatchObject([{ operation: 'GET /api/audit-events/export', outcome: 'UNAUTHENTICATED' }]);
    const outsiders = await fetch(`${server.url}/api/audit-events/export?actor=${member.userId}`, { headers: { 'x-api-key': outsider.key } });
    expect(await outsiders.text()).toBe('');
  });
});

describe('the hash chain', () => {
  it('verifies, then finds an edited row, a deleted row and a deleted newest row', async () => {
    await server.services.audit.flush();
    const pool = server.services.db.pool;
    const before = await verifyAuditLog(pool);
    expect(before.broken).toEqual([]);
    expect(before.events).toBeGreaterThan(5);

    const { rows } = await pool.query<{ id: string; seq: string; outcome: string }>(
      'SELECT id, seq::text AS seq, outcome FROM "AuditEvent" WHERE chain = $1 ORDER BY seq',
      [member.orgId],
    );
    expect(rows.length).toBeGreaterThan(3);
    const middle = rows[1];
    await pool.query(`UPDATE "AuditEvent" SET outcome = 'FORBIDDEN' WHERE id = $1`, [middle.id]);
    const edited = await verifyAuditLog(pool);
    expect(edited.broken).toMatchObject([{ chain: member.orgId, eventId: middle.id, seq: Number(middle.seq) }]);
    await pool.query('UPDATE "AuditEvent" SET outcome = $2 WHERE id = $1', [middle.id, middle.outcome]);
    expect((await verifyAuditLog(pool)).broken).toEqual([]);

    const saved = await pool.query('DELETE FROM "AuditEvent" WHERE id = $1 RETURNING *', [middle.id]);
    const deleted = await verifyAuditLog(pool);
    expect(deleted.broken).toMatchObject([{ chain: member.orgId, seq: Number(middle.seq), eventId: null }]);
    expect(deleted.broken[0].problem).toContain('missing');
    await reinsert(saved.rows[0] as Record<string, unknown>);
    expect((await verifyAuditLog(pool)).broken).toEqual([]);

    const newest = rows.at(-1)!;
    const savedNewest = await pool.query(
      'DELETE FROM "AuditEvent" WHERE chain = $1 AND seq = (SELECT max(seq) FROM "AuditEvent" WHERE chain = $1) RETURNING *',
      [member.orgId],
    );
    expect((await verifyAuditLog(pool)).broken).toMatchObject([{ chain: member.orgId }]);
    await reinsert(savedNewest.rows[0] as Record<string, unknown>);
    expect(newest.id).toBeDefined();
    expect((await verifyAuditLog(pool)).broken).toEqual([]);
  });
});

async function reinsert(row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await server.services.db.pool.query(
    `INSERT INTO "AuditEvent" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    columns.map((c) => (c === 'variables' && row[c] !== null ? JSON.stringify(row[c]) : row[c])),
  );
}
