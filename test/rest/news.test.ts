/**
 * /api/news and /api/news/digest as clients use them: a real service, real HTTP, every endpoint's
 * success and errors, URL de-duplication (also under concurrency), isolation between users,
 * pagination and filters, the digest's exact groups, counts, top items and period boundaries,
 * and GraphQL parity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID, ISO, MISSING } from '../helpers/formats.ts';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, EVERY_SCOPE, WORKSPACE_MEMBER, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser, callApi, type ApiCallArgs } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const ARTICLE_KEYS = ['id', 'title', 'url', 'source', 'summary', 'body', 'tags', 'published_at', 'created_at'];
const LIST_KEYS = ARTICLE_KEYS.filter((key) => key !== 'body');
const HOUR = 3_600_000;

let server: TestServer;
let owner: TestUser, stranger: TestUser, reader: TestUser, outsider: TestUser;
let urlCounter = 0;
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

async function post(user: TestUser, fields: Record<string, unknown> = {}) {
  urlCounter += 1;
  const response = await call(user, 'POST', '/api/news', {
    title: `Article ${urlCounter}`,
    url: `https://news.example.com/a/${urlCounter}`,
    source: 'Wire',
    ...fields,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

const ids = (articles: { id: string }[]) => articles.map((article) => article.id);

describe('POST /api/news', () => {
  it('adds an article: 201 with the record; url normalised without #fragment; tags normalised; published_at defaults to now', async () => {
    const before = Date.now();
    const response = await call(owner, 'POST', '/api/news', {
      title: '  Rates on hold  ',
      url: 'HTTPS://News.Example.COM:443/markets/rates-hold#comments',
      source: ' Market Wire ',
      summary: 'The central bank kept rates unchanged.',
      body: 'Full text.',
      tags: ['Rates', 'macro', 'RATES'],
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    const article = response.body.data;
    expect(Object.keys(article).sort()).toEqual([...ARTICLE_KEYS].sort());
    expect(article).toMatchObject({
      title: 'Rates on hold',
      url: 'https://news.example.com/markets/rates-hold',
      source: 'Market Wire',
      summary: 'The central bank kept rates unchanged.',
      body: 'Full text.',
      tags: ['rates', 'macro'],
    });
    expect(article.id).toMatch(UUID);
    expect(article.published_at).toMatch(ISO);
    expect(Date.parse(article.published_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(article.published_at)).toBeLessThanOrEqual(Date.now() + 1);
    expect(article.created_at).toMatch(ISO);
  });

  it('summary, body and tags are optional; published_at may be given (up to one day ahead)', async () => {
    const publishedAt = new Date(Date.now() + 23 * HOUR).toISOString();
    const article = await post(owner, { published_at: publishedAt });
    expect(article).toMatchObject({ summary: null, body: null, tags: [], published_at: publishedAt });
    const past = await post(owner, { published_at: '2025-06-30T08:15:00+02:00' });
    expect(past.published_at).toBe('2025-06-30T06:15:00.000Z');
  });

  it('a url already stored (however it is spelled) is 409; another user may store the same url', async () => {
    await post(owner, { url: 'https://example.com/story?id=7' });
    for (const url of ['https://example.com/story?id=7', 'HTTPS://EXAMPLE.com:443/story?id=7', 'https://example.com/story?id=7#top']) {
      const response = await call(owner, 'POST', '/api/news', { title: 'Again', url, source: 'Other' });
      expect(response.status, url).toBe(409);
      expect(response.body).toEqual({ error: 'An article with this url already exists' });
    }
    expect((await call(stranger, 'POST', '/api/news', { title: 'Mine too', url: 'https://example.com/story?id=7', source: 'Wire' })).status).toBe(201);
    // A different query string is a different article.
    expect((await call(owner, 'POST', '/api/news', { title: 'Other', url: 'https://example.com/story?id=8', source: 'Wire' })).status).toBe(201);
  });

  it('concurrent posts of one url: exactly one is stored', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(owner, 'POST', '/api/news', { title: `Race ${i}`, url: 'https://example.com/race', source: 'Wire' })),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await server.services.prisma.newsArticle.count({ where: { userId: owner.userId, url: 'https://example.com/race' } })).toBe(1);
  });

  it('refuses bad input with 400 naming the field and stores nothing', async () => {
    const ok = { title: 'T', url: 'https://example.com/bad-input', source: 'S' };
    const cases: [unknown, string | RegExp][] = [
      [{ url: ok.url, source: 'S' }, 'Missing required parameter: title'],
      [{ title: 'T', source: 'S' }, 'Missing required parameter: url'],
      [{ title: 'T', url: ok.url }, 'Missing required parameter: source'],
      [{ ...ok, title: '  ' }, 'Invalid title: must not be empty'],
      [{ ...ok, title: 't'.repeat(501) }, 'Invalid title: must be at most 500 characters'],
      [{ ...ok, url: 'ftp://example.com/x' }, 'Invalid url: only http and https URLs are accepted'],
      [{ ...ok, url: 'not a url' }, 'Invalid url: must be an absolute http or https URL'],
      [{ ...ok, source: 's'.repeat(101) }, 'Invalid source: must be at most 100 characters'],
      [{ ...ok, summary: 's'.repeat(2001) }, 'Invalid summary: must be at most 2000 characters'],
      [{ ...ok, body: 'b'.repeat(100_001) }, 'Invalid body: must be at most 100000 characters'],
      [{ ...ok, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'Invalid tags: at most 20 tags'],
      [{ ...ok, published_at: new Date(Date.now() + 25 * HOUR).toISOString() }, 'Invalid published_at: must not be more than 1 day in the future'],
      [{ ...ok, published_at: 'yesterday' }, /^Invalid published_at: /],
      [{ ...ok, published_at: '1969-12-31T23:59:59Z' }, 'Invalid published_at: must be 1970 or later'],
      [{ ...ok, author: 'someone' }, 'Unknown field: author'],
    ];
    const before = await server.services.prisma.newsArticle.count();
    for (const [body, error] of cases) {
      const response = await call(owner, 'POST', '/api/news', body);
      expect(response.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      if (typeof error === 'string') expect(response.body.error).toBe(error);
      else expect(response.body.error).toMatch(error);
    }
    expect(await server.services.prisma.newsArticle.count()).toBe(before);
  });

  it('401 without credentials, 403 without write:workspace, 415 for a non-JSON body', async () => {
    const body = { title: 'T', url: 'https://example.com/auth', source: 'S' };
    expect(await call(null, 'POST', '/api/news', body)).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
    expect(await call(reader, 'POST', '/api/news', body)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(await call(outsider, 'POST', '/api/news', body)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect((await call(owner, 'POST', '/api/news', JSON.stringify(body), { 'content-type': 'text/plain' })).status).toBe(415);
  });
});

describe('GET /api/news', () => {
  let lister: TestUser;
  const created: { id: string; published_at: string; title: string }[] = [];

  beforeAll(async () => {
    lister = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    // Created in an order unrelated to publication time.
    const hoursAgo = [30, 2, 50, 10, 70, 1, 40];
    const tags = [['rates'], ['tech', 'ai'], ['rates', 'macro'], [], ['macro'], ['AI'], ['rates']];
    const sources = ['Reuters', 'reuters', 'Bloomberg', 'REUTERS', '100% Tech', 'Bloomberg', 'FT'];
    for (let i = 0; i < hoursAgo.length; i += 1) {
      created.push(
        await post(lister, { title: `L${i}`, published_at: new Date(Date.now() - hoursAgo[i] * HOUR).toISOString(), tags: tags[i], source: sources[i] }),
      );
    }
  });

  it("lists the caller's articles, most recently published first, without body", async () => {
    const response = await call(lister, 'GET', '/api/news');
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(response.body.data.map((a: { title: string }) => a.title)).toEqual(['L5', 'L1', 'L3', 'L0', 'L6', 'L2', 'L4']);
    expect(Object.keys(response.body.data[0]).sort()).toEqual([...LIST_KEYS].sort());
    const others = await call(reader, 'GET', '/api/news');
    expect(ids(others.body.data).filter((id) => ids(created).includes(id))).toEqual([]);
  });

  it('pages with limit and cursor without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await call(lister, 'GET', `/api/news?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((a: { title: string }) => a.title));
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(['L5', 'L1', 'L3', 'L0', 'L6', 'L2', 'L4']);
  });

  it('limit defaults to 20 (maximum 100)', async () => {
    const many = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    for (let i = 0; i < 21; i += 1) await post(many, { published_at: new Date(Date.now() - i * HOUR).toISOString() });
    const first = await call(many, 'GET', '/api/news');
    expect(first.body.data).toHaveLength(20);
    expect(first.body.pagination.has_more).toBe(true);
    const rest = await call(many, 'GET', `/api/news?cursor=${encodeURIComponent(first.body.pagination.next_cursor)}`);
    expect(rest.body.data).toHaveLength(1);
    expect((await call(many, 'GET', '/api/news?limit=100')).body.data).toHaveLength(21);
  });

  it('filters by tag (case-insensitive) and by source (case-insensitive, exact: no wildcards)', async () => {
    const titles = async (query: string) => {
      const response = await call(lister, 'GET', `/api/news?${query}`);
      expect(response.status, query).toBe(200);
      return response.body.data.map((a: { title: string }) => a.title);
    };
    expect(await titles('tag=Rates')).toEqual(['L0', 'L6', 'L2']);
    expect(await titles('tag=ai')).toEqual(['L5', 'L1']);
    expect(await titles('tag=unknown')).toEqual([]);
    expect(await titles('source=reuters')).toEqual(['L1', 'L3', 'L0']);
    expect(await titles('source=%20Bloomberg%20')).toEqual(['L5', 'L2']);
    expect(await titles('source=100%25%20tech')).toEqual(['L4']);
    expect(await titles('source=%25')).toEqual([]);
    expect(await titles('source=R_uters')).toEqual([]);
    expect(await titles('tag=rates&source=ft')).toEqual(['L6']);
    expect(await titles('tag=&source=')).toHaveLength(7);
  });

  it('400 for a bad limit, cursor or tag; 401; 403', async () => {
    for (const [query, error] of [
      ['limit=0', 'Invalid limit: must be an integer between 1 and 100'],
      ['limit=101', 'Invalid limit: must be an integer between 1 and 100'],
      ['cursor=abc', 'Invalid cursor: is not a cursor this endpoint issued'],
      [`tag=${'x'.repeat(51)}`, 'Invalid tag: each tag may be at most 50 characters'],
    ] as const) {
      const response = await call(lister, 'GET', `/api/news?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toEqual({ error });
    }
    expect((await call(null, 'GET', '/api/news')).status).toBe(401);
    expect(await call(outsider, 'GET', '/api/news')).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
  });
});

describe('GET /api/news/{id}', () => {
  it("answers one article with its body; another user's or an unknown one is 404; a malformed id 400", async () => {
    const article = await post(owner, { body: 'The whole story.' });
    const response = await call(owner, 'GET', `/api/news/${article.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: article });
    expect(response.body.data.body).toBe('The whole story.');
    expect(await call(stranger, 'GET', `/api/news/${article.id}`)).toMatchObject({ status: 404, body: { error: 'News article not found' } });
    expect(await call(owner, 'GET', `/api/news/${MISSING}`)).toMatchObject({ status: 404, body: { error: 'News article not found' } });
    const malformed = await call(owner, 'GET', '/api/news/latest');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid id: must be a UUID/);
    expect((await call(null, 'GET', `/api/news/${article.id}`)).status).toBe(401);
    expect((await call(outsider, 'GET', `/api/news/${article.id}`)).status).toBe(403);
  });
});

describe('GET /api/news/digest', () => {
  let digester: TestUser;
  const at: Record<string, { id: string }> = {};

  beforeAll(async () => {
    digester = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    // ISO week 2026-W10: Monday 2026-03-02 00:00 UTC to Monday 2026-03-09 00:00 UTC.
    const rows: [string, string, string, string[]][] = [
      ['A1', '2026-03-02T00:00:00.000Z', 'Reuters', ['markets', 'rates']],
      ['A2', '2026-03-03T10:00:00.000Z', 'reuters', ['markets']],
      ['A3', '2026-03-04T10:00:00.000Z', 'Bloomberg', ['markets', 'tech']],
      ['A4', '2026-03-05T10:00:00.000Z', 'REUTERS', ['markets']],
      ['A5', '2026-03-06T10:00:00.000Z', 'Bloomberg', ['markets']],
      ['A6', '2026-03-07T10:00:00.000Z', 'FT', ['markets', 'rates']],
      ['A7', '2026-03-08T23:59:59.999Z', 'FT', []],
      ['B1', '2026-03-09T00:00:00.000Z', 'Reuters', ['markets']],
      ['B2', '2026-03-01T23:59:59.999Z', 'Reuters', ['markets']],
    ];
    for (const [title, publishedAt, source, tags] of rows)
      at[title] = await post(digester, { title, published_at: publishedAt, source, tags, summary: `Summary of ${title}` });
    // Another user's article in the same week counts for them only.
    await post(stranger, { title: 'X', published_at: '2026-03-04T12:00:00.000Z', source: 'Reuters', tags: ['markets'] });
  });

  const titlesOf = (articles: { title: string }[]) => articles.map((a) => a.title);

  it('week=2026-W10: counts and the newest articles by tag and by source, in [Monday, next Monday)', async () => {
    const response = await call(digester, 'GET', '/api/news/digest?week=2026-W10');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    const digest = response.body.data;
    expect(Object.keys(digest).sort()).toEqual(['by_source', 'by_tag', 'period_end', 'period_start', 'top_articles', 'total_articles', 'week']);
    expect(digest).toMatchObject({ week: '2026-W10', period_start: '2026-03-02T00:00:00.000Z', period_end: '2026-03-09T00:00:00.000Z', total_articles: 7 });
    expect(digest.by_tag.map((g: { tag: string; count: number; top: { title: string }[] }) => [g.tag, g.count, titlesOf(g.top)])).toEqual([
      ['markets', 6, ['A6', 'A5', 'A4', 'A3', 'A2']],
      ['rates', 2, ['A6', 'A1']],
      ['tech', 1, ['A3']],
    ]);
    expect(digest.by_source.map((g: { source: string; count: number; top: { title: string }[] }) => [g.source, g.count, titlesOf(g.top)])).toEqual([
      ['REUTERS', 3, ['A4', 'A2', 'A1']],
      ['Bloomberg', 2, ['A5', 'A3']],
      ['FT', 2, ['A7', 'A6']],
    ]);
    expect(titlesOf(digest.top_articles)).toEqual(['A7', 'A6', 'A5', 'A4', 'A3', 'A2', 'A1']);
    expect(Object.keys(digest.top_articles[0]).sort()).toEqual([...LIST_KEYS].sort());
    expect(digest.by_tag[0].top[0]).toEqual(digest.top_articles[1]);
    expect(digest.top_articles[0]).toMatchObject({ id: at.A7.id, summary: 'Summary of A7', source: 'FT', tags: [] });
  });

  it('the neighbouring weeks hold the boundary articles; an empty week is all zeros', async () => {
    const next = (await call(digester, 'GET', '/api/news/digest?week=2026-W11')).body.data;
    expect(next).toMatchObject({ total_articles: 1, period_start: '2026-03-09T00:00:00.000Z' });
    expect(titlesOf(next.top_articles)).toEqual(['B1']);
    const previous = (await call(digester, 'GET', '/api/news/digest?week=2026-W09')).body.data;
    expect(titlesOf(previous.top_articles)).toEqual(['B2']);
    const empty = (await call(digester, 'GET', '/api/news/digest?week=2030-W01')).body.data;
    expect(empty).toEqual({
      period_start: '2029-12-31T00:00:00.000Z',
      period_end: '2030-01-07T00:00:00.000Z',
      week: '2030-W01',
      total_articles: 0,
      by_tag: [],
      by_source: [],
      top_articles: [],
    });
  });

  it('by default: the seven days ending now (week null)', async () => {
    const recent = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const now = Date.now();
    await post(recent, { title: 'fresh', published_at: new Date(now - HOUR).toISOString(), tags: ['x'] });
    await post(recent, { title: 'six days', published_at: new Date(now - 6.9 * 24 * HOUR).toISOString(), tags: ['x', 'y'] });
    await post(recent, { title: 'eight days', published_at: new Date(now - 8 * 24 * HOUR).toISOString(), tags: ['x'] });
    await post(recent, { title: 'tomorrow', published_at: new Date(now + 12 * HOUR).toISOString(), tags: ['x'] });
    const response = await call(recent, 'GET', '/api/news/digest');
    expect(response.status).toBe(200);
    const digest = response.body.data;
    expect(digest.week).toBeNull();
    expect(Date.parse(digest.period_end) - Date.parse(digest.period_start)).toBe(7 * 24 * HOUR);
    expect(Math.abs(Date.parse(digest.period_end) - Date.now())).toBeLessThan(60_000);
    expect(digest.total_articles).toBe(2);
    expect(digest.by_tag.map((g: { tag: string; count: number }) => [g.tag, g.count])).toEqual([
      ['x', 2],
      ['y', 1],
    ]);
    expect(titlesOf(digest.top_articles)).toEqual(['fresh', 'six days']);
  });

  it('at most 50 groups per list (largest first, then by name); counts stay exact', async () => {
    const wide = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    for (let a = 0; a < 3; a += 1) {
      await post(wide, { published_at: '2026-05-12T12:00:00.000Z', tags: Array.from({ length: 20 }, (_, i) => `t${String(a * 20 + i).padStart(2, '0')}`) });
    }
    await post(wide, { published_at: '2026-05-13T12:00:00.000Z', tags: ['t59'] });
    const digest = (await call(wide, 'GET', '/api/news/digest?week=2026-W20')).body.data;
    expect(digest.total_articles).toBe(4);
    expect(digest.by_tag).toHaveLength(50);
    expect(digest.by_tag[0]).toMatchObject({ tag: 't59', count: 2 });
    expect(digest.by_tag.slice(1).map((g: { tag: string }) => g.tag)).toEqual(Array.from({ length: 49 }, (_, i) => `t${String(i).padStart(2, '0')}`));
  });

  it('400 naming week for anything but an ISO week; 401; 403', async () => {
    for (const week of ['2026-47', '2026-W54', '2025-W53', 'W10', '2026-W1', '']) {
      const response = await call(digester, 'GET', `/api/news/digest?week=${encodeURIComponent(week)}`);
      expect(response.status, week).toBe(400);
      expect(response.body.error, week).toMatch(/^Invalid week: /);
    }
    expect((await call(null, 'GET', '/api/news/digest')).status).toBe(401);
    expect(await call(outsider, 'GET', '/api/news/digest')).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    const post = await call(digester, 'POST', '/api/news/digest', {});
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('GraphQL newsDigest(week) gives the same digest', async () => {
    const fields = 'id title url source summary tags publishedAt createdAt';
    const result = await graphql(
      server.url,
      { 'x-api-key': digester.key },
      `query ($week: String) { newsDigest(week: $week) {
      periodStart periodEnd week totalArticles
      byTag { tag count top { ${fields} } } bySource { source count top { ${fields} } } topArticles { ${fields} } } }`,
      { week: '2026-W10' },
    );
    expect(result.body.errors).toBeUndefined();
    const rest = await call(digester, 'GET', '/api/news/digest?week=2026-W10');
    expect(rest.body.data).toEqual(snake(result.body.data.newsDigest));
    const bad = await graphql(server.url, { 'x-api-key': digester.key }, '{ newsDigest(week: "soon") { totalArticles } }');
    expect(bad.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'week' } });
  });
});

function snake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snake);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
}

describe('GraphQL parity', () => {
  it('newsArticles and newsArticle match REST; createNewsArticle reports CONFLICT and NOT_FOUND like REST', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    const gql = (query: string, variables: Record<string, unknown> = {}, who: TestUser = user) =>
      graphql(server.url, { 'x-api-key': who.key }, query, variables);
    const created = await gql('mutation ($input: CreateNewsArticleInput!) { createNewsArticle(input: $input) { id title url source tags publishedAt } }', {
      input: { title: 'Via GraphQL', url: 'https://Example.com/gql#x', source: 'Graph', tags: ['One'], publishedAt: '2026-02-01T09:00:00Z' },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createNewsArticle).toMatchObject({ url: 'https://example.com/gql', tags: ['one'], publishedAt: '2026-02-01T09:00:00.000Z' });
    await post(user, { title: 'Via REST', published_at: '2026-02-02T09:00:00Z' });

    const fields = 'id title url source summary tags publishedAt createdAt';
    const list = await gql(`{ newsArticles(first: 1) { edges { node { ${fields} } } pageInfo { hasNextPage endCursor } } }`);
    const rest = await call(user, 'GET', '/api/news?limit=1');
    expect(rest.body.data).toEqual(snake(list.body.data.newsArticles.edges.map((e: { node: unknown }) => e.node)));
    expect(rest.body.pagination).toEqual({ has_more: true, next_cursor: list.body.data.newsArticles.pageInfo.endCursor });

    const duplicate = await gql('mutation { createNewsArticle(input: { title: "Dup", url: "https://example.com/gql", source: "Graph" }) { id } }');
    expect(duplicate.body.errors?.[0]).toMatchObject({ message: 'An article with this url already exists', extensions: { code: 'CONFLICT' } });
    const foreign = await gql('query ($id: UUID!) { newsArticle(id: $id) { id } }', { id: created.body.data.createNewsArticle.id }, stranger);
    expect(foreign.body.errors?.[0]).toMatchObject({ message: 'News article not found', extensions: { code: 'NOT_FOUND' } });
    const readOnly = await gql('mutation { createNewsArticle(input: { title: "R", url: "https://example.com/r", source: "S" }) { id } }', {}, reader);
    expect(readOnly.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
