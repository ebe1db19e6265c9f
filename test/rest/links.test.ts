/**
 * /api/links and /api/links/folders as clients use them: a real service, real HTTP, every
 * endpoint's success and errors, isolation between users, pagination, folder deletion keeping
 * its links, case-insensitive folder names under concurrency, route order, and GraphQL parity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID, ISO, MISSING } from '../helpers/formats.ts';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, EVERY_SCOPE, WORKSPACE_MEMBER, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser, callApi, type ApiCallArgs } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const LINK_KEYS = ['id', 'url', 'title', 'folder_id', 'tags', 'starred', 'created_at', 'updated_at'];
const FOLDER_KEYS = ['id', 'name', 'link_count', 'created_at', 'updated_at'];

let server: TestServer;
let owner: TestUser, stranger: TestUser, reader: TestUser, outsider: TestUser;
beforeAll(async () => {
  ({ server, owner, stranger, reader, outsider } = await startServerWithUsers({
    owner: WORKSPACE_MEMBER,
    stranger: EVERY_SCOPE,
    reader: WORKSPACE_READER,
    outsider: { scopes: ['read:pnl'] },
  }));
});
afterAll(() => server?.close());

const call = (...args: ApiCallArgs) => callApi(server.url, ...args);

async function createLink(user: TestUser, body: Record<string, unknown>) {
  const response = await call(user, 'POST', '/api/links', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

async function createFolder(user: TestUser, name: string) {
  const response = await call(user, 'POST', '/api/links/folders', { name });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

/** Every page of GET /api/links (with the given query) following next_cursor. */
async function allPages(user: TestUser, query: string, limit: number) {
  const pages: { data: any[]; pagination: { has_more: boolean; next_cursor: string | null } }[] = [];
  let cursor: string | null = null;
  do {
    const response = await call(user, 'GET', `/api/links?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    pages.push(response.body);
    cursor = response.body.pagination.next_cursor;
    expect(cursor === null).toBe(!response.body.pagination.has_more);
  } while (cursor);
  return pages;
}

function expectNewestFirst(links: { created_at: string; id: string }[]) {
  for (let i = 1; i < links.length; i += 1) {
    const [a, b] = [links[i - 1], links[i]];
    expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id), `${a.created_at}/${a.id} before ${b.created_at}/${b.id}`).toBe(true);
  }
}

describe('POST /api/links', () => {
  it('saves a link: 201 with the record, url normalised, tags normalised', async () => {
    const response = await call(owner, 'POST', '/api/links', {
      url: '  HTTPS://Example.COM:443/Docs Page?q=1#intro ',
      title: '  Example docs ',
      tags: [' Docs', 'docs', 'API '],
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    const link = response.body.data;
    expect(Object.keys(link).sort()).toEqual([...LINK_KEYS].sort());
    expect(link).toMatchObject({
      url: 'https://example.com/Docs%20Page?q=1#intro',
      title: 'Example docs',
      folder_id: null,
      tags: ['docs', 'api'],
      starred: false,
    });
    expect(link.id).toMatch(UUID);
    expect(link.created_at).toMatch(ISO);
    expect(link.updated_at).toBe(link.created_at);
  });

  it('takes title, folder_id, tags and starred; title and tags are optional', async () => {
    const folder = await createFolder(owner, 'Post target');
    const link = await createLink(owner, { url: 'http://example.org', folder_id: folder.id, starred: true });
    expect(link).toMatchObject({ url: 'http://example.org/', title: null, folder_id: folder.id, tags: [], starred: true });
    const blankTitle = await createLink(owner, { url: 'https://example.org/blank', title: '   ' });
    expect(blankTitle.title).toBeNull();
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{}, 'Missing required parameter: url'],
      [{ title: 'no url' }, 'Missing required parameter: url'],
      [{ url: '' }, 'Invalid url: must not be empty'],
      [{ url: 'ftp://example.com/file' }, 'Invalid url: only http and https URLs are accepted'],
      [{ url: 'javascript:alert(1)' }, 'Invalid url: only http and https URLs are accepted'],
      [{ url: 'example.com/no-scheme' }, 'Invalid url: must be an absolute http or https URL'],
      [{ url: 'https://user:secret@example.com/' }, 'Invalid url: must not contain credentials'],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, 'Invalid url: must be at most 2048 characters'],
      [{ url: 42 }, /^Invalid url: /],
      [{ url: 'https://example.com/', title: 't'.repeat(501) }, 'Invalid title: must be at most 500 characters'],
      [{ url: 'https://example.com/', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'Invalid tags: at most 20 tags'],
      [{ url: 'https://example.com/', tags: ['x'.repeat(51)] }, 'Invalid tags: each tag may be at most 50 characters'],
      [{ url: 'https://example.com/', tags: [' '] }, 'Invalid tags: tags must not be empty'],
      [{ url: 'https://example.com/', tags: 'a,b' }, 'Invalid tags: tags may not contain commas or control characters'],
      [{ url: 'https://example.com/', folder_id: 'not-a-uuid' }, /^Invalid folder_id: must be a UUID/],
      [{ url: 'https://example.com/', starred: 'yes' }, /^Invalid starred: /],
      [{ url: 'https://example.com/', color: 'red' }, 'Unknown field: color'],
      ['[1, 2]', 'The JSON body must be an object'],
      ['{"url": ', 'Malformed JSON body'],
    ];
    const before = await server.services.prisma.link.count({ where: { userId: owner.userId } });
    for (const [body, error] of cases) {
      const response = await call(owner, 'POST', '/api/links', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      if (typeof error === 'string') expect(response.body.error, JSON.stringify(body)).toBe(error);
      else expect(response.body.error, JSON.stringify(body)).toMatch(error);
    }
    expect(await server.services.prisma.link.count({ where: { userId: owner.userId } })).toBe(before);
  });

  it("404 Folder not found for a folder_id that is not the caller's (unknown or another user's)", async () => {
    const theirs = await createFolder(stranger, 'Theirs');
    for (const folderId of [MISSING, theirs.id]) {
      const response = await call(owner, 'POST', '/api/links', { url: 'https://example.com/x', folder_id: folderId });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Folder not found' });
    }
  });

  it('401 without or with a bad credential, 403 without write:workspace, 415 for a non-JSON body', async () => {
    const anonymous = await call(null, 'POST', '/api/links', { url: 'https://example.com/' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Invalid or expired API key' });
    const badKey = await call(null, 'POST', '/api/links', { url: 'https://example.com/' }, { 'x-api-key': `sk_${'0'.repeat(32)}` });
    expect(badKey.status).toBe(401);
    for (const user of [reader, outsider]) {
      const response = await call(user, 'POST', '/api/links', { url: 'https://example.com/' });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'Insufficient permissions' });
    }
    const text = await call(owner, 'POST', '/api/links', 'url=https://example.com/', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ error: 'Content-Type must be application/json' });
  });

  it('accepts Authorization: Bearer with an API key', async () => {
    const response = await call(null, 'POST', '/api/links', { url: 'https://example.com/bearer' }, { authorization: `Bearer ${owner.key}` });
    expect(response.status).toBe(201);
  });
});

describe('GET /api/links', () => {
  let lister: TestUser;
  let folder: { id: string };
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    folder = await createFolder(lister, 'Listed');
    for (let i = 0; i < 7; i += 1) {
      const link = await createLink(lister, {
        url: `https://example.com/list/${i}`,
        title: `Link ${i}`,
        starred: i % 3 === 0,
        ...(i < 4 ? { folder_id: folder.id } : {}),
      });
      ids.push(link.id);
    }
  });

  it("lists newest first with the default page, and only the caller's links", async () => {
    const response = await call(lister, 'GET', '/api/links');
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(response.body.data.map((link: { id: string }) => link.id).sort()).toEqual([...ids].sort());
    expectNewestFirst(response.body.data);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...LINK_KEYS].sort());
    // The last created is first unless two share a millisecond (then the id decides).
    const stranger = await call(reader, 'GET', '/api/links');
    expect(stranger.status).toBe(200);
    expect(stranger.body.data.filter((link: { id: string }) => ids.includes(link.id))).toEqual([]);
  });

  it('pages with limit and cursor: every link once, in order', async () => {
    const pages = await allPages(lister, '', 3);
    expect(pages.map((page) => page.data.length)).toEqual([3, 3, 1]);
    const seen = pages.flatMap((page) => page.data);
    expect(seen.map((link) => link.id).sort()).toEqual([...ids].sort());
    expectNewestFirst(seen);
    // A page that ends exactly at the last link says so.
    expect((await allPages(lister, '', 7)).map((page) => [page.data.length, page.pagination.has_more])).toEqual([[7, false]]);
  });

  it('filters by folder_id and by starred (true: starred only, false: unstarred only), combined with paging', async () => {
    const inFolder = (await allPages(lister, `&folder_id=${folder.id}`, 2)).flatMap((page) => page.data);
    expect(inFolder.map((link) => link.id).sort()).toEqual(ids.slice(0, 4).sort());
    const starred = (await call(lister, 'GET', '/api/links?starred=true')).body.data;
    expect(starred.map((link: { title: string }) => link.title).sort()).toEqual(['Link 0', 'Link 3', 'Link 6']);
    const unstarred = (await call(lister, 'GET', '/api/links?starred=false')).body.data;
    expect(unstarred).toHaveLength(4);
    const both = (await call(lister, 'GET', `/api/links?starred=true&folder_id=${folder.id}`)).body.data;
    expect(both.map((link: { title: string }) => link.title).sort()).toEqual(['Link 0', 'Link 3']);
  });

  it("400 for a bad limit, cursor, starred or folder_id; 404 for a folder that is not the caller's", async () => {
    for (const [query, error] of [
      ['limit=0', 'Invalid limit: must be an integer between 1 and 200'],
      ['limit=201', 'Invalid limit: must be an integer between 1 and 200'],
      ['limit=ten', 'Invalid limit: must be an integer, got "ten"'],
      ['cursor=bogus', 'Invalid cursor: is not a cursor this endpoint issued'],
      ['starred=maybe', 'Invalid starred: must be true or false, got "maybe"'],
    ] as const) {
      const response = await call(lister, 'GET', `/api/links?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toEqual({ error });
    }
    const malformed = await call(lister, 'GET', '/api/links?folder_id=123');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid folder_id: must be a UUID/);
    const theirs = await createFolder(stranger, 'Not yours to list');
    for (const folderId of [MISSING, theirs.id]) {
      const response = await call(lister, 'GET', `/api/links?folder_id=${folderId}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Folder not found' });
    }
  });

  it('the maximum page size works', async () => {
    const response = await call(lister, 'GET', '/api/links?limit=200');
    expect(response.status).toBe(200);
    expect(response.body.data).toHaveLength(7);
  });

  it('401 without credentials, 403 without read:workspace', async () => {
    expect((await call(null, 'GET', '/api/links')).status).toBe(401);
    const forbidden = await call(outsider, 'GET', '/api/links');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: 'Insufficient permissions' });
  });
});

