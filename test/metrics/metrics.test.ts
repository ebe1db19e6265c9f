/**
 * GET /metrics as Prometheus scrapes it: a real service on a random port, real HTTP. Every test
 * scrapes, does something a client does (a REST request, a GraphQL request, an MCP tool call, a
 * request over its budget, an upload, an event stream), scrapes again and checks that the
 * counters moved by exactly what it did, with the labels it expects (route template, front,
 * outcome). Then the exposure settings: METRICS_TOKEN, METRICS_PORT, production without either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, getOperationAST } from 'graphql';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadFiles, readSample, SAMPLE_PNL } from '../helpers/returns-data.ts';
import { openStream } from '../helpers/sse.ts';
import { sseClient } from '../helpers/graphql-sse.ts';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { TOOLS } from '../../mcp/tools.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
  text: string;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/g;

/** Parses the text exposition format (version 0.0.4) strictly: any line it cannot read fails. */
function parseExposition(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      expect(['counter', 'gauge', 'histogram', 'summary', 'untyped']).toContain(type);
      types.set(name!, type!);
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? '';
    let consumed = 0;
    for (const label of labelText.matchAll(LABEL)) {
      labels[label[1]!] = label[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      consumed += label[0].length;
    }
    if (consumed !== labelText.length) throw new Error(`unreadable labels: ${line}`);
    // Go's ParseFloat, as Prometheus reads values: Inf and NaN in any case (prom-client writes `Nan`).
    const raw = match[3]!;
    const value = /^[+-]?inf$/i.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : /^nan$/i.test(raw) ? NaN : Number(raw);
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`not a value: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types, text };
}

/** The sum of the samples of `name` whose labels include `labels`. */
function sum(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((total, sample) => total + sample.value, 0);
}

async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(text);
}

/** Scrapes until `ready` holds (counters recorded after the response, e.g. at the end of a job). */
async function scrapeUntil(baseUrl: string, ready: (scrape: Scrape) => boolean, timeoutMs = 10_000): Promise<Scrape> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await scrape(baseUrl);
    if (ready(current) || Date.now() > deadline) return current;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function operationName(source: string): string {
  return getOperationAST(parse(source))!.name!.value;
}

describe('GET /metrics on the main port (no token outside production)', () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '2', GENERATION_STEP_DELAY: '200ms' });
    user = await createUser(server.services);
  }, 60_000);
  afterAll(async () => server?.close());

  it('is Prometheus text (0.0.4): every line parses, every sample has a type; process, pool and job metrics are there', async () => {
    const page = await scrape(server.url);
    const base = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
    for (const sample of page.samples) expect(page.types.has(sample.name) || page.types.has(base(sample.name)), sample.name).toBe(true);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(page.types.has(name), name).toBe(true);
    }
    expect(page.types.get('gateway_http_requests_total')).toBe('counter');
    expect(page.types.get('gateway_http_request_duration_seconds')).toBe('histogram');
    expect(page.types.get('gateway_db_pool_connections')).toBe('gauge');
    expect(sum(page, 'gateway_db_pool_connections')).toBeGreaterThan(0);
    expect(page.samples.some((sample) => sample.name === 'gateway_db_pool_waiting_requests')).toBe(true);
    expect(page.types.get('gateway_job_queue_depth')).toBe('gauge');
    for (const transport of ['rest-sse', 'graphql-sse', 'graphql-multipart', 'graphql-ws']) {
      expect(page.samples.find((sample) => sample.name === 'gateway_open_streams' && sample.labels.transport === transport)?.value, transport).toBe(0);
    }
  });

  it('a REST request counts once under its route template (never the raw path), and its operation once with front="rest"', async () => {
    const created = await getJson(`${server.url}/api/stickies`, {
      method: 'POST',
      headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'metrics' }),
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const route = restRoutes.find((candidate) => candidate.path === '/api/stickies/:id' && candidate.method === 'GET')!;
    const operation = operationName(route.operation);

    const before = await scrape(server.url);
    const response = await getJson(`${server.url}/api/stickies/${id}`, { headers: { 'x-api-key': user.key } });
    expect(response.status).toBe(200);
    const after = await scrape(server.url);

    const http = { route: '/api/stickies/:id', method: 'GET', status: '200' };
    expect(sum(after, 'gateway_http_requests_total', http) - sum(before, 'gateway_http_requests_total', http)).toBe(1);
    expect(sum(after, 'gateway_http_request_duration_seconds_count', http) - sum(before, 'gateway_http_request_duration_seconds_count', http)).toBe(1);
    expect(sum(after, 'gateway_http_request_duration_seconds_sum', http)).toBeGreaterThan(sum(before, 'gateway_http_request_duration_seconds_sum', http));
    const op = { operation, type: 'query', front: 'rest', outcome: 'ok', code: '' };
    expect(sum(after, 'gateway_graphql_operations_total', op) - sum(before, 'gateway_graphql_operations_total', op)).toBe(1);
    // Only that operation ran (the scrapes run none).
    expect(sum(after, 'gateway_graphql_operations_total') - sum(before, 'gateway_graphql_operations_total')).toBe(1);
    expect(after.text).not.toContain(id);
  });

  it('an unknown path counts as route="unmatched"', async () => {
    const before = await scrape(server.url);
    const response = await getJson(`${server.url}/api/no-such-thing/${crypto.randomUUID()}`, { headers: { 'x-api-key': user.key } });
    expect(response.status).toBe(404);
    const after = await scrape(server.url);
    const labels = { route: 'unmatched', method: 'GET', status: '404' };
    expect(sum(after, 'gateway_http_requests_total', labels) - sum(before, 'gateway_http_requests_total', labels)).toBe(1);
  });

  it('GraphQL requests count under route="/graphql" with front="graphql": ok, and error by its code', async () => {
    const before = await scrape(server.url);
    const ok = await graphql(server.url, { 'x-api-key': user.key }, 'query MetricsStickies { stickies(first: 1) { edges { node { id } } } }');
    expect(ok.body.errors).toBeUndefined();
    const refused = await graphql(server.url, {}, 'query MetricsAnonymous { stickies(first: 1) { edges { node { id } } } }');
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const anonymous = await graphql(server.url, { 'x-api-key': user.key }, '{ stickies(first: 1) { edges { node { id } } } }');
    expect(anonymous.body.errors).toBeUndefined();
    const after = await scrape(server.url);

    const delta = (labels: Record<string, string>) =>
      sum(after, 'gateway_graphql_operations_total', labels) - sum(before, 'gateway_graphql_operations_total', labels);
    expect(delta({ operation: 'MetricsStickies', type: 'query', front: 'graphql', outcome: 'ok', code: '' })).toBe(1);
    expect(delta({ operation: 'MetricsAnonymous', type: 'query', front: 'graphql', outcome: 'error', code: 'UNAUTHENTICATED' })).toBe(1);
    expect(delta({ operation: 'anonymous', type: 'query', front: 'graphql', outcome: 'ok' })).toBe(1);
    expect(delta({})).toBe(3);
    const requests = (labels: Record<string, string>) => sum(after, 'gateway_http_requests_total', labels) - sum(before, 'gateway_http_requests_total', labels);
    expect(requests({ route: '/graphql', method: 'POST' })).toBe(3);
    const duration = { operation: 'MetricsStickies', type: 'query', front: 'graphql', outcome: 'ok' };
    expect(
      sum(after, 'gateway_graphql_operation_duration_seconds_count', duration) - sum(before, 'gateway_graphql_operation_duration_seconds_count', duration),
    ).toBe(1);
  });

  it('an MCP tool call counts under route="/api/service" with front="mcp"', async () => {
    const token = await createAccessToken(server.services, user.userId);
    const tool = TOOLS.find((candidate) => candidate.name === 'list_stickies')!;
    const before = await scrape(server.url);
    const response = await getJson(`${server.url}/api/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_stickies', arguments: {} } }),
    });
    expect(response.status).toBe(200);
    expect(response.body.error).toBeUndefined();
    const after = await scrape(server.url);
    const op = { operation: operationName(tool.operation), type: 'query', front: 'mcp', outcome: 'ok' };
    expect(sum(after, 'gateway_graphql_operations_total', op) - sum(before, 'gateway_graphql_operations_total', op)).toBe(1);
    expect(sum(after, 'gateway_graphql_operations_total', { front: 'mcp' }) - sum(before, 'gateway_graphql_operations_total', { front: 'mcp' })).toBe(1);
    const http = { route: '/api/service', method: 'POST', status: '200' };
    expect(sum(after, 'gateway_http_requests_total', http) - sum(before, 'gateway_http_requests_total', http)).toBe(1);
  });

  it('a 429 counts one refusal for its budget', async () => {
    const { secret } = await server.services.apiKeys.create({ userId: user.userId, name: 'metrics budget', scopes: ['admin'] });
    const before = await scrape(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await getJson(`${server.url}/api/returns/comparison`, { headers: { 'x-api-key': secret } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const after = await scrape(server.url);
    expect(
      sum(after, 'gateway_rate_limit_refusals_total', { budget: 'returns' }) - sum(before, 'gateway_rate_limit_refusals_total', { budget: 'returns' }),
    ).toBe(1);
    expect(sum(after, 'gateway_rate_limit_refusals_total') - sum(before, 'gateway_rate_limit_refusals_total')).toBe(1);
    const refused = { route: '/api/returns/comparison', method: 'GET', status: '429' };
    expect(sum(after, 'gateway_http_requests_total', refused) - sum(before, 'gateway_http_requests_total', refused)).toBe(1);
  });

  it("an upload's ingest adds the file's rows, one file and its durations; the ingest queue shows the job", async () => {
    const content = readSample(SAMPLE_PNL);
    const dataRows = content.split(/\r?\n/).filter((line) => line.trim() !== '').length - 1;
    const before = await scrape(server.url);
    await loadFiles(server.url, user.key, user.orgId, [{ name: 'metrics-pnl.csv', content }]);
    const files = { status: 'processed' };
    const after = await scrapeUntil(server.url, (page) => sum(page, 'gateway_ingest_files_total', files) > sum(before, 'gateway_ingest_files_total', files));
    expect(sum(after, 'gateway_ingest_files_total', files) - sum(before, 'gateway_ingest_files_total', files)).toBe(1);
    expect(sum(after, 'gateway_ingest_rows_total', files) - sum(before, 'gateway_ingest_rows_total', files)).toBe(dataRows);
    for (const phase of ['load', 'recompute', 'total']) {
      expect(sum(after, 'gateway_ingest_duration_seconds_count', { phase }) - sum(before, 'gateway_ingest_duration_seconds_count', { phase }), phase).toBe(1);
    }
    expect(sum(after, 'gateway_job_queue_depth', { queue: 'ingest', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(
      after.samples.some(
        (sample) => sample.name === 'gateway_job_queue_oldest_age_seconds' && sample.labels.queue === 'ingest' && sample.labels.state === 'queued',
      ),
    ).toBe(true);
  });

  it('an open event stream holds gateway_open_streams{transport="rest-sse"} at 1 until it closes; the run it started is counted when it ends', async () => {
    const generator = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    const before = await scrape(server.url);
    const stream = await openStream(`${server.url}/api/generate`, { 'x-api-key': generator.key });
    expect(stream.status, stream.text).toBe(200);
    const first = await stream.reader!.nextEvent();
    expect(first?.event).toBe('run');
    const open = await scrape(server.url);
    expect(sum(open, 'gateway_open_streams', { transport: 'rest-sse' })).toBe(1);
    const sse = { route: '/api/generate', method: 'GET', status: '200' };
    // Still open: the request is not counted before it ends.
    expect(sum(open, 'gateway_http_requests_total', sse) - sum(before, 'gateway_http_requests_total', sse)).toBe(0);
    // A live event reaches the follower: the fan-out delay is observed. Events already in the log
    // when the stream's hub loaded are not live and not observed; on a loaded machine the next few
    // can be, since the scrape above takes longer than a step (200 ms). So read on until one was.
    const fannedOut = (page: Scrape) => sum(page, 'gateway_stream_fanout_delay_seconds_count') > sum(before, 'gateway_stream_fanout_delay_seconds_count');
    let observed = await scrape(server.url);
    while (!fannedOut(observed) && (await stream.reader!.nextEvent())) observed = await scrape(server.url);
    expect(fannedOut(observed), 'no live event was observed before the stream ended').toBe(true);
    stream.reader!.close();
    const closed = await scrapeUntil(server.url, (page) => sum(page, 'gateway_open_streams', { transport: 'rest-sse' }) === 0);
    expect(sum(closed, 'gateway_open_streams', { transport: 'rest-sse' })).toBe(0);
    expect(sum(closed, 'gateway_http_requests_total', sse) - sum(before, 'gateway_http_requests_total', sse)).toBe(1);
    expect(fannedOut(closed)).toBe(true);
    // The run goes on without its follower and ends completed.
    const ended = await scrapeUntil(server.url, (page) => sum(page, 'gateway_generation_runs_total') > sum(before, 'gateway_generation_runs_total'), 30_000);
    expect(sum(ended, 'gateway_generation_runs_total', { state: 'completed' }) - sum(before, 'gateway_generation_runs_total', { state: 'completed' })).toBe(1);
    expect(
      sum(ended, 'gateway_generation_run_duration_seconds_count', { state: 'completed' }) -
        sum(before, 'gateway_generation_run_duration_seconds_count', { state: 'completed' }),
    ).toBe(1);
    expect(
      sum(ended, 'gateway_generation_agent_duration_seconds_count', { agent: 'collector', status: 'complete' }) -
        sum(before, 'gateway_generation_agent_duration_seconds_count', { agent: 'collector', status: 'complete' }),
    ).toBe(1);
  }, 60_000);
});

describe('gateway_open_streams on the GraphQL subscription transports', () => {
  let server: TestServer;
  const PROGRESS = `subscription ($runId: UUID!) { generationProgress(runId: $runId, after: 0) { __typename } }`;

  beforeAll(async () => {
    // slow agents: the run (and so each subscription) stays open while the test scrapes
    server = await startTestServer({ GENERATION_STEP_DELAY: '2s' });
  }, 60_000);
  afterAll(async () => server?.close());

  async function startRun(key: string): Promise<string> {
    const started = await graphql(server.url, { 'x-api-key': key }, 'mutation { startGeneration(input: { days: 7, sources: [stickies] }) { id } }');
    return (started.body.data as { startGeneration: { id: string } }).startGeneration.id;
  }

  /** Opens a subscription on `transport`, waits for its first result; returns how to close it. */
  async function subscribe(transport: 'graphql-sse' | 'graphql-ws' | 'graphql-multipart', key: string, runId: string): Promise<() => void> {
    if (transport === 'graphql-multipart') {
      const abort = new AbortController();
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'multipart/mixed;subscriptionSpec="1.0", application/json' },
        body: JSON.stringify({ query: PROGRESS, variables: { runId } }),
        signal: abort.signal,
      });
      expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
      await response.body!.getReader().read();
      return () => abort.abort();
    }
    const client =
      transport === 'graphql-ws'
        ? createWsClient({
            url: `${server.url.replace(/^http/, 'ws')}/graphql`,
            webSocketImpl: WebSocket,
            connectionParams: { 'x-api-key': key },
            retryAttempts: 0,
          })
        : sseClient(server.url, 'distinct', { 'x-api-key': key });
    const first = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: PROGRESS, variables: { runId } },
        { next: () => resolve(), error: reject, complete: () => reject(new Error('completed before a result')) },
      );
    });
    await first;
    return () => void client.dispose();
  }

  for (const transport of ['graphql-sse', 'graphql-ws', 'graphql-multipart'] as const) {
    it(`an open ${transport} subscription holds the gauge at 1 until it closes`, async () => {
      const user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
      const close = await subscribe(transport, user.key, await startRun(user.key));
      const open = await scrape(server.url);
      expect(sum(open, 'gateway_open_streams', { transport })).toBe(1);
      close();
      const closed = await scrapeUntil(server.url, (page) => sum(page, 'gateway_open_streams', { transport }) === 0);
      expect(sum(closed, 'gateway_open_streams', { transport })).toBe(0);
    }, 60_000);
  }
});

