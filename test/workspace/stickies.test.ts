/**
 * StickyService directly: trash retention and the purge (`purgeExpired(now)` and the periodic
 * timer), the configured retention, and version numbering under concurrent service calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { loadConfig } from '../../src/config.ts';
import type { StickyService } from '../../src/workspace/stickies/sticky-service.ts';
import { seedStickies } from '../../src/seed/workspace-stickies.ts';

const DAY = 86_400_000;
const RETENTION_DAYS = 7;

let server: TestServer;
let stickies: StickyService;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  server = await startTestServer({ STICKY_TRASH_RETENTION_DAYS: String(RETENTION_DAYS) });
  stickies = server.services.stickies;
  alice = await createUser(server.services);
  bob = await createUser(server.services);
});
afterAll(() => server?.close());

const exists = async (id: string) => (await server.services.prisma.sticky.count({ where: { id } })) === 1;
const versionCount = (id: string) => server.services.prisma.stickyVersion.count({ where: { stickyId: id } });

describe('configuration', () => {
  it('STICKY_TRASH_RETENTION_DAYS defaults to 30, is validated, and reaches the service', () => {
    expect(loadConfig({}).stickies.trashRetentionDays).toBe(30);
    expect(loadConfig({ STICKY_TRASH_RETENTION_DAYS: '90' }).stickies.trashRetentionDays).toBe(90);
    expect(() => loadConfig({ STICKY_TRASH_RETENTION_DAYS: '0' })).toThrow(/STICKY_TRASH_RETENTION_DAYS/);
    expect(() => loadConfig({ STICKY_TRASH_RETENTION_DAYS: 'soon' })).toThrow(/STICKY_TRASH_RETENTION_DAYS/);
    expect(stickies.trashRetentionDays).toBe(RETENTION_DAYS);
  });
});

describe('purgeExpired(now)', () => {
  it('deletes stickies trashed longer than the retention period, with their versions, for every user', async () => {
    const old = await stickies.create(alice.userId, { content: 'old trash', tags: ['x'] });
    const trashed = await stickies.delete(alice.userId, old.id);
    const bobs = await stickies.create(bob.userId, { content: 'bob trash' });
    await stickies.delete(bob.userId, bobs.id);
    const active = await stickies.create(alice.userId, { content: 'active, long ago' });
    // Active stickies are never purged, however old.
    await server.services.prisma.sticky.update({ where: { id: active.id }, data: { updatedAt: new Date(Date.now() - 400 * DAY) } });
    const deletedAt = trashed.deletedAt!;
    expect(stickies.purgeAt(deletedAt).getTime()).toBe(deletedAt.getTime() + RETENTION_DAYS * DAY);

    // One millisecond before the end of the retention period: nothing goes.
    expect(await stickies.purgeExpired(new Date(deletedAt.getTime() + RETENTION_DAYS * DAY - 1))).toBe(0);
    expect(await exists(old.id)).toBe(true);
    expect(await versionCount(old.id)).toBe(2);

    // A day later both trashed stickies (alice's and bob's) are gone with their versions.
    const purged = await stickies.purgeExpired(new Date(Date.now() + (RETENTION_DAYS + 1) * DAY));
    expect(purged).toBe(2);
    expect(await exists(old.id)).toBe(false);
    expect(await exists(bobs.id)).toBe(false);
    expect(await versionCount(old.id)).toBe(0);
    expect(await exists(active.id)).toBe(true);
    expect(await versionCount(active.id)).toBe(1);
  });

  it('a restored sticky is no longer in the trash and is kept', async () => {
    const sticky = await stickies.create(alice.userId, { content: 'saved in time' });
    await stickies.delete(alice.userId, sticky.id);
    await stickies.restore(alice.userId, sticky.id);
    await stickies.purgeExpired(new Date(Date.now() + 365 * DAY));
    expect(await exists(sticky.id)).toBe(true);
    expect(await versionCount(sticky.id)).toBe(3);
  });

  it('the periodic purge runs at start and on its interval until stopped', async () => {
    const sticky = await stickies.create(alice.userId, { content: 'trashed long ago' });
    await stickies.delete(alice.userId, sticky.id);
    await server.services.prisma.sticky.update({ where: { id: sticky.id }, data: { deletedAt: new Date(Date.now() - (RETENTION_DAYS + 1) * DAY) } });
    const stop = stickies.startPurging(50);
    try {
      await expect.poll(() => exists(sticky.id), { timeout: 5_000, interval: 25 }).toBe(false);
      const later = await stickies.create(alice.userId, { content: 'trashed later' });
      await stickies.delete(alice.userId, later.id);
      await server.services.prisma.sticky.update({ where: { id: later.id }, data: { deletedAt: new Date(Date.now() - (RETENTION_DAYS + 1) * DAY) } });
      // Picked up by a later tick of the interval, not only by the run at start.
      await expect.poll(() => exists(later.id), { timeout: 5_000, interval: 25 }).toBe(false);
    } finally {
      stop();
    }
    const after = await stickies.create(alice.userId, { content: 'after stop' });
    await stickies.delete(alice.userId, after.id);
    await server.services.prisma.sticky.update({ where: { id: after.id }, data: { deletedAt: new Date(Date.now() - (RETENTION_DAYS + 1) * DAY) } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await exists(after.id)).toBe(true);
  });
});

describe('versions under concurrency (service level)', () => {
  it('interleaved updates, deletes and restores never share or skip a version number', async () => {
    const sticky = await stickies.create(alice.userId, { content: 'v1' });
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => stickies.update(alice.userId, sticky.id, { content: `u${i}` })),
      stickies.delete(alice.userId, sticky.id),
      stickies.restore(alice.userId, sticky.id),
    ]);
    const succeeded = results.filter((r) => r.status === 'fulfilled').length;
    const versions = await server.services.prisma.stickyVersion.findMany({ where: { stickyId: sticky.id }, orderBy: { version: 'asc' } });
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: succeeded + 1 }, (_, i) => i + 1));
    const current = await stickies.get(alice.userId, sticky.id);
    expect(current.version).toBe(versions.at(-1)!.version);
    expect(current.content).toBe(versions.at(-1)!.content);
    expect(current.deletedAt === null).toBe(versions.at(-1)!.action !== 'delete');
    // Each failure is a 409 of the trash rules, never a lost write.
    for (const result of results) {
      if (result.status === 'rejected') expect((result.reason as { code?: string }).code).toBe('CONFLICT');
    }
  });

  it("another user's id is NOT_FOUND for every method", async () => {
    const sticky = await stickies.create(alice.userId, { content: 'private' });
    await expect(stickies.get(bob.userId, sticky.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Sticky not found' });
    await expect(stickies.update(bob.userId, sticky.id, { content: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(stickies.delete(bob.userId, sticky.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(stickies.restore(bob.userId, sticky.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(stickies.versions(bob.userId, sticky.id, { limit: 10 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await stickies.list(bob.userId, { limit: 200, includeDeleted: true })).rows.map((s) => s.id)).not.toContain(sticky.id);
  });
});

describe('list filters (service level)', () => {
  it('search matches content case-insensitively (wildcards literal) or a tag exactly; tags need every one; trash filters; pages by cursor', async () => {
    const user = await createUser(server.services);
    const make = (content: string, tags: string[] = []) => stickies.create(user.userId, { content, tags });
    const percent = await make('Up 5% on the quarter', ['q3']);
    const underscore = await make('snake_case name', ['code']);
    const plain = await make('Plain NOTE about fees', ['fees', 'q3']);
    const tagged = await make('nothing matching here', ['note']);
    const trashed = await make('a note in the trash', ['q3']);
    await stickies.delete(user.userId, trashed.id);
    const ids = async (options: Parameters<StickyService['list']>[1]) => (await stickies.list(user.userId, options)).rows.map((row) => row.id).sort();
    const sorted = (...rows: { id: string }[]) => rows.map((row) => row.id).sort();

    expect(await ids({ limit: 50, search: 'note' })).toEqual(sorted(plain, tagged));
    expect(await ids({ limit: 50, search: '%' })).toEqual(sorted(percent));
    expect(await ids({ limit: 50, search: '_' })).toEqual(sorted(underscore));
    expect(await ids({ limit: 50, tags: ['q3'] })).toEqual(sorted(percent, plain));
    expect(await ids({ limit: 50, tags: ['q3', 'fees'] })).toEqual(sorted(plain));
    expect(await ids({ limit: 50, tags: ['q3'], includeDeleted: true })).toEqual(sorted(percent, plain, trashed));
    expect(await ids({ limit: 50, trashedOnly: true })).toEqual(sorted(trashed));
    expect(await ids({ limit: 50, search: 'note', trashedOnly: true })).toEqual(sorted(trashed));

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await stickies.list(user.userId, { limit: 2, cursor, includeDeleted: true });
      seen.push(...page.rows.map((row) => row.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(sorted(percent, underscore, plain, tagged, trashed));
    // another user's stickies never show
    expect(await ids({ limit: 50 })).not.toContain((await stickies.create(bob.userId, { content: 'note' })).id);
  });
});

describe('demo data', () => {
  it('seedStickies gives a user a few stickies with real histories and one in the trash', async () => {
    const demo = await createUser(server.services);
    const seeded = await seedStickies(server.services, demo.userId);
    expect(seeded.length).toBeGreaterThanOrEqual(4);
    const active = await stickies.list(demo.userId, { limit: 50 });
    const all = await stickies.list(demo.userId, { limit: 50, includeDeleted: true });
    expect(all.rows.length - active.rows.length).toBe(1);
    expect(Math.max(...seeded.map((s) => s.version))).toBeGreaterThanOrEqual(3);
    for (const sticky of seeded) {
      const history = await stickies.versions(demo.userId, sticky.id, { limit: 50 });
      expect(history.rows.map((v) => v.version)).toEqual(Array.from({ length: sticky.version }, (_, i) => sticky.version - i));
    }
  });
});
