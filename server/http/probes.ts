import { randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from '../../src/log.ts';
import type { Readiness } from '../../src/health/readiness.ts';

/**
 * The Kubernetes-style probes, mounted before everything else in http-app.ts: no credential, no
 * CORS or CSRF check, no rate budget (they run no GraphQL operation), and no access-log line per
 * probe (a kubelet and a balancer probe every few seconds; the readiness changes are logged
 * instead, by src/health/readiness.ts). GET and HEAD; any other method is 405.
 *
 * - `GET /livez`: 200 `{"status":"ok"}` whenever the event loop gets to answer. It checks no
 *   dependency: a dead database must not get every instance restarted.
 * - `GET /readyz`: 200 `{"status":"ready","checks":{...}}`, or 503
 *   `{"status":"not_ready","checks":{...},"reason":"..."}` while migrations run, a dependency is
 *   unreachable, or shutdown has begun.
 *
 * `/health` and `/health?detailed=true` are unchanged (REST routes in rest-compat/routes/).
 */
export function probeRoutes(options: { readiness: Readiness; lifecycle: { stopping: boolean }; log: Logger }): Router {
  const { readiness, lifecycle, log } = options;
  const router = express.Router();
  const REQUEST_ID = /^[\w.:-]{1,128}$/;

  const prepare = (req: Request, res: Response): boolean => {
    // The same request id header as every other answer (request-context.ts), without its log line.
    const offered = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof offered === 'string' && REQUEST_ID.test(offered) ? offered : randomUUID());
    res.setHeader('Cache-Control', 'no-store');
    if (lifecycle.stopping) res.setHeader('Connection', 'close');
    if (req.method === 'GET' || req.method === 'HEAD') return true;
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).json({ error: `Method not allowed; use GET, HEAD` });
    return false;
  };

  router.all('/livez', (req, res) => {
    if (!prepare(req, res)) return;
    res.status(200).json({ status: 'ok' });
  });

  router.all('/readyz', (req, res) => {
    if (!prepare(req, res)) return;
    readiness.check().then(
      (report) => {
        if (report.ready) res.status(200).json({ status: 'ready', checks: report.checks });
        else res.status(503).json({ status: 'not_ready', checks: report.checks, reason: report.reason });
      },
      (error: unknown) => {
        log.error({ err: error }, 'readiness check failed unexpectedly');
        if (!res.headersSent) res.status(503).json({ status: 'not_ready', checks: {}, reason: 'readiness check failed' });
      },
    );
  });
  return router;
}
