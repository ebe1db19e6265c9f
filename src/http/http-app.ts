import express, { type NextFunction, type Request, type Response } from 'express';
import type { Services } from '../services.ts';
import { createRestRouter } from '../../rest-compat/router.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { AppError } from '../errors.ts';
import { unauthenticatedError } from '../context.ts';
import { contextFor, requestLog, requestLogging } from './request-context.ts';
import { csrfProtection } from './csrf.ts';
import { authPages, escapeHtml, signInRedirect } from './auth-pages.ts';
import { graphqlEndpoint } from './graphql.ts';
import { jsonRpcEndpoint } from '../../rest-compat/json-rpc/mcp-endpoint.ts';

/** The HTTP surface: REST routes, /graphql, the sign-in pages and the landing page. */
export function createHttpApp(services: Services, lifecycle: { stopping: boolean } = { stopping: false }) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('etag', false);
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
  app.use(csrfProtection);

  app.use(authPages(services));
  app.use('/graphql', graphqlEndpoint(services));
  // The spec's JSON-RPC tool endpoint, an MCP server (reads its own body: no JSON parser before it).
  app.all('/api/service', ...jsonRpcEndpoint({ services, context: (req) => contextFor(services, req), version: services.version }));
  app.use(
    createRestRouter({
      routes: restRoutes,
      context: (req) => contextFor(services, req),
      maxUploadBytes: services.config.storage.maxUploadBytes,
    }),
  );
  app.get('/', async (req, res) => {
    const ctx = await contextFor(services, req);
    if (!ctx.viewer) {
      // A browser (it asks for HTML) goes to sign in; an API client gets the 401 JSON instead.
      if (wantsHtml(req)) return res.redirect(303, signInRedirect(services, req));
      return sendError(res, unauthenticatedError(ctx));
    }
    res.type('html').send(landingPage(ctx.viewer.user.email));
  });

  app.use((req: Request, res: Response) => {
    if (req.method === 'GET' && !isApiPath(req.path) && wantsHtml(req)) {
      return res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Not found</h1>');
    }
    sendError(res, new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    requestLog(req).error({ err: error }, 'unhandled error');
    sendError(res, new AppError('INTERNAL_SERVER_ERROR', 'Internal server error'));
  });
  return app;
}

/** A browser navigation: HTML preferred over JSON (a bare wildcard Accept, as curl and fetch send, is not). */
function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

function isApiPath(path: string): boolean {
  return /^\/(api|graphql|health|status|test-scheduler)(\/|$)/.test(path);
}

function landingPage(email: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Gateway</title><style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d2433}a{color:#2450d6}</style></head>
<body><h1>Gateway</h1><p>Signed in as <strong>${escapeHtml(email)}</strong>.</p>
<ul><li><a href="/graphql">GraphQL endpoint</a> (GraphiQL in development)</li><li><a href="/health?detailed=true">Detailed health</a></li><li><a href="/test-scheduler">Self-test scheduler</a></li></ul>
<form method="post" action="/logout"><button type="submit">Sign out</button></form></body></html>`;
}
