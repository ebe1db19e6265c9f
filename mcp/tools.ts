/**
 * The tools of the JSON-RPC endpoint (/api/service), as data: each runs one named GraphQL
 * operation of the schema with the caller's identity, so permissions, validation and rate
 * limits are the schema's. Inputs are the operation's variables (camelCase, as in GraphQL);
 * outputs are the operation's data, lists as `{ items, nextCursor }`. Both schemas are derived
 * from the operation (tool-catalog.ts): a row states neither.
 */
import { items, page, value, type ResultShape } from './tool-results.ts';

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
  annotations: ToolAnnotations;
  /** How the operation's data becomes the tool's structured result; its outputSchema is the selection shaped the same way. */
  result: ResultShape;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Updates overwrite what they name: destructive in MCP's sense, and repeatable with the same result. */
const UPDATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';
const STICKY = 'id content tags version createdAt updatedAt deletedAt';
const LINK = 'id url title tags starred folderId createdAt updatedAt';
const TRANSCRIPT_SUMMARY = 'id title occurredAt durationSeconds participants sentenceCount';
const TASK = 'id title description status priority assignee dueDate labels createdAt updatedAt completedAt';
const COMMENT = 'id body authorId authorName createdAt';
const NEWS = 'id title url source summary tags publishedAt';
const WEBHOOK_ENDPOINT = 'id url description events enabled disabledReason failingSince organizationId previousSecretExpiresAt createdAt updatedAt';
const WEBHOOK_DELIVERY =
  'id messageId eventType status payload attemptCount nextAttemptAt lastStatusCode createdAt completedAt attempts { number startedAt durationMs statusCode error responseExcerpt }';
/** The comparison with the entity's benchmark (docs/returns-and-csv.md#benchmarks); null when none is assigned. */
const PERIOD_BENCHMARK =
  'benchmark { name returnValue excessReturn geometricExcessReturn annualizedExcessReturn monthCount trackingError trackingErrorNullReason informationRatio informationRatioNullReason nullReason }';
const CALENDAR_BENCHMARK = 'benchmark { name returnValue excessReturn geometricExcessReturn nullReason }';
const RUN = 'id state finished degraded failedAgents summary summaryProvider references { kind id title } error lastSequence createdAt finishedAt';