describe('GET, PATCH and DELETE /api/links/{id}', () => {
  it("GET answers one link; another user's or an unknown one is 404, a malformed id 400", async () => {
    const link = await createLink(owner, { url: 'https://example.com/one' });
    const response = await call(owner, 'GET', `/api/links/${link.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: link });
    expect(await call(reader, 'GET', `/api/links/${link.id}`)).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    expect(await call(owner, 'GET', `/api/links/${MISSING}`)).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    const malformed = await call(owner, 'GET', '/api/links/nope');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid id: must be a UUID/);
  });

  it('PATCH changes any writable field and starred, and answers the record', async () => {
    const folder = await createFolder(owner, 'Patch target');
    const link = await createLink(owner, { url: 'https://example.com/patch', title: 'Before', tags: ['a'] });
    const response = await call(owner, 'PATCH', `/api/links/${link.id}`, {
      url: 'https://EXAMPLE.com/patched',
      title: 'After',
      folder_id: folder.id,
      tags: ['B', 'c'],
      starred: true,
    });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: link.id,
      url: 'https://example.com/patched',
      title: 'After',
      folder_id: folder.id,
      tags: ['b', 'c'],
      starred: true,
      created_at: link.created_at,
    });
    expect(response.body.data.updated_at >= link.updated_at).toBe(true);

    // Only the fields given change; null moves the link out of its folder and clears title and tags.
    const partial = await call(owner, 'PATCH', `/api/links/${link.id}`, { starred: false });
    expect(partial.body.data).toMatchObject({ url: 'https://example.com/patched', title: 'After', folder_id: folder.id, tags: ['b', 'c'], starred: false });
    const cleared = await call(owner, 'PATCH', `/api/links/${link.id}`, { folder_id: null, title: null, tags: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ folder_id: null, title: null, tags: [], starred: false });
  });

  it('PATCH with nothing to change answers the record unchanged', async () => {
    const link = await createLink(owner, { url: 'https://example.com/same', title: 'Same' });
    for (const body of [{}, { title: 'Same', url: 'https://example.com/same' }]) {
      const response = await call(owner, 'PATCH', `/api/links/${link.id}`, body);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual(link);
    }
  });

  it("PATCH errors: 400 naming the field, 404 for another user's link or folder", async () => {
    const link = await createLink(owner, { url: 'https://example.com/patch-errors' });
    for (const [body, error] of [
      [{ url: null }, 'Invalid url: must not be null'],
      [{ url: 'mailto:someone@example.com' }, 'Invalid url: only http and https URLs are accepted'],
      [{ starred: null }, 'Invalid starred: must be true or false'],
      [{ title: 'x'.repeat(501) }, 'Invalid title: must be at most 500 characters'],
      [{ pinned: true }, 'Unknown field: pinned'],
      // The path names the link; a body cannot redirect the update to another one.
      [{ id: MISSING, title: 'x' }, 'Unknown field: id'],
    ] as const) {
      const response = await call(owner, 'PATCH', `/api/links/${link.id}`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    }
    const theirFolder = await createFolder(stranger, 'Not a target');
    expect(await call(owner, 'PATCH', `/api/links/${link.id}`, { folder_id: theirFolder.id })).toMatchObject({
      status: 404,
      body: { error: 'Folder not found' },
    });
    expect(await call(stranger, 'PATCH', `/api/links/${link.id}`, { title: 'hijack' })).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    expect(await call(owner, 'PATCH', `/api/links/${MISSING}`, { title: 'x' })).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    expect(await call(reader, 'PATCH', `/api/links/${link.id}`, { title: 'x' })).toMatchObject({ status: 403 });
    expect((await call(null, 'PATCH', `/api/links/${link.id}`, { title: 'x' })).status).toBe(401);
    expect((await call(owner, 'PATCH', `/api/links/${link.id}`, 'title=x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call(owner, 'GET', `/api/links/${link.id}`)).body.data).toEqual(link);
  });

  it('DELETE removes the link for good: 204 with no body; then 404', async () => {
    const link = await createLink(owner, { url: 'https://example.com/delete-me' });
    expect(await call(stranger, 'DELETE', `/api/links/${link.id}`)).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    expect(await call(reader, 'DELETE', `/api/links/${link.id}`)).toMatchObject({ status: 403 });
    expect((await call(null, 'DELETE', `/api/links/${link.id}`)).status).toBe(401);
    const response = await fetch(`${server.url}/api/links/${link.id}`, { method: 'DELETE', headers: { 'x-api-key': owner.key } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(await server.services.prisma.link.findUnique({ where: { id: link.id } })).toBeNull();
    expect(await call(owner, 'DELETE', `/api/links/${link.id}`)).toMatchObject({ status: 404, body: { error: 'Link not found' } });
    expect((await call(owner, 'DELETE', '/api/links/not-a-uuid')).status).toBe(400);
  });
});

describe('/api/links/folders', () => {
  let foldersUser: TestUser;

  beforeAll(async () => {
    foldersUser = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
  });

  it('POST creates a folder: 201 with link_count 0; the name is trimmed', async () => {
    const response = await call(foldersUser, 'POST', '/api/links/folders', { name: '  Reading list  ' });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body.data).sort()).toEqual([...FOLDER_KEYS].sort());
    expect(response.body.data).toMatchObject({ name: 'Reading list', link_count: 0 });
    expect(response.body.data.id).toMatch(UUID);
  });

  it('names are unique per user, case-insensitively: 409; another user may use the same name', async () => {
    await createFolder(foldersUser, 'Research');
    for (const name of ['Research', 'research', ' RESEARCH ']) {
      const response = await call(foldersUser, 'POST', '/api/links/folders', { name });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({ error: `A folder named "${name.trim()}" already exists` });
    }
    expect((await call(stranger, 'POST', '/api/links/folders', { name: 'Research' })).status).toBe(201);
  });

  it('concurrent creates of one name in different cases: exactly one wins', async () => {
    const names = ['Inbox', 'inbox', 'INBOX', 'InBox', 'iNBOX', 'inBOX', 'INbox', 'inbOX', 'InboX', 'iNbOx'];
    const responses = await Promise.all(names.map((name) => call(foldersUser, 'POST', '/api/links/folders', { name })));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(names.length - 1);
    const stored = await server.services.prisma.linkFolder.findMany({ where: { userId: foldersUser.userId } });
    expect(stored.filter((folder) => folder.name.toLowerCase() === 'inbox')).toHaveLength(1);
  });

  it('POST refuses bad names with 400', async () => {
    for (const [body, error] of [
      [{}, 'Missing required parameter: name'],
      [{ name: '' }, 'Invalid name: must not be empty'],
      [{ name: '   ' }, 'Invalid name: must not be empty'],
      [{ name: 'n'.repeat(101) }, 'Invalid name: must be at most 100 characters'],
      [{ name: 'tab\there' }, 'Invalid name: must not contain control characters'],
      [{ name: 'ok', parent: 'x' }, 'Unknown field: parent'],
    ] as const) {
      const response = await call(foldersUser, 'POST', '/api/links/folders', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toEqual({ error });
    }
    expect((await call(foldersUser, 'POST', '/api/links/folders', { name: 'n'.repeat(100) })).status).toBe(201);
    expect((await call(reader, 'POST', '/api/links/folders', { name: 'x' })).status).toBe(403);
    expect((await call(null, 'POST', '/api/links/folders', { name: 'x' })).status).toBe(401);
    expect((await call(foldersUser, 'POST', '/api/links/folders', 'name=x', { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it("GET lists all the caller's folders in case-insensitive name order with link_count", async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const beta = await createFolder(user, 'beta');
    const alpha = await createFolder(user, 'Alpha');
    await createFolder(user, 'gamma');
    await createLink(user, { url: 'https://example.com/b1', folder_id: beta.id });
    await createLink(user, { url: 'https://example.com/b2', folder_id: beta.id });
    await createLink(user, { url: 'https://example.com/a1', folder_id: alpha.id });
    await createLink(user, { url: 'https://example.com/none' });
    const response = await call(user, 'GET', '/api/links/folders');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    expect(response.body.data.map((f: { name: string; link_count: number }) => [f.name, f.link_count])).toEqual([
      ['Alpha', 1],
      ['beta', 2],
      ['gamma', 0],
    ]);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...FOLDER_KEYS].sort());
    // Another user's folders are never listed.
    const theirs = await call(stranger, 'GET', '/api/links/folders');
    expect(theirs.body.data.map((f: { id: string }) => f.id)).not.toContain(alpha.id);
    expect((await call(outsider, 'GET', '/api/links/folders')).status).toBe(403);
    expect((await call(null, 'GET', '/api/links/folders')).status).toBe(401);
  });

  it("PATCH renames (409 on a clash, a change of case is fine); another user's folder is 404", async () => {
    const folder = await createFolder(foldersUser, 'Old name');
    await createFolder(foldersUser, 'Taken');
    const renamed = await call(foldersUser, 'PATCH', `/api/links/folders/${folder.id}`, { name: 'New name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: folder.id, name: 'New name', link_count: 0 });
    expect((await call(foldersUser, 'PATCH', `/api/links/folders/${folder.id}`, { name: 'NEW NAME' })).body.data.name).toBe('NEW NAME');
    expect(await call(foldersUser, 'PATCH', `/api/links/folders/${folder.id}`, { name: 'taken' })).toMatchObject({
      status: 409,
      body: { error: 'A folder named "taken" already exists' },
    });
    expect(await call(foldersUser, 'PATCH', `/api/links/folders/${folder.id}`, { name: '' })).toMatchObject({
      status: 400,
      body: { error: 'Invalid name: must not be empty' },
    });
    expect(await call(foldersUser, 'PATCH', `/api/links/folders/${folder.id}`, {})).toMatchObject({
      status: 400,
      body: { error: 'Missing required parameter: name' },
    });
    expect(await call(stranger, 'PATCH', `/api/links/folders/${folder.id}`, { name: 'Mine now' })).toMatchObject({
      status: 404,
      body: { error: 'Folder not found' },
    });
    expect(await call(foldersUser, 'PATCH', `/api/links/folders/${MISSING}`, { name: 'x' })).toMatchObject({
      status: 404,
      body: { error: 'Folder not found' },
    });
    expect((await call(foldersUser, 'PATCH', '/api/links/folders/xyz', { name: 'x' })).status).toBe(400);
    expect((await call(reader, 'PATCH', `/api/links/folders/${folder.id}`, { name: 'x' })).status).toBe(403);
  });

  it('DELETE removes the folder (204) and keeps its links, moved out of it', async () => {
    const folder = await createFolder(foldersUser, 'Doomed');
    const links = [
      await createLink(foldersUser, { url: 'https://example.com/d1', folder_id: folder.id }),
      await createLink(foldersUser, { url: 'https://example.com/d2', folder_id: folder.id }),
    ];
    expect(await call(stranger, 'DELETE', `/api/links/folders/${folder.id}`)).toMatchObject({ status: 404, body: { error: 'Folder not found' } });
    expect((await call(reader, 'DELETE', `/api/links/folders/${folder.id}`)).status).toBe(403);
    const response = await fetch(`${server.url}/api/links/folders/${folder.id}`, { method: 'DELETE', headers: { 'x-api-key': foldersUser.key } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    for (const link of links) {
      const after = await call(foldersUser, 'GET', `/api/links/${link.id}`);
      expect(after.status).toBe(200);
      expect(after.body.data).toMatchObject({ id: link.id, folder_id: null });
    }
    expect((await call(foldersUser, 'GET', '/api/links/folders')).body.data.map((f: { id: string }) => f.id)).not.toContain(folder.id);
    expect(await call(foldersUser, 'DELETE', `/api/links/folders/${folder.id}`)).toMatchObject({ status: 404, body: { error: 'Folder not found' } });
    // The name is free again.
    expect((await call(foldersUser, 'POST', '/api/links/folders', { name: 'doomed' })).status).toBe(201);
  });

  it('the literal /api/links/folders path is never taken for a link id', async () => {
    const response = await call(foldersUser, 'GET', '/api/links/folders');
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body.data)).toBe(true);
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const refused = await call(foldersUser, method, '/api/links/folders', method === 'DELETE' ? undefined : { name: 'x' });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, POST');
    }
  });
});

describe('GraphQL parity', () => {
  const gql = (user: TestUser, query: string, variables: Record<string, unknown> = {}) => graphql(server.url, { 'x-api-key': user.key }, query, variables);
  const FIELDS = 'id url title folderId tags starred createdAt updatedAt';

  function snake(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(snake);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
  }

  it('links(...) gives the same page as GET /api/links', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const folder = await createFolder(user, 'Parity');
    for (let i = 0; i < 3; i += 1) await createLink(user, { url: `https://example.com/parity/${i}`, folder_id: folder.id, starred: true });
    const rest = await call(user, 'GET', `/api/links?folder_id=${folder.id}&starred=true&limit=2`);
    const result = await gql(
      user,
      `query ($folderId: UUID, $first: Int) { links(folderId: $folderId, starred: true, first: $first) { edges { node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
      { folderId: folder.id, first: 2 },
    );
    expect(result.status).toBe(200);
    expect(result.body.errors).toBeUndefined();
    expect(rest.body.data).toEqual(snake(result.body.data.links.edges.map((edge: { node: unknown }) => edge.node)));
    expect(rest.body.pagination).toEqual({ has_more: true, next_cursor: result.body.data.links.pageInfo.endCursor });
    const folders = await gql(user, '{ linkFolders { id name linkCount } }');
    expect(folders.body.data.linkFolders).toEqual([{ id: folder.id, name: 'Parity', linkCount: 3 }]);
  });

  it('createLink / updateLink / deleteLink and the folder mutations; errors carry the REST status code', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const created = await gql(user, `mutation ($input: CreateLinkInput!) { createLink(input: $input) { ${FIELDS} } }`, {
      input: { url: 'HTTPS://Example.com/gql', tags: ['GraphQL'] },
    });
    expect(created.body.errors).toBeUndefined();
    const link = created.body.data.createLink;
    expect(link).toMatchObject({ url: 'https://example.com/gql', tags: ['graphql'], folderId: null, starred: false });
    expect((await call(user, 'GET', `/api/links/${link.id}`)).body.data).toEqual(snake(link));

    const folder = await gql(user, 'mutation { createLinkFolder(input: { name: "Via GraphQL" }) { id name linkCount } }');
    const folderId = folder.body.data.createLinkFolder.id;
    const moved = await gql(
      user,
      'mutation ($id: UUID!, $folderId: UUID) { updateLink(input: { id: $id, folderId: $folderId, starred: true }) { folderId starred } }',
      { id: link.id, folderId },
    );
    expect(moved.body.data.updateLink).toEqual({ folderId, starred: true });
    const renamed = await gql(user, 'mutation ($id: UUID!) { renameLinkFolder(input: { id: $id, name: "Renamed" }) { name linkCount } }', { id: folderId });
    expect(renamed.body.data.renameLinkFolder).toEqual({ name: 'Renamed', linkCount: 1 });
    const duplicate = await gql(user, 'mutation { createLinkFolder(input: { name: "renamed" }) { id } }');
    expect(duplicate.body.errors?.[0]).toMatchObject({ message: 'A folder named "renamed" already exists', extensions: { code: 'CONFLICT' } });
    const deletedFolder = await gql(user, 'mutation ($id: UUID!) { deleteLinkFolder(id: $id) { id movedLinks } }', { id: folderId });
    expect(deletedFolder.body.data.deleteLinkFolder).toEqual({ id: folderId, movedLinks: 1 });
    expect((await gql(user, 'query ($id: UUID!) { link(id: $id) { folderId } }', { id: link.id })).body.data.link).toEqual({ folderId: null });

    const badUrl = await gql(user, 'mutation { createLink(input: { url: "ftp://x" }) { id } }');
    expect(badUrl.body.errors?.[0]).toMatchObject({
      message: 'Invalid url: only http and https URLs are accepted',
      extensions: { code: 'BAD_USER_INPUT', field: 'url' },
    });
    const foreign = await gql(stranger, 'query ($id: UUID!) { link(id: $id) { id } }', { id: link.id });
    expect(foreign.body.data.link).toBeNull();
    expect(foreign.body.errors?.[0]).toMatchObject({ message: 'Link not found', extensions: { code: 'NOT_FOUND' } });
    const readOnly = await gql(reader, 'mutation ($id: UUID!) { deleteLink(id: $id) }', { id: link.id });
    expect(readOnly.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const deleted = await gql(user, 'mutation ($id: UUID!) { deleteLink(id: $id) }', { id: link.id });
    expect(deleted.body.data.deleteLink).toBe(link.id);
    expect((await call(user, 'GET', `/api/links/${link.id}`)).status).toBe(404);
  });
});
