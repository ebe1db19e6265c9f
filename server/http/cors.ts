import cors from 'cors';
import type { RequestHandler } from 'express';

/** Request headers a configured origin's page may send (credentials, CSRF proof, resumption, MCP). */
const ALLOWED_HEADERS = ['Content-Type', 'X-Api-Key', 'Authorization', 'X-CSRF-Protection', 'Last-Event-ID', 'X-Request-Id', 'Mcp-Protocol-Version', 'Mcp-Session-Id'];
/** Response headers such a page may read (rate limits, request id). */
const EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'Mcp-Session-Id'];

/**
 * One CORS policy for every front (REST, /graphql, /api/service, the event streams): off unless
 * CORS_ORIGINS names origins, and then only those exact origins, with credentials. Without it
 * a browser page from any other origin (another port on the host, a sibling subdomain sharing
 * the session cookie) cannot read a response.
 */
export function corsPolicy(origins: readonly string[]): RequestHandler {
  if (origins.length === 0) return (_req, _res, next) => next();
  return cors({
    origin: [...origins],
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
