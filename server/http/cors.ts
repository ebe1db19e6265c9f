import cors from 'cors';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** Request headers a configured origin's page may send (credentials, CSRF proof, resumption, MCP). */
const ALLOWED_HEADERS = [
  'Content-Type',
  'X-Api-Key',
  'Authorization',
  'X-CSRF-Protection',
  'Last-Event-ID',
  'X-Request-Id',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
];
/** Response headers such a page may read (rate limits, request id). */
const EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'Mcp-Session-Id'];

/**
 * One CORS policy for every front (REST, /graphql, /api/service, the event streams): only the exact
 * origins CORS_ORIGINS names (none by default), with credentials. A page from any other origin
 * (another port on the host, a sibling subdomain sharing the session cookie) cannot read a
 * response. Every preflight is answered 204, the same way on every front; only a listed origin's
 * carries Access-Control-Allow-* headers (a refused one gets none, and the browser stops there).
 */
export function corsPolicy(origins: readonly string[]): RequestHandler {
  const listed = new Set(origins);
  const granted = cors({
    origin: [...origins],
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && listed.has(origin)) return granted(req, res, next);
    if (isPreflight(req)) {
      // A refused (or unlisted) origin's preflight: answered, with nothing granted.
      res.setHeader('Vary', 'Origin');
      res.status(204).end();
      return;
    }
    next();
  };
}

function isPreflight(req: Pick<IncomingMessage, 'method' | 'headers'>): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

/** True when the CORS policy has something to do with the request: a cross-origin call or a preflight. */
export function corsApplies(req: Pick<IncomingMessage, 'method' | 'headers'>): boolean {
  return req.headers.origin !== undefined || isPreflight(req);
}
