/**
 * /api/stickies as clients use it: a real service, real HTTP, every endpoint's success and
 * errors, isolation between users, pagination, the lifecycle with its version history,
 * concurrent writers, and GraphQL parity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID, ISO, MISSING } from '../helpers/formats.ts';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, EVERY_SCOPE, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser, callApi, type ApiCallArgs } from '../helpers/fixtures.ts';

const STICKY_KEYS = ['id', 'content', 'tags', 'version', 'created_at', 'updated_at', 'deleted_at'];
const VERSION_KEYS = ['version', 'action', 'content', 'tags', 'created_at'];

let server: TestServer;
let owner: TestUser, stranger: TestUser, reader: TestUser, outsider: TestUser;
beforeAll(async () => {
  ({ server, owner, stranger, reader, outsider } = await startServerWithUsers({
    owner: EVERY_SCOPE,
    stranger: EVERY_SCOPE,
    reader: WORKSPACE_READER,
    outsider: { scopes: ['read:pnl'] },
  }));
});
afterAll(() => server?.close());

const call = (...args: ApiCallArgs) => callApi(server.url, ...args);

async function create(user: TestUser, content: string, tags?: string[]) {
  const response = await call(user, 'POST', '/api/stickies', tags ? { content, tags } : { content });
  expect(response.status).toBe(201);
  return response.body.data as {
    id: string;
    content: string;
    tags: string[];
    version: number;
    created_at: string;
    updated_at: string;
    deleted_at: string | null;
  };
}

async function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
}

const countStickies = () => server.services.prisma.sticky.count();

describe('POST /api/stickies', () => {
  it('creates a sticky: 201 with the record, tags normalised, content trimmed, version 1 recorded', async () => {
    const response = await call(owner, 'POST', '/api/stickies', { content: '  Call the custodian about March  ', tags: ['Ops ', 'ops', 'URGENT', ' q1'] });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    const sticky = response.body.data;
    expect(Object.keys(sticky)).toEqual(STICKY_KEYS);
    expect(sticky).toMatchObject({ content: 'Call the custodian about March', tags: ['ops', 'urgent', 'q1'], version: 1, deleted_at: null });
    expect(sticky.id).toMatch(UUID);
    expect(sticky.created_at).toMatch(ISO);
    expect(sticky.updated_at).toBe(sticky.created_at);

    const versions = await server.services.prisma.stickyVersion.findMany({ where: { stickyId: sticky.id } });
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ version: 1, action: 'create', content: 'Call the custodian about March', tags: ['ops', 'urgent', 'q1'] });
    expect(versions[0]!.createdAt.toISOString()).toBe(sticky.created_at);
  });

  it('tags are optional; content of exactly 10,000 characters is accepted', async () => {
    expect((await create(owner, 'no tags')).tags).toEqual([]);
    expect((await create(owner, 'x'.repeat(10_000))).content).toHaveLength(10_000);
  });

  it.each([
    [{}, 'Missing required parameter: content'],
    [{ content: null }, /^Invalid content: /],
    [{ content: '   ' }, 'Invalid content: must not be empty'],
    [{ content: 'x'.repeat(10_001) }, 'Invalid content: must be at most 10000 characters'],
    [{ content: 42 }, /^Invalid content: /],
    [{ content: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'Invalid tags: at most 20 tags'],
    [{ content: 'ok', tags: ['x'.repeat(51)] }, 'Invalid tags: each tag may be at most 50 characters'],
    [{ content: 'ok', tags: ['  '] }, 'Invalid tags: tags must not be empty'],
    [{ content: 'ok', tags: ['a,b'] }, 'Invalid tags: tags may not contain commas or control characters'],
    [{ content: 'ok', tags: [1] }, /^Invalid tags: /],
    [{ content: 'ok', color: 'yellow' }, 'Unknown field: color'],
  ])('rejects %j with 400 naming the field and stores nothing', async (body, error) => {
    const before = await countStickies();
    const response = await call(owner, 'POST', '/api/stickies', body);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    if (typeof error === 'string') expect(response.body.error).toBe(error);
    else expect(response.body.error).toMatch(error);
    expect(await countStickies()).toBe(before);
  });

  it('malformed JSON is 400; a JSON array body is 400; a wrong content type is 415', async () => {
    expect(await call(owner, 'POST', '/api/stickies', '{"content": ')).toMatchObject({ status: 400, body: { error: 'Malformed JSON body' } });
    expect(await call(owner, 'POST', '/api/stickies', '["content"]')).toMatchObject({ status: 400 });
    const response = await call(owner, 'POST', '/api/stickies', 'content=hi', { 'content-type': 'text/plain' });
    expect(response).toMatchObject({ status: 415, body: { error: 'Content-Type must be application/json' } });
  });

  it('401 without or with a bad credential, 403 without write:workspace', async () => {
    expect(await call(null, 'POST', '/api/stickies', { content: 'x' })).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
    expect(await call(null, 'POST', '/api/stickies', { content: 'x' }, { 'x-api-key': 'sk_00000000000000000000000000000000' })).toMatchObject({ status: 401 });
    expect(await call(reader, 'POST', '/api/stickies', { content: 'x' })).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(await call(outsider, 'POST', '/api/stickies', { content: 'x' })).toMatchObject({ status: 403 });
  });

  it('accepts a bearer API key and a session cookie (with a JSON body)', async () => {
    const bearer = await call(null, 'POST', '/api/stickies', { content: 'via bearer' }, { authorization: `Bearer ${owner.key}` });
    expect(bearer.status).toBe(201);
    const token = await server.services.sessions.issue({ id: owner.userId, email: owner.email });
    const cookie = await call(null, 'POST', '/api/stickies', { content: 'via cookie' }, { cookie: `sso_token=${token}` });
    expect(cookie.status).toBe(201);
    const listed = await call(null, 'GET', '/api/stickies?limit=200', undefined, { cookie: `sso_token=${token}` });
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining([bearer.body.data.id, cookie.body.data.id]));
  });
});

describe('GET /api/stickies', () => {
  let lister: TestUser;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    lister = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    ids.ab = (await create(lister, 'alpha and beta', ['alpha', 'beta'])).id;
    ids.a = (await create(lister, 'alpha only', ['Alpha'])).id;
    ids.b = (await create(lister, 'beta only', ['beta', 'gamma'])).id;
    ids.none = (await create(lister, 'untagged')).id;
    ids.trashed = (await create(lister, 'trashed alpha', ['alpha'])).id;
    expect((await call(lister, 'DELETE', `/api/stickies/${ids.trashed}`)).status).toBe(200);
    await create(stranger, 'stranger alpha', ['alpha']);
  });

  it("lists only the caller's active stickies, most recently updated first, with pagination", async () => {
    const response = await call(lister, 'GET', '/api/stickies');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    const data = response.body.data as { id: string; updated_at: string }[];
    expect(new Set(data.map((s) => s.id))).toEqual(new Set([ids.ab, ids.a, ids.b, ids.none]));
    for (const sticky of data) expect(Object.keys(sticky)).toEqual(STICKY_KEYS);
    const sorted = [...data].sort((x, y) => y.updated_at.localeCompare(x.updated_at) || y.id.localeCompare(x.id));
    expect(data.map((s) => s.id)).toEqual(sorted.map((s) => s.id));

    // An update moves a sticky to the top.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await call(lister, 'PATCH', `/api/stickies/${ids.ab}`, { content: 'alpha and beta, edited' })).status).toBe(200);
    expect((await call(lister, 'GET', '/api/stickies')).body.data[0].id).toBe(ids.ab);
  });

  it('tags: comma-separated, ALL must match, normalised like stored tags', async () => {
    const idsFor = async (query: string) => {
      const response = await call(lister, 'GET', `/api/stickies?${query}`);
      expect(response.status).toBe(200);
      return new Set((response.body.data as { id: string }[]).map((s) => s.id));
    };
    expect(await idsFor('tags=alpha,beta')).toEqual(new Set([ids.ab]));
    expect(await idsFor('tags=%20ALPHA%20')).toEqual(new Set([ids.ab, ids.a]));
    expect(await idsFor('tags=beta')).toEqual(new Set([ids.ab, ids.b]));
    expect(await idsFor('tags=alpha,gamma')).toEqual(new Set());
    expect(await idsFor('tags=')).toEqual(new Set([ids.ab, ids.a, ids.b, ids.none]));
    expect(await idsFor('tags=alpha&includeDeleted=true')).toEqual(new Set([ids.ab, ids.a, ids.trashed]));
  });

  it('includeDeleted=true adds the trash (deleted_at set); false and absent leave it out', async () => {
    const all = await call(lister, 'GET', '/api/stickies?includeDeleted=true');
    expect(all.body.data).toHaveLength(5);
    const trashed = all.body.data.find((s: { id: string }) => s.id === ids.trashed);
    expect(trashed.deleted_at).toMatch(ISO);
    expect((await call(lister, 'GET', '/api/stickies?includeDeleted=false')).body.data).toHaveLength(4);
  });

  it('pages with limit and cursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await call(lister, 'GET', `/api/stickies?includeDeleted=true&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((s: { id: string }) => s.id));
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    const whole = (await call(lister, 'GET', '/api/stickies?includeDeleted=true')).body.data.map((s: { id: string }) => s.id);
    expect(seen).toEqual(whole);
  });

  it('limit defaults to 50', async () => {
    const many = await createUser(server.services);
    for (let i = 0; i < 51; i += 1) await server.services.stickies.create(many.userId, { content: `note ${i}` });
    const first = await call(many, 'GET', '/api/stickies');
    expect(first.body.data).toHaveLength(50);
    expect(first.body.pagination.has_more).toBe(true);
    const rest = await call(many, 'GET', `/api/stickies?cursor=${first.body.pagination.next_cursor}`);
    expect(rest.body.data).toHaveLength(1);
    expect(rest.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect((await call(many, 'GET', '/api/stickies?limit=200')).body.data).toHaveLength(51);
  });

  it.each([
    ['limit=0', 'Invalid limit: must be an integer between 1 and 200'],
    ['limit=201', 'Invalid limit: must be an integer between 1 and 200'],
    ['limit=ten', 'Invalid limit: must be an integer, got "ten"'],
    ['cursor=not-a-cursor', 'Invalid cursor: is not a cursor this list issued'],
    ['includeDeleted=maybe', 'Invalid includeDeleted: must be true or false, got "maybe"'],
    [`tags=${'x'.repeat(51)}`, 'Invalid tags: each tag may be at most 50 characters'],
  ])('?%s is 400', async (query, error) => {
    expect(await call(lister, 'GET', `/api/stickies?${query}`)).toMatchObject({ status: 400, body: { error } });
  });

  it('401 without credentials, 403 without read:workspace; unknown query parameters are ignored', async () => {
    expect(await call(null, 'GET', '/api/stickies')).toMatchObject({ status: 401 });
    expect(await call(outsider, 'GET', '/api/stickies')).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect((await call(reader, 'GET', '/api/stickies?_=123')).status).toBe(200);
  });

  it('a method the path does not serve is 405 with Allow', async () => {
    const response = await call(owner, 'PUT', '/api/stickies', { content: 'x' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });
});

describe('GET /api/stickies/{id}', () => {
  it("answers the caller's sticky, also from the trash", async () => {
    const sticky = await create(owner, 'find me', ['x']);
    expect(await call(owner, 'GET', `/api/stickies/${sticky.id}`)).toMatchObject({ status: 200, body: { data: sticky } });
    expect((await call(reader, 'GET', `/api/stickies/${sticky.id}`)).status).toBe(404);
    await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    const trashed = await call(owner, 'GET', `/api/stickies/${sticky.id}`);
    expect(trashed.body.data.deleted_at).toMatch(ISO);
  });

  it("404 for an unknown id and for another user's sticky; 400 for a malformed id; 401/403", async () => {
    const sticky = await create(owner, 'mine');
    expect(await call(stranger, 'GET', `/api/stickies/${sticky.id}`)).toEqual(expect.objectContaining({ status: 404, body: { error: 'Sticky not found' } }));
    expect(await call(owner, 'GET', `/api/stickies/${MISSING}`)).toMatchObject({ status: 404, body: { error: 'Sticky not found' } });
    const malformed = await call(owner, 'GET', '/api/stickies/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid id: must be a UUID/);
    expect((await call(null, 'GET', `/api/stickies/${sticky.id}`)).status).toBe(401);
    expect((await call(outsider, 'GET', `/api/stickies/${sticky.id}`)).status).toBe(403);
  });
});

describe('PATCH /api/stickies/{id}', () => {
  it('changes content and/or tags, each change a new version; updated_at moves', async () => {
    const sticky = await create(owner, 'draft', ['a']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const content = await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'final' });
    expect(content.status).toBe(200);
    expect(Object.keys(content.body.data)).toEqual(STICKY_KEYS);
    expect(content.body.data).toMatchObject({ id: sticky.id, content: 'final', tags: ['a'], version: 2, created_at: sticky.created_at });
    expect(content.body.data.updated_at > sticky.updated_at).toBe(true);

    const tags = await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { tags: [' B', 'c', 'b'] });
    expect(tags.body.data).toMatchObject({ content: 'final', tags: ['b', 'c'], version: 3 });
    const both = await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'both', tags: [] });
    expect(both.body.data).toMatchObject({ content: 'both', tags: [], version: 4 });
  });

  it('a change that changes nothing makes no version and keeps updated_at', async () => {
    const sticky = await create(owner, 'same', ['x', 'y']);
    for (const body of [{ content: 'same' }, { content: '  same ' }, { tags: ['Y', 'x'] }, { content: 'same', tags: ['x', 'y', 'x'] }]) {
      const response = await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, body);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(sticky);
    }
    expect(await server.services.prisma.stickyVersion.count({ where: { stickyId: sticky.id } })).toBe(1);
  });

  it.each([
    [{}, 'Nothing to update: give content, tags or both'],
    [undefined, 'Nothing to update: give content, tags or both'],
    [{ content: '' }, 'Invalid content: must not be empty'],
    [{ content: null }, 'Invalid content: must not be null; leave it out to keep the current content'],
    [{ tags: null }, 'Invalid tags: must not be null; send [] to remove every tag'],
    [{ content: 'x'.repeat(10_001) }, 'Invalid content: must be at most 10000 characters'],
    [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'Invalid tags: at most 20 tags'],
    [{ content: 'ok', pinned: true }, 'Unknown field: pinned'],
    [{ id: MISSING }, 'Unknown field: id'],
  ])('rejects %j with 400 and changes nothing', async (body, error) => {
    const sticky = await create(owner, 'unchanged', ['keep']);
    const response = await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, body);
    expect(response).toMatchObject({ status: 400, body: { error } });
    expect((await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data).toEqual(sticky);
  });

  it('an `id` in the body cannot redirect the change to another sticky', async () => {
    const target = await create(owner, 'target');
    const other = await create(owner, 'other');
    const response = await call(owner, 'PATCH', `/api/stickies/${target.id}`, { id: other.id, content: 'hijacked' });
    expect(response).toMatchObject({ status: 400, body: { error: 'Unknown field: id' } });
    expect((await call(owner, 'GET', `/api/stickies/${other.id}`)).body.data).toEqual(other);
    expect((await call(owner, 'GET', `/api/stickies/${target.id}`)).body.data).toEqual(target);
  });

  it('409 while the sticky is in the trash', async () => {
    const sticky = await create(owner, 'trash me');
    await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    expect(await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'edit' })).toMatchObject({
      status: 409,
      body: { error: 'Sticky is in the trash; restore it first' },
    });
  });

  it("404 for another user's sticky (which stays unchanged) and an unknown id; 400 malformed id; 401; 403; 415", async () => {
    const sticky = await create(owner, 'not yours');
    expect(await call(stranger, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'mine now' })).toMatchObject({
      status: 404,
      body: { error: 'Sticky not found' },
    });
    expect((await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data.content).toBe('not yours');
    expect((await call(owner, 'PATCH', `/api/stickies/${MISSING}`, { content: 'x' })).status).toBe(404);
    expect((await call(owner, 'PATCH', '/api/stickies/123', { content: 'x' })).body.error).toMatch(/^Invalid id: must be a UUID/);
    expect((await call(null, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'x' })).status).toBe(401);
    expect((await call(reader, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'x' })).status).toBe(403);
    expect((await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
  });
});

describe('DELETE /api/stickies/{id} and POST /api/stickies/{id}/restore', () => {
  it('delete moves to the trash: 200 with the record; a second delete is 409; restore brings it back', async () => {
    const sticky = await create(owner, 'round trip', ['t']);
    const deleted = await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body.data)).toEqual(STICKY_KEYS);
    expect(deleted.body.data).toMatchObject({ id: sticky.id, content: 'round trip', tags: ['t'], version: 2 });
    expect(deleted.body.data.deleted_at).toMatch(ISO);
    expect(deleted.body.data.updated_at).toBe(deleted.body.data.deleted_at);
    const active = (await call(owner, 'GET', '/api/stickies?limit=200')).body.data.map((s: { id: string }) => s.id);
    expect(active).not.toContain(sticky.id);

    expect(await call(owner, 'DELETE', `/api/stickies/${sticky.id}`)).toMatchObject({ status: 409, body: { error: 'Sticky is already in the trash' } });

    const restored = await call(owner, 'POST', `/api/stickies/${sticky.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.data).toMatchObject({ id: sticky.id, content: 'round trip', version: 3, deleted_at: null });
    expect(await call(owner, 'POST', `/api/stickies/${sticky.id}/restore`)).toMatchObject({ status: 409, body: { error: 'Sticky is not in the trash' } });
    expect((await call(owner, 'GET', '/api/stickies?limit=200')).body.data[0].id).toBe(sticky.id);
  });

  it('restoring a sticky that was never trashed is 409', async () => {
    const sticky = await create(owner, 'active');
    expect(await call(owner, 'POST', `/api/stickies/${sticky.id}/restore`)).toMatchObject({ status: 409, body: { error: 'Sticky is not in the trash' } });
  });

  it("404 for another user's sticky and unknown ids; 400 malformed; 401; 403", async () => {
    const sticky = await create(owner, 'guarded');
    expect(await call(stranger, 'DELETE', `/api/stickies/${sticky.id}`)).toMatchObject({ status: 404, body: { error: 'Sticky not found' } });
    expect((await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data.deleted_at).toBeNull();
    await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    expect(await call(stranger, 'POST', `/api/stickies/${sticky.id}/restore`)).toMatchObject({ status: 404, body: { error: 'Sticky not found' } });
    expect((await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data.deleted_at).not.toBeNull();
    expect((await call(owner, 'DELETE', `/api/stickies/${MISSING}`)).status).toBe(404);
    expect((await call(owner, 'POST', `/api/stickies/${MISSING}/restore`)).status).toBe(404);
    expect((await call(owner, 'DELETE', '/api/stickies/nope')).body.error).toMatch(/^Invalid id: must be a UUID/);
    expect((await call(owner, 'POST', '/api/stickies/nope/restore')).status).toBe(400);
    expect((await call(null, 'DELETE', `/api/stickies/${sticky.id}`)).status).toBe(401);
    expect((await call(reader, 'DELETE', `/api/stickies/${sticky.id}`)).status).toBe(403);
    expect((await call(reader, 'POST', `/api/stickies/${sticky.id}/restore`)).status).toBe(403);
  });
});

describe('GET /api/stickies/{id}/versions', () => {
  it('records the whole lifecycle, newest first; a no-op update records nothing', async () => {
    const sticky = await create(owner, 'v1', ['a']);
    await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'v2' });
    await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: 'v2', tags: ['A'] });
    await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    await call(owner, 'POST', `/api/stickies/${sticky.id}/restore`);
    await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { tags: ['a', 'b'] });

    const response = await call(owner, 'GET', `/api/stickies/${sticky.id}/versions`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    const versions = response.body.data as { version: number; action: string; content: string; tags: string[]; created_at: string }[];
    for (const version of versions) {
      expect(Object.keys(version)).toEqual(VERSION_KEYS);
      expect(version.created_at).toMatch(ISO);
    }
    expect(versions.map(({ version, action, content, tags }) => ({ version, action, content, tags }))).toEqual([
      { version: 5, action: 'update', content: 'v2', tags: ['a', 'b'] },
      { version: 4, action: 'restore', content: 'v2', tags: ['a'] },
      { version: 3, action: 'delete', content: 'v2', tags: ['a'] },
      { version: 2, action: 'update', content: 'v2', tags: ['a'] },
      { version: 1, action: 'create', content: 'v1', tags: ['a'] },
    ]);
    const current = (await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data;
    expect(current.version).toBe(5);
    expect(current.updated_at).toBe(versions[0]!.created_at);
  });

  it('pages with limit and cursor; also for a sticky in the trash', async () => {
    const sticky = await create(owner, 'e0');
    for (let i = 1; i <= 4; i += 1) await call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: `e${i}` });
    await call(owner, 'DELETE', `/api/stickies/${sticky.id}`);
    const first = await call(owner, 'GET', `/api/stickies/${sticky.id}/versions?limit=4`);
    expect(first.body.data.map((v: { version: number }) => v.version)).toEqual([6, 5, 4, 3]);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await call(owner, 'GET', `/api/stickies/${sticky.id}/versions?limit=4&cursor=${first.body.pagination.next_cursor}`);
    expect(second.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(second.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(await call(owner, 'GET', `/api/stickies/${sticky.id}/versions?limit=201`)).toMatchObject({
      status: 400,
      body: { error: 'Invalid limit: must be an integer between 1 and 200' },
    });
    expect(await call(owner, 'GET', `/api/stickies/${sticky.id}/versions?cursor=abc`)).toMatchObject({
      status: 400,
      body: { error: 'Invalid cursor: is not a cursor this list issued' },
    });
  });

  it("404 for another user's sticky and an unknown id; 400 malformed; 401; 403", async () => {
    const sticky = await create(owner, 'history');
    expect(await call(stranger, 'GET', `/api/stickies/${sticky.id}/versions`)).toMatchObject({ status: 404, body: { error: 'Sticky not found' } });
    expect((await call(owner, 'GET', `/api/stickies/${MISSING}/versions`)).status).toBe(404);
    expect((await call(owner, 'GET', '/api/stickies/zzz/versions')).status).toBe(400);
    expect((await call(null, 'GET', `/api/stickies/${sticky.id}/versions`)).status).toBe(401);
    expect((await call(outsider, 'GET', `/api/stickies/${sticky.id}/versions`)).status).toBe(403);
    expect((await call(reader, 'GET', `/api/stickies/${sticky.id}/versions`)).status).toBe(404);
  });
});

describe('concurrent writers', () => {
  it('20 concurrent PATCHes: 21 versions numbered 1..21 without gaps; the sticky holds the newest', async () => {
    const sticky = await create(owner, 'start');
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => call(owner, 'PATCH', `/api/stickies/${sticky.id}`, { content: `writer ${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Each writer saw its own version number.
    expect(new Set(responses.map((r) => r.body.data.version)).size).toBe(20);

    const history = await call(owner, 'GET', `/api/stickies/${sticky.id}/versions?limit=200`);
    const versions = history.body.data as { version: number; action: string; content: string }[];
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => 21 - i));
    expect(versions.at(-1)).toMatchObject({ version: 1, action: 'create', content: 'start' });
    expect(new Set(versions.slice(0, 20).map((v) => v.content))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `writer ${i}`)));
    const current = (await call(owner, 'GET', `/api/stickies/${sticky.id}`)).body.data;
    expect(current.version).toBe(21);
    expect(current.content).toBe(versions[0]!.content);
  });

  it('concurrent deletes: exactly one succeeds, the others are 409', async () => {
    const sticky = await create(owner, 'contested');
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => call(owner, 'DELETE', `/api/stickies/${sticky.id}`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    expect(await server.services.prisma.stickyVersion.count({ where: { stickyId: sticky.id } })).toBe(2);
  });
});

describe('GraphQL parity', () => {
  const FIELDS = 'id content tags version createdAt updatedAt deletedAt';

  it('createSticky and stickies(first) agree with REST', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const created = await graphql(user, `mutation ($input: CreateStickyInput!) { createSticky(input: $input) { ${FIELDS} } }`, {
      input: { content: 'from GraphQL', tags: ['GQL', 'gql'] },
    });
    expect(created.status).toBe(200);
    expect(created.body.errors).toBeUndefined();
    const node = created.body.data.createSticky;
    expect(node).toMatchObject({ content: 'from GraphQL', tags: ['gql'], version: 1, deletedAt: null });
    await create(user, 'from REST', ['rest']);

    const rest = await call(user, 'GET', '/api/stickies?limit=10');
    const gql = await graphql(user, `{ stickies(first: 10) { edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`);
    const nodes = gql.body.data.stickies.edges.map((edge: { node: Record<string, unknown> }) => edge.node);
    expect(nodes.map((n: { id: string }) => n.id)).toEqual(rest.body.data.map((s: { id: string }) => s.id));
    const restFirst = rest.body.data.find((s: { id: string }) => s.id === node.id);
    expect(restFirst).toEqual({
      id: node.id,
      content: node.content,
      tags: node.tags,
      version: 1,
      created_at: node.createdAt,
      updated_at: node.updatedAt,
      deleted_at: null,
    });
    expect(gql.body.data.stickies.pageInfo.hasNextPage).toBe(false);

    const filtered = await graphql(user, '{ stickies(tags: ["GQL"]) { edges { node { id } } } }');
    expect(filtered.body.data.stickies.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([node.id]);
  });

  it('update, delete, restore, sticky and stickyVersions through GraphQL; errors carry the codes', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const sticky = await create(user, 'gql lifecycle');
    const updated = await graphql(user, `mutation { updateSticky(input: { id: "${sticky.id}", content: "changed" }) { version content } }`);
    expect(updated.body.data.updateSticky).toEqual({ version: 2, content: 'changed' });
    const deleted = await graphql(user, `mutation { deleteSticky(id: "${sticky.id}") { version deletedAt } }`);
    expect(deleted.body.data.deleteSticky.deletedAt).toMatch(ISO);
    const conflict = await graphql(user, `mutation { updateSticky(input: { id: "${sticky.id}", content: "x" }) { id } }`);
    expect(conflict.body.errors[0]).toMatchObject({ message: 'Sticky is in the trash; restore it first', extensions: { code: 'CONFLICT' } });
    const restored = await graphql(user, `mutation { restoreSticky(id: "${sticky.id}") { version deletedAt } }`);
    expect(restored.body.data.restoreSticky).toEqual({ version: 4, deletedAt: null });

    const one = await graphql(user, `{ sticky(id: "${sticky.id}") { content version } }`);
    expect(one.body.data.sticky).toEqual({ content: 'changed', version: 4 });
    const history = await graphql(user, `{ stickyVersions(id: "${sticky.id}", first: 3) { edges { node { version action } } pageInfo { hasNextPage } } }`);
    expect(history.body.data.stickyVersions.edges.map((e: { node: { action: string } }) => e.node.action)).toEqual(['restore', 'delete', 'update']);
    expect(history.body.data.stickyVersions.pageInfo.hasNextPage).toBe(true);

    const hidden = await graphql(stranger, `{ sticky(id: "${sticky.id}") { id } }`);
    expect(hidden.body.errors[0]).toMatchObject({ message: 'Sticky not found', extensions: { code: 'NOT_FOUND' } });
    const forbidden = await graphql(reader, `mutation { createSticky(input: { content: "x" }) { id } }`);
    expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const invalid = await graphql(user, 'mutation { createSticky(input: { content: "" }) { id } }');
    expect(invalid.body.errors[0]).toMatchObject({ message: 'Invalid content: must not be empty', extensions: { code: 'BAD_USER_INPUT', field: 'content' } });
    const tooMany = await graphql(user, '{ stickies(first: 500) { edges { node { id } } } }');
    expect(tooMany.body.errors[0]).toMatchObject({ message: 'Invalid first: must be an integer between 1 and 200' });
  });
});
