/**
 * The ingest's outcome in the audit log: after an upload, one `ingest` event per file, in the
 * file's organization, about its uploader: `ok` for a processed file, `BAD_USER_INPUT` for one
 * its rows failed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { restUpload, sample, waitForFileStatus } from '../helpers/upload.ts';
import type { AuditEvent } from '../../src/audit/types.ts';

let server: TestServer;
let admin: TestUser;

beforeAll(async () => {
  server = await startTestServer({ AUDIT_FLUSH_INTERVAL: '20ms' });
  admin = await createUser(server.services, { role: 'admin' });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

async function uploaded(name: string, status: string): Promise<string> {
  const response = await restUpload(server.url, admin.key, { orgId: admin.orgId, fileType: 'pnl', file: { name, bytes: await sample(name) } });
  expect(response.status).toBe(201);
  const id = (response.body.data as { id: string }).id;
  await waitForFileStatus(server.url, admin.key, admin.orgId, id, [status], 120_000);
  return id;
}

/** The file's ingest event, once written (the listener records it after the file's status is set). */
async function ingestEventOf(fileId: string): Promise<AuditEvent> {
  for (let tries = 0; tries < 200; tries++) {
    await server.services.audit.flush();
    const { rows } = await server.services.db.pool.query<AuditEvent>(`SELECT * FROM "AuditEvent" WHERE operation = 'ingest' AND "targetId" = $1`, [fileId]);
    if (rows.length > 0) {
      expect(rows).toHaveLength(1);
      return rows[0];
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ingest event for file ${fileId}`);
}

it('a processed file: ok, in its organization, about its uploader, with its row counts', async () => {
  const id = await uploaded('pnl-sample.csv', 'processed');
  const event = await ingestEventOf(id);
  expect(event).toMatchObject({
    front: 'system',
    operation: 'ingest',
    outcome: 'ok',
    organizationId: admin.orgId,
    actorId: null,
    targetType: 'UploadedFile',
    targetId: id,
  });
  expect(event.variables).toMatchObject({ file: 'pnl-sample.csv', fileType: 'pnl', status: 'processed', errorCount: 0 });
  expect((event.variables as { rowCount: number }).rowCount).toBeGreaterThan(0);
});

it('a file whose rows fail: BAD_USER_INPUT with its error count; the admin reads it at GET /api/audit-events', async () => {
  const id = await uploaded('pnl-with-errors.csv', 'failed');
  const event = await ingestEventOf(id);
  expect(event).toMatchObject({ operation: 'ingest', outcome: 'BAD_USER_INPUT', organizationId: admin.orgId, targetId: id });
  expect((event.variables as { errorCount: number }).errorCount).toBeGreaterThan(0);

  const response = await fetch(`${server.url}/api/audit-events?operation=ingest&outcome=BAD_USER_INPUT`, { headers: { 'x-api-key': admin.key } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { target: { id: string } }[] };
  expect(body.data.map((e) => e.target.id)).toContain(id);
});
