import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../../src/services.ts';
import { createRestRouter, prepareRestRoutes } from '../../rest-compat/router.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { AppError } from '../../src/errors.ts';
import { refusalFor } from '../../src/refusal.ts';
import { contextFor, releaseContext, requestLog } from './request-context.ts';
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
import { metricsRoutes } from './metrics.ts';
import { requestPolicies, type Lifecycle } from './request-policies.ts';
import { restLane } from './rest-lane.ts';
import { graphqlLane } from './graphql-lane.ts';
import { auditExportRoutes } from './audit-export.ts';

/**
 * The HTTP surface: REST routes, /graphql, the sign-in pages and the web dashboard. `listener`
 * is what the HTTP server runs: the GraphQL lane (graphql-lane.ts) for plain `POST /graphql`
 * requests, the REST lane (rest-lane.ts) for the route table's plain JSON requests, express for
 * everything else.
 */
export function createHttpApp(services: Services, lifecycle: Lifecycle & { readiness?: Readiness } = { stopping: false }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('etag', false);
  // /livez and /readyz: before the access log, credentials, CORS and CSRF (probes.ts).
  const readiness = lifecycle.readiness ?? new Readiness({ db: services.db, blobs: services.blobs, shuttingDown: () => lifecycle.stopping, log: services.log });
  if (!lifecycle.readiness) readiness.markMigrated();
  // Every response is counted (route template, method, status, latency): first, before anything answers.
  const policies = requestPolicies(services, lifecycle);
  const [countResponses, ...perRequest] = policies;
  app.use(countResponses);
  app.use(probeRoutes({ readiness, lifecycle, log: services.log.child({ component: 'readiness' }) }));
  // GET /metrics on the main port (metrics.ts): like the probes, before the access log, credentials, CORS and CSRF.
  const { metrics: metricsConfig } = services.config;
  app.use(
    metricsRoutes({
      metrics: services.metrics,
      enabled: metricsConfig.enabled,
      separatePort: metricsConfig.port !== undefined,
      token: metricsConfig.token,
      production: services.config.env === 'production',
      log: services.log.child({ component: 'metrics' }),
    }),
  );
  // The request's span (a no-op while tracing is off, so its log lines carry the trace id), the
  // request id and access log, Connection: close while shutting down (request-policies.ts).
  app.use(...perRequest);
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
  app.all(
    '/api/service',
    ...mcpEndpoint({
      services,
      operations: graphql.operations,
      context: (req, resource) => contextFor(services, req, resource, 'mcp'),
      version: services.version,
    }),
  );
  const rest = prepareRestRoutes({
    routes: restRoutes,
    operations: graphql.operations,
    context: (req) => contextFor(services, req, undefined, 'rest'),
    releaseContext,
    requestLog,
    maxUploadBytes: services.config.storage.maxUploadBytes,
    databaseOutage: services.databaseOutage,
    earlyStreamRefusal: (headers) => {
      const owner = services.knownCredentials.ownerOf(headers);
      return owner ? services.streams.refusalIfFull(owner.userId) : undefined;
    },
  });
  // The audit log's NDJSON export streams, so it is served beside the table of JSON routes.
  app.use(auditExportRoutes(services));
  app.use(createRestRouter(rest));
  app.use(dashboardRoutes(services));

  app.use((req: Request, res: Response) => {
    if (req.method === 'GET' && !isApiPath(req.path) && wantsHtml(req)) {
      return res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>');
    }
    sendError(res, new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendError(res, refusalFor(error, { log: requestLog(req), databaseOutage: services.databaseOutage }));
  });
  const failures = { log: services.log, databaseOutage: services.databaseOutage };
  const lanes = [graphqlLane(graphql.serveBody, policies, failures), restLane(rest, policies, failures)];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    for (const lane of lanes) if (lane(req, res)) return;
    app(req, res);
  };
  return Object.assign(app, { listener });
}

function isApiPath(path: string): boolean {
  return /^\/(api|graphql|health|status|test-scheduler)(\/|$)/.test(path);
}
