import { array, bare, list, single, type RestRoute } from '../route.ts';

// Without `detailed` the body is exactly the spec's `{"status": "healthy"}`.
const HEALTH_FIELDS = `status
  ... @include(if: $detailed) {
    version uptimeSeconds checkedAt
    checks {
      database { status kind latencyMs error }
      storage { status path freeBytes error }
      jobQueue { status queued running completed failed }
    }
  }`;

const healthRoute = (path: string): RestRoute => ({
  method: 'GET',
  path,
  summary: 'Liveness; `?detailed=true` adds database, storage and job queue (503 when a dependency is down).',
  operation: `query Health($detailed: Boolean! = false) { health(detailed: $detailed) { ${HEALTH_FIELDS} } }`,
  respond: bare('health', { statuses: [200, 503], of: (health) => (health.status === 'healthy' ? 200 : 503) }),
  unavailable: { status: 503, body: { status: 'unhealthy', checks: { database: { status: 'down', error: 'unavailable' } } } },
});

const SCHEDULER_FIELDS = `state enabled cron nextRunAt secondsUntilNextRun lastRun { ...Run }`;
const RUN_FRAGMENT = `fragment Run on SelfTestRun { id trigger status startedAt finishedAt durationMs checks { name passed durationMs detail } }`;
const FILE_FIELDS = `id orgId uploaderId fileName fileType sizeBytes sha256 status statusDetail rowCount errorCount warningCount createdAt updatedAt processedAt`;

/** The data service (docs/spec/data-service.md): every path exactly as documented. */
export const dataServiceRoutes: RestRoute[] = [
  healthRoute('/health'),
  // The spec names /api/health (its rate-limit table, a key's example) without saying how it
  // relates to /health: an alias with the same answers. A path the spec names is never deprecated.
  healthRoute('/api/health'),
  {
    method: 'GET',
    path: '/status',
    summary: 'Worker, scheduler and job queue state.',
    operation: `query Status { serviceStatus {
      worker { state currentJobId processed failed lastPollAt }
      scheduler { ${SCHEDULER_FIELDS} }
      queue { queued running completed failed }
    } } ${RUN_FRAGMENT}`,
    respond: single('serviceStatus'),
  },
  {
    method: 'GET',
    path: '/api/returns/comparison',
    summary:
      'Custodian vs computed daily returns, newest first; `currency` (ISO 4217) reports both returns in another currency, each over its own day (status and reason stay the reconciliation’s in the entity’s currency).',
    params: { limit: 'first', cursor: 'after' },
    operation: `query Comparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String, $currency: String) {
      returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after, currency: $currency) {
        edges { node { accountCode entityName date currency localCurrency custodianReturn computedReturn localCustodianReturn localComputedReturn differenceBps status reason matchThresholdBps reviewThresholdBps } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('returnComparison'),
  },
  {
    method: 'GET',
    path: '/api/returns/dietz-daily',
    summary:
      'Daily Modified Dietz returns of an entity over a date range, with linked (time-weighted) and single-period (money-weighted) returns; `currency` (ISO 4217) reports them in another currency at the uploaded rates.',
    operation: `query DietzDaily($entityName: String!, $startDate: Date!, $endDate: Date!, $currency: String) {
      dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate, currency: $currency) {
        entityName accountCode currency localCurrency startDate endDate annualized
        timeWeightedReturn { value nullReason method weighting }
        modifiedDietzReturn { value nullReason method weighting }
        days { date startDate beginValue endValue netFlow weightedFlow returnValue nullReason cumulativeReturn localReturnValue currencyEffect fees grossReturnValue }
      } }`,
    respond: single('dietzDailyReturns'),
  },
  {
    method: 'GET',
    path: '/api/returns/cash-transactions',
    summary: 'Cash flows of an entity, newest first; `currency` (ISO 4217) converts each at the rate of its date.',
    params: { limit: 'first', cursor: 'after' },
    operation: `query CashTransactions($entityName: String!, $first: Int, $after: String, $currency: String) {
      cashTransactions(entityName: $entityName, first: $first, after: $after, currency: $currency) {
        edges { node { id entityName accountCode date amount currency localAmount timing description flowType } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('cashTransactions'),
  },
  {
    method: 'POST',
    path: '/api/storage/upload',
    summary: 'Upload a pnl, performance, fx or benchmark CSV (multipart: file, org_id, file_type); queued for ingest.',
    requires: 'write:upload',
    body: 'multipart',
    status: 201,
    operation: `mutation Upload($file: Upload!, $orgId: UUID!, $fileType: FileType) {
      uploadFile(file: $file, orgId: $orgId, fileType: $fileType) { ${FILE_FIELDS} } }`,
    respond: single('uploadFile'),
  },
  {
    method: 'GET',
    path: '/api/storage/files',
    summary: "An organization's uploaded files, newest first.",
    params: { limit: 'first', cursor: 'after' },
    operation: `query Files($orgId: UUID!, $status: FileStatus, $first: Int, $after: String) {
      files(orgId: $orgId, status: $status, first: $first, after: $after) {
        edges { node { ${FILE_FIELDS} rowErrors(first: 20) { line column message } rowWarnings(first: 20) { line column message } } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('files'),
  },
  {
    method: 'GET',
    path: '/api/benchmark',
    summary: 'Times a representative returns query and rates it fast/good/slow/critical.',
    operation: `query Benchmark { benchmark { query description executionTimeMs rating rowCount thresholds { fastMs goodMs slowMs } measuredAt } }`,
    respond: single('benchmark'),
  },
  {
    method: 'GET',
    path: '/test-scheduler',
    summary: 'Self-test scheduler state, last run and countdown to the next run.',
    operation: `query Scheduler { selfTestScheduler { ${SCHEDULER_FIELDS} } } ${RUN_FRAGMENT}`,
    respond: single('selfTestScheduler'),
  },
  {
    method: 'GET',
    path: '/test-scheduler/history',
    summary: 'Recent self-test runs, newest first (limit default 20, max 100).',
    operation: `query History($limit: Int = 20) { selfTestHistory(limit: $limit) { ...Run } } ${RUN_FRAGMENT}`,
    respond: array('selfTestHistory'),
  },
  {
    method: 'POST',
    path: '/test-scheduler/trigger',
    summary: 'Start the self-test suite now: 202 with the run; 409 while one is in progress.',
    status: 202,
    body: 'json',
    operation: `mutation Trigger { triggerSelfTest { ...Run } } ${RUN_FRAGMENT}`,
    respond: single('triggerSelfTest'),
  },
];
