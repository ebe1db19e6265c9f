import { randomUUID } from 'node:crypto';
import { context } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import type { Services } from '../../src/services.ts';
import { createContext, type Front, type RequestContext } from '../../src/context.ts';
import type { Logger } from '../../src/log.ts';
import type { RequestPolicy } from './policy.ts';
import { rememberOrigin, userAgentOf } from '../../src/audit/request-fields.ts';

const contexts = new WeakMap<IncomingMessage, Promise<RequestContext>>();
/** The request's id and its logger, made on first use: most requests log nothing below `info`. */
const requests = new WeakMap<IncomingMessage, { requestId: string; base: Logger; log?: Logger }>();
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Request id (the client's `x-request-id` when sane, else a new UUID) and a JSON access log line. */
export function requestLogging(log: Logger): RequestPolicy {
  return (req, res, next) => {
    const offered = req.headers['x-request-id'];
    const requestId = typeof offered === 'string' && REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    requests.set(req, { requestId, base: log });
    const started = process.hrtime.bigint();
    // In the request's trace context (the response finishes outside it), for the line's trace id.
    res.on(
      'finish',
      context.bind(context.active(), () => {
        if (!log.isLevelEnabled('info')) return;
        requestLog(req).info(
          { method: req.method, path: pathOf(req.originalUrl), status: res.statusCode, durationMs: Number(process.hrtime.bigint() - started) / 1e6 },
          'request',
        );
      }),
    );
    next();
  };
}

/**
 * The request line's path, without the query string. Not `req.path`: by the time the response
 * finishes, express has trimmed a mount's prefix from it (`/` for `POST /graphql`).
 */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function requestOf(req: IncomingMessage): { requestId: string; base: Logger; log?: Logger } {
  const found = requests.get(req);
  if (!found) throw new Error('requestLogging middleware is not installed');
  return found;
}

export function requestLog(req: IncomingMessage): Logger {
  const found = requestOf(req);
  found.log ??= found.base.child({ requestId: found.requestId });
  return found.log;
}

/**
 * The request's context, created on first use and shared by every front that serves it.
 * `resource`: the protected resource the request is addressed to (the MCP endpoint), whose
 * OAuth access tokens are then accepted. `front`: the front that serves the request (default graphql).
 */
export function contextFor(services: Services, req: IncomingMessage, resource?: string, front?: Front): Promise<RequestContext> {
  let context = contexts.get(req);
  if (!context) {
    context = createContext(services, {
      requestId: requestOf(req).requestId,
      headers: req.headers,
      // null on a request node's stream.pipeline has cut from its socket (a chunked /graphql body
      // past GRAPHQL_MAX_BODY_BYTES, use-body-size-limit.ts), answered after that.
      clientAddress: req.socket?.remoteAddress ?? 'unknown',
      log: () => requestLog(req),
      resource,
      front,
    });
    // Registered first, so the origin is known before any front reads the context (audit events).
    void context.then(
      (ctx) => rememberOrigin(ctx, { transport: 'http', userAgent: userAgentOf(req.headers) }),
      () => undefined,
    );
    contexts.set(req, context);
  }
  return context;
}

/**
 * Forgets the request's context: the next contextFor makes a new one. For an event stream that
 * is following (rest-compat/router.ts): the request lives as long as its stream, its context need not.
 */
export function releaseContext(req: IncomingMessage): void {
  contexts.delete(req);
}
