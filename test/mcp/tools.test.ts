/**
 * Every tool of the JSON-RPC endpoint (/api/service), called through both official MCP SDK
 * clients (the 1.x client on 2025-11-25 and the v2 client pinned to 2026-07-28) with valid
 * arguments on real data: the workspace seeds (stickies, links, transcripts, tasks, news) and the
 * two sample CSVs uploaded over HTTP and ingested by the worker. Each call must succeed and its
 * structuredContent must be valid against the outputSchema that tools/list gave the same client
 * (derived from the tool's GraphQL selection; checked here by an Ajv of the test's own); each tool
 * gets an assertion on what it returned. Another user's token reaches none of those records.
 *
 * Coverage is guarded twice: each test declares the tools it covers (checked statically against
 * TOOLS, and at run time against what the test actually called), and the last test of each
 * client compares every tool called successfully with TOOLS.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { loadSamples, readSample, SAMPLE_PERFORMANCE, SAMPLE_PNL } from '../helpers/returns-data.ts';
import { dailyReturns, link, modifiedDietz, parsePerformance, parsePnl, Rational } from '../helpers/exact-dietz.ts';
import { seedStickies } from '../../src/seed/workspace-stickies.ts';
import { seedLinks } from '../../src/seed/workspace-links.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';
import { seedTasks } from '../../src/seed/workspace-tasks.ts';
import { seedNews } from '../../src/seed/workspace-news.ts';
import type { Sticky as SeededSticky } from '../../src/workspace/stickies/sticky-service.ts';
import type { TranscriptDetail } from '../../src/workspace/transcripts/types.ts';
import type { TaskRecord } from '../../src/workspace/tasks/types.ts';
import { TOOLS } from '../../mcp/tools.ts';
import { JSON_RPC_BY_CODE } from '../../src/errors.ts';
import { listedOutputCheck, type ListedTool, type OutputCheck } from './listed-output-schemas.ts';

const SCOPES = ['read:workspace', 'write:workspace', 'read:returns', 'read:pnl', 'write:webhooks', 'write:upload'];
const HARBOR = 'Bayview Growth Fund LP';
const NORTHWIND = 'Northwind Family Trust';
const pnl = parsePnl(readSample(SAMPLE_PNL));
const performance = parsePerformance(readSample(SAMPLE_PERFORMANCE));

interface Seeded {
  user: TestUser;
  token: string;
  stickies: SeededSticky[];
  transcripts: TranscriptDetail[];
  tasks: TaskRecord[];
}

let server: TestServer;
/** The user whose data the tools read and change. */
let owner: Seeded;
/** Another user, in another organization, with the same seeds (so the same words, other ids). */
let other: Seeded;
/** A summary generation of the owner's, started through the service. */
let ownerRunId: string;

async function seedUser(): Promise<Seeded> {
  const user = await createUser(server.services);
  const stickies = await seedStickies(server.services, user.userId);
  await seedLinks(server.services, user.userId);
  const transcripts = await seedTranscripts(server.services, user.userId);
  const tasks = await seedTasks(server.services, user.userId);
  await seedNews(server.services, user.userId);
  const token = (await server.services.apiKeys.create({ userId: user.userId, name: 'mcp-tools', scopes: SCOPES, kind: 'access_token' })).secret;
  return { user, token, stickies, transcripts, tasks };
}

