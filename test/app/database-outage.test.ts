/**
 * A database outage answered alike on every front (issue 23, item 4): /graphql (HTTP and
 * graphql-ws), REST, MCP and the sign-in page answer 503 with Retry-After (graphql-ws closes
 * with 1013, "try again later") while the database is unreachable, and the log says so once per
 * outage, not with a stack trace per request. PostgreSQL only: the outage is a TCP proxy of this
 * file's own that it cuts (the shared server is never touched); the embedded database lives in
 * the process and cannot be cut away from it.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, type TestUser } from '../helpers/fixtures.ts';
import { freePort } from '../helpers/child-service.ts';
import { createSchema, dropSchema } from '../helpers/postgres-schema.ts';
import { CuttableProxy } from '../helpers/cuttable-proxy.ts';

const baseUrl = process.env.DATABASE_URL?.trim() ?? '';

describe.skipIf(!baseUrl)('the database unreachable (PostgreSQL)', () => {
  const lines: { level: number; msg: string; err?: unknown }[] = [];
  let proxy: CuttableProxy;
  let server: TestServer;
  let schema: string;
  let user: TestUser;
  let token: string;

  beforeAll(async () => {
    const created = await createSchema(baseUrl);
    schema = created.schema;
    const target = new URL(created.url);
    proxy = new CuttableProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    const proxied = new URL(created.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
        done();
      },
    });
    server = await startTestServer({ DATABASE_URL: proxied.toString(), LOG_LEVEL: 'info', JOB_STALE_AFTER: '1s' }, { log: pino({ level: 'info' }, sink) });
    user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    token = await createAccessToken(server.services, user.userId);
  }, 120_000);
  afterAll(async () => {
    await proxy?.open().catch(() => undefined);
    await server?.close();
    await proxy?.cut();
    if (schema) await dropSchema(baseUrl, schema);
  });

  const graphqlPost = () =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': user.key },
      body: JSON.stringify({ query: '{ stickies(first: 1) { edges { node { id } } } }' }),
    });

  it('every front answers 503 with Retry-After, the log has one warning for the outage and no stack traces; service resumes after', async () => {
    expect((await graphqlPost()).status).toBe(200);
    const before = lines.length;
    await proxy.cut();

    for (let i = 0; i < 20; i++) {
      const response = await graphqlPost();
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toMatchObject({
        errors: [{ message: expect.stringMatching(/database is temporarily unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } }],
      });
    }
    const rest = await fetch(`${server.url}/api/stickies?limit=1`, { headers: { 'x-api-key': user.key } });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(await rest.json()).toEqual({ error: expect.stringMatching(/database is temporarily unavailable/) });
    const mcp = await fetch(`${server.url}/api/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe('1');

    // graphql-ws: a credential on the upgrade cannot be checked: 503 before the handshake.
    const upgrade = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { 'x-api-key': user.key } });
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => resolve(101));
      socket.once('error', () => undefined);
    });
    expect(upgrade).toBe(503);

    // The job workers meet the outage too: their polls, and their stale sweeps (every JOB_STALE_AFTER / 5,
    // 200 ms here), report it to the same log instead of a stack trace each.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const during = lines.slice(before);
    expect(during.filter((line) => line.level >= 40 && /database unavailable/.test(line.msg))).toHaveLength(1);
    expect(during.filter((line) => line.level >= 50)).toEqual([]);

    await proxy.open();
    await expect.poll(async () => (await graphqlPost()).status, { timeout: 30_000 }).toBe(200);
  });
});
