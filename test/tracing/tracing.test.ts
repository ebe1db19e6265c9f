/**
 * Tracing on (OTEL_TRACES_EXPORTER=otlp, spans sent to an in-process InMemorySpanExporter instead
 * of the OTLP one): a real service on a random port, real HTTP. The request's span continues the
 * caller's traceparent; the GraphQL operation, its SQL, the ingest job an upload enqueues (with
 * its SQL and recompute) and a generation job are all in the request's trace; log lines carry it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { exportSpansTo } from '../../src/tracing/index.ts';
import { startServerWithUsers, EVERY_SCOPE } from '../helpers/server-with-users.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { getJson } from '../helpers/fixtures.ts';
import { graphql, readSample, SAMPLE_PNL, uploadCsv } from '../helpers/returns-data.ts';
import { captureLogs, type LogLine } from './log-capture.ts';

const exporter = new InMemorySpanExporter();
let server: TestServer;
let admin: TestUser;
let logs: { lines: LogLine[]; restore(): void };

beforeAll(async () => {
  exportSpansTo(exporter);
  ({ server, admin } = await startServerWithUsers({ admin: EVERY_SCOPE }, { OTEL_TRACES_EXPORTER: 'otlp', LOG_LEVEL: 'info' }));
  logs = captureLogs(server.services.log);
}, 60_000);

afterAll(async () => {
  logs?.restore();
  await server?.close();
  exportSpansTo(undefined);
});

const spans = () => exporter.getFinishedSpans();
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

function traceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

async function waitFor<T>(find: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; spans: ${spans()
          .map((s) => s.name)
          .join(', ')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** True when `ancestor` is `span` or one of its ancestors in the exported spans. */
function descendsFrom(span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans().map((s) => [s.spanContext().spanId, s]));
  for (let at: ReadableSpan | undefined = span; at; at = byId.get(parentOf(at) ?? '')) {
    if (at.spanContext().spanId === ancestor.spanContext().spanId) return true;
  }
  return false;
}

