/**
 * Tracing is off by default: with no OTEL_* variable set, a service exports no span (even with an
 * in-memory exporter offered), answers requests that carry a traceparent (valid or not) as usual,
 * writes no trace fields in its log lines and stores job payloads unchanged. And which OTEL_*
 * settings turn it on.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { exportSpansTo, tracingActive } from '../../src/tracing/index.ts';
import { startServerWithUsers, EVERY_SCOPE } from '../helpers/server-with-users.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { getJson } from '../helpers/fixtures.ts';
import { readSample, SAMPLE_PNL, uploadCsv } from '../helpers/returns-data.ts';
import { captureLogs, type LogLine } from './log-capture.ts';

describe('tracing settings (OTEL_* variables)', () => {
  const tracing = (env: Record<string, string>) => loadConfig({ DATA_DIR: '/tmp/x', ...env }).tracing;

  it('is off unless an exporter is named or an OTLP endpoint is given', () => {
    expect(tracing({}).enabled).toBe(false);
    expect(tracing({ OTEL_SERVICE_NAME: 'x' }).enabled).toBe(false);
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      enabled: true,
      exporters: ['otlp'],
      otlpUrl: undefined,
      otlpProtocol: 'http/protobuf',
      serviceName: 'graphql-gateway',
    });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      enabled: true,
      exporters: ['otlp'],
      otlpUrl: 'http://collector:4318/v1/traces',
    });
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/traces' }).otlpUrl).toBe(
      'http://other:4318/traces',
    );
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(tracing({ OTEL_TRACES_EXPORTER: 'console,otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      exporters: ['console', 'otlp'],
      otlpProtocol: 'http/json',
    });
    expect(tracing({ OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=a%20b' }).resourceAttributes).toEqual({
      'deployment.environment': 'prod',
      team: 'a b',
    });
    expect(tracing({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.25,
    });
  });

  it('refuses what it cannot honour', () => {
    for (const env of [
      { OTEL_TRACES_EXPORTER: 'zipkin' },
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' },
      { OTEL_TRACES_SAMPLER: 'sometimes' },
      { OTEL_TRACES_SAMPLER_ARG: '2' },
      { OTEL_RESOURCE_ATTRIBUTES: 'novalue' },
    ]) {
      expect(() => loadConfig({ DATA_DIR: '/tmp/x', ...env }), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe('tracing off (the default)', () => {
  const exporter = new InMemorySpanExporter();
  let server: TestServer;
  let admin: TestUser;
  let logs: { lines: LogLine[]; restore(): void };

  beforeAll(async () => {
    exportSpansTo(exporter);
    ({ server, admin } = await startServerWithUsers({ admin: EVERY_SCOPE }, { LOG_LEVEL: 'info' }));
    logs = captureLogs(server.services.log);
  }, 60_000);

  afterAll(async () => {
    logs?.restore();
    await server?.close();
    exportSpansTo(undefined);
  });

  it('exports nothing, installs nothing, and answers requests with a traceparent (valid or not) as usual', async () => {
    expect(tracingActive()).toBe(false);
    expect(trace.getActiveSpan()).toBeUndefined();
    const valid = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
    for (const traceparent of [valid, 'garbage', '']) {
      const response = await getJson(`${server.url}/api/storage/files?org_id=${admin.orgId}`, { headers: { 'x-api-key': admin.key, traceparent } });
      expect(response.status).toBe(200);
      expect(response.headers.get('traceparent')).toBeNull();
    }
    const upload = await uploadCsv(server.url, { 'x-api-key': admin.key, traceparent: valid }, admin.orgId, 'pnl-sample.csv', readSample(SAMPLE_PNL));
    expect(upload.status).toBe(201);
    // The job's payload is what the upload stored, without trace context.
    const { rows } = await server.services.db.pool.query<{ payload: unknown }>(`SELECT payload FROM "Job" WHERE payload->>'fileId' = $1`, [
      upload.body.data.id,
    ]);
    expect(rows.map((row) => row.payload)).toEqual([{ fileId: upload.body.data.id }]);
    // Let the ingest run: its job writes log lines too.
    const deadline = Date.now() + 20_000;
    while (!logs.lines.some((line) => line.msg === 'ingest job done') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    expect(exporter.getFinishedSpans()).toEqual([]);
    const requestLines = logs.lines.filter((line) => line.msg === 'request');
    expect(requestLines.length).toBe(4);
    expect(logs.lines.some((line) => line.msg === 'ingest job done')).toBe(true);
    for (const line of logs.lines) {
      expect(line).not.toHaveProperty('trace_id');
      expect(line).not.toHaveProperty('span_id');
    }
    expect(requestLines.every((line) => typeof line.requestId === 'string')).toBe(true);
  }, 40_000);
});
