/**
 * TRANSCRIPT_PROVIDER=http: the service reads transcripts from a meeting-transcription service's
 * REST API. A fake of that service (node:http on 127.0.0.1, a random port) speaks the documented
 * API; the tests drive the real service over HTTP and switch the fake between answering
 * correctly, failing (5xx, 401), sending malformed JSON or the wrong shape, and answering too
 * slowly. The API key must reach the fake and never come back to our clients.
 */
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import type { TestServer } from '../helpers/server.ts';
import { startServerWithUsers, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { getJson, type TestUser } from '../helpers/fixtures.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';

const API_KEY = 'tk_live_fake_7f3a9c0e5b1d4a2f8e6c';
const TIMEOUT_MS = 400;
const SUMMARY_KEYS = ['id', 'title', 'occurred_at', 'duration_seconds', 'participants', 'sentence_count'];

type Mode = 'ok' | 'status500' | 'status503' | 'unauthorized' | 'badJson' | 'wrongShape' | 'slow';

interface FakeSegment {
  speaker_name: string | null;
  text: string;
  start_ms: number;
  end_ms: number | null;
}

interface FakeTranscript {
  id: string;
  title: string;
  started_at: string;
  duration_ms: number;
  participants: { name: string; email: string }[];
  segments: FakeSegment[];
}

interface SeenRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  userEmail: string | undefined;
}

