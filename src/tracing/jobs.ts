/**
 * Trace context across the job queue: the W3C `traceparent` (and `tracestate`) of the code that
 * enqueues a job is stored in its JSON payload under `_trace`, and the run of the job is a span
 * (`job <queue>`) whose parent is that context, so one trace shows the request, the job and what
 * the job did. A payload is only changed while tracing is on and there is a trace to carry.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracer, tracingActive } from './state.ts';

/** Where the carrier lives in a job's payload. */
export const TRACE_PAYLOAD_KEY = '_trace';

type Carrier = Record<string, string>;

/** The payload to store: with the active trace context when tracing is on and the payload is an object. */
export function withTraceContext<P>(payload: P): P {
  if (!tracingActive() || typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  if (!trace.getSpan(context.active())) return payload;
  const carrier: Carrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { ...payload, [TRACE_PAYLOAD_KEY]: carrier } : payload;
}

function carrierOf(payload: unknown): Carrier | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const carrier = (payload as Record<string, unknown>)[TRACE_PAYLOAD_KEY];
  if (typeof carrier !== 'object' || carrier === null) return undefined;
  const entries = Object.entries(carrier).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return Object.fromEntries(entries);
}

/**
 * Runs `work` (one attempt of a job) in a CONSUMER span `job <queue>`, child of the context its
 * payload carries (a new trace when it carries none). The span records a thrown error.
 */
export function traceJob<T>(job: { id: string; queue: string; attempts: number; payload: unknown }, work: () => Promise<T>): Promise<T> {
  if (!tracingActive()) return work();
  const carrier = carrierOf(job.payload);
  const parent = carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
  return tracer().startActiveSpan(
    `job ${job.queue}`,
    { kind: SpanKind.CONSUMER, attributes: { 'job.id': job.id, 'job.queue': job.queue, 'job.attempt': job.attempts, 'messaging.operation.type': 'process' } },
    parent,
    async (span) => {
      try {
        return await work();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Runs `work` in an INTERNAL span named `name` under the active span (nothing when tracing is off). */
export function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: () => Promise<T>): Promise<T> {
  if (!tracingActive() || !trace.getSpan(context.active())) return work();
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
