/**
 * The Prometheus implementation of Metrics (prom-client): one Registry per service instance (never
 * prom-client's global registry: tests run several services in one process), with Node's default
 * process metrics registered on it, and gauges read at scrape time (job queues, database pool).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  STREAM_TRANSPORTS,
  type CachedReadOutcome,
  type GenerationEventReport,
  type HttpRequestLabels,
  type IngestReport,
  type Metrics,
  type MetricsExposition,
  type OperationLabels,
  type StreamTransport,
} from './metrics.ts';

/** One line of the job table's summary: jobs of a queue in a state, and the oldest one's age. */
export interface JobQueueStat {
  queue: string;
  state: string;
  count: number;
  /** Seconds since the oldest job in this state was enqueued. */
  oldestAgeSeconds: number;
}

/** The pg.Pool counters (read at scrape time). */
export interface PoolCounters {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export interface PrometheusMetricsOptions {
  /** Summary of the job table, queried at scrape time; a failure leaves the job gauges out of that scrape. */
  jobStats?: () => Promise<JobQueueStat[]>;
  pool?: PoolCounters;
  /** The pool's maximum size (pg.Pool options.max). */
  poolMax?: number;
  /** Node's process metrics (default true). */
  processMetrics?: boolean;
  /** Distinct operation names kept as labels; later ones are counted as `other` (default 200). */
  maxOperationNames?: number;
}

export interface PrometheusMetrics extends Metrics {
  readonly registry: Registry;
}

const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Job states whose oldest age is reported (completed and failed jobs only wait for retention). */
const AGED_STATES = new Set(['queued', 'running']);

export function createPrometheusMetrics(options: PrometheusMetricsOptions = {}): PrometheusMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by route template (`unmatched`: no route), method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from the request to its response finishing (or the client hanging up), by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const operations = new Counter({
    name: 'gateway_graphql_operations_total',
    help: "GraphQL operations run through the pipeline, by operation name, type, front (graphql, rest, mcp), outcome (ok, error) and error code (the first error's extensions.code; empty when ok).",
    labelNames: ['operation', 'type', 'front', 'outcome', 'code'] as const,
    registers,
  });
  const operationDuration = new Histogram({
    name: 'gateway_graphql_operation_duration_seconds',
    help: 'Execution time of GraphQL operations (a subscription: until its stream is set up), by operation name, type, front and outcome.',
    labelNames: ['operation', 'type', 'front', 'outcome'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const refusals = new Counter({
    name: 'gateway_rate_limit_refusals_total',
    help: 'Charges a rate budget refused (each answered 429 / RATE_LIMITED), by budget.',
    labelNames: ['budget'] as const,
    registers,
  });
  const cachedReads = new Counter({
    name: 'gateway_cached_reads_total',
    help: "Cached reads answered, by outcome: hit (from this instance's cache), miss (run), not_modified (304 before running).",
    labelNames: ['outcome'] as const,
    registers,
  });
  const subscriptionResults = new Counter({
    name: 'gateway_subscription_results_total',
    help: "Results of subscription events handed to followers: executed (the selection ran for a group of followers) or shared (a follower got its group's result).",
    labelNames: ['outcome'] as const,
    registers,
  });
  const ingestFiles = new Counter({
    name: 'gateway_ingest_files_total',
    help: 'Uploaded files ingested, by final status (processed, failed, skipped).',
    labelNames: ['status'] as const,
    registers,
  });
  const ingestRows = new Counter({
    name: 'gateway_ingest_rows_total',
    help: "Data rows read from ingested files (valid and invalid), by the file's final status.",
    labelNames: ['status'] as const,
    registers,
  });
  const ingestDuration = new Histogram({
    name: 'gateway_ingest_duration_seconds',
    help: 'Ingest time per file, by phase (load, recompute, total).',
    labelNames: ['phase'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const generationRuns = new Counter({
    name: 'gateway_generation_runs_total',
    help: 'Generation runs ended (by this instance), by final state (completed, failed, cancelled).',
    labelNames: ['state'] as const,
    registers,
  });
  const generationRunDuration = new Histogram({
    name: 'gateway_generation_run_duration_seconds',
    help: 'Duration of generation runs that ran here, from start to final event, by final state.',
    labelNames: ['state'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const agentDuration = new Histogram({
    name: 'gateway_generation_agent_duration_seconds',
    help: 'Duration of generation agents, from `started` to `complete` or `failed`, by agent and final status.',
    labelNames: ['agent', 'status'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const openStreams = new Gauge({
    name: 'gateway_open_streams',
    help: 'Open event streams by transport: rest-sse (GET /api/generate), graphql-sse, graphql-multipart, graphql-ws (WebSocket connections).',
    labelNames: ['transport'] as const,
    registers,
  });
  for (const transport of STREAM_TRANSPORTS) openStreams.set({ transport }, 0);
  const fanOut = new Histogram({
    name: 'gateway_stream_fanout_delay_seconds',
    help: "Time from a generation event being stored to its hand-off to this instance's stream followers (live events only).",
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers,
  });

  if (options.jobStats) {
    const jobStats = options.jobStats;
    // One query per scrape, shared by both gauges (prom-client collects each metric on its own).
    let pending: Promise<JobQueueStat[] | null> | null = null;
    const read = () => {
      pending ??= jobStats()
        .catch(() => null)
        .finally(() => setImmediate(() => (pending = null)));
      return pending;
    };
    const known = new Set<string>();
    const depth: Gauge<'queue' | 'state'> = new Gauge({
      name: 'gateway_job_queue_depth',
      help: 'Jobs in the job table, by queue and state (read at scrape time).',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        const stats = await read();
        depth.reset();
        if (!stats) return;
        for (const stat of stats) known.add(stat.queue);
        // A queue that emptied still reports 0 (not a missing series).
        for (const queue of known) for (const state of ['queued', 'running', 'completed', 'failed']) depth.set({ queue, state }, 0);
        for (const stat of stats) depth.set({ queue: stat.queue, state: stat.state }, stat.count);
      },
    });
    const age: Gauge<'queue' | 'state'> = new Gauge({
      name: 'gateway_job_queue_oldest_age_seconds',
      help: 'Age (since enqueued) of the oldest job per queue, for the states queued and running (read at scrape time; 0 when none).',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        const stats = await read();
        age.reset();
        if (!stats) return;
        for (const stat of stats) known.add(stat.queue);
        for (const queue of known) for (const state of AGED_STATES) age.set({ queue, state }, 0);
        for (const stat of stats) if (AGED_STATES.has(stat.state)) age.set({ queue: stat.queue, state: stat.state }, stat.oldestAgeSeconds);
      },
    });
  }

  if (options.pool) {
    const pool = options.pool;
    const connections = new Gauge({
      name: 'gateway_db_pool_connections',
      help: 'Connections of the database pool by state: busy (checked out) or idle (read at scrape time).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        connections.set({ state: 'busy' }, Math.max(0, pool.totalCount - pool.idleCount));
        connections.set({ state: 'idle' }, pool.idleCount);
      },
    });
    const waiting = new Gauge({
      name: 'gateway_db_pool_waiting_requests',
      help: 'Requests waiting for a database pool connection (read at scrape time).',
      registers,
      collect() {
        waiting.set(pool.waitingCount);
      },
    });
    if (options.poolMax !== undefined)
      new Gauge({ name: 'gateway_db_pool_max_connections', help: 'Size limit of the database pool.', registers }).set(options.poolMax);
  }

  const maxNames = options.maxOperationNames ?? 200;
  const names = new Set<string>();
  const operationName = (name: string): string => {
    if (name === 'anonymous') return name;
    if (!OPERATION_NAME.test(name)) return 'other';
    if (names.has(name)) return name;
    if (names.size >= maxNames) return 'other';
    names.add(name);
    return name;
  };

  const agentStarts = new Map<string, number>();
  const httpSeries = labelledSeries((labels: { route: string; method: string; status: string }) => ({
    count: httpRequests.labels(labels),
    duration: httpDuration.labels(labels),
  }));
  const operationSeries = labelledSeries((labels: { operation: string; type: string; front: string; outcome: string; code: string }) => ({
    count: operations.labels(labels),
    duration: operationDuration.labels({ operation: labels.operation, type: labels.type, front: labels.front, outcome: labels.outcome }),
  }));

  return {
    enabled: true,
    registry,
    httpRequest({ route, method, status }: HttpRequestLabels, seconds: number) {
      const series = httpSeries(`${route} ${method} ${status}`, { route, method, status: String(status) });
      series.count.inc();
      series.duration.observe(seconds);
    },
    operation(labels: OperationLabels, seconds: number) {
      const outcome = labels.errorCode === undefined ? 'ok' : 'error';
      const code = labels.errorCode === undefined ? '' : ERROR_CODE.test(labels.errorCode) ? labels.errorCode : 'UNKNOWN';
      const operation = operationName(labels.name);
      const series = operationSeries(`${operation} ${labels.type} ${labels.front} ${outcome} ${code}`, {
        operation,
        type: labels.type,
        front: labels.front,
        outcome,
        code,
      });
      series.count.inc();
      series.duration.observe(seconds);
    },
    rateLimitRefused(budget: string) {
      refusals.inc({ budget });
    },
    cachedRead(outcome: CachedReadOutcome) {
      cachedReads.inc({ outcome });
    },
    subscriptionExecution(shared: boolean) {
      subscriptionResults.inc({ outcome: shared ? 'shared' : 'executed' });
    },
    ingested(report: IngestReport) {
      ingestFiles.inc({ status: report.status });
      ingestRows.inc({ status: report.status }, report.rowCount);
      ingestDuration.observe({ phase: 'load' }, report.timings.loadMs / 1000);
      ingestDuration.observe({ phase: 'recompute' }, report.timings.recomputeMs / 1000);
      ingestDuration.observe({ phase: 'total' }, report.timings.totalMs / 1000);
    },
    generationEvent(event: GenerationEventReport) {
      if (event.agent === 'run') {
        if (event.status !== 'complete' && event.status !== 'failed') return;
        const state = typeof event.data.state === 'string' ? event.data.state : event.status === 'complete' ? 'completed' : 'failed';
        generationRuns.inc({ state });
        if (typeof event.data.duration_ms === 'number') generationRunDuration.observe({ state }, event.data.duration_ms / 1000);
        for (const key of agentStarts.keys()) if (key.startsWith(`${event.runId}\u0000`)) agentStarts.delete(key);
        return;
      }
      const key = `${event.runId}\u0000${event.agent}`;
      if (event.status === 'started') agentStarts.set(key, event.createdAt.getTime());
      else if (event.status === 'complete' || event.status === 'failed') {
        const started = agentStarts.get(key);
        agentStarts.delete(key);
        if (started !== undefined) agentDuration.observe({ agent: event.agent, status: event.status }, Math.max(0, event.createdAt.getTime() - started) / 1000);
      }
    },
    fanOutDelay(seconds: number) {
      fanOut.observe(Math.max(0, seconds));
    },
    streamOpened(transport: StreamTransport) {
      openStreams.inc({ transport });
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        openStreams.dec({ transport });
      };
    },
    async expose(): Promise<MetricsExposition> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Most series a per-request metric keeps ready (their labels are bounded: route templates, methods, statuses, operation names). */
const MAX_READY_SERIES = 2_000;

/**
 * The labelled children of a per-request metric, found by a string key instead of prom-client
 * hashing the label object on every request. Past MAX_READY_SERIES a child is looked up as usual.
 */
function labelledSeries<Labels, Series>(make: (labels: Labels) => Series): (key: string, labels: Labels) => Series {
  const ready = new Map<string, Series>();
  return (key, labels) => {
    let series = ready.get(key);
    if (!series) {
      series = make(labels);
      if (ready.size < MAX_READY_SERIES) ready.set(key, series);
    }
    return series;
  };
}
