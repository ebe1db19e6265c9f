/**
 * `npm run cli -- audit:verify` as operators run it, against a running service's database: exit 0
 * on an intact log, exit 1 naming the chain and the event once a row was edited in the database.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, type TestUser } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { role: 'member', scopes: ['read:workspace', 'write:workspace'] });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

/** The CLI on the service's database: its PostgreSQL schema, or its embedded database's directory. */
function verify() {
  const databaseUrl = server.services.config.databaseUrl;
  return runCli(['audit:verify'], databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: server.dataDir, DATABASE_URL: '' });
}

it('exits 0 on an intact log and 1 naming the chain and the event after a row was edited', async () => {
  for (const content of ['first', 'second', 'third']) expect((await callApi(server.url, user, 'POST', '/api/stickies', { content })).status).toBe(201);
  await server.services.audit.flush();
  const intact = await verify();
  expect(intact.stderr).toBe('');
  expect(intact.code).toBe(0);
  expect(intact.stdout).toMatch(/The audit log verifies: \d+ events in \d+ chains/);

  const { rows } = await server.services.db.pool.query<{ id: string }>(
    `UPDATE "AuditEvent" SET "clientAddress" = '203.0.113.9' WHERE id = (SELECT id FROM "AuditEvent" WHERE chain = $1 ORDER BY seq LIMIT 1 OFFSET 1) RETURNING id`,
    [user.orgId],
  );
  const edited = await verify();
  expect(edited.code).toBe(1);
  expect(edited.stderr).toContain(`chain ${user.orgId}`);
  expect(edited.stderr).toContain(rows[0].id);
}, 60_000);
