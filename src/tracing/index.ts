export { exportSpansTo, startTracing } from './tracing.ts';
export { tracer, tracingActive } from './state.ts';
export { frontOf, requestTracing } from './http.ts';
export { tracePool } from './pg.ts';
