import type { Response } from 'express';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { AppError, MESSAGES, statusForCode } from '../src/errors.ts';
import { rateLimitHeaders, type RateLimitDecision } from '../src/ratelimit/rate-limiter.ts';

type ErrorLike = Pick<GraphQLError | GraphQLFormattedError, 'message' | 'extensions'>;

/** `{"error": message}` with the status the code table gives; field names rewritten for REST. */
export function errorResponse(error: ErrorLike, restName: (field: string) => string): { status: number; body: { error: string } } {
  const extensions = (error.extensions ?? {}) as Record<string, unknown>;
  const status = statusForCode(extensions.code);
  if (status === 500) return { status, body: { error: MESSAGES.internal } };
  const { field, problem } = extensions;
  const message = typeof field === 'string' && typeof problem === 'string' && problem !== 'is required'
    ? `Invalid ${restName(field)}: ${problem}`
    : error.message;
  return { status, body: { error: message } };
}

export function sendError(res: Response, error: ErrorLike, restName: (field: string) => string = (f) => f, decisions: RateLimitDecision[] = []): void {
  const { status, body } = errorResponse(error, restName);
  const retryAfter = (error.extensions as Record<string, unknown> | undefined)?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
  sendJson(res, status, body, decisions);
}

export function sendJson(res: Response, status: number, body: unknown, decisions: RateLimitDecision[] = []): void {
  if (res.headersSent) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) res.setHeader(name, value);
  if (status === 204) {
    res.status(204).end();
    return;
  }
  res.status(status).json(body);
}

export function asAppError(error: unknown): AppError | undefined {
  return error instanceof AppError ? error : undefined;
}
