/**
 * Cached reads across a fleet (issue 29, docs/caching.md): three instances behind haproxy, each
 * holding its own cached answers, sharing the data versions in PostgreSQL. A read after a write
 * or an ingest, answered by any instance, never shows the old data; a tag one instance gave is
 * current on the others (the key is the same everywhere) until a write anywhere changes it.
 * Every instance is asked directly (its own port) as well as through the balancer.
 * Skipped on the embedded database, without Redis, and where haproxy is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithCli } from '../helpers/child-service.ts';
import { startFleet, type Fleet } from '../helpers/fleet.ts';
import { findHaproxy } from '../helpers/load-balancer.ts';
import { restUpload, sample, waitForFileStatus } from '../helpers/upload.ts';

const haproxy = findHaproxy();
const onPostgres = Boolean(process.env.DATABASE_URL?.trim());
const withRedis = Boolean(process.env.REDIS_URL?.trim());

let fleet: Fleet;
let user: { orgId: string; key: string };

const urls = () => [...fleet.instances.map((instance) => `http://127.0.0.1:${instance.port}`), fleet.balancer.url];

async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string | null; body: any }> {
  const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': user.key, ...headers } });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get('etag'), body: text ? JSON.parse(text) : undefined };
}

describe.skipIf(!onPostgres || !withRedis || !haproxy)('cached reads on a fleet of three instances behind haproxy', () => {
  beforeAll(async () => {
    fleet = await startFleet({ size: 3 });
    user = await createUserWithCli(fleet.instances[0].service, ['read:pnl', 'read:returns', 'write:upload', 'read:workspace', 'write:workspace']);
  }, 240_000);

  afterAll(() => fleet?.stop(), 60_000);

  it('a sticky written on one instance is in the next read on every instance, and the old tag is stale everywhere', async () => {
    for (let round = 0; round < 6; round++) {
      // Every instance holds the current answer (read twice: the second is the held one).
      const before = await get(urls()[0]!, '/api/stickies?limit=50');
      for (const base of urls()) {
        await get(base, '/api/stickies?limit=50');
        const held = await get(base, '/api/stickies?limit=50', { 'if-none-match': before.etag! });
        expect(held.status, `${base} before round ${round}`).toBe(304);
      }
      const writer = fleet.instances[round % 3]!;
      const created = await fetch(`http://127.0.0.1:${writer.port}/api/stickies`, {
        method: 'POST',
        headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `round ${round}` }),
      });
      expect(created.status).toBe(201);
      for (const base of urls()) {
        const fresh = await get(base, '/api/stickies?limit=50', { 'if-none-match': before.etag! });
        expect(fresh.status, `${base} after round ${round}`).toBe(200);
        expect(
          fresh.body.data.map((sticky: { content: string }) => sticky.content),
          base,
        ).toContain(`round ${round}`);
      }
    }
  });

  it('an ingest committed by whichever instance ran it is in the next comparison read on every instance', async () => {
    const first = await restUpload(fleet.balancer.url, user.key, { orgId: user.orgId, file: { name: 'pnl.csv', bytes: await sample('pnl-sample.csv') } });
    expect(first.status).toBe(201);
    await waitForFileStatus(fleet.balancer.url, user.key, user.orgId, first.body.data.id, ['processed']);
    const empty = await get(urls()[0]!, '/api/returns/comparison?limit=5');
    expect(empty.status).toBe(200);
    for (const base of urls()) expect((await get(base, '/api/returns/comparison?limit=5', { 'if-none-match': empty.etag! })).status).toBe(304);
    const second = await restUpload(fleet.balancer.url, user.key, {
      orgId: user.orgId,
      file: { name: 'performance.csv', bytes: await sample('performance-sample.csv') },
    });
    expect(second.status).toBe(201);
    await waitForFileStatus(fleet.balancer.url, user.key, user.orgId, second.body.data.id, ['processed']);
    for (const base of urls()) {
      const after = await get(base, '/api/returns/comparison?limit=5', { 'if-none-match': empty.etag! });
      expect(after.status, base).toBe(200);
      expect(after.body.data.length, base).toBeGreaterThan(0);
      expect(after.body, base).not.toEqual(empty.body);
    }
  }, 120_000);
});
