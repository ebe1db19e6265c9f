/**
 * The SERVER span of an HTTP request: `METHOD /route/template` (just `METHOD` when no route
 * matched), child of the caller's W3C `traceparent` when it sent one. The request's handlers run
 * in its context, so GraphQL operation, database and job spans (and log lines) join its trace.
 * Express-shaped but typed structurally, so src/ needs no HTTP framework.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { tracer, tracingActive } from './state.ts';

/** Which front serves the request (graphql, rest, mcp): read by the operation spans. */
const FRONT = createContextKey('gateway.front');

export function frontOf(ctx: Context = context.active()): string | undefined {
  const front = ctx.getValue(FRONT);
  return typeof front === 'string' ? front : undefined;
}

/** The parts of an express request the span reads. */
export interface TracedRequest extends IncomingMessage {
  method?: string;
  /** path without the query string */
  path: string;
  baseUrl?: string;
  route?: { path?: unknown };
}

export function requestTracing() {
  return (req: TracedRequest, res: ServerResponse, next: () => void): void => {
    if (!tracingActive()) return next();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer().startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          // The path only: a query string may carry tokens.
          [ATTR_URL_PATH]: req.path,
          [ATTR_URL_SCHEME]: 'http',
          ...(typeof req.headers['user-agent'] === 'string' ? { [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'].slice(0, 256) } : {}),
        },
      },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeOf(req);
      if (route) {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${method} ${route}`);
      }
      if (res.headersSent) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(trace.setSpan(parent, span).setValue(FRONT, frontFor(req.path)), next);
  };
}

/** The matched route template: `/api/links/:id`, `/graphql`; undefined when nothing matched. */
function routeOf(req: TracedRequest): string | undefined {
  const path = req.route?.path;
  if (typeof path === 'string') return `${req.baseUrl ?? ''}${path}`;
  return req.baseUrl || undefined;
}

function frontFor(path: string): string {
  if (path === '/graphql' || path.startsWith('/graphql/')) return 'graphql';
  if (path === '/api/service') return 'mcp';
  return 'rest';
}