/** A webhook receiver of the test's own (the webhook tools' endpoints point at it): answers 200 to everything. */
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startTestServer({ RATE_LIMIT_GENERATE_PER_MINUTE: '1000', RATE_LIMIT_RETURNS_PER_MINUTE: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' });
  owner = await seedUser();
  other = await seedUser();
  // The sample pnl and performance files, uploaded to the owner's organization (the fixture key is admin) and ingested.
  await loadSamples(server.url, owner.user.key, owner.user.orgId);
  ownerRunId = (await server.services.generation.start(owner.user.userId, { days: 30, sources: ['stickies'], length: 'short' })).id;
  expect(owner.transcripts).toHaveLength(3);
  expect(owner.tasks).toHaveLength(5);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

// ---------------------------------------------------------------------------------------------
// The two clients (as in mcp-clients.test.ts)

interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

interface Connection {
  close(): Promise<void>;
  call(name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void): Promise<CallResult>;
  /** Checks a result against the outputSchema tools/list gave this client. */
  checkOutput: OutputCheck;
}

const url = () => new URL('/api/service', server.url);
const headers = (secret: string) => ({ Authorization: `Bearer ${secret}` });

async function connectLegacy(secret: string): Promise<Connection> {
  const client = new LegacyClient({ name: 'legacy-tools-test', version: '1.0.0' });
  await client.connect(new LegacyTransport(url(), { requestInit: { headers: headers(secret) } }));
  return {
    checkOutput: listedOutputCheck((await client.listTools()).tools as ListedTool[]),
    close: () => client.close(),
    call: (name, args, onprogress) =>
      client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined) as Promise<CallResult>,
  };
}

async function connectModern(secret: string): Promise<Connection> {
  const client = new ModernClient({ name: 'modern-tools-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(url(), { requestInit: { headers: headers(secret) } }));
  return {
    checkOutput: listedOutputCheck((await client.listTools()).tools as ListedTool[]),
    close: () => client.close(),
    call: (name, args, onprogress) => client.callTool({ name, arguments: args }, onprogress ? { onprogress } : undefined) as Promise<CallResult>,
  };
}

// ---------------------------------------------------------------------------------------------
// Shapes of the tools' structured results (each is also checked against the tool's listed outputSchema)

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface Sticky {
  id: string;
  content: string;
  tags: string[];
  version: number;
  updatedAt: string;
  deletedAt: string | null;
}
interface Link {
  id: string;
  url: string;
  title: string | null;
  tags: string[];
  starred: boolean;
  folderId: string | null;
  createdAt: string;
}
interface TranscriptSummary {
  id: string;
  title: string;
  occurredAt: string;
  durationSeconds: number;
  participants: string[];
  sentenceCount: number;
}
interface Transcript extends TranscriptSummary {
  sentences: { speaker: string; text: string; startSeconds: number; endSeconds: number | null }[];
}
interface Task {
  id: string;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  assignee: string | null;
  dueDate: string | null;
  labels: string[];
}
interface Comment {
  id: string;
  body: string;
  authorId: string;
  authorName: string | null;
  createdAt: string;
}
interface News {
  id: string;
  title: string;
  source: string;
  tags: string[];
  publishedAt: string;
}
interface Digest {
  week: string | null;
  periodStart: string;
  periodEnd: string;
  totalArticles: number;
  topArticles: News[];
}
interface Comparison {
  accountCode: string;
  entityName: string;
  date: string;
  custodianReturn: string | null;
  computedReturn: string | null;
  differenceBps: string | null;
  status: 'match' | 'review' | 'investigate';
  reason: string;
}
interface PeriodReturn {
  value: string | null;
  method: string;
  weighting: string;
  nullReason: string | null;
}
interface DailyReturns {
  accountCode: string;
  entityName: string;
  startDate: string;
  endDate: string;
  timeWeightedReturn: PeriodReturn;
  modifiedDietzReturn: PeriodReturn;
  days: { date: string; beginValue: string; endValue: string; netFlow: string; weightedFlow: string; returnValue: string | null; nullReason: string | null }[];
}
interface UploadedFile {
  id: string;
  fileName: string;
  fileType: 'pnl' | 'performance';
  status: string;
  rowCount: number | null;
  errorCount: number;
}
interface Run {
  id: string;
  state: string;
  finished: boolean;
  summary: string | null;
  summaryProvider: string | null;
  references: { kind: string; id: string; title: string }[];
  error: string | null;
  lastSequence: number;
}

const TOOL_NAMES = TOOLS.map((tool) => tool.name);
type ToolName = (typeof TOOL_NAMES)[number];
const toolByName = (name: ToolName) => {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool named ${name} in TOOLS`);
  return tool;
};

/** Tools that the tests of this file declare they call successfully (filled while collecting). */
const DECLARED = new Set<string>();

interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  organizationId: string | null;
  previousSecretExpiresAt: string | null;
}

interface WebhookDelivery {
  id: string;
  messageId: string;
  eventType: string;
  status: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

interface Session {
  /** Calls a tool that must succeed; returns its structured result, checked against the tool's listed outputSchema. */
  ok<T>(name: ToolName, args: Record<string, unknown>, onprogress?: (p: unknown) => void): Promise<T>;
  /** Calls a tool and returns the raw result (for expected tool errors). */
  raw(name: ToolName, args: Record<string, unknown>): Promise<CallResult>;
}

function sessionFor(connection: Connection, record: (name: string) => void): Session {
  return {
    async ok<T>(name: ToolName, args: Record<string, unknown>, onprogress?: (p: unknown) => void): Promise<T> {
      toolByName(name); // throws for a name that is not in TOOLS
      const result = await connection.call(name, args, onprogress);
      expect(result.isError, `${name}(${JSON.stringify(args)}) failed: ${result.content?.[0]?.text}`).toBeFalsy();
      expect(result.structuredContent, `${name}: no structuredContent`).toEqual(expect.any(Object));
      expect(connection.checkOutput(name, result.structuredContent), `${name}: structuredContent against the listed outputSchema`).toBeNull();
      // The text content carries the same result, as JSON.
      expect(JSON.parse(result.content[0].text ?? 'null')).toEqual(result.structuredContent);
      record(name);
      return result.structuredContent as T;
    },
    raw: (name, args) => connection.call(name, args),
  };
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);
const byUpdatedDesc = (items: { updatedAt: string }[]) => items.every((item, i) => i === 0 || items[i - 1].updatedAt >= item.updatedAt);

/** A JSON-RPC error thrown by either client: its code and message. */
async function rejection(promise: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error('expected the call to be refused with a JSON-RPC error, but it succeeded');
}

describe.each([
  ['2025-11-25 (1.x SDK client)', 'legacy', connectLegacy],
  ['2026-07-28 (v2 SDK client)', 'modern', connectModern],
] as const)('every tool, %s', (_era, tag, connect) => {
  /** Tools called successfully with this client, across this describe's tests. */
  const called = new Set<string>();

  /** A test that calls `tools` (each must be called successfully at least once) with the owner's token. */
  function covers(tools: ToolName[], title: string, body: (session: Session) => Promise<void>, timeout?: number) {
    for (const name of tools) DECLARED.add(name);
    it(
      `${title} [${tools.join(', ')}]`,
      async () => {
        const used = new Set<string>();
        const connection = await connect(owner.token);
        try {
          await body(
            sessionFor(connection, (name) => {
              used.add(name);
              called.add(name);
            }),
          );
        } finally {
          await connection.close();
        }
        expect(
          tools.filter((name) => !used.has(name)),
          'tools this test declares but did not call successfully',
        ).toEqual([]);
      },
      timeout,
    );
  }

  covers(
    ['list_stickies', 'search_stickies'],
    'stickies: the seeded ones listed newest first; found by a word of their content and by a tag',
    async ({ ok }) => {
      const live = owner.stickies.filter((sticky) => sticky.deletedAt === null);
      const trashed = owner.stickies.filter((sticky) => sticky.deletedAt !== null);
      expect(live).toHaveLength(4);
      expect(trashed).toHaveLength(1);

      const listed = await ok<Page<Sticky>>('list_stickies', { first: 100 });
      expect(ids(listed.items)).toEqual(expect.arrayContaining(ids(live)));
      expect(ids(listed.items)).not.toContain(trashed[0].id);
      expect(byUpdatedDesc(listed.items)).toBe(true);
      const agenda = live.find((sticky) => sticky.content.includes('Keystone'))!;
      expect(listed.items.find((item) => item.id === agenda.id)).toMatchObject({ content: agenda.content, tags: ['meetings'], version: 3 });

      const byTags = await ok<Page<Sticky>>('list_stickies', { tags: ['ideas', 'returns'] });
      expect(byTags.items.map((item) => item.content)).toEqual(['Benchmark idea: compare Modified Dietz vs daily-linked TWR for accounts with large flows']);

      const paged = await ok<Page<Sticky>>('list_stickies', { first: 2 });
      expect(paged.items).toHaveLength(2);
      expect(paged.nextCursor).toEqual(expect.any(String));
      const next = await ok<Page<Sticky>>('list_stickies', { first: 2, after: paged.nextCursor });
      expect(ids(next.items).filter((id) => ids(paged.items).includes(id))).toEqual([]);

      // A word of the content, in another case.
      const byWord = await ok<Page<Sticky>>('search_stickies', { search: 'keystone' });
      expect(ids(byWord.items)).toEqual([agenda.id]);
      // A tag that appears in no content.
      const byTag = await ok<Page<Sticky>>('search_stickies', { search: 'cash-flows' });
      expect(byTag.items.map((item) => item.content)).toEqual(['Ask Northwind about the weekend contribution on the Cedar trust (dated Saturday)']);
      // Trashed stickies are not found.
      const trashedWord = await ok<Page<Sticky>>('search_stickies', { search: 'vendor contract' });
      expect(trashedWord.items).toEqual([]);
    },
  );

  covers(['create_sticky', 'update_sticky'], 'stickies: created, then changed (content and tags, a new version)', async ({ ok }) => {
    const created = await ok<Sticky>('create_sticky', { content: `Draft from the ${tag} client`, tags: ['mcp', tag] });
    expect(created).toMatchObject({ content: `Draft from the ${tag} client`, tags: ['mcp', tag], version: 1, deletedAt: null });

    const updated = await ok<Sticky>('update_sticky', { id: created.id, content: `Final from the ${tag} client`, tags: [`${tag}-final`] });
    expect(updated).toMatchObject({ id: created.id, content: `Final from the ${tag} client`, tags: [`${tag}-final`], version: 2 });
    expect(updated.updatedAt >= created.updatedAt).toBe(true);

    // Tags only: the content stays.
    const retagged = await ok<Sticky>('update_sticky', { id: created.id, tags: [`${tag}-final`, 'reviewed'] });
    expect(retagged).toMatchObject({ content: `Final from the ${tag} client`, tags: [`${tag}-final`, 'reviewed'], version: 3 });

    // What the list says agrees.
    const listed = await ok<Page<Sticky>>('list_stickies', { tags: [`${tag}-final`] });
    expect(listed.items).toEqual([retagged]);
    expect((await ok<Page<Sticky>>('search_stickies', { search: `final from the ${tag}` })).items.map((item) => item.id)).toEqual([created.id]);
  });

  covers(
    ['list_links', 'search_links', 'create_link', 'update_link'],
    'links: listed, filtered, searched by a word of a title; created and changed',
    async ({ ok }) => {
      const listed = await ok<Page<Link>>('list_links', { first: 100 });
      const seededTitles = ['GIPS Standards', 'Modified Dietz method', 'RFC 9457: problem details for HTTP APIs', 'The twelve-factor app: config'];
      expect(listed.items.map((item) => item.title)).toEqual(expect.arrayContaining(seededTitles));
      expect(listed.items.every((item, i) => i === 0 || listed.items[i - 1].createdAt >= item.createdAt)).toBe(true);

      const starred = await ok<Page<Link>>('list_links', { starred: true, first: 100 });
      expect(starred.items.every((item) => item.starred)).toBe(true);
      expect(starred.items.map((item) => item.title)).toEqual(expect.arrayContaining(['GIPS Standards', 'GraphQL pagination', 'SEC marketing rule']));

      const research = listed.items.find((item) => item.title === 'GIPS Standards')!.folderId!;
      const inFolder = await ok<Page<Link>>('list_links', { folderId: research });
      expect(inFolder.items.every((item) => item.folderId === research)).toBe(true);
      expect(inFolder.items.map((item) => item.title)).toEqual(expect.arrayContaining(['GIPS Standards', 'Modified Dietz method', 'Time-weighted return']));
      expect(inFolder.items.map((item) => item.title)).not.toContain('GraphQL pagination');

      const byTitleWord = await ok<Page<Link>>('search_links', { search: 'dietz' });
      expect(byTitleWord.items.map((item) => item.url)).toEqual(['https://en.wikipedia.org/wiki/Modified_Dietz_method']);
      const byTag = await ok<Page<Link>>('search_links', { search: 'security' });
      expect(byTag.items.map((item) => item.title)).toEqual(['OWASP: server-side request forgery']);

      const created = await ok<Link>('create_link', { url: `https://example.com/${tag}/notes`, title: `Notes of the ${tag} client`, tags: ['mcp'] });
      expect(created).toMatchObject({
        url: `https://example.com/${tag}/notes`,
        title: `Notes of the ${tag} client`,
        tags: ['mcp'],
        starred: false,
        folderId: null,
      });

      const updated = await ok<Link>('update_link', {
        id: created.id,
        title: `Reference notes (${tag})`,
        starred: true,
        folderId: research,
        tags: ['mcp', 'reference'],
      });
      expect(updated).toMatchObject({
        id: created.id,
        url: created.url,
        title: `Reference notes (${tag})`,
        starred: true,
        folderId: research,
        tags: ['mcp', 'reference'],
      });

      expect(ids((await ok<Page<Link>>('list_links', { starred: true, first: 100 })).items)).toContain(created.id);
      expect(ids((await ok<Page<Link>>('list_links', { folderId: research })).items)).toContain(created.id);
      expect(ids((await ok<Page<Link>>('search_links', { search: `reference notes (${tag})` })).items)).toEqual([created.id]);
      expect((await ok<Page<Link>>('search_links', { search: `Notes of the ${tag}` })).items).toEqual([]);
    },
  );

  covers(
    ['list_transcripts', 'get_transcript'],
    'transcripts: listed newest meeting first; one read with every sentence, speaker and timestamps',
    async ({ ok }) => {
      const listed = await ok<Page<TranscriptSummary>>('list_transcripts', {});
      const newestFirst = [...owner.transcripts].sort((a, b) => b.occurredAt.getTime() - a.occurredAt.getTime());
      expect(ids(listed.items)).toEqual(ids(newestFirst));
      expect(listed.nextCursor).toBeNull();
      const committee = listed.items[0];
      expect(committee.title).toMatch(/Weekly Investment Committee/);
      expect(committee.participants).toContain('Margaret Okonkwo');

      const seeded = owner.transcripts.find((t) => t.id === committee.id)!;
      const transcript = await ok<Transcript>('get_transcript', { id: committee.id });
      expect(transcript).toMatchObject({
        id: committee.id,
        title: committee.title,
        sentenceCount: seeded.sentences.length,
        durationSeconds: seeded.durationSeconds,
      });
      expect(transcript.sentences).toHaveLength(transcript.sentenceCount);
      expect(transcript.sentences).toEqual(seeded.sentences);
      expect(transcript.sentences[0]).toEqual({
        speaker: 'Margaret Okonkwo',
        text: expect.stringContaining("Let's get started"),
        startSeconds: 4,
        endSeconds: 11.98,
      });
      for (const [i, sentence] of transcript.sentences.entries()) {
        expect(sentence.speaker.length).toBeGreaterThan(0);
        expect(sentence.startSeconds).toBeGreaterThanOrEqual(i === 0 ? 0 : transcript.sentences[i - 1].startSeconds);
        if (sentence.endSeconds !== null) expect(sentence.endSeconds).toBeGreaterThanOrEqual(sentence.startSeconds);
      }
      expect(new Set(transcript.sentences.map((s) => s.speaker)).size).toBeGreaterThan(1);

      // Paging: one per page, then the next.
      const first = await ok<Page<TranscriptSummary>>('list_transcripts', { first: 1 });
      expect(ids(first.items)).toEqual([newestFirst[0].id]);
      const second = await ok<Page<TranscriptSummary>>('list_transcripts', { first: 1, after: first.nextCursor });
      expect(ids(second.items)).toEqual([newestFirst[1].id]);
    },
  );

  covers(
    ['list_tasks', 'get_task', 'create_task', 'add_task_comment'],
    'tasks: filtered by status, assignee and label; created, commented on, read back with its comments',
    async ({ ok }) => {
      const title = (status: string) => owner.tasks.filter((task) => task.status === status).map((task) => task.title);

      const inProgress = await ok<Page<Task>>('list_tasks', { status: ['in_progress'] });
      expect(inProgress.items.map((task) => task.title)).toEqual(title('in_progress'));
      expect(inProgress.items.map((task) => task.title)).toEqual(['Reconcile DC-1003 custodian returns for month-end']);

      const closed = await ok<Page<Task>>('list_tasks', { status: ['done', 'cancelled'] });
      expect(closed.items.map((task) => task.title).sort()).toEqual([...title('done'), ...title('cancelled')].sort());
      expect(closed.items.every((task) => ['done', 'cancelled'].includes(task.status))).toBe(true);

      const blocked = await ok<Page<Task>>('list_tasks', { status: ['blocked'] });
      expect(blocked.items).toHaveLength(1);
      expect(blocked.items[0]).toMatchObject({
        title: 'Get the Northwind custodian feed switched to daily files',
        assignee: 'Ben Okafor',
        labels: ['data', 'northwind'],
      });

      expect((await ok<Page<Task>>('list_tasks', { assignee: 'Ana Silva' })).items.map((task) => task.title)).toEqual([
        'Prepare the investment committee pack',
      ]);
      expect((await ok<Page<Task>>('list_tasks', { label: 'returns' })).items.map((task) => task.title).sort()).toEqual([
        'Reconcile DC-1003 custodian returns for month-end',
        'Review comparison thresholds for Demo Capital',
      ]);

      const created = await ok<Task>('create_task', {
        title: `Follow up from the ${tag} client`,
        description: 'Created through the JSON-RPC tool endpoint.',
        priority: 'high',
        assignee: 'Dana Reyes',
        dueDate: '2031-01-15',
        labels: [`mcp-${tag}`],
      });
      expect(created).toMatchObject({
        title: `Follow up from the ${tag} client`,
        status: 'todo',
        priority: 'high',
        assignee: 'Dana Reyes',
        dueDate: '2031-01-15',
        labels: [`mcp-${tag}`],
      });

      const comment = await ok<Comment>('add_task_comment', { taskId: created.id, body: `Checked with the ${tag} client` });
      expect(comment).toMatchObject({ body: `Checked with the ${tag} client`, authorId: owner.user.userId });
      const stored = await server.services.tasks.get(owner.user.userId, created.id);
      expect(stored.comments?.map((c) => c.body)).toEqual([`Checked with the ${tag} client`]);
      const read = await ok<Task & { comments: Comment[] }>('get_task', { id: created.id });
      expect(read).toMatchObject({ id: created.id, title: `Follow up from the ${tag} client` });
      expect(read.comments.map((c) => c.body)).toEqual([`Checked with the ${tag} client`]);

      const todo = await ok<Page<Task>>('list_tasks', { status: ['todo'], label: `mcp-${tag}` });
      expect(ids(todo.items)).toEqual([created.id]);
      expect((await ok<Page<Task>>('list_tasks', { status: ['done'], label: `mcp-${tag}` })).items).toEqual([]);
    },
  );

  covers(['list_news', 'get_news_digest'], 'news: filtered by tag and source; the digest of the last seven days with its top articles', async ({ ok }) => {
    const all = await ok<Page<News>>('list_news', { first: 100 });
    expect(all.items).toHaveLength(12);
    expect(all.items.every((item, i) => i === 0 || all.items[i - 1].publishedAt >= item.publishedAt)).toBe(true);
    expect(all.items[0].title).toBe('Central bank holds rates, signals patience on cuts');

    const performanceNews = await ok<Page<News>>('list_news', { tag: 'performance' });
    expect(performanceNews.items.map((item) => item.title)).toEqual([
      'Custodians move to daily performance files',
      'Regulator publishes FAQ on performance advertising',
      'Time-weighted or money-weighted? A practitioner guide',
    ]);
    const regWatch = await ok<Page<News>>('list_news', { source: 'Reg Watch' });
    expect(regWatch.items.map((item) => item.title)).toEqual([
      'Regulator publishes FAQ on performance advertising',
      'Operational resilience rules take effect',
    ]);

    const digest = await ok<Digest>('get_news_digest', {});
    expect(digest.week).toBeNull();
    // Published 5 to 150 hours ago: eight of the twelve seeded articles are in the last seven days.
    expect(digest.totalArticles).toBe(8);
    expect(digest.topArticles).toHaveLength(8);
    expect(digest.topArticles[0].title).toBe('Central bank holds rates, signals patience on cuts');
    for (const article of digest.topArticles) {
      expect(article.publishedAt >= digest.periodStart && article.publishedAt < digest.periodEnd).toBe(true);
    }

    // An ISO week long before the seeds: an empty digest for that week.
    const old = await ok<Digest>('get_news_digest', { week: '2020-W10' });
    expect(old).toMatchObject({
      week: '2020-W10',
      totalArticles: 0,
      topArticles: [],
      periodStart: '2020-03-02T00:00:00.000Z',
      periodEnd: '2020-03-09T00:00:00.000Z',
    });
  });

  covers(
    ['get_returns_comparison', 'get_daily_returns'],
    'returns: custodian vs computed rows with a status; daily Modified Dietz returns and the linked period return',
    async ({ ok }) => {
      const rows = await ok<Page<Comparison>>('get_returns_comparison', { first: 100 });
      expect(rows.items).toHaveLength(performance.length);
      expect(rows.nextCursor).toBeNull();
      for (const custodian of performance) {
        const row = rows.items.find((r) => r.accountCode === custodian.accountCode && r.date === custodian.date);
        expect(row, `${custodian.accountCode} ${custodian.date}`).toBeDefined();
        expect(row).toMatchObject({
          entityName: custodian.entityName,
          custodianReturn: custodian.value.toFixed(12),
          status: expect.stringMatching(/^(match|review|investigate)$/),
        });
        const entity = pnl.get(custodian.entityName)!;
        const index = entity.valuations.findIndex((v) => v.date === custodian.date);
        expect(row!.computedReturn).toBe(modifiedDietz(entity, entity.valuations[index - 1].date, custodian.date).returnValue!.toFixed(12));
        expect(row!.reason.length).toBeGreaterThan(0);
      }

      const northwind = await ok<Page<Comparison>>('get_returns_comparison', { accountCode: 'ACC-2002', first: 100 });
      expect(northwind.items).toHaveLength(performance.filter((p) => p.accountCode === 'ACC-2002').length);
      expect(northwind.items.every((row) => row.accountCode === 'ACC-2002' && row.entityName === NORTHWIND)).toBe(true);

      for (const status of ['match', 'review', 'investigate'] as const) {
        const filtered = await ok<Page<Comparison>>('get_returns_comparison', { status, first: 100 });
        expect(filtered.items.every((row) => row.status === status)).toBe(true);
        expect(filtered.items.length).toBe(rows.items.filter((row) => row.status === status).length);
      }

      const entity = pnl.get(HARBOR)!;
      const first = entity.valuations[0].date;
      const last = entity.valuations.at(-1)!.date;
      const daily = await ok<DailyReturns>('get_daily_returns', { entityName: HARBOR, startDate: first, endDate: last });
      expect(daily).toMatchObject({ entityName: HARBOR, accountCode: 'ACC-1001', startDate: first, endDate: last });
      const expected = dailyReturns(entity);
      expect(daily.days.map((day) => day.date)).toEqual(expected.map((period) => period.date));
      expected.forEach((period, i) => {
        expect(daily.days[i].returnValue, period.date).toBe(period.returnValue!.toFixed(12));
        expect(daily.days[i].nullReason).toBeNull();
      });
      const linked = link(daily.days.map((day) => Rational.parse(day.returnValue!)));
      expect(daily.timeWeightedReturn).toMatchObject({ value: linked.toFixed(12), weighting: 'time-weighted', nullReason: null });
      expect(daily.timeWeightedReturn.method).toMatch(/link/i);
      expect(daily.modifiedDietzReturn).toMatchObject({
        value: modifiedDietz(entity, first, last).returnValue!.toFixed(12),
        weighting: 'money-weighted',
        nullReason: null,
      });
    },
  );

  covers(
    ['get_period_returns', 'get_calendar_returns', 'get_money_weighted_return'],
    'reported returns: standard periods and calendar months linked from the daily returns; the IRR of the sample fund',
    async ({ ok }) => {
      const entity = pnl.get(HARBOR)!;
      const first = entity.valuations[0].date;
      const last = entity.valuations.at(-1)!.date;
      // The stored daily returns (12 dp), linked: what every time-weighted figure here is made of.
      const stored = dailyReturns(entity).map((period) => Rational.parse(period.returnValue!.toFixed(12)));
      const periods = await ok<{ asOf: string; inceptionDate: string; periods: { period: string; complete: boolean; returnValue: string | null }[] }>(
        'get_period_returns',
        { entityName: HARBOR },
      );
      expect(periods).toMatchObject({ asOf: last, inceptionDate: first });
      expect(periods.periods.map((row) => row.period)).toEqual(['MTD', 'QTD', 'YTD', '1M', '3M', '6M', '1Y', '3Y', '5Y', '10Y', 'SI']);
      expect(periods.periods.find((row) => row.period === 'SI')).toMatchObject({ complete: true, returnValue: link(stored).toFixed(12) });
      expect(periods.periods.find((row) => row.period === '1Y')).toMatchObject({ complete: false, returnValue: null });

      const calendar = await ok<{ months: { period: string; returnValue: string | null; partial: boolean }[] }>('get_calendar_returns', { entityName: HARBOR });
      expect(calendar.months.map((row) => row.period)).toEqual([...new Set(dailyReturns(entity).map((period) => period.date.slice(0, 7)))]);
      const linkedMonths = link(calendar.months.map((row) => Rational.parse(row.returnValue!)));
      expect(Math.abs(Number(linkedMonths.minus(link(stored)).toFixed(12)))).toBeLessThanOrEqual(1e-11);

      const irr = await ok<{ startDate: string; endDate: string; flowCount: number; periodReturn: string | null; nullReason: string | null }>(
        'get_money_weighted_return',
        { entityName: HARBOR, startDate: first, endDate: last },
      );
      expect(irr).toMatchObject({ startDate: first, endDate: last, flowCount: entity.flows.length, nullReason: null });
      // The money-weighted return lies near the one-period Modified Dietz (its first-order approximation).
      expect(Math.abs(Number(irr.periodReturn) - Number(modifiedDietz(entity, first, last).returnValue!.toFixed(12)))).toBeLessThan(0.001);
    },
  );

  covers(
    ['list_return_currencies', 'get_benchmark_levels'],
    "reported returns: the currencies one uploaded pair away; the assigned benchmark's levels and cumulative return",
    async ({ ok }) => {
      const pool = server.services.db.pool;
      const orgId = owner.user.orgId;
      await pool.query(
        `INSERT INTO "FxRate" ("orgId", base, quote, date, rate) VALUES ($1, 'USD', 'CHF', '2025-03-03', 0.88), ($1, 'EUR', 'USD', '2025-03-03', 1.08) ON CONFLICT DO NOTHING`,
        [orgId],
      );
      const currencies = await ok<{ localCurrency: string; currencies: string[] }>('list_return_currencies', { entityName: NORTHWIND });
      expect(currencies).toMatchObject({ localCurrency: 'USD', currencies: ['CHF', 'EUR'] });

      expect(
        await ok<{ benchmark: string | null; points: unknown[] }>('get_benchmark_levels', {
          entityName: NORTHWIND,
          startDate: '2025-03-03',
          endDate: '2025-03-21',
        }),
      ).toMatchObject({
        benchmark: null,
        points: [],
      });
      await pool.query(
        `INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level) VALUES ($1, 'MCP Index', '2025-02-28', 400), ($1, 'MCP Index', '2025-03-10', 410) ON CONFLICT DO NOTHING`,
        [orgId],
      );
      await pool.query(`UPDATE "Entity" SET benchmark = 'MCP Index' WHERE "orgId" = $1 AND "entityName" = $2`, [orgId, NORTHWIND]);
      try {
        const levels = await ok<{ benchmark: string; baseDate: string; points: { date: string; cumulativeReturn: string }[] }>('get_benchmark_levels', {
          entityName: NORTHWIND,
          startDate: '2025-03-03',
          endDate: '2025-03-21',
        });
        expect(levels).toMatchObject({ benchmark: 'MCP Index', baseDate: '2025-02-28' });
        expect(levels.points.map((point) => [point.date, point.cumulativeReturn])).toEqual([
          ['2025-02-28', '0.000000000000'],
          ['2025-03-10', '0.025000000000'],
        ]);
      } finally {
        await pool.query(`UPDATE "Entity" SET benchmark = NULL WHERE "orgId" = $1 AND "entityName" = $2`, [orgId, NORTHWIND]);
      }
    },
  );

  covers(
    ['list_benchmarks', 'set_entity_benchmark'],
    "benchmarks: the organization's series listed, one assigned, the period and calendar returns compared with it, then removed",
    async ({ ok }) => {
      const orgId = owner.user.orgId;
      // 500 at the close before the history starts, 505 at its last day: the benchmark gained exactly 1 %.
      await server.services.db.pool.query(
        `INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level) VALUES ($1, 'MCP Tools Index', '2025-02-28', 500), ($1, 'MCP Tools Index', '2025-03-21', 505) ON CONFLICT DO NOTHING`,
        [orgId],
      );
      const listed = await ok<{ items: { organizationId: string; name: string; firstDate: string; lastDate: string; levelCount: number }[] }>(
        'list_benchmarks',
        {},
      );
      expect(listed.items).toContainEqual({ organizationId: orgId, name: 'MCP Tools Index', firstDate: '2025-02-28', lastDate: '2025-03-21', levelCount: 2 });
      const set = await ok<{ entityName: string; benchmark: string | null }>('set_entity_benchmark', { entityName: HARBOR, benchmark: 'MCP Tools Index' });
      expect(set).toMatchObject({ entityName: HARBOR, benchmark: 'MCP Tools Index' });
      try {
        type Comparison = { name: string; returnValue: string | null; excessReturn: string | null; nullReason: string | null };
        const periods = await ok<{ benchmark: string | null; periods: { period: string; returnValue: string | null; benchmark: Comparison | null }[] }>(
          'get_period_returns',
          { entityName: HARBOR },
        );
        expect(periods.benchmark).toBe('MCP Tools Index');
        const si = periods.periods.find((row) => row.period === 'SI')!;
        expect(si.benchmark).toMatchObject({ name: 'MCP Tools Index', returnValue: '0.010000000000', nullReason: null });
        expect(Math.abs(Number(si.benchmark!.excessReturn) - (Number(si.returnValue) - 0.01))).toBeLessThan(1e-11);
        const calendar = await ok<{ benchmark: string | null; months: { period: string; benchmark: Comparison | null }[] }>('get_calendar_returns', {
          entityName: HARBOR,
        });
        expect(calendar.benchmark).toBe('MCP Tools Index');
        expect(calendar.months.find((row) => row.period === '2025-03')?.benchmark).toMatchObject({ returnValue: '0.010000000000', nullReason: null });
      } finally {
        expect(await ok<{ benchmark: string | null }>('set_entity_benchmark', { entityName: HARBOR, benchmark: null })).toMatchObject({ benchmark: null });
      }
    },
  );

  covers(['list_files'], "files: the organization's uploaded sample files, processed", async ({ ok }) => {
    const files = await ok<Page<UploadedFile>>('list_files', { orgId: owner.user.orgId });
    expect(files.nextCursor).toBeNull();
    expect(files.items.map((file) => [file.fileName, file.fileType, file.status, file.errorCount]).sort()).toEqual([
      ['performance-sample.csv', 'performance', 'processed', 0],
      ['pnl-sample.csv', 'pnl', 'processed', 0],
    ]);
    const byName = Object.fromEntries(files.items.map((file) => [file.fileName, file]));
    expect(byName['performance-sample.csv'].rowCount).toBe(performance.length);
    expect(byName['pnl-sample.csv'].rowCount).toBe(readSample(SAMPLE_PNL).trim().split('\n').length - 1);
    const one = await ok<Page<UploadedFile>>('list_files', { orgId: owner.user.orgId, first: 1 });
    expect(one.items).toHaveLength(1);
    expect(one.nextCursor).toEqual(expect.any(String));
  });

  covers(['chat'], 'chat: an assistant message answering from the workspace', async ({ ok }) => {
    const reply = await ok<{ message: { role: string; content: string }; provider: string }>('chat', {
      messages: [{ role: 'user', content: 'What do I have on Keystone?' }],
    });
    expect(reply.message.role).toBe('assistant');
    expect(reply.provider).toBe('offline');
    expect(reply.message.content).toMatch(/Keystone/);

    const followUp = await ok<{ message: { role: string; content: string } }>('chat', {
      messages: [
        { role: 'user', content: 'What do I have on Keystone?' },
        { role: 'assistant', content: reply.message.content },
        { role: 'user', content: 'And on the Northwind feed?' },
      ],
    });
    expect(followUp.message.role).toBe('assistant');
    expect(followUp.message.content).toMatch(/Northwind/);
  });

  covers(['start_summary_generation', 'get_summary_generation'], 'summary: a completed run with a summary and references, read back by id', async ({ ok }) => {
    const progress: unknown[] = [];
    const run = await ok<Run>('start_summary_generation', { days: 30, length: 'medium' }, (p) => progress.push(p));
    expect(run).toMatchObject({ state: 'completed', finished: true, error: null });
    expect(run.summary).toContain('# Workspace summary');
    expect(run.summaryProvider).toEqual(expect.any(String));
    expect(run.references.length).toBeGreaterThan(0);
    expect(run.summary).toContain('[1]');
    // References come from several sources, and each names one of the owner's records.
    expect(new Set(run.references.map((reference) => reference.kind)).size).toBeGreaterThan(1);
    const ownerIds = new Set([
      ...ids((await ok<Page<Sticky>>('list_stickies', { first: 100 })).items),
      ...ids((await ok<Page<Link>>('list_links', { first: 100 })).items),
      ...ids(owner.transcripts),
      ...ids((await ok<Page<Task>>('list_tasks', { first: 100 })).items),
      ...ids((await ok<Page<News>>('list_news', { first: 100 })).items),
    ]);
    for (const reference of run.references) expect(ownerIds.has(reference.id), `${reference.kind} ${reference.id} ${reference.title}`).toBe(true);
    expect(progress.length).toBeGreaterThan(5);

    const read = await ok<Run>('get_summary_generation', { id: run.id });
    expect(read).toEqual(run);

    // The run started through the service reads back too (finished by now or soon).
    const earlier = await ok<Run>('get_summary_generation', { id: ownerRunId });
    expect(earlier.id).toBe(ownerRunId);
  });

  covers(
    [
      'create_webhook_endpoint',
      'list_webhook_endpoints',
      'update_webhook_endpoint',
      'rotate_webhook_secret',
      'send_test_webhook',
      'list_webhook_deliveries',
      'redeliver_webhook',
      'delete_webhook_endpoint',
    ],
    "webhooks: an organization's endpoint created (secret once), listed, changed, rotated, tested, redelivered, deleted",
    async ({ ok }) => {
      const created = await ok<{ endpoint: WebhookEndpoint; secret: string }>('create_webhook_endpoint', {
        url: `${receiverUrl}/${tag}`,
        events: ['file.processed', 'reconciliation.investigate'],
        description: `from the ${tag} client`,
        organizationId: owner.user.orgId,
      });
      expect(created.secret).toMatch(/^whsec_/);
      expect(created.endpoint).toMatchObject({ url: `${receiverUrl}/${tag}`, organizationId: owner.user.orgId, enabled: true });
      const { id } = created.endpoint;

      const listed = await ok<Page<WebhookEndpoint>>('list_webhook_endpoints', { first: 100 });
      expect(ids(listed.items)).toContain(id);
      expect(JSON.stringify(listed)).not.toContain(created.secret);

      const updated = await ok<WebhookEndpoint>('update_webhook_endpoint', { id, events: ['file.failed'], enabled: false });
      expect(updated).toMatchObject({ id, events: ['file.failed'], enabled: false, description: `from the ${tag} client` });

      const rotated = await ok<{ endpoint: WebhookEndpoint; secret: string }>('rotate_webhook_secret', { id });
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.endpoint.previousSecretExpiresAt).toEqual(expect.any(String));

      const test = await ok<WebhookDelivery>('send_test_webhook', { id });
      expect(test).toMatchObject({ eventType: 'webhook.test', payload: { type: 'webhook.test' } });
      const deliveries = await ok<Page<WebhookDelivery>>('list_webhook_deliveries', { endpointId: id });
      expect(ids(deliveries.items)).toEqual([test.id]);
      const again = await ok<WebhookDelivery>('redeliver_webhook', { endpointId: id, deliveryId: test.id });
      expect(again).toMatchObject({ messageId: test.messageId, eventType: 'webhook.test' });
      expect(again.id).not.toBe(test.id);

      const deleted = await ok<WebhookEndpoint>('delete_webhook_endpoint', { id });
      expect(deleted.id).toBe(id);
      expect(ids((await ok<Page<WebhookEndpoint>>('list_webhook_endpoints', { first: 100 })).items)).not.toContain(id);
    },
  );

  it("another user's token reaches none of the owner's records", async () => {
    const mine = await connect(owner.token);
    const theirs = await connect(other.token);
    try {
      const owned = sessionFor(mine, (name) => called.add(name));
      const stranger = sessionFor(theirs, () => {});
      const sticky = owner.stickies.find((s) => s.deletedAt === null)!;
      const transcript = owner.transcripts[0];
      const task = owner.tasks[0];

      // Direct reads and writes of the owner's ids: a tool error saying not found.
      const refusals: [ToolName, Record<string, unknown>][] = [
        ['get_transcript', { id: transcript.id }],
        ['update_sticky', { id: sticky.id, content: 'hijacked' }],
        ['add_task_comment', { taskId: task.id, body: 'hijacked' }],
        ['get_task', { id: task.id }],
        ['get_summary_generation', { id: ownerRunId }],
        ['get_daily_returns', { entityName: HARBOR, startDate: '2025-03-03', endDate: '2025-03-21' }],
      ];
      for (const [name, args] of refusals) {
        const result = await stranger.raw(name, args);
        expect(result.isError, `${name} on the owner's record`).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        expect(result.content[0].text, name).toMatch(/not found/i);
      }
      // Nothing changed.
      expect(await server.services.stickies.get(owner.user.userId, sticky.id)).toMatchObject({ content: sticky.content, version: sticky.version });
      expect((await server.services.tasks.get(owner.user.userId, task.id)).comments?.map((c) => c.body)).not.toContain('hijacked');

      // Lists: the other user sees its own seeded records (same words, other ids), never the owner's.
      const lists: [ToolName, Record<string, unknown>][] = [
        ['list_stickies', { first: 100 }],
        ['search_stickies', { search: 'keystone' }],
        ['list_links', { first: 100 }],
        ['search_links', { search: 'dietz' }],
        ['list_transcripts', { first: 100 }],
        ['list_tasks', { first: 100 }],
        ['list_news', { first: 100 }],
      ];
      for (const [name, args] of lists) {
        const ownerIds = ids((await owned.ok<Page<{ id: string }>>(name, args)).items);
        const strangerIds = ids((await stranger.ok<Page<{ id: string }>>(name, args)).items);
        expect(ownerIds.length, `${name}: the owner's`).toBeGreaterThan(0);
        expect(strangerIds.length, `${name}: the other user's own`).toBeGreaterThan(0);
        expect(
          strangerIds.filter((id) => ownerIds.includes(id)),
          `${name}: the owner's records in the other user's list`,
        ).toEqual([]);
      }
      const digest = await stranger.ok<Digest>('get_news_digest', {});
      const ownerDigest = await owned.ok<Digest>('get_news_digest', {});
      expect(ids(digest.topArticles).filter((id) => ids(ownerDigest.topArticles).includes(id))).toEqual([]);

      // Returns of an organization the other user does not belong to: none.
      expect((await stranger.ok<Page<Comparison>>('get_returns_comparison', { first: 100 })).items).toEqual([]);
      expect((await stranger.ok<Page<UploadedFile>>('list_files', { orgId: other.user.orgId })).items).toEqual([]);

      // Files of the owner's organization: refused as FORBIDDEN, which the code table answers with JSON-RPC error -32003.
      const refused = await rejection(theirs.call('list_files', { orgId: owner.user.orgId }));
      expect(refused.code).toBe(JSON_RPC_BY_CODE.FORBIDDEN.code);
      expect(refused.code).toBe(-32003);
      expect(refused.message).toMatch(/list_files: Insufficient permissions/);
      expect(refused.message).toMatch(/scope/);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it('called every tool in TOOLS successfully with this client', () => {
    expect([...called].sort()).toEqual([...TOOL_NAMES].sort());
  });
});

describe('coverage guard', () => {
  it('the tests of this file declare every tool in TOOLS, and only those', () => {
    expect([...DECLARED].sort()).toEqual([...TOOL_NAMES].sort());
    expect(new Set(TOOL_NAMES).size).toBe(TOOL_NAMES.length);
  });
});
