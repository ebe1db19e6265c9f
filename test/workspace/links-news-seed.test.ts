/**
 * The demo links and news (src/seed/workspace-links.ts, workspace-news.ts) go through the real
 * services and are what the README examples show: folders with counts, starred links, and a
 * digest of the last seven days with something in every group.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { seedLinks } from '../../src/seed/workspace-links.ts';
import { seedNews } from '../../src/seed/workspace-news.ts';

let server: TestServer;
let admin: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  admin = await createUser(server.services);
  await seedLinks(server.services, admin.userId);
  await seedNews(server.services, admin.userId);
});
afterAll(() => server?.close());

const get = (path: string) => getJson(`${server.url}${path}`, { headers: { 'x-api-key': admin.key } });

describe('demo links and news', () => {
  it('folders with link counts, starred links and unfiled links', async () => {
    const folders = (await get('/api/links/folders')).body.data;
    expect(folders.map((f: { name: string; link_count: number }) => [f.name, f.link_count])).toEqual([
      ['Reading list', 3],
      ['Research', 3],
      ['Tools', 3],
    ]);
    const links = (await get('/api/links')).body.data;
    expect(links).toHaveLength(12);
    expect(links.filter((l: { folder_id: string | null }) => l.folder_id === null)).toHaveLength(3);
    expect((await get('/api/links?starred=true')).body.data).toHaveLength(3);
  });

  it('news over two weeks: the default digest groups the last seven days', async () => {
    const news = (await get('/api/news?limit=100')).body.data;
    expect(news).toHaveLength(12);
    const digest = (await get('/api/news/digest')).body.data;
    expect(digest.total_articles).toBe(8);
    expect(digest.by_source.length).toBeGreaterThanOrEqual(3);
    expect(digest.by_tag[0]).toMatchObject({ tag: 'macro', count: 2 });
    expect(digest.top_articles[0].title).toBe('Central bank holds rates, signals patience on cuts');
  });
});