describe('tracing on', () => {
  it('continues the caller’s traceparent: request span, GraphQL operation span and database spans in one trace', async () => {
    const incoming = traceparent();
    const response = await getJson(`${server.url}/api/storage/files?org_id=${admin.orgId}&limit=5`, {
      headers: { 'x-api-key': admin.key, traceparent: incoming.header },
    });
    expect(response.status).toBe(200);

    const request = await waitFor(() => spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === incoming.traceId), 'the request span');
    expect(request.name).toBe('GET /api/storage/files');
    expect(parentOf(request)).toBe(incoming.parentId);
    expect(request.attributes['http.request.method']).toBe('GET');
    expect(request.attributes['http.route']).toBe('/api/storage/files');
    expect(request.attributes['url.path']).toBe('/api/storage/files'); // no query string
    expect(request.attributes['http.response.status_code']).toBe(200);

    const inTrace = spans().filter((s) => s.spanContext().traceId === incoming.traceId);
    const operation = inTrace.find((s) => s.name.startsWith('graphql.query'));
    expect(operation, inTrace.map((s) => s.name).join(', ')).toBeDefined();
    expect(operation!.attributes['graphql.operation.type']).toBe('query');
    expect(operation!.attributes['gateway.front']).toBe('rest');
    expect(parentOf(operation!)).toBe(request.spanContext().spanId);

    const db = inTrace.filter((s) => s.kind === SpanKind.CLIENT && s.attributes['db.system.name'] === 'postgresql');
    expect(db.length).toBeGreaterThan(0);
    // The operation's own queries (the file listing) are its children.
    const underOperation = db.filter((s) => descendsFrom(s, operation!));
    expect(underOperation.length).toBeGreaterThan(0);
    expect(underOperation.some((s) => /"UploadedFile"/.test(String(s.attributes['db.query.text'])))).toBe(true);
    expect(underOperation.every((s) => typeof s.attributes['db.operation.name'] === 'string')).toBe(true);

    // (c) the request's log lines carry its trace id and request id.
    const requestId = response.headers.get('x-request-id');
    const line = await waitFor(() => logs.lines.find((l) => l.msg === 'request' && l.requestId === requestId), 'the access log line');
    expect(line.trace_id).toBe(incoming.traceId);
    expect(line.span_id).toBe(request.spanContext().spanId);
  });

  it('GraphQL over /graphql: the operation span is named after the operation and marked with its front', async () => {
    const incoming = traceparent();
    const response = await graphql(
      server.url,
      { 'x-api-key': admin.key, traceparent: incoming.header },
      'query Files($orgId: UUID!) { files(orgId: $orgId, first: 1) { edges { node { id } } } }',
      { orgId: admin.orgId },
    );
    const operation = await waitFor(
      () => spans().find((s) => s.spanContext().traceId === incoming.traceId && s.name.startsWith('graphql.')),
      'the operation span',
    );
    expect(operation.name).toBe('graphql.query Files');
    expect(operation.attributes['graphql.operation.name']).toBe('Files');
    expect(operation.attributes['gateway.front']).toBe('graphql');
    const request = await waitFor(() => spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === incoming.traceId), 'the request span');
    expect(request.name).toBe('POST /graphql');
    expect(parentOf(operation)).toBe(request.spanContext().spanId);
    // Whatever the answer (the field's arguments are not the point here), the status is recorded.
    expect(request.attributes['http.response.status_code']).toBe(response.status);
  });

  it('an upload and the ingest job it enqueues are one trace: job span (child of the upload), its SQL and the recompute', async () => {
    const incoming = traceparent();
    const upload = await uploadCsv(server.url, { 'x-api-key': admin.key, traceparent: incoming.header }, admin.orgId, 'pnl-sample.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(201);

    const job = await waitFor(
      () => spans().find((s) => s.name === 'job ingest' && s.spanContext().traceId === incoming.traceId),
      'the ingest job span',
      30_000,
    );
    expect(job.kind).toBe(SpanKind.CONSUMER);
    const request = spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === incoming.traceId)!;
    expect(request.name).toBe('POST /api/storage/upload');
    expect(parentOf(request)).toBe(incoming.parentId);
    // Enqueued by the upload's operation, inside the request: the job descends from the request span.
    expect(descendsFrom(job, request)).toBe(true);
    const operation = spans().find((s) => s.spanContext().traceId === incoming.traceId && s.name.startsWith('graphql.mutation'))!;
    expect(operation).toBeDefined();
    expect(parentOf(job)).toBe(operation.spanContext().spanId);

    // The stored job carries the trace context it was enqueued with.
    const row = await server.services.jobs.get<{ fileId: string; _trace?: { traceparent: string } }>(String(job.attributes['job.id']));
    expect(row!.payload.fileId).toBe(upload.body.data.id);
    expect(row!.payload._trace!.traceparent).toMatch(new RegExp(`^00-${incoming.traceId}-${operation.spanContext().spanId}-01$`));

    const jobQueries = spans().filter((s) => s.kind === SpanKind.CLIENT && descendsFrom(s, job));
    expect(jobQueries.some((s) => /"UploadedFile"/.test(String(s.attributes['db.query.text'])))).toBe(true);
    const recompute = spans().find((s) => s.name === 'ingest.recompute' && s.spanContext().traceId === incoming.traceId);
    expect(recompute).toBeDefined();
    expect(descendsFrom(recompute!, job)).toBe(true);
    expect(spans().some((s) => s.kind === SpanKind.CLIENT && descendsFrom(s, recompute!))).toBe(true);

    // The job's log lines are in the upload's trace too.
    const done = await waitFor(() => logs.lines.find((l) => l.msg === 'ingest job done' && l.fileId === upload.body.data.id), 'the job log line');
    expect(done.trace_id).toBe(incoming.traceId);
    expect(done.span_id).toBe(job.spanContext().spanId);
  }, 40_000);

  it('a generation run is a job span in the trace of the request that started it', async () => {
    const incoming = traceparent();
    const response = await graphql(
      server.url,
      { 'x-api-key': admin.key, traceparent: incoming.header },
      'mutation Start { startGeneration(input: { sources: [stickies] }) { id } }',
    );
    expect(response.body.errors).toBeUndefined();
    const job = await waitFor(
      () => spans().find((s) => s.name === 'job generation' && s.spanContext().traceId === incoming.traceId),
      'the generation job span',
      30_000,
    );
    const operation = spans().find((s) => s.name === 'graphql.mutation Start' && s.spanContext().traceId === incoming.traceId)!;
    expect(parentOf(job)).toBe(operation.spanContext().spanId);
    expect(spans().some((s) => s.kind === SpanKind.CLIENT && descendsFrom(s, job))).toBe(true);
  }, 40_000);

  it('a request without traceparent starts a trace of its own; a malformed one is ignored, never an error', async () => {
    const fresh = await getJson(`${server.url}/api/storage/files?org_id=${admin.orgId}`, { headers: { 'x-api-key': admin.key } });
    expect(fresh.status).toBe(200);
    const malformed = await getJson(`${server.url}/api/storage/files?org_id=${admin.orgId}`, {
      headers: { 'x-api-key': admin.key, traceparent: 'not-a-trace' },
    });
    expect(malformed.status).toBe(200);
    const ids = [fresh, malformed].map((r) => r.headers.get('x-request-id'));
    const lines = await waitFor(() => {
      const found = ids.map((id) => logs.lines.find((l) => l.msg === 'request' && l.requestId === id));
      return found.every(Boolean) ? (found as LogLine[]) : undefined;
    }, 'the access log lines');
    for (const line of lines) {
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
      const request = spans().find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === line.trace_id)!;
      expect(request).toBeDefined();
      expect(request.parentSpanContext).toBeUndefined();
    }
    expect(lines[0]!.trace_id).not.toBe(lines[1]!.trace_id);
  });
});
