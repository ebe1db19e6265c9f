/**
 * The light half of tracing (the OpenTelemetry API only, no SDK): whether tracing is on, the
 * tracer, and the trace fields of log lines. Everything here is a no-op behind one boolean while
 * tracing is off; src/log.ts imports it, so loading it must stay cheap.
 */
import { context, propagation, trace, type Context, type Tracer } from '@opentelemetry/api';

const TRACER_NAME = 'gateway';
let active = false;

/** True while the SDK is installed (tracing.ts): the cheap check every hook makes first. */
export function tracingActive(): boolean {
  return active;
}

/** For tracing.ts only. */
export function setTracingActive(on: boolean): void {
  active = on;
}

export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * `trace_id` and `span_id` of the span active now, for a log line; empty when there is none. A new
 * object each time: pino's mixin merge writes the line's own fields into it.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  if (!active) return {};
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Adds the W3C headers (`traceparent`, `tracestate`) of the active context to `headers` for an outgoing request. */
export function injectTraceHeaders(headers: Record<string, string>, from: Context = context.active()): Record<string, string> {
  if (active) propagation.inject(from, headers);
  return headers;
}