/** The external transcription service, as documented in the README (base path /v1). */
class FakeTranscriptService {
  mode: Mode = 'ok';
  readonly requests: SeenRequest[] = [];
  readonly byEmail = new Map<string, FakeTranscript[]>();
  private server = http.createServer((req, res) => this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    this.url = `${await listenLocally(this.server)}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send(res: http.ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const authorization = req.headers.authorization;
    const userEmail = req.headers['x-user-email'] as string | undefined;
    this.requests.push({ method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), authorization, userEmail });
    // Failing services like to echo what they received, secrets included.
    const echo = { error: 'upstream failure', authorization, apiKey: API_KEY };
    if (authorization !== `Bearer ${API_KEY}` || this.mode === 'unauthorized') return this.send(res, 401, echo);
    if (this.mode === 'status500') return this.send(res, 500, echo);
    if (this.mode === 'status503') return this.send(res, 503, `<html>Service Unavailable ${API_KEY}</html>`);
    if (this.mode === 'badJson') return this.send(res, 200, '{"data": [{"id": ');
    if (this.mode === 'wrongShape') return this.send(res, 200, { items: [], apiKey: API_KEY });
    if (this.mode === 'slow') {
      const timer = setTimeout(() => this.send(res, 200, { data: [], next_cursor: null }), TIMEOUT_MS * 5);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    const mine = this.byEmail.get(userEmail ?? '') ?? [];
    if (url.pathname === '/v1/transcripts') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const page = mine.slice(offset, offset + limit);
      return this.send(res, 200, {
        data: page.map(({ segments, ...rest }) => ({ ...rest, segment_count: segments.length })),
        next_cursor: offset + limit < mine.length ? String(offset + limit) : null,
      });
    }
    const match = /^\/v1\/transcripts\/([^/]+)$/.exec(url.pathname);
    const found = match ? mine.find((t) => t.id === decodeURIComponent(match[1])) : undefined;
    if (found) return this.send(res, 200, found);
    return this.send(res, 404, { error: 'transcript not found' });
  }
}

const fake = new FakeTranscriptService();
let server: TestServer, owner: TestUser, stranger: TestUser, outsider: TestUser;

function uuid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

function transcript(n: number, startedAt: string, speakers: (string | null)[]): FakeTranscript {
  return {
    id: uuid(n),
    title: `Upstream meeting ${n}`,
    started_at: startedAt,
    duration_ms: 61_001 * n,
    participants: [
      { name: 'Iris Novak', email: 'iris@example.com' },
      { name: 'Omar Haddad', email: 'omar@example.com' },
    ],
    segments: speakers.map((speaker, i) => ({ speaker_name: speaker, text: `Segment ${i}`, start_ms: i * 1500, end_ms: i % 2 ? null : i * 1500 + 1234 })),
  };
}

beforeAll(async () => {
  await fake.start();
  ({ server, owner, stranger, outsider } = await startServerWithUsers(
    { owner: { scopes: ['read:workspace', 'write:workspace'] }, stranger: WORKSPACE_READER, outsider: { scopes: ['read:pnl'] } },
    { TRANSCRIPT_PROVIDER: 'http', TRANSCRIPT_API_URL: fake.url, TRANSCRIPT_API_KEY: API_KEY, TRANSCRIPT_API_TIMEOUT: `${TIMEOUT_MS}ms` },
  ));
  fake.byEmail.set(owner.email, [
    transcript(5, '2026-03-05T10:00:00Z', ['Iris Novak', 'Omar Haddad', null]),
    transcript(4, '2026-03-04T10:00:00+02:00', ['Iris Novak']),
    transcript(3, '2026-03-03T10:00:00Z', ['Omar Haddad', 'Iris Novak']),
    transcript(2, '2026-03-02T10:00:00Z', ['Iris Novak']),
    transcript(1, '2026-03-01T10:00:00Z', ['Iris Novak']),
  ]);
  fake.byEmail.set(stranger.email, [transcript(9, '2026-02-01T09:00:00Z', ['Someone Else'])]);
});
afterAll(async () => {
  await server?.close();
  await fake.stop();
});
beforeEach(() => {
  fake.mode = 'ok';
});

function get(user: TestUser | null, path: string) {
  return getJson(`${server.url}${path}`, { headers: user ? { 'x-api-key': user.key } : {} });
}

function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
}

describe('GET /api/transcripts through the http provider', () => {
  it('maps the service list to ours, sending the key and the user email', async () => {
    const before = fake.requests.length;
    const response = await get(owner, '/api/transcripts');
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(response.body.data.map((t: { id: string }) => t.id)).toEqual([uuid(5), uuid(4), uuid(3), uuid(2), uuid(1)]);
    for (const item of response.body.data) expect(Object.keys(item).sort()).toEqual([...SUMMARY_KEYS].sort());
    expect(response.body.data[1]).toEqual({
      id: uuid(4),
      title: 'Upstream meeting 4',
      occurred_at: '2026-03-04T08:00:00.000Z',
      duration_seconds: 245, // 244,004 ms, rounded up
      participants: ['Iris Novak', 'Omar Haddad'],
      sentence_count: 1,
    });
    const seen = fake.requests.slice(before);
    expect(seen).toEqual([{ method: 'GET', path: '/v1/transcripts', query: { limit: '20' }, authorization: `Bearer ${API_KEY}`, userEmail: owner.email }]);
  });

  it('scopes every request to the caller: another user gets only theirs', async () => {
    const response = await get(stranger, '/api/transcripts');
    expect(response.body.data.map((t: { id: string }) => t.id)).toEqual([uuid(9)]);
    expect(fake.requests.at(-1)?.userEmail).toBe(stranger.email);
    expect(await get(stranger, `/api/transcripts/${uuid(5)}`)).toMatchObject({ status: 404, body: { error: 'Transcript not found' } });
  });

  it('pages through the service cursors with limit and cursor', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(owner, `/api/transcripts?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      ids.push(...response.body.data.map((t: { id: string }) => t.id));
      cursor = response.body.pagination.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(ids).toEqual([uuid(5), uuid(4), uuid(3), uuid(2), uuid(1)]);
    expect(fake.requests.slice(-3).map((r) => r.query)).toEqual([{ limit: '2' }, { limit: '2', cursor: '2' }, { limit: '2', cursor: '4' }]);
  });

  it('resumes after any edge of a GraphQL page, not only the last', async () => {
    const first = await graphql(owner, '{ transcripts(first: 3) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }');
    const { edges, pageInfo } = first.body.data.transcripts;
    expect(edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([uuid(5), uuid(4), uuid(3)]);
    expect(pageInfo.hasNextPage).toBe(true);
    const afterFirst = await graphql(
      owner,
      'query ($after: String) { transcripts(first: 3, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }',
      { after: edges[0].cursor },
    );
    expect(afterFirst.body.data.transcripts.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([uuid(4), uuid(3), uuid(2)]);
    expect(afterFirst.body.data.transcripts.pageInfo.hasNextPage).toBe(true);
    const afterLast = await graphql(
      owner,
      'query ($after: String) { transcripts(first: 3, after: $after) { edges { node { id } } pageInfo { hasNextPage } } }',
      { after: pageInfo.endCursor },
    );
    expect(afterLast.body.data.transcripts.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([uuid(2), uuid(1)]);
    expect(afterLast.body.data.transcripts.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses a cursor it did not issue (400) without asking the service', async () => {
    const before = fake.requests.length;
    expect(await get(owner, '/api/transcripts?cursor=abc')).toMatchObject({ status: 400, body: { error: 'Invalid cursor: is not a cursor this list issued' } });
    expect(await get(owner, '/api/transcripts?limit=101')).toMatchObject({
      status: 400,
      body: { error: 'Invalid limit: must be an integer between 1 and 100' },
    });
    expect(fake.requests.length).toBe(before);
  });
});

describe('GET /api/transcripts/{id} through the http provider', () => {
  it('maps segments to sentences: milliseconds to seconds, a missing speaker to Unknown', async () => {
    const response = await get(owner, `/api/transcripts/${uuid(5)}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        id: uuid(5),
        title: 'Upstream meeting 5',
        occurred_at: '2026-03-05T10:00:00.000Z',
        duration_seconds: 306,
        participants: ['Iris Novak', 'Omar Haddad'],
        sentence_count: 3,
        sentences: [
          { speaker: 'Iris Novak', text: 'Segment 0', start_seconds: 0, end_seconds: 1.234 },
          { speaker: 'Omar Haddad', text: 'Segment 1', start_seconds: 1.5, end_seconds: null },
          { speaker: 'Unknown', text: 'Segment 2', start_seconds: 3, end_seconds: 4.234 },
        ],
      },
    });
    expect(fake.requests.at(-1)).toMatchObject({ path: `/v1/transcripts/${uuid(5)}`, authorization: `Bearer ${API_KEY}`, userEmail: owner.email });
  });

  it('turns the service 404 into ours', async () => {
    expect(await get(owner, `/api/transcripts/${uuid(77)}`)).toEqual(expect.objectContaining({ status: 404, body: { error: 'Transcript not found' } }));
  });

  it('answers 400 for a malformed id and 401/403 without asking the service', async () => {
    const before = fake.requests.length;
    expect((await get(owner, '/api/transcripts/42')).status).toBe(400);
    expect(await get(null, '/api/transcripts')).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
    expect(await get(outsider, `/api/transcripts/${uuid(5)}`)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect(fake.requests.length).toBe(before);
  });
});

describe('service failures', () => {
  it.each([
    ['status500', 502, 'Transcript service error: the service answered HTTP 500'],
    ['status503', 502, 'Transcript service error: the service answered HTTP 503'],
    ['unauthorized', 502, 'Transcript service error: the service answered HTTP 401'],
    ['badJson', 502, 'Transcript service error: the response is not valid JSON'],
    ['wrongShape', 502, 'Transcript service error: unexpected response (data: Invalid input: expected array, received undefined)'],
  ] as const)('%s -> %d with an error body that leaks nothing', async (mode, status, error) => {
    fake.mode = mode;
    for (const path of ['/api/transcripts', `/api/transcripts/${uuid(5)}`]) {
      const response = await getJson(`${server.url}${path}`, { headers: { 'x-api-key': owner.key } });
      expect(response.status).toBe(status);
      // The detail of a wrong shape names the first field that is off, which differs per endpoint.
      if (mode === 'wrongShape' && path !== '/api/transcripts')
        expect(response.body).toEqual({ error: expect.stringMatching(/^Transcript service error: unexpected response \(/) });
      else expect(response.body).toEqual({ error });
      const text = JSON.stringify(response.body) + JSON.stringify([...response.headers]);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(fake.url);
    }
  });

  it('answers 504 when the service does not answer within TRANSCRIPT_API_TIMEOUT', async () => {
    fake.mode = 'slow';
    const started = Date.now();
    const response = await get(owner, '/api/transcripts');
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect(response.body).toEqual({ error: `Transcript service error: no response within ${TIMEOUT_MS}ms` });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const one = await get(owner, `/api/transcripts/${uuid(5)}`);
    expect(one.status).toBe(504);
  });

  it('reports the same codes through GraphQL', async () => {
    fake.mode = 'status500';
    const failed = await graphql(owner, '{ transcripts { edges { node { id } } } }');
    expect(failed.body.errors[0]).toMatchObject({ message: 'Transcript service error: the service answered HTTP 500', extensions: { code: 'BAD_GATEWAY' } });
    fake.mode = 'slow';
    const slow = await graphql(owner, `{ transcript(id: "${uuid(5)}") { id } }`);
    expect(slow.body.errors[0].extensions.code).toBe('GATEWAY_TIMEOUT');
    expect(JSON.stringify([failed.body, slow.body])).not.toContain(API_KEY);
  });
});

describe('writes with the http provider', () => {
  it('importTranscript and deleteTranscript are refused as read-only; nothing is seeded', async () => {
    const before = fake.requests.length;
    const imported = await graphql(owner, 'mutation ($input: ImportTranscriptInput!) { importTranscript(input: $input) { id } }', {
      input: { format: 'VTT', content: 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v A>x</v>\n', title: 'x' },
    });
    expect(imported.body.errors[0]).toMatchObject({ message: 'Transcripts are read-only with the http provider', extensions: { code: 'BAD_USER_INPUT' } });
    const deleted = await graphql(owner, 'mutation ($id: UUID!) { deleteTranscript(id: $id) }', { id: uuid(5) });
    expect(deleted.body.errors[0]).toMatchObject({ message: 'Transcripts are read-only with the http provider', extensions: { code: 'BAD_USER_INPUT' } });
    expect(await seedTranscripts(server.services, owner.userId)).toEqual([]);
    expect(await server.services.prisma.transcript.count()).toBe(0);
    expect(fake.requests.length).toBe(before);
  });
});
