import { pino, type Logger } from 'pino';
import { traceLogFields } from './tracing/state.ts';

export type { Logger };

/**
 * JSON logs on stdout. Credentials are redacted wherever they might be attached. A line written
 * inside a trace (a request, a job) carries its `trace_id` and `span_id` while tracing is on.
 */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'gateway', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceLogFields,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
        'headers["x-api-key"]',
        'headers.authorization',
        'headers.cookie',
        'password',
        'apiKey',
        'token',
      ],
      censor: '[redacted]',
    },
  });
}
