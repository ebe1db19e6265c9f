import type { ServerResponse } from 'node:http';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { MESSAGES, statusForCode } from '../src/errors.ts';
import { rateLimitHeaders, type RateLimitDecision } from '../src/ratelimit/rate-limiter.ts';

type ErrorLike = Pick<GraphQLError | GraphQLFormattedError, 'message' | 'extensions'>;

/** `{"error": message}` with the status the code table gives; field names rewritten for REST. */
export function errorResponse(error: ErrorLike, restName: (field: string) => string): { status: number; body: { error: string } } {
  const extensions = (error.extensions ?? {}) as Record<string, unknown>;
  const status = statusForCode(extensions.code);
  if (status === 500) return { status, body: { error: MESSAGES.internal } };
  const { field, problem } = extensions;
  const message =
    typeof field === 'string' && typeof problem === 'string' && problem !== 'is required' ? `Invalid ${restName(field)}: ${problem}` : error.message;
  return { status, body: { error: message } };
}

export function sendError(res: ServerResponse, error: ErrorLike, restName: (field: string) => string = (f) => f, decisions: RateLimitDecision[] = []): void {
  const { status, body } = errorResponse(error, restName);
  const retryAfter = (error.extensions as Record<string, unknown> | undefined)?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
  sendJson(res, status, body, decisions);
}

/**
 * Writes a JSON answer with node's own response API (no framework), so the REST lane
 * (server/http/rest-lane.ts) and express answer byte for byte alike: `application/json;
 * charset=utf-8` unless a content type is set already, and a Content-Length.
 */
/** The RateLimit headers of the budgets a request charged, on any REST answer. */
export function setRateLimitHeaders(res: ServerResponse, decisions: RateLimitDecision[]): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) res.setHeader(name, value);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, decisions: RateLimitDecision[] = []): void {
  if (res.headersSent) return;
  setRateLimitHeaders(res, decisions);
  res.statusCode = status;
  if (status === 204) {
    res.end();
    return;
  }
  const json = JSON.stringify(body) ?? '';
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