export const TOOLS: ToolDefinition[] = [
  {
    name: 'list_stickies',
    title: 'List stickies',
    description: 'Your sticky notes, most recently changed first. Filter by tags (a sticky must carry every tag); page with first/after.',
    operation: `query ToolListStickies($tags: [String!], $first: Int, $after: String) {
      stickies(tags: $tags, first: $first, after: $after) { edges { node { ${STICKY} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('stickies'),
  },
  {
    name: 'search_stickies',
    title: 'Search stickies',
    description: 'Your stickies whose content contains the text (any case) or that carry it as a tag, most recently changed first.',
    operation: `query ToolSearchStickies($search: String!, $first: Int, $after: String) {
      stickies(search: $search, first: $first, after: $after) { edges { node { ${STICKY} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('stickies'),
  },
  {
    name: 'create_sticky',
    title: 'Create a sticky',
    description: 'Creates a sticky note (1 to 10,000 characters) with optional tags.',
    operation: `mutation ToolCreateSticky($content: String!, $tags: [String!]) { createSticky(input: { content: $content, tags: $tags }) { ${STICKY} } }`,
    annotations: CREATE,
    result: value('createSticky'),
  },
  {
    name: 'update_sticky',
    title: 'Update a sticky',
    description: 'Changes the content and/or tags of one of your stickies (a new version; its history is kept).',
    operation: `mutation ToolUpdateSticky($id: UUID!, $content: String, $tags: [String!]) { updateSticky(input: { id: $id, content: $content, tags: $tags }) { ${STICKY} } }`,
    annotations: UPDATE,
    result: value('updateSticky'),
  },
  {
    name: 'list_links',
    title: 'List links',
    description: 'Your saved links, newest first; filter by folder or starred.',
    operation: `query ToolListLinks($folderId: UUID, $starred: Boolean, $first: Int, $after: String) {
      links(folderId: $folderId, starred: $starred, first: $first, after: $after) { edges { node { ${LINK} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('links'),
  },
  {
    name: 'search_links',
    title: 'Search links',
    description: 'Your links whose URL or title contains the text (any case) or that carry it as a tag, newest first.',
    operation: `query ToolSearchLinks($search: String!, $first: Int, $after: String) {
      links(search: $search, first: $first, after: $after) { edges { node { ${LINK} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('links'),
  },
  {
    name: 'create_link',
    title: 'Save a link',
    description: 'Saves an http(s) link with an optional title, folder, tags and star.',
    operation: `mutation ToolCreateLink($url: String!, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      createLink(input: { url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK} } }`,
    annotations: CREATE,
    result: value('createLink'),
  },
  {
    name: 'update_link',
    title: 'Update a link',
    description: 'Changes the URL, title, folder, tags or star of one of your links.',
    operation: `mutation ToolUpdateLink($id: UUID!, $url: String, $title: String, $folderId: UUID, $tags: [String!], $starred: Boolean) {
      updateLink(input: { id: $id, url: $url, title: $title, folderId: $folderId, tags: $tags, starred: $starred }) { ${LINK} } }`,
    annotations: UPDATE,
    result: value('updateLink'),
  },
  {
    name: 'list_transcripts',
    title: 'List meeting transcripts',
    description: 'Your meeting transcripts, most recent meeting first (title, time, duration, participants).',
    operation: `query ToolListTranscripts($first: Int, $after: String) { transcripts(first: $first, after: $after) { edges { node { ${TRANSCRIPT_SUMMARY} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('transcripts'),
  },
  {
    name: 'get_transcript',
    title: 'Read a transcript',
    description: 'One meeting transcript with every sentence: speaker, text and timestamps (seconds from the start).',
    operation: `query ToolGetTranscript($id: UUID!) { transcript(id: $id) { ${TRANSCRIPT_SUMMARY} sentences { speaker text startSeconds endSeconds } } }`,
    annotations: READ,
    result: value('transcript'),
  },
  {
    name: 'chat',
    title: 'Ask the assistant',
    description: "The assistant's reply to a conversation (the last message from the user). It answers from your workspace (or the configured model).",
    operation: `mutation ToolChat($messages: [ChatMessageInput!]!) { chat(messages: $messages) { message { role content } provider } }`,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: value('chat'),
  },
  {
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Your project tasks; filter by status, assignee or label.',
    operation: `query ToolListTasks($status: [TaskStatus!], $assignee: String, $label: String, $first: Int, $after: String) {
      tasks(status: $status, assignee: $assignee, label: $label, first: $first, after: $after) { edges { node { ${TASK} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('tasks'),
  },
  {
    name: 'get_task',
    title: 'Read a task',
    description: 'One of your tasks with its comments, oldest first.',
    operation: `query ToolGetTask($id: UUID!) { task(id: $id) { ${TASK} comments { ${COMMENT} } } }`,
    annotations: READ,
    result: value('task'),
  },
  {
    name: 'create_task',
    title: 'Create a task',
    description: 'Creates a project task.',
    operation: `mutation ToolCreateTask($title: String!, $description: String, $status: TaskStatus, $priority: TaskPriority, $assignee: String, $dueDate: Date, $labels: [String!]) {
      createTask(input: { title: $title, description: $description, status: $status, priority: $priority, assignee: $assignee, dueDate: $dueDate, labels: $labels }) { ${TASK} } }`,
    annotations: CREATE,
    result: value('createTask'),
  },
  {
    name: 'add_task_comment',
    title: 'Comment on a task',
    description: 'Adds a comment to one of your tasks.',
    operation: `mutation ToolAddTaskComment($taskId: UUID!, $body: String!) { addTaskComment(input: { taskId: $taskId, body: $body }) { ${COMMENT} } }`,
    annotations: CREATE,
    result: value('addTaskComment'),
  },
  {
    name: 'list_news',
    title: 'List news',
    description: 'News articles, newest first; filter by tag or source.',
    operation: `query ToolListNews($tag: String, $source: String, $first: Int, $after: String) {
      newsArticles(tag: $tag, source: $source, first: $first, after: $after) { edges { node { ${NEWS} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('newsArticles'),
  },
  {
    name: 'get_news_digest',
    title: 'Weekly news digest',
    description: 'The weekly digest: top articles and counts by tag and source, for an ISO week (e.g. 2026-W47; default the current week).',
    operation: `query ToolNewsDigest($week: String) { newsDigest(week: $week) { week periodStart periodEnd totalArticles topArticles { ${NEWS} } } }`,
    annotations: READ,
    result: value('newsDigest'),
  },
  {
    name: 'get_returns_comparison',
    title: 'Compare custodian and computed returns',
    description:
      'Custodian-reported vs computed daily returns with the difference in basis points and a status (match, review, investigate), for the accounts of your organizations.',
    operation: `query ToolReturnsComparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String, $currency: String) {
      returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after, currency: $currency) {
        edges { node { accountCode entityName date currency localCurrency custodianReturn computedReturn differenceBps status reason } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('returnComparison'),
  },
  {
    name: 'get_daily_returns',
    title: 'Daily Modified Dietz returns',
    description:
      'Daily Modified Dietz returns of an entity over a date range (net of fees, with the fees and the gross-of-fee return of each day), with the period return time-weighted (linked) and money-weighted (one Modified Dietz).',
    operation: `query ToolDailyReturns($entityName: String!, $startDate: Date!, $endDate: Date!, $currency: String) {
      dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate, currency: $currency) {
        accountCode entityName currency localCurrency startDate endDate
        timeWeightedReturn { value method weighting nullReason } modifiedDietzReturn { value method weighting nullReason }
        days { date beginValue endValue netFlow weightedFlow returnValue nullReason localReturnValue currencyEffect fees grossReturnValue } } }`,
    annotations: READ,
    result: value('dietzDailyReturns'),
  },
  {
    name: 'get_period_returns',
    title: 'Returns over standard periods',
    description:
      'Time-weighted returns of an entity over MTD, QTD, YTD, 1M, 3M, 6M, 1Y, 3Y, 5Y, 10Y and since inception as of a date (default: the latest valuation), annualised only for a year or longer; complete is false when the history does not cover a period. Net of fees, with the gross-of-fee return beside. With a benchmark assigned (set_entity_benchmark), each period carries the benchmark return, the excess, and from a year on the tracking error and information ratio.',
    operation: `query ToolPeriodReturns($entityName: String!, $asOf: Date, $currency: String) {
      returnPeriods(entityName: $entityName, asOf: $asOf, currency: $currency) {
        entityName accountCode currency localCurrency asOf inceptionDate benchmark
        periods { ${PERIOD_BENCHMARK} period startValuationDate endValuationDate days complete returnValue nullReason annualizedReturn annualizedNullReason localReturnValue currencyEffect grossReturnValue grossAnnualizedReturn } } }`,
    annotations: READ,
    result: value('returnPeriods'),
  },
  {
    name: 'get_calendar_returns',
    title: 'Monthly and yearly returns',
    description:
      'The time-weighted return of every month and every year of an entity, from its first valuation to its latest, and the current year to date; net of fees, with the gross-of-fee return beside, and the benchmark return and the excess when one is assigned.',
    operation: `query ToolCalendarReturns($entityName: String!, $currency: String) {
      calendarReturns(entityName: $entityName, currency: $currency) {
        entityName accountCode currency localCurrency inceptionDate asOf benchmark
        months { ${CALENDAR_BENCHMARK} period returnValue nullReason partial localReturnValue currencyEffect grossReturnValue } years { ${CALENDAR_BENCHMARK} period returnValue nullReason partial localReturnValue currencyEffect grossReturnValue } } }`,
    annotations: READ,
    result: value('calendarReturns'),
  },
  {
    name: 'get_money_weighted_return',
    title: 'Money-weighted return (IRR)',
    description:
      'The internal rate of return (XIRR convention, an annual rate) of an entity between two dates from its values and external flows, and the return over the period; null with a reason when no rate or more than one exists.',
    operation: `query ToolMoneyWeightedReturn($entityName: String!, $startDate: Date!, $endDate: Date!, $currency: String) {
      moneyWeightedReturn(entityName: $entityName, startDate: $startDate, endDate: $endDate, currency: $currency) {
        entityName accountCode currency localCurrency startDate endDate days beginValue endValue netFlow flowCount periodReturn nullReason annualizedReturn annualizedNullReason localPeriodReturn currencyEffect } }`,
    annotations: READ,
    result: value('moneyWeightedReturn'),
  },
  {
    name: 'list_return_currencies',
    title: 'Currencies to report returns in',
    description:
      "The currencies an entity's returns can be reported in (the currency argument of the returns tools): its own, and those one uploaded exchange-rate pair away from it.",
    operation: `query ToolReturnCurrencies($entityName: String!) {
      exchangeRateCurrencies(entityName: $entityName) { entityName accountCode localCurrency currencies } }`,
    annotations: READ,
    result: value('exchangeRateCurrencies'),
  },
  {
    name: 'get_benchmark_levels',
    title: 'Benchmark levels of an entity',
    description:
      "The levels of the benchmark assigned to an entity from the latest level on or before startDate up to endDate, each with the benchmark's cumulative return since that level; benchmark is null (no points) when none is assigned.",
    operation: `query ToolBenchmarkLevels($entityName: String!, $startDate: Date!, $endDate: Date!) {
      benchmarkLevels(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
        entityName accountCode benchmark nullReason startDate endDate baseDate baseLevel points { date level cumulativeReturn } } }`,
    annotations: READ,
    result: value('benchmarkLevels'),
  },
  {
    name: 'set_entity_benchmark',
    title: "Set an entity's benchmark",
    description:
      'Gives an entity a benchmark: the name of a series uploaded to its organization (file_type=benchmark; list_benchmarks lists them), or null to remove it. get_period_returns and get_calendar_returns then compare with it (benchmark return, excess, and from a year on tracking error and information ratio).',
    operation: `mutation ToolSetEntityBenchmark($entityName: String!, $benchmark: String) {
      setEntityBenchmark(entityName: $entityName, benchmark: $benchmark) { id organizationId entityName accountCode benchmark } }`,
    annotations: UPDATE,
    result: value('setEntityBenchmark'),
  },
  {
    name: 'list_benchmarks',
    title: 'List benchmark series',
    description: 'The benchmark series uploaded to your organizations (or one of them): name, first and last level date, level count.',
    operation: `query ToolListBenchmarks($organizationId: UUID) {
      benchmarkSeries(organizationId: $organizationId) { organizationId name firstDate lastDate levelCount } }`,
    annotations: READ,
    result: items('benchmarkSeries'),
  },
  {
    name: 'list_files',
    title: 'List uploaded files',
    description: 'Files uploaded to one of your organizations, newest first, with their ingest status.',
    operation: `query ToolListFiles($orgId: UUID!, $first: Int, $after: String) {
      files(orgId: $orgId, first: $first, after: $after) { edges { node { id fileName fileType status statusDetail sizeBytes rowCount errorCount createdAt processedAt } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('files'),
  },
  {
    name: 'start_summary_generation',
    title: 'Summarise my workspace',
    description:
      'Runs a multi-agent summary of your recent stickies, links, meetings, tasks and news and returns it when done (markdown with numbered references). ' +
      "Reports each agent's progress as MCP progress notifications when the request has a progressToken.",
    operation: `mutation ToolStartGeneration($days: Int, $sources: [GenerationSource!], $length: SummaryLength) {
      startGeneration(input: { days: $days, sources: $sources, length: $length }) { ${RUN} } }`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: value('startGeneration'),
  },
  {
    name: 'get_summary_generation',
    title: 'Read a summary generation',
    description: 'One of your summary generations: its state and, once completed, the summary and its references.',
    operation: `query ToolGetGeneration($id: UUID!) { generationRun(id: $id) { ${RUN} } }`,
    annotations: READ,
    result: value('generationRun'),
  },
  {
    name: 'list_webhook_endpoints',
    title: 'List webhook endpoints',
    description: "The webhook endpoints you manage (your own, and your organizations' as their admin), newest first; page with first/after.",
    operation: `query ToolListWebhookEndpoints($first: Int, $after: String) {
      webhookEndpoints(first: $first, after: $after) { edges { node { ${WEBHOOK_ENDPOINT} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('webhookEndpoints'),
  },
  {
    name: 'create_webhook_endpoint',
    title: 'Create a webhook endpoint',
    description:
      "Registers a URL that receives signed webhook events (Standard Webhooks). Give organizationId for an organization's endpoint (file.processed, file.failed, reconciliation.investigate), " +
      'leave it out for your own (generation.completed, generation.failed). Returns the signing secret once.',
    operation: `mutation ToolCreateWebhookEndpoint($url: String!, $events: [String!]!, $description: String, $organizationId: UUID) {
      createWebhookEndpoint(input: { url: $url, events: $events, description: $description, organizationId: $organizationId }) { endpoint { ${WEBHOOK_ENDPOINT} } secret } }`,
    annotations: CREATE,
    result: value('createWebhookEndpoint'),
  },
  {
    name: 'update_webhook_endpoint',
    title: 'Update a webhook endpoint',
    description: "Changes a webhook endpoint's url, events, description or enabled (what is left out stays).",
    operation: `mutation ToolUpdateWebhookEndpoint($id: UUID!, $url: String, $events: [String!], $description: String, $enabled: Boolean) {
      updateWebhookEndpoint(id: $id, input: { url: $url, events: $events, description: $description, enabled: $enabled }) { ${WEBHOOK_ENDPOINT} } }`,
    annotations: UPDATE,
    result: value('updateWebhookEndpoint'),
  },
  {
    name: 'delete_webhook_endpoint',
    title: 'Delete a webhook endpoint',
    description: 'Deletes a webhook endpoint and its deliveries for good; returns it as it was.',
    operation: `mutation ToolDeleteWebhookEndpoint($id: UUID!) { deleteWebhookEndpoint(id: $id) { ${WEBHOOK_ENDPOINT} } }`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    result: value('deleteWebhookEndpoint'),
  },
  {
    name: 'rotate_webhook_secret',
    title: 'Rotate a webhook secret',
    description: 'Gives a webhook endpoint a new signing secret (returned once); the previous one keeps signing beside it for 24 hours.',
    operation: `mutation ToolRotateWebhookSecret($id: UUID!) { rotateWebhookSecret(id: $id) { endpoint { ${WEBHOOK_ENDPOINT} } secret } }`,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    result: value('rotateWebhookSecret'),
  },
  {
    name: 'send_test_webhook',
    title: 'Send a test webhook',
    description: 'Sends a webhook.test event to a webhook endpoint; returns the delivery (follow it with list_webhook_deliveries).',
    operation: `mutation ToolSendTestWebhook($id: UUID!) { sendTestWebhook(id: $id) { ${WEBHOOK_DELIVERY} } }`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: value('sendTestWebhook'),
  },
  {
    name: 'list_webhook_deliveries',
    title: 'List webhook deliveries',
    description: "A webhook endpoint's deliveries, newest first, each with its attempts (status code, duration, response excerpt) and next attempt.",
    operation: `query ToolListWebhookDeliveries($endpointId: UUID!, $first: Int, $after: String) {
      webhookDeliveries(endpointId: $endpointId, first: $first, after: $after) { edges { node { ${WEBHOOK_DELIVERY} } } ${PAGE_INFO} } }`,
    annotations: READ,
    result: page('webhookDeliveries'),
  },
  {
    name: 'redeliver_webhook',
    title: 'Redeliver a webhook',
    description: "Sends one of a webhook endpoint's deliveries again, with the same webhook-id and payload; returns the new delivery.",
    operation: `mutation ToolRedeliverWebhook($endpointId: UUID!, $deliveryId: UUID!) { redeliverWebhook(endpointId: $endpointId, deliveryId: $deliveryId) { ${WEBHOOK_DELIVERY} } }`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    result: value('redeliverWebhook'),
  },
];
