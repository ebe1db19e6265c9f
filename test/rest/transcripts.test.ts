/**
 * Transcripts with the built-in provider, as clients use them: imports through the GraphQL
 * mutation (every format, overrides, limits, parse errors naming the line), GET /api/transcripts
 * and /api/transcripts/{id} over real HTTP (shapes, newest first, pagination, errors, isolation
 * between users), GraphQL parity, deletes, and the demo seed through the real importer.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UUID, MISSING } from '../helpers/formats.ts';
import { type TestServer } from '../helpers/server.ts';
import { startServerWithUsers, EVERY_SCOPE, WORKSPACE_READER } from '../helpers/server-with-users.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';

const SUMMARY_KEYS = ['id', 'title', 'occurred_at', 'duration_seconds', 'participants', 'sentence_count'];
const DETAIL_KEYS = [...SUMMARY_KEYS, 'sentences'];
const TRANSCRIPT_FIELDS = 'id title occurredAt durationSeconds participants sentenceCount sentences { speaker text startSeconds endSeconds }';

let server: TestServer;
let owner: TestUser, stranger: TestUser, reader: TestUser, outsider: TestUser;
beforeAll(async () => {
  ({ server, owner, stranger, reader, outsider } = await startServerWithUsers({
    owner: { scopes: ['read:workspace', 'write:workspace'] },
    stranger: EVERY_SCOPE,
    reader: WORKSPACE_READER,
    outsider: { scopes: ['read:returns'] },
  }));
});
afterAll(() => server?.close());

const sample = (file: string) => readFile(new URL(`../../samples/transcripts/${file}`, import.meta.url), 'utf8');

function get(user: TestUser | null, path: string, headers: Record<string, string> = {}) {
  return getJson(`${server.url}${path}`, { headers: { ...(user ? { 'x-api-key': user.key } : {}), ...headers } });
}

function graphql(user: TestUser | null, query: string, variables: Record<string, unknown> = {}) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...(user ? { 'x-api-key': user.key } : {}), 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
}

const IMPORT = `mutation Import($input: ImportTranscriptInput!) { importTranscript(input: $input) { ${TRANSCRIPT_FIELDS} } }`;

interface ImportInput {
  format: 'VTT' | 'SRT' | 'JSON';
  content: string;
  title?: string;
  occurredAt?: string;
}

async function importOk(user: TestUser, input: ImportInput) {
  const response = await graphql(user, IMPORT, { input });
  expect(response.body.errors).toBeUndefined();
  return response.body.data.importTranscript as {
    id: string;
    title: string;
    occurredAt: string;
    durationSeconds: number;
    participants: string[];
    sentenceCount: number;
    sentences: { speaker: string; text: string; startSeconds: number; endSeconds: number | null }[];
  };
}

async function importError(user: TestUser | null, input: ImportInput) {
  const response = await graphql(user, IMPORT, { input });
  expect(response.body.data ?? null).toBeNull();
  expect(response.body.errors).toHaveLength(1);
  return response.body.errors[0] as { message: string; extensions: { code: string } };
}

function jsonTranscript(title: string, occurredAt: string, sentences = 2) {
  return JSON.stringify({
    title,
    occurred_at: occurredAt,
    sentences: Array.from({ length: sentences }, (_, i) => ({ speaker: i % 2 ? 'Ben' : 'Ana', text: `Sentence ${i + 1}.`, start: i * 2, end: i * 2 + 1.5 })),
  });
}

const countTranscripts = () => server.services.prisma.transcript.count();

describe('importTranscript (GraphQL)', () => {
  it('imports the WebVTT sample: title from the header, speakers from voice tags, duration rounded up', async () => {
    const transcript = await importOk(owner, { format: 'VTT', content: await sample('weekly-investment-committee.vtt'), occurredAt: '2026-03-03T14:00:00Z' });
    expect(transcript.id).toMatch(UUID);
    expect(transcript).toMatchObject({
      title: 'Weekly Investment Committee',
      occurredAt: '2026-03-03T14:00:00.000Z',
      durationSeconds: 256,
      participants: ['Margaret Okonkwo', 'Priya Raman', 'Helen Fairchild', 'Daniel Reyes', 'Tomasz Nowak'],
      sentenceCount: 36,
    });
    expect(transcript.sentences).toHaveLength(36);
    expect(transcript.sentences[0]).toEqual({
      speaker: 'Margaret Okonkwo',
      text: "Good afternoon, everyone. Let's get started; we have a full agenda and I want to leave time for the Keystone discussion.",
      startSeconds: 4,
      endSeconds: 11.98,
    });
    expect(transcript.sentences.at(-1)).toMatchObject({ speaker: 'Margaret Okonkwo', text: 'Thanks, everyone. Same time next week.', endSeconds: 255.74 });
  });

  it('imports the SRT sample (CRLF) with the given title; occurredAt defaults to the time of the import', async () => {
    const before = Date.now();
    const transcript = await importOk(owner, { format: 'SRT', content: await sample('client-call-cedar-trust.srt'), title: '  Client call: Cedar  ' });
    expect(transcript.title).toBe('Client call: Cedar');
    expect(Date.parse(transcript.occurredAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(transcript.occurredAt)).toBeLessThanOrEqual(Date.now() + 1000);
    expect(transcript.participants).toEqual(['Sofia Marchetti', 'Kwame Mensah', 'Robert Ashford']);
    expect(transcript.sentences[0]).toEqual({
      speaker: 'Sofia Marchetti',
      text: 'Hi Robert, thanks for making time. Kwame from our operations team is on the line as well.',
      startSeconds: 1.2,
      endSeconds: 7.66,
    });
  });

  it('imports the JSON sample with its title, occurred_at and participants; the input overrides them', async () => {
    const content = await sample('product-standup.json');
    const plain = await importOk(owner, { format: 'JSON', content });
    expect(plain).toMatchObject({ title: 'Product standup', occurredAt: '2026-03-02T09:30:00.000Z', sentenceCount: 21, durationSeconds: 119 });
    expect(plain.participants).toEqual(['Lena Vogel', 'Arjun Mehta', 'Chloe Dubois', 'Marcus Webb']);
    const overridden = await importOk(owner, { format: 'JSON', content, title: 'Standup (Monday)', occurredAt: '2026-03-09T09:30:00+01:00' });
    expect(overridden).toMatchObject({ title: 'Standup (Monday)', occurredAt: '2026-03-09T08:30:00.000Z' });
  });

  it('derives participants from the speakers in order of first appearance, without Unknown', async () => {
    const srt =
      '1\n00:00:01,000 --> 00:00:02,000\nnobody\n\n2\n00:00:02,000 --> 00:00:03,500\nZoe Park: Hi.\n\n3\n00:00:04,000 --> 00:00:05,001\nYann Le Goff: Hello.\n\n4\n00:00:06,000 --> 00:00:07,000\nZoe Park: Bye.\n';
    const transcript = await importOk(owner, { format: 'SRT', content: srt, title: 'Derived' });
    expect(transcript.participants).toEqual(['Zoe Park', 'Yann Le Goff']);
    expect(transcript.durationSeconds).toBe(7);
    expect(transcript.sentences.map((s) => s.speaker)).toEqual(['Unknown', 'Zoe Park', 'Yann Le Goff', 'Zoe Park']);
  });

  it('answers a parse error with BAD_USER_INPUT naming the line, and stores nothing', async () => {
    const before = await countTranscripts();
    const vtt = 'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ana>ok</v>\n\n00:02.000 --> 00:99.000\nbad\n';
    const error = await importError(owner, { format: 'VTT', content: vtt, title: 'x' });
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('Invalid content: line 6: invalid timestamp "00:99.000"');
    const json = await importError(owner, {
      format: 'JSON',
      content: '{\n  "title": "x",\n  "sentences": [\n    {"speaker": "A", "text": "x", "start": "soon"}\n  ]\n}',
    });
    expect(json.message).toBe('Invalid content: line 4: sentences[0].start: invalid timestamp "soon"');
    const wrongFormat = await importError(owner, { format: 'SRT', content: await sample('product-standup.json'), title: 'x' });
    expect(wrongFormat.message).toMatch(/^Invalid content: line 1: expected a subtitle number or a timing line/);
    expect(await countTranscripts()).toBe(before);
  });

  it('requires a title when the content has none, and bounds it', async () => {
    const srt = '1\n00:00:01,000 --> 00:00:02,000\nAna: hi\n';
    expect((await importError(owner, { format: 'SRT', content: srt })).message).toBe('Invalid title: is required: the content names no title');
    expect((await importError(owner, { format: 'SRT', content: srt, title: '   ' })).message).toBe('Invalid title: is required: the content names no title');
    expect((await importError(owner, { format: 'SRT', content: srt, title: 't'.repeat(501) })).message).toBe('Invalid title: must be at most 500 characters');
  });

  it('refuses an unknown format, a bad occurredAt and a missing content as BAD_USER_INPUT', async () => {
    for (const input of [{ format: 'DOCX', content: 'x' }, { format: 'VTT', content: 'WEBVTT', occurredAt: 'yesterday' }, { format: 'VTT' }]) {
      const response = await graphql(owner, IMPORT, { input });
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
  });

  it('accepts 5 MB of content and refuses a byte more', async () => {
    const limit = 5 * 1024 * 1024;
    const cue = '00:00:01.000 --> 00:00:02.000\n<v A>x</v>\n\n';
    const note = (bytes: number) => `NOTE ${'n'.repeat(bytes - 7)}\n\n`;
    const head = `WEBVTT\n\n${cue}`;
    const exact = head + note(limit - head.length);
    expect(Buffer.byteLength(exact)).toBe(limit);
    const ok = await importOk(owner, { format: 'VTT', content: exact, title: 'Five megabytes' });
    expect(ok.sentenceCount).toBe(1);
    const before = await countTranscripts();
    const error = await importError(owner, { format: 'VTT', content: `${exact}n`, title: 'Too big' });
    expect(error.message).toBe(`Invalid content: must be at most 5 MB (${limit} bytes), got ${limit + 1} bytes`);
    expect(await countTranscripts()).toBe(before);
  });

  it('stores 20,000 sentences and refuses 20,001 naming the line', async () => {
    const cue = (i: number) => `00:${String(Math.floor(i / 1000) % 60).padStart(2, '0')}.000 --> 00:59.999\n<v S${i % 7}>Sentence ${i}.</v>\n`;
    const cues = Array.from({ length: 20_000 }, (_, i) => cue(i));
    const transcript = await importOk(owner, { format: 'VTT', content: `WEBVTT - Big\n\n${cues.join('\n')}` });
    expect(transcript).toMatchObject({ title: 'Big', sentenceCount: 20_000, durationSeconds: 60 });
    expect(transcript.sentences[19_999]).toEqual({ speaker: 'S0', text: 'Sentence 19999.', startSeconds: 19, endSeconds: 59.999 });
    const error = await importError(owner, { format: 'VTT', content: `WEBVTT - Big\n\n${[...cues, cue(20_000)].join('\n')}` });
    expect(error.message).toBe(`Invalid content: line ${3 + 3 * 20_000}: more than 20000 sentences`);
  });

  it('refuses a speaker name over 100 characters, naming the line', async () => {
    const error = await importError(owner, { format: 'JSON', content: jsonTranscript('x', '2026-01-01T00:00:00Z').replace('"Ana"', `"${'A'.repeat(101)}"`) });
    expect(error.message).toBe('Invalid content: line 1: sentences[0].speaker is longer than 100 characters');
  });

  it('needs write:workspace (403) and a credential (401)', async () => {
    const input = { format: 'JSON' as const, content: jsonTranscript('x', '2026-01-01T00:00:00Z') };
    expect(await importError(reader, input)).toMatchObject({ message: 'Insufficient permissions', extensions: { code: 'FORBIDDEN' } });
    expect(await importError(null, input)).toMatchObject({ message: 'Invalid or expired API key', extensions: { code: 'UNAUTHENTICATED' } });
  });
});

describe('GET /api/transcripts and /api/transcripts/{id}', () => {
  /** A user of its own, so that counts and order are exact. */
  let lister: TestUser;
  let created: { id: string; title: string; occurredAt: string }[];

  beforeAll(async () => {
    lister = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
    // Two share an instant: the id breaks the tie, so pages never skip or repeat one.
    const instants = ['2026-01-05T10:00:00Z', '2026-01-07T10:00:00Z', '2026-01-06T10:00:00Z', '2026-01-06T10:00:00Z', '2026-01-01T08:00:00Z'];
    created = [];
    for (const [i, at] of instants.entries()) created.push(await importOk(lister, { format: 'JSON', content: jsonTranscript(`Meeting ${i}`, at, i + 1) }));
  });

  const newestFirst = () =>
    [...created].sort((a, b) => Date.parse(b.occurredAt) - Date.parse(a.occurredAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((t) => t.id);

  it('lists newest first without sentences, in the list shape', async () => {
    const response = await get(lister, '/api/transcripts');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'pagination']);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    expect(response.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst());
    for (const item of response.body.data) expect(Object.keys(item).sort()).toEqual([...SUMMARY_KEYS].sort());
    const first = response.body.data.find((t: { title: string }) => t.title === 'Meeting 4');
    expect(first).toEqual({
      id: created[4].id,
      title: 'Meeting 4',
      occurred_at: '2026-01-01T08:00:00.000Z',
      duration_seconds: 10,
      participants: ['Ana', 'Ben'],
      sentence_count: 5,
    });
  });

  it('pages with limit and cursor, without gaps or repeats', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(lister, `/api/transcripts?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...response.body.data.map((t: { id: string }) => t.id));
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst());
  });

  it('defaults limit to 20 and allows at most 100', async () => {
    const many = await createUser(server.services, { scopes: ['read:workspace'] });
    for (let i = 0; i < 21; i += 1) {
      await server.services.transcripts.import(many.userId, {
        format: 'json',
        content: jsonTranscript(`T${i}`, `2026-02-${String(i + 1).padStart(2, '0')}T09:00:00Z`, 1),
      });
    }
    const page = await get(many, '/api/transcripts');
    expect(page.body.data).toHaveLength(20);
    expect(page.body.data[0].title).toBe('T20');
    expect(page.body.pagination.has_more).toBe(true);
    const all = await get(many, '/api/transcripts?limit=100');
    expect(all.body.data).toHaveLength(21);
    expect(all.body.pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it.each([
    ['limit=0', 'Invalid limit: must be an integer between 1 and 100'],
    ['limit=101', 'Invalid limit: must be an integer between 1 and 100'],
    ['limit=ten', 'Invalid limit: must be an integer, got "ten"'],
    ['cursor=bm90LWEtY3Vyc29y', 'Invalid cursor: is not a cursor this list issued'],
  ])('answers 400 for %s', async (query, error) => {
    const response = await get(lister, `/api/transcripts?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error });
  });

  it('reads one transcript with its sentences in order', async () => {
    const response = await get(lister, `/api/transcripts/${created[2].id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    expect(Object.keys(response.body.data).sort()).toEqual([...DETAIL_KEYS].sort());
    expect(response.body.data).toEqual({
      id: created[2].id,
      title: 'Meeting 2',
      occurred_at: '2026-01-06T10:00:00.000Z',
      duration_seconds: 6,
      participants: ['Ana', 'Ben'],
      sentence_count: 3,
      sentences: [
        { speaker: 'Ana', text: 'Sentence 1.', start_seconds: 0, end_seconds: 1.5 },
        { speaker: 'Ben', text: 'Sentence 2.', start_seconds: 2, end_seconds: 3.5 },
        { speaker: 'Ana', text: 'Sentence 3.', start_seconds: 4, end_seconds: 5.5 },
      ],
    });
  });

  it('keeps a missing end as null', async () => {
    const content = JSON.stringify({ title: 'No ends', occurred_at: '2025-12-01T00:00:00Z', sentences: [{ speaker: 'A', text: 'x', start: 3.2 }] });
    const transcript = await importOk(stranger, { format: 'JSON', content });
    const response = await get(stranger, `/api/transcripts/${transcript.id}`);
    expect(response.body.data.sentences).toEqual([{ speaker: 'A', text: 'x', start_seconds: 3.2, end_seconds: null }]);
    expect(response.body.data.duration_seconds).toBe(4);
  });

  it("answers 404 for an unknown id and for another user's transcript; 400 for a malformed id", async () => {
    expect(await get(lister, `/api/transcripts/${MISSING}`)).toMatchObject({ status: 404, body: { error: 'Transcript not found' } });
    expect(await get(stranger, `/api/transcripts/${created[0].id}`)).toMatchObject({ status: 404, body: { error: 'Transcript not found' } });
    const malformed = await get(lister, '/api/transcripts/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^Invalid id: must be a UUID/);
  });

  it("never lists another user's transcripts", async () => {
    const mine = new Set(created.map((t) => t.id));
    const theirs = await get(stranger, '/api/transcripts?limit=100');
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.some((t: { id: string }) => mine.has(t.id))).toBe(false);
  });

  it('needs a credential (401) with read:workspace (403); a bearer key works too', async () => {
    for (const path of ['/api/transcripts', `/api/transcripts/${created[0].id}`]) {
      expect(await get(null, path)).toMatchObject({ status: 401, body: { error: 'Invalid or expired API key' } });
      expect(await get(outsider, path)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
      expect(await get(null, path, { 'x-api-key': 'sk_0000' })).toMatchObject({ status: 401 });
    }
    const bearer = await getJson(`${server.url}/api/transcripts`, { headers: { authorization: `Bearer ${lister.key}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body.data).toHaveLength(created.length);
  });

  it('answers 405 with Allow for other methods', async () => {
    const response = await getJson(`${server.url}/api/transcripts`, { method: 'POST', headers: { 'x-api-key': lister.key } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('GraphQL answers what REST answers (list and one)', async () => {
    const rest = await get(lister, '/api/transcripts?limit=3');
    const gql = await graphql(
      lister,
      `{ transcripts(first: 3) { edges { cursor node { id title occurredAt durationSeconds participants sentenceCount } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(gql.body.errors).toBeUndefined();
    const connection = gql.body.data.transcripts;
    expect(
      connection.edges.map(({ node }: { node: Record<string, unknown> }) => ({
        id: node.id,
        title: node.title,
        occurred_at: node.occurredAt,
        duration_seconds: node.durationSeconds,
        participants: node.participants,
        sentence_count: node.sentenceCount,
      })),
    ).toEqual(rest.body.data);
    expect(connection.pageInfo).toEqual({ hasNextPage: true, endCursor: rest.body.pagination.next_cursor });
    // Every edge's cursor resumes right after it.
    const resumed = await graphql(lister, `query ($after: String) { transcripts(first: 2, after: $after) { edges { node { id } } } }`, {
      after: connection.edges[0].cursor,
    });
    expect(resumed.body.data.transcripts.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(newestFirst().slice(1, 3));

    const one = await graphql(lister, `query ($id: UUID!) { transcript(id: $id) { ${TRANSCRIPT_FIELDS} } }`, { id: created[2].id });
    const restOne = await get(lister, `/api/transcripts/${created[2].id}`);
    expect(
      one.body.data.transcript.sentences.map((s: Record<string, unknown>) => ({
        speaker: s.speaker,
        text: s.text,
        start_seconds: s.startSeconds,
        end_seconds: s.endSeconds,
      })),
    ).toEqual(restOne.body.data.sentences);
    const missing = await graphql(lister, `query ($id: UUID!) { transcript(id: $id) { id } }`, { id: MISSING });
    expect(missing.body.errors[0]).toMatchObject({ message: 'Transcript not found', extensions: { code: 'NOT_FOUND' } });
    const outside = await graphql(outsider, '{ transcripts { edges { node { id } } } }');
    expect(outside.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // Forward pages only: the connection does not offer `last` (docs/graphql.md#pagination).
    const backwards = await graphql(lister, '{ transcripts(last: 2) { edges { node { id } } } }');
    expect(backwards.body.errors[0]).toMatchObject({
      message: 'Unknown argument "last" on field "Query.transcripts".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });
});

describe('deleteTranscript (GraphQL)', () => {
  const DELETE = 'mutation ($id: UUID!) { deleteTranscript(id: $id) }';

  it("deletes for good with the sentences; unknown and other users' ids are NOT_FOUND", async () => {
    const transcript = await importOk(owner, { format: 'JSON', content: jsonTranscript('To delete', '2026-01-01T00:00:00Z', 3) });
    const foreign = await graphql(stranger, DELETE, { id: transcript.id });
    expect(foreign.body.errors[0]).toMatchObject({ message: 'Transcript not found', extensions: { code: 'NOT_FOUND' } });
    const readOnly = await graphql(reader, DELETE, { id: transcript.id });
    expect(readOnly.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const deleted = await graphql(owner, DELETE, { id: transcript.id });
    expect(deleted.body).toEqual({ data: { deleteTranscript: transcript.id } });
    expect(await get(owner, `/api/transcripts/${transcript.id}`)).toMatchObject({ status: 404, body: { error: 'Transcript not found' } });
    expect(await server.services.prisma.transcriptSentence.count({ where: { transcriptId: transcript.id } })).toBe(0);
    const again = await graphql(owner, DELETE, { id: transcript.id });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('demo seed', () => {
  it('imports the three samples through the importer, dated in the recent past, newest first', async () => {
    const demo = await createUser(server.services, { scopes: ['read:workspace'] });
    const now = new Date('2026-04-10T12:00:00Z');
    const seeded = await seedTranscripts(server.services, demo.userId, now);
    expect(seeded.map((t) => t.title)).toEqual(['Weekly Investment Committee', 'Client call: Cedar Family Trust, January statement', 'Product standup']);
    const list = await get(demo, '/api/transcripts');
    expect(list.body.data.map((t: { title: string; occurred_at: string; sentence_count: number }) => [t.title, t.occurred_at, t.sentence_count])).toEqual([
      ['Weekly Investment Committee', '2026-04-09T14:00:00.000Z', 36],
      ['Client call: Cedar Family Trust, January statement', '2026-04-07T15:30:00.000Z', 28],
      ['Product standup', '2026-04-04T09:30:00.000Z', 21],
    ]);
    const sources = await server.services.prisma.transcript.findMany({ where: { userId: demo.userId }, select: { source: true } });
    expect(sources.map((s) => s.source)).toEqual(['demo', 'demo', 'demo']);
  });
});