describe('METRICS_TOKEN', () => {
  let server: TestServer;
  const token = 'metrics-token-0123456789abcdef';

  beforeAll(async () => {
    server = await startTestServer({ METRICS_TOKEN: token });
  }, 60_000);
  afterAll(async () => server?.close());

  it('401 {"error"} without the bearer token or with another one; 200 with it', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }, { authorization: token }];
    for (const headers of attempts) {
      const response = await fetch(`${server.url}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const body = (await response.json()) as { error: string };
      expect(typeof body.error).toBe('string');
      expect(JSON.stringify(body)).not.toContain(token);
    }
    const page = await scrape(server.url, { authorization: `Bearer ${token}` });
    expect(page.types.get('gateway_http_requests_total')).toBe('counter');
  });
});

describe('METRICS_PORT', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ METRICS_PORT: '0' });
  }, 60_000);
  afterAll(async () => server?.close());

  it('serves /metrics on its own listener; the main port has no /metrics (404)', async () => {
    expect(server.metricsUrl).toBeDefined();
    expect(server.metricsUrl).not.toBe(server.url);
    const main = await fetch(`${server.url}/metrics`);
    expect(main.status).toBe(404);
    await main.arrayBuffer();
    const page = await scrape(server.metricsUrl!);
    // The main port's 404 was counted, as unmatched.
    expect(sum(page, 'gateway_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    const other = await fetch(`${server.metricsUrl}/livez`);
    expect(other.status).toBe(404);
    await other.arrayBuffer();
  });
});

describe('production without METRICS_TOKEN or METRICS_PORT', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ NODE_ENV: 'production' });
  }, 60_000);
  afterAll(async () => server?.close());

  it('/metrics is not served on the main port (404)', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    await response.arrayBuffer();
  });
});

describe('METRICS_ENABLED=false', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ METRICS_ENABLED: 'false' });
  }, 60_000);
  afterAll(async () => server?.close());

  it('no /metrics, and the service works', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(404);
    await response.arrayBuffer();
    const live = await fetch(`${server.url}/livez`);
    expect(live.status).toBe(200);
    await live.arrayBuffer();
  });
});
