import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { Services } from '../../src/services.ts';
import { createContext, type Front, type RequestContext } from '../../src/context.ts';
import type { Logger } from '../../src/log.ts';

const contexts = new WeakMap<Request, Promise<RequestContext>>();
const loggers = new WeakMap<Request, Logger>();
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Request id (the client's `x-request-id` when sane, else a new UUID) and a JSON access log line. */
export function requestLogging(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const offered = req.headers['x-request-id'];
    const requestId = typeof offered === 'string' && REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const requestLog = log.child({ requestId });
    loggers.set(req, requestLog);
    const started = process.hrtime.bigint();
    // In the request's trace context (the response finishes outside it), for the line's trace id.
    res.on('finish', context.bind(context.active(), () => {
      requestLog.info(
        { method: req.method, path: req.path, status: res.statusCode, durationMs: Number(process.hrtime.bigint() - started) / 1e6 },
        'request',
      );
    }));
    next();
  };
}

export function requestLog(req: Request): Logger {
  const found = loggers.get(req);
  if (!found) throw new Error('requestLogging middleware is not installed');
  return found;
}

/**
 * The request's context, created on first use and shared by every front that serves it.
 * `resource`: the protected resource the request is addressed to (the MCP endpoint), whose
 * OAuth access tokens are then accepted. `front`: the front that serves the request (default graphql).
 */
export function contextFor(services: Services, req: Request, resource?: string, front?: Front): Promise<RequestContext> {
  let context = contexts.get(req);
  if (!context) {
    const log = requestLog(req);
    context = createContext(services, {
      requestId: String(log.bindings().requestId),
      headers: req.headers,
      clientAddress: req.socket.remoteAddress ?? 'unknown',
      log,
      resource,
      front,
    });
    contexts.set(req, context);
  }
  return context;
}
