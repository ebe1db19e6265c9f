/**
 * The tools of the JSON-RPC endpoint (/api/service), as data: each runs one named GraphQL
 * operation of the schema with the caller's identity, so permissions, validation and rate
 * limits are the schema's. Inputs are the operation's variables (camelCase, as in GraphQL);
 * outputs are the operation's data, lists as `{ items, nextCursor }`.
 */
import { z } from 'zod';
import { connectionPage } from '../rest-compat/route.ts';
import { COMPARISON_STATUSES } from '../src/returns/dietz.ts';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** One named GraphQL operation; its variables are the tool's input (inputSchema is generated from them). */
  operation: string;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** The operation's data -> the tool's structured result (default: the data itself). */
  result?: (data: Record<string, unknown>) => Record<string, unknown>;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Updates overwrite what they name: destructive in MCP's sense, and repeatable with the same result. */
const UPDATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

const uuid = z.string().uuid();
const timestamp = z.string().describe('ISO 8601 timestamp');
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe('YYYY-MM-DD');
const decimal = z.string().describe('decimal number as a string');

/** `{ items, nextCursor }` for a relay connection of `node`. */
function connection<T extends z.ZodType>(node: T) {
  return z.object({ items: z.array(node), nextCursor: z.string().nullable().describe('pass as `after` for the next page; null on the last page') });
}

function fromConnection(field: string) {
  return (data: Record<string, unknown>) => {
    const page = connectionPage(data, field);
    return { items: page.rows, nextCursor: page.nextCursor };
  };
}

function field(name: string) {
  return (data: Record<string, unknown>) => data[name] as Record<string, unknown>;
}

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

const Sticky = z.object({
  id: uuid,
  content: z.string(),
  tags: z.array(z.string()),
  version: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
  deletedAt: timestamp.nullable(),
});
const STICKY = 'id content tags version createdAt updatedAt deletedAt';

