import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout. Credentials are redacted wherever they might be attached. */
export function createLogger(level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({
    level,
    base: { service: 'gateway', ...bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
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
