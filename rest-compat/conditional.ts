/**
 * Conditional GETs on every REST route (docs/caching.md, RFC 9110 sections 8.8.3 and 13.1.2):
 * each 200 answer carries a strong `ETag` and `Cache-Control: private, no-cache` (a browser may
 * keep tenant data, a shared cache may not, and either must ask again before using it), and a
 * request whose `If-None-Match` holds the current tag gets 304 with no body.
 * - A cached read's tag is its response-cache key (the data versions it was read under): the
 *   pipeline decides 304 before the operation runs (schema/pipeline/use-response-cache.ts).
 * - Any other GET's tag is a hash of the body it would send: the operation runs, the bytes are
 *   compared, and a match saves only the transfer.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConditionalRequest } from '../src/context.ts';
import { entityTag, noneMatchHits } from '../src/cache/response-cache.ts';
import type { RateLimitDecision } from '../src/ratelimit/rate-limiter.ts';
import { setRateLimitHeaders } from './errors.ts';

export const CACHE_CONTROL = 'private, no-cache';

/** The conditional part of a GET (undefined for any other method). */
export function conditionalRequest(req: IncomingMessage): ConditionalRequest | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const header = req.headers['if-none-match'];
  return { ifNoneMatch: Array.isArray(header) ? header.join(',') : header };
}

/** 304 for a client that holds the current answer: the tag and caching headers again, no body (RFC 9110 15.4.5). */
export function sendNotModified(res: ServerResponse, etag: string, decisions: RateLimitDecision[]): void {
  if (res.headersSent) return;
  setRateLimitHeaders(res, decisions);
  res.statusCode = 304;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.end();
}

/** A GET's 200 JSON answer (serialized) with its tag, or 304 when the client's If-None-Match holds it. */
export function sendTaggedJson(res: ServerResponse, json: string, conditional: ConditionalRequest, decisions: RateLimitDecision[]): void {
  if (res.headersSent) return;
  const etag = conditional.etag ?? entityTag(createHash('sha256').update(json).digest('base64url'));
  if (noneMatchHits(conditional.ifNoneMatch, etag)) return sendNotModified(res, etag, decisions);
  setRateLimitHeaders(res, decisions);
  res.statusCode = 200;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