const Link = z.object({
  id: uuid,
  url: z.string(),
  title: z.string().nullable(),
  tags: z.array(z.string()),
  starred: z.boolean(),
  folderId: uuid.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
const LINK = 'id url title tags starred folderId createdAt updatedAt';

const TranscriptSummary = z.object({
  id: uuid,
  title: z.string(),
  occurredAt: timestamp,
  durationSeconds: z.number().int(),
  participants: z.array(z.string()),
  sentenceCount: z.number().int(),
});
const TRANSCRIPT_SUMMARY = 'id title occurredAt durationSeconds participants sentenceCount';
const Sentence = z.object({ speaker: z.string(), text: z.string(), startSeconds: z.number(), endSeconds: z.number().nullable() });

const TaskStatus = z.enum(['todo', 'in_progress', 'blocked', 'done', 'cancelled']);
const TaskPriority = z.enum(['low', 'medium', 'high', 'urgent']);
const Task = z.object({
  id: uuid,
  title: z.string(),
  description: z.string().nullable(),
  status: TaskStatus,
  priority: TaskPriority,
  assignee: z.string().nullable(),
  dueDate: date.nullable(),
  labels: z.array(z.string()),
  createdAt: timestamp,
  updatedAt: timestamp,
  completedAt: timestamp.nullable(),
});
const TASK = 'id title description status priority assignee dueDate labels createdAt updatedAt completedAt';
const Comment = z.object({ id: uuid, body: z.string(), authorId: uuid, authorName: z.string().nullable(), createdAt: timestamp });
const COMMENT = 'id body authorId authorName createdAt';

const News = z.object({
  id: uuid,
  title: z.string(),
  url: z.string(),
  source: z.string(),
  summary: z.string().nullable(),
  tags: z.array(z.string()),
  publishedAt: timestamp,
});
const NEWS = 'id title url source summary tags publishedAt';

const Reference = z.object({ kind: z.enum(['sticky', 'link', 'transcript', 'task', 'news']), id: z.string(), title: z.string() });
const Run = z.object({
  id: uuid,
  state: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  finished: z.boolean(),
  degraded: z.boolean(),
  failedAgents: z.array(z.string()),
  summary: z.string().nullable().describe('markdown; [n] cites references[n - 1]'),
  summaryProvider: z.string().nullable(),
  references: z.array(Reference),
  error: z.string().nullable(),
  lastSequence: z.number().int(),
  createdAt: timestamp,
  finishedAt: timestamp.nullable(),
});
export const RUN = 'id state finished degraded failedAgents summary summaryProvider references { kind id title } error lastSequence createdAt finishedAt';

const Comparison = z.object({
  accountCode: z.string(),
  entityName: z.string(),
  date,
  custodianReturn: decimal.nullable(),
  computedReturn: decimal.nullable(),
  differenceBps: decimal.nullable(),
  status: z.enum(COMPARISON_STATUSES),
  reason: z.string(),
});
const PeriodReturn = z.object({ value: decimal.nullable(), method: z.string(), weighting: z.string(), nullReason: z.string().nullable() });
const DailyReturn = z.object({
  date,
  beginValue: decimal,
  endValue: decimal,
  netFlow: decimal,
  weightedFlow: decimal,
  returnValue: decimal.nullable(),
  nullReason: z.string().nullable(),
});
const File = z.object({
  id: uuid,
  fileName: z.string(),
  fileType: z.enum(['pnl', 'performance']),
  status: z.string(),
  statusDetail: z.string().nullable(),
  sizeBytes: z.number(),
  rowCount: z.number().int().nullable(),
  errorCount: z.number().int(),
  createdAt: timestamp,
  processedAt: timestamp.nullable(),
});

export const TOOLS: ToolDefinition[] = [
  {
    name: 'list_stickies',
    title: 'List stickies',
    description: 'Your sticky notes, most recently changed first. Filter by tags (a sticky must carry every tag); page with first/after.',
    operation: `query ToolListStickies($tags: [String!], $first: Int, $after: String) {
      stickies(tags: $tags, first: $first, after: $after) { edges { node { ${STICKY} } } ${PAGE_INFO} } }`,
    output: connection(Sticky),
    annotations: READ,
    result: fromConnection('stickies'),
  },
  {
    name: 'search_stickies',
    title: 'Search stickies',
    description: 'Your stickies whose content contains the text (any case) or that carry it as a tag, most recently changed first.',
    operation: `query ToolSearchStickies($search: String!, $first: Int, $after: String) {
      stickies(search: $search, first: $first, after: $after) { edges { node { ${STICKY} } } ${PAGE_INFO} } }`,
    output: connection(Sticky),
    annotations: READ,
    result: fromConnection('stickies'),
  },
  {
    name: 'create_sticky',
    title: 'Create a sticky',
    description: 'Creates a sticky note (1 to 10,000 characters) with optional tags.',
    operation: `mutation ToolCreateSticky($content: String!, $tags: [String!]) { createSticky(input: { content: $content, tags: $tags }) { ${STICKY} } }`,
    output: Sticky,
    annotations: CREATE,
    result: field('createSticky'),
  },
  {
    name: 'update_sticky',
    title: 'Update a sticky',
    description: 'Changes the content and/or tags of one of your stickies (a new version; its history is kept).',
    operation: `mutation ToolUpdateSticky($id: UUID!, $content: String, $tags: [String!]) { updateSticky(input: { id: $id, content: $content, tags: $tags }) { ${STICKY} } }`,
    output: Sticky,
    annotations: UPDATE,
    result: field('updateSticky'),
  },
  {
    name: 'list_links',
    title: 'List links',
    description: 'Your saved links, newest first; filter by folder or starred.',
    operation: `query ToolListLinks($folderId: UUID, $starred: Boolean, $first: Int, $after: String) {
      links(folderId: $folderId, starred: $starred, first: $first, after: $after) { edges { node { ${LINK} } } ${PAGE_INFO} } }`,
    output: connection(Link),
    annotations: READ,
    result: fromConnection('links'),
  },
  {
    name: 'search_links',
    title: 'Search links',
    description: 'Your links whose URL or title contains the text (any case) or that carry it as a tag, newest first.',
    operation: `query ToolSearchLinks($search: String!, $first: Int, $after: String) {
      links(search: $search, first: $first, after: $after) { edges { node { ${LINK} } } ${PAGE_INFO} } }`,
    output: connection(Link),
    annotations: READ,
    result: fromConnection('links'),
  },
  {
    name: 'create_link',
    title: 'Save a link',
    description: 'Saves an http(s) link with an optional title, folder, tags and star.',
    operation: `mutation ToolCreateLink($url: String!, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      createLink(input: { url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK} } }`,
    output: Link,
    annotations: CREATE,
    result: field('createLink'),
  },
  {
    name: 'update_link',
    title: 'Update a link',
    description: 'Changes the URL, title, folder, tags or star of one of your links.',
    operation: `mutation ToolUpdateLink($id: UUID!, $url: String, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      updateLink(input: { id: $id, url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK} } }`,
    output: Link,
    annotations: UPDATE,
    result: field('updateLink'),
  },
  {
    name: 'list_transcripts',
    title: 'List meeting transcripts',
    description: 'Your meeting transcripts, most recent meeting first (title, time, duration, participants).',
    operation: `query ToolListTranscripts($first: Int, $after: String) { transcripts(first: $first, after: $after) { edges { node { ${TRANSCRIPT_SUMMARY} } } ${PAGE_INFO} } }`,
    output: connection(TranscriptSummary),
    annotations: READ,
    result: fromConnection('transcripts'),
  },
  {
    name: 'get_transcript',
    title: 'Read a transcript',
    description: 'One meeting transcript with every sentence: speaker, text and timestamps (seconds from the start).',
    operation: `query ToolGetTranscript($id: UUID!) { transcript(id: $id) { ${TRANSCRIPT_SUMMARY} sentences { speaker text startSeconds endSeconds } } }`,
    output: TranscriptSummary.extend({ sentences: z.array(Sentence) }),
    annotations: READ,
    result: field('transcript'),
  },
  {
    name: 'chat',
    title: 'Ask the assistant',
    description: "The assistant's reply to a conversation (the last message from the user). It answers from your workspace (or the configured model).",
    operation: `mutation ToolChat($messages: [ChatMessageInput!]!) { chat(messages: $messages) { message { role content } provider } }`,
    output: z.object({ message: z.object({ role: z.string(), content: z.string() }), provider: z.string() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: field('chat'),
  },
  {
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Your project tasks; filter by status, assignee or label.',
    operation: `query ToolListTasks($status: [TaskStatus!], $assignee: String, $label: String, $first: Int, $after: String) {
      tasks(status: $status, assignee: $assignee, label: $label, first: $first, after: $after) { edges { node { ${TASK} } } ${PAGE_INFO} } }`,
    output: connection(Task),
    annotations: READ,
    result: fromConnection('tasks'),
  },
  {
    name: 'get_task',
    title: 'Read a task',
    description: 'One of your tasks with its comments, oldest first.',
    operation: `query ToolGetTask($id: UUID!) { task(id: $id) { ${TASK} comments { ${COMMENT} } } }`,
    output: Task.extend({ comments: z.array(Comment) }),
    annotations: READ,
    result: field('task'),
  },
  {
    name: 'create_task',
    title: 'Create a task',
    description: 'Creates a project task.',
    operation: `mutation ToolCreateTask($title: String!, $description: String, $status: TaskStatus, $priority: TaskPriority, $assignee: String, $dueDate: Date, $labels: [String!]) {
      createTask(input: { title: $title, description: $description, status: $status, priority: $priority, assignee: $assignee, dueDate: $dueDate, labels: $labels }) { ${TASK} } }`,
    output: Task,
    annotations: CREATE,
    result: field('createTask'),
  },
  {
    name: 'add_task_comment',
    title: 'Comment on a task',
    description: 'Adds a comment to one of your tasks.',
    operation: `mutation ToolAddTaskComment($taskId: UUID!, $body: String!) { addTaskComment(input: { taskId: $taskId, body: $body }) { ${COMMENT} } }`,
    output: Comment,
    annotations: CREATE,
    result: field('addTaskComment'),
  },
  {
    name: 'list_news',
    title: 'List news',
    description: 'News articles, newest first; filter by tag or source.',
    operation: `query ToolListNews($tag: String, $source: String, $first: Int, $after: String) {
      newsArticles(tag: $tag, source: $source, first: $first, after: $after) { edges { node { ${NEWS} } } ${PAGE_INFO} } }`,
    output: connection(News),
    annotations: READ,
    result: fromConnection('newsArticles'),
  },
  {
    name: 'get_news_digest',
    title: 'Weekly news digest',
    description: 'The weekly digest: top articles and counts by tag and source, for an ISO week (e.g. 2026-W47; default the current week).',
    operation: `query ToolNewsDigest($week: String) { newsDigest(week: $week) { week periodStart periodEnd totalArticles topArticles { ${NEWS} } } }`,
    output: z.object({
      week: z.string().nullable(),
      periodStart: timestamp,
      periodEnd: timestamp,
      totalArticles: z.number().int(),
      topArticles: z.array(News),
    }),
    annotations: READ,
    result: field('newsDigest'),
  },
  {
    name: 'get_returns_comparison',
    title: 'Compare custodian and computed returns',
    description:
      'Custodian-reported vs computed daily returns with the difference in basis points and a status (match, review, investigate), for the accounts of your organizations.',
    operation: `query ToolReturnsComparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String) {
      returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after) {
        edges { node { accountCode entityName date custodianReturn computedReturn differenceBps status reason } } ${PAGE_INFO} } }`,
    output: connection(Comparison),
    annotations: READ,
    result: fromConnection('returnComparison'),
  },
  {
    name: 'get_daily_returns',
    title: 'Daily Modified Dietz returns',
    description:
      'Daily Modified Dietz returns of an entity over a date range, with the period return time-weighted (linked) and money-weighted (one Modified Dietz).',
    operation: `query ToolDailyReturns($entityName: String!, $startDate: Date!, $endDate: Date!) {
      dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
        accountCode entityName startDate endDate
        timeWeightedReturn { value method weighting nullReason } modifiedDietzReturn { value method weighting nullReason }
        days { date beginValue endValue netFlow weightedFlow returnValue nullReason } } }`,
    output: z.object({
      accountCode: z.string(),
      entityName: z.string(),
      startDate: date,
      endDate: date,
      timeWeightedReturn: PeriodReturn,
      modifiedDietzReturn: PeriodReturn,
      days: z.array(DailyReturn),
    }),
    annotations: READ,
    result: field('dietzDailyReturns'),
  },
  {
    name: 'list_files',
    title: 'List uploaded files',
    description: 'Files uploaded to one of your organizations, newest first, with their ingest status.',
    operation: `query ToolListFiles($orgId: UUID!, $first: Int, $after: String) {
      files(orgId: $orgId, first: $first, after: $after) { edges { node { id fileName fileType status statusDetail sizeBytes rowCount errorCount createdAt processedAt } } ${PAGE_INFO} } }`,
    output: connection(File),
    annotations: READ,
    result: fromConnection('files'),
  },
  {
    name: 'start_summary_generation',
    title: 'Summarise my workspace',
    description:
      'Runs a multi-agent summary of your recent stickies, links, meetings, tasks and news and returns it when done (markdown with numbered references). ' +
      "Reports each agent's progress as MCP progress notifications when the request has a progressToken.",
    operation: `mutation ToolStartGeneration($days: Int, $sources: [GenerationSource!], $length: SummaryLength) {
      startGeneration(input: { days: $days, sources: $sources, length: $length }) { ${RUN} } }`,
    output: Run,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: field('startGeneration'),
  },
  {
    name: 'get_summary_generation',
    title: 'Read a summary generation',
    description: 'One of your summary generations: its state and, once completed, the summary and its references.',
    operation: `query ToolGetGeneration($id: UUID!) { generationRun(id: $id) { ${RUN} } }`,
    output: Run,
    annotations: READ,
    result: field('generationRun'),
  },
];
