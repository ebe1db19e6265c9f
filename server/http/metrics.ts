/**
 * Prometheus metrics over HTTP: the per-request middleware (route template, method, status,
 * latency; open event streams by transport) and `GET /metrics`, served on the main port or on a
 * listener of its own (METRICS_PORT), behind a bearer token when METRICS_TOKEN is set.
 *
 * On the main port without a token the page would be public: in production (NODE_ENV=production)
 * it is then not served at all (404, and a warning at start); set METRICS_TOKEN or METRICS_PORT.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Metrics, StreamTransport } from '../../src/metrics/metrics.ts';
import { beforeWriteHead, type PolicyRequest, type RequestPolicy } from './policy.ts';
import type { Logger } from '../../src/log.ts';
import { bearerToken } from '../../src/context.ts';

export const METRICS_PATH = '/metrics';

/** Paths served by a mounted handler rather than an express route (yoga at /graphql). */
const MOUNTS = ['/graphql/stream', '/graphql'];

/**
 * Counts every response once (when it finishes or the client hangs up) by route template: the
 * matched express route's path (the REST table's `/api/stickies/:id`), a mount (`/graphql`), or
 * `unmatched`. A response that starts an event stream (text/event-stream, multipart/mixed) holds
 * gateway_open_streams{transport} up until its connection closes.
 */
export function httpMetrics(metrics: Metrics): RequestPolicy {
  return (req, res, next) => {
    if (!metrics.enabled) return next();
    const started = process.hrtime.bigint();
    let closeStream: (() => void) | undefined;
    beforeWriteHead(res, (args) => {
      const transport = streamTransport(req, contentTypeOf(res, args));
      if (transport && !closeStream) closeStream = metrics.streamOpened(transport);
    });
    // 'close' is emitted once per response: `on`, not `once` (whose wrapper an event stream would hold as long as it lives).
    res.on('close', () => {
      closeStream?.();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest({ route: routeTemplate(req), method: req.method ?? 'GET', status: res.statusCode }, seconds);
    });
    next();
  };
}

function routeTemplate(req: PolicyRequest): string {
  const route = req.route;
  const path = Array.isArray(route?.path) ? route.path[0] : route?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}` || '/';
  const requested = (req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, '');
  return MOUNTS.find((mount) => requested === mount) ?? 'unmatched';
}

function streamTransport(req: PolicyRequest, contentType: string): StreamTransport | undefined {
  const graphql = MOUNTS.includes((req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, ''));
  if (/^text\/event-stream\b/i.test(contentType)) return graphql ? 'graphql-sse' : 'rest-sse';
  if (graphql && /^multipart\/mixed\b/i.test(contentType)) return 'graphql-multipart';
  return undefined;
}

/** The Content-Type of a response about to be written: writeHead's own headers, else those set before. */
function contentTypeOf(res: ServerResponse, args: unknown[]): string {
  const headers = args.find((arg, index) => index > 0 && typeof arg === 'object' && arg !== null);
  if (Array.isArray(headers)) {
    // A flat [name, value, ...] list, or [name, value] pairs.
    const flat = headers.flat() as unknown[];
    for (let i = 0; i + 1 < flat.length; i += 2) if (String(flat[i]).toLowerCase() === 'content-type') return String(flat[i + 1]);
  } else if (headers) {
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) if (name.toLowerCase() === 'content-type') return String(value);
  }
  const set = res.getHeader('content-type');
  return set === undefined ? '' : String(set);
}

export interface MetricsPageOptions {
  metrics: Metrics;
  /** METRICS_TOKEN: when set, the page needs `Authorization: Bearer <token>`. */
  token?: string;
  log: Logger;
}

/** GET (and HEAD) /metrics: the exposition, or 401 without the token; other methods 405. */
export function metricsPage(options: MetricsPageOptions) {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const offered = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof offered === 'string' && /^[\w.:-]{1,128}$/.test(offered) ? offered : randomUUID());
    res.setHeader('Cache-Control', 'no-store');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendJson(res, 405, { error: 'Method not allowed; use GET, HEAD' });
    }
    if (expected) {
      const presented = bearerToken(req.headers);
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        return sendJson(res, 401, { error: 'The metrics need Authorization: Bearer <METRICS_TOKEN>' });
      }
    }
    options.metrics.expose().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        options.log.error({ err: error }, 'could not collect the metrics');
        if (!res.headersSent) sendJson(res, 500, { error: 'Could not collect the metrics' });
      },
    );
  };
}

/**
 * /metrics on the main port, mounted before the access log (a scrape every few seconds is no
 * line), credentials, CORS and CSRF, like the probes. Nothing is mounted when METRICS_PORT serves
 * it, or in production without a token (404; warned about once, here).
 */
export function metricsRoutes(options: MetricsPageOptions & { enabled: boolean; separatePort: boolean; production: boolean }): Router {
  const router = express.Router();
  if (!options.enabled || options.separatePort) return router;
  if (options.production && options.token === undefined) {
    options.log.warn('metrics: /metrics is not served: in production set METRICS_TOKEN (bearer token) or METRICS_PORT (a listener of its own)');
    return router;
  }
  const page = metricsPage(options);
  router.all(METRICS_PATH, (req, res) => page(req, res));
  return router;
}

export interface MetricsListener {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/** METRICS_PORT: a listener that serves /metrics alone (any other path 404). */
export async function startMetricsListener(options: MetricsPageOptions & { host: string; port: number }): Promise<MetricsListener> {
  const page = metricsPage(options);
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://metrics').pathname === METRICS_PATH) return page(req, res);
    sendJson(res, 404, { error: `No route for ${req.method} ${req.url}` });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
