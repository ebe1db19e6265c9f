export { exportSpansTo, startTracing, type Tracing, type TracingSettings, type TracesSampler } from './tracing.ts';
export { injectTraceHeaders, traceLogFields, tracer, tracingActive } from './state.ts';
export { frontOf, requestTracing, type TracedRequest } from './http.ts';
export { tracePool } from './pg.ts';
export { inSpan, traceJob, withTraceContext, TRACE_PAYLOAD_KEY } from './jobs.ts';
