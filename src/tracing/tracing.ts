/**
 * OpenTelemetry tracing: off unless the standard OTEL_* variables ask for it (src/config.ts,
 * `config.tracing`). `startTracing` installs the SDK (tracer provider, AsyncLocalStorage context
 * manager, W3C trace-context propagator) for the process; until then, and after `shutdown`,
 * every helper here is a no-op behind one boolean (`tracingActive()`).
 *
 * Spans are made explicitly, not by auto-instrumentation (which must patch modules before they
 * are imported, and does not reliably see ESM imports under tsx or vitest):
 * - one SERVER span per HTTP request (src/tracing/http.ts, installed in server/http/http-app.ts);
 * - one span per GraphQL operation, whatever the front (schema/pipeline/use-tracing.ts);
 * - one CLIENT span per SQL statement on the pg pool Prisma and raw SQL share (src/tracing/pg.ts);
 * - one CONSUMER span per job run, child of the trace that enqueued it (src/tracing/jobs.ts).
 * Log lines written in a traced context carry `trace_id` and `span_id` (src/log.ts).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { Sampler, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setTracingActive, tracingActive } from './state.ts';

export type TracesSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** What src/config.ts makes of the OTEL_* variables. */
export interface TracingSettings {
  enabled: boolean;
  /** OTEL_TRACES_EXPORTER (otlp, console); empty with an OTLP endpoint set means otlp. */
  exporters: ReadonlyArray<'otlp' | 'console'>;
  /** The full traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces); unset: the exporter's default. */
  otlpUrl?: string;
  otlpProtocol: 'http/protobuf' | 'http/json';
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: TracesSampler;
  samplerArg?: number;
}

export interface Tracing {
  forceFlush(): Promise<void>;
  /** Flushes, stops the provider and removes the process-wide tracer, context manager and propagator. */
  shutdown(): Promise<void>;
}

let exporterOverride: SpanExporter | undefined;

/**
 * Spans go to this exporter (synchronously, one at a time) instead of the configured ones, when
 * tracing is enabled by the configuration. For in-process use: tests pass an InMemorySpanExporter.
 * Undefined removes the override.
 */
export function exportSpansTo(exporter: SpanExporter | undefined): void {
  exporterOverride = exporter;
}

/**
 * Installs the SDK when `settings.enabled`; undefined (nothing installed, no overhead) otherwise.
 * The SDK's modules are loaded only then: they take most of a second to import, which every start
 * (and every test's service) without tracing would pay for nothing.
 */
export async function startTracing(settings: TracingSettings, options: { version?: string } = {}): Promise<Tracing | undefined> {
  if (!settings.enabled || tracingActive()) return undefined;
  const [{ NodeTracerProvider }, sdk, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const resource = defaultResource().merge(
    resourceFromAttributes({
      ...settings.resourceAttributes,
      [ATTR_SERVICE_NAME]: settings.serviceName,
      ...(options.version ? { [ATTR_SERVICE_VERSION]: options.version } : {}),
    }),
  );
  const provider = new NodeTracerProvider({ resource, sampler: samplerOf(sdk, settings), spanProcessors: await spanProcessors(sdk, settings) });
  provider.register();
  setTracingActive(true);
  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      if (!tracingActive()) return;
      setTracingActive(false);
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}

type Sdk = typeof import('@opentelemetry/sdk-trace-base');

async function spanProcessors(sdk: Sdk, settings: TracingSettings): Promise<SpanProcessor[]> {
  if (exporterOverride) return [new sdk.SimpleSpanProcessor(exporterOverride)];
  return Promise.all(
    settings.exporters.map(async (kind) => {
      if (kind === 'console') return new sdk.SimpleSpanProcessor(new sdk.ConsoleSpanExporter());
      const config = settings.otlpUrl ? { url: settings.otlpUrl } : {};
      // Headers (OTEL_EXPORTER_OTLP_HEADERS), timeout and compression are read by the exporter itself.
      const { OTLPTraceExporter } =
        settings.otlpProtocol === 'http/json'
          ? await import('@opentelemetry/exporter-trace-otlp-http')
          : await import('@opentelemetry/exporter-trace-otlp-proto');
      return new sdk.BatchSpanProcessor(new OTLPTraceExporter(config));
    }),
  );
}

function samplerOf(sdk: Sdk, settings: TracingSettings): Sampler {
  const ratio = () => new sdk.TraceIdRatioBasedSampler(settings.samplerArg ?? 1);
  switch (settings.sampler) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: ratio() });
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
}
