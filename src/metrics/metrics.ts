/**
 * What the service measures, as a small recorder interface: domain code and the fronts report
 * through it (hooks, decorators, one pipeline plugin) and never import prom-client. The
 * Prometheus implementation is prometheus-metrics.ts; `noopMetrics` is for tests and scripts that
 * build services without metrics (and METRICS_ENABLED=false).
 */

/** How an open event stream reaches its client (gateway_open_streams{transport}). */
export const STREAM_TRANSPORTS = ['rest-sse', 'graphql-sse', 'graphql-multipart', 'graphql-ws'] as const;
export type StreamTransport = (typeof STREAM_TRANSPORTS)[number];

export interface HttpRequestLabels {
  /** The route template (`/api/stickies/:id`), never the raw path; `unmatched` when no route took it. */
  route: string;
  method: string;
  status: number;
}

export interface OperationLabels {
  /** The operation's name, or `anonymous`. */
  name: string;
  /** query, mutation or subscription. */
  type: string;
  /** The front that ran it: graphql, rest or mcp. */
  front: string;
  /** The first error's `extensions.code`; undefined when the operation succeeded. */
  errorCode?: string;
}

/** What an ingest reports (src/ingest/ingest-service.ts IngestResult). */
export interface IngestReport {
  status: string;
  rowCount: number;
  timings: { loadMs: number; recomputeMs: number; totalMs: number };
}

/** A generation event as the progress hub publishes it (src/generation/run-store.ts). */
export interface GenerationEventReport {
  runId: string;
  agent: string;
  status: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The page a scrape gets. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

export type CachedReadOutcome = 'hit' | 'miss' | 'not_modified';

export interface Metrics {
  readonly enabled: boolean;
  /** An HTTP response was sent (or the client hung up): one count and one latency observation. */
  httpRequest(labels: HttpRequestLabels, seconds: number): void;
  /** A GraphQL operation ran through the pipeline, whatever its front. */
  operation(labels: OperationLabels, seconds: number): void;
  /** A rate budget refused a charge. */
  rateLimitRefused(budget: string): void;
  /** A cached read was answered: from this instance's cache, by running it, or with 304 (docs/caching.md). */
  cachedRead(outcome: CachedReadOutcome): void;
  /** A subscription event was executed for a group of followers (shared: false), or a follower got the group's result (shared: true). */
  subscriptionExecution(shared: boolean): void;
  /** A file was ingested (or refused). */
  ingested(report: IngestReport): void;
  /** A generation event was published: run endings and agent durations are read from them. */
  generationEvent(event: GenerationEventReport): void;
  /** A live event reached this instance's stream followers, `seconds` after it was stored. */
  fanOutDelay(seconds: number): void;
  /** An event stream opened; the returned function (idempotent) closes it. */
  streamOpened(transport: StreamTransport): () => void;
  /** The Prometheus text exposition of every metric (collected now). */
  expose(): Promise<MetricsExposition>;
}

const nothing = () => undefined;

/** Records nothing; its page is empty. */
export const noopMetrics: Metrics = {
  enabled: false,
  httpRequest: nothing,
  operation: nothing,
  rateLimitRefused: nothing,
  cachedRead: nothing,
  subscriptionExecution: nothing,
  ingested: nothing,
  generationEvent: nothing,
  fanOutDelay: nothing,
  streamOpened: () => nothing,
  expose: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};
