import express, { type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../../src/services.ts';
import { createRestRouter } from '../../rest-compat/router.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { AppError } from '../../src/errors.ts';
import { appErrorForDatabaseFailure } from '../../src/db/db-errors.ts';
import { contextFor, requestLog, requestLogging } from './request-context.ts';
import { csrfProtection } from './csrf.ts';
import { corsPolicy } from './cors.ts';
import { authPages } from './auth-pages.ts';
import { dashboardRoutes, wantsHtml } from './dashboard.ts';
import { graphqlEndpoint } from './graphql.ts';
import { mcpEndpoint } from '../../mcp/mcp-endpoint.ts';
import { authorizationServer } from './oauth/authorization-server.ts';
import { openApiRoutes } from './openapi.ts';
import { apiReferenceRoutes } from './api-reference.ts';
import { probeRoutes } from './probes.ts';
import { Readiness } from '../../src/health/readiness.ts';
import { httpMetrics, metricsRoutes } from './metrics.ts';
import { requestTracing } from '../../src/tracing/index.ts';

/** The HTTP surface: REST routes, /graphql, the sign-in pages and the web dashboard. */
export function createHttpApp(services: Services, lifecycle: { stopping: boolean; readiness?: Readiness } = { stopping: false }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('etag', false);
  // /livez and /readyz: before the access log, credentials, CORS and CSRF (probes.ts).
  const readiness = lifecycle.readiness ?? new Readiness({ db: services.db, blobs: services.blobs, shuttingDown: () => lifecycle.stopping, log: services.log });
  if (!lifecycle.readiness) readiness.markMigrated();
  // Every response is counted (route template, method, status, latency): first, before anything answers.
  app.use(httpMetrics(services.metrics));
  app.use(probeRoutes({ readiness, lifecycle, log: services.log.child({ component: 'readiness' }) }));
  // GET /metrics on the main port (metrics.ts): like the probes, before the access log, credentials, CORS and CSRF.
  const { metrics: metricsConfig } = services.config;
  app.use(metricsRoutes({ metrics: services.metrics, enabled: metricsConfig.enabled, separatePort: metricsConfig.port !== undefined, token: metricsConfig.token, production: services.config.env === 'production', log: services.log.child({ component: 'metrics' }) }));
  // The request's span (a no-op while tracing is off), so its log lines carry the trace id.
  app.use(requestTracing());
  app.use(requestLogging(services.log));
  // A response written while shutting down (even for a request that came in before) tells its
  // keep-alive client to reconnect elsewhere.
  app.use((_req, res, next) => {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((...args: unknown[]) => {
      if (lifecycle.stopping && !res.headersSent) res.setHeader('Connection', 'close');
      return writeHead(...args);
    }) as typeof res.writeHead;
    next();
  });
  // The MCP endpoint's OAuth server: its script-facing endpoints hold no ambient credential and
  // are open to any origin, so it answers before the credentialed CORS policy and CSRF check.
  app.use(authorizationServer(services));
  app.use(corsPolicy(services.config.cors.origins));
  app.use(csrfProtection(services.config.cors.origins));

  app.use(authPages(services));
  app.use(openApiRoutes());
  app.use(apiReferenceRoutes());
  // One pipeline: /graphql is built on it, and REST and MCP run their operations through it.
  const graphql = graphqlEndpoint(services);
  // The WebSocket transport (server/app.ts attaches it to the HTTP server) runs the same pipeline.
  app.locals.getEnveloped = graphql.getEnveloped;
  app.use('/graphql', graphql.handler);
  // The spec's JSON-RPC tool endpoint, an MCP server (reads its own body: no JSON parser before it).
  app.all('/api/service', ...mcpEndpoint({ services, operations: graphql.operations, context: (req, resource) => contextFor(services, req, resource, 'mcp'), version: services.version }));
  app.use(
    createRestRouter({
      routes: restRoutes,
      operations: graphql.operations,
      context: (req) => contextFor(services, req, undefined, 'rest'),
      requestLog,
      maxUploadBytes: services.config.storage.maxUploadBytes,
    }),
  );
  app.use(dashboardRoutes(services));

  app.use((req: Request, res: Response) => {
    if (req.method === 'GET' && !isApiPath(req.path) && wantsHtml(req)) {
      return res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>');
    }
    sendError(res, new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refusal = clientErrorOf(error) ?? appErrorForDatabaseFailure(error);
    if (refusal) {
      requestLog(req).info({ err: error, status: refusal.status }, 'request refused');
      return sendError(res, refusal);
    }
    requestLog(req).error({ err: error }, 'unhandled error');
    sendError(res, new AppError('INTERNAL_SERVER_ERROR', 'Internal server error'));
  });
  return app;
}

/**
 * An error express or a body parser raised about the request itself (a malformed
 * percent-encoding in a path parameter, a body over its limit, an unsupported charset): a 4xx
 * with the parser's own status, never a 500.
 */
function clientErrorOf(error: unknown): AppError | undefined {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new AppError('BAD_USER_INPUT', 'Malformed percent-encoding in the request path');
  const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_USER_INPUT';
  return new AppError(code, (error as Error).message || 'Bad request');
}

function isApiPath(path: string): boolean {
  return /^\/(api|graphql|health|status|test-scheduler)(\/|$)/.test(path);
}
