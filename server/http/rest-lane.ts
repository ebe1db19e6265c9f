/**
 * The REST lane: the route table's JSON routes served straight from node's HTTP server, before
 * express. Express costs about 0.1 ms of CPU per request on its own (its request/response
 * prototypes, router walk and response helpers: measured in docs/benchmarks.md), as much as the
 * whole answer of a small read. The lane answers exactly what express would, through the same
 * request policies (metrics, tracing, request id and log, shutdown) and the same route handler
 * (rest-compat/router.ts) running the same GraphQL pipeline:
 *
 * - it takes only requests express would hand to the REST router with nothing else to do: a
 *   route's own method on a path of the table (found in the table's order, matched as express's
 *   router matches), and nothing for the CORS policy or the CSRF check to do (asked of cors.ts
 *   and csrf.ts: no `Origin` header, no cookie-authenticated write);
 * - everything else goes to express: HEAD and OPTIONS, a 405, a path outside the table, a
 *   malformed parameter (express's 400), uploads (they use express's request helpers), browsers'
 *   cross-origin calls.
 *
 * Event streams (GET /api/generate) are served here too: a follower holds its request for as long
 * as it follows, and express's request decorations and router closures would be held with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { servedWithoutFramework, type RestRequest, type RestRoutes } from '../../rest-compat/router.ts';
import { sendError } from '../../rest-compat/errors.ts';
import { refusalFor, type RefusalDeps } from '../../src/refusal.ts';
import type { PolicyRequest, RequestPolicy } from './request-policies.ts';
import { corsApplies } from './cors.ts';
import { csrfCheckApplies } from './csrf.ts';

/** What express sets on a request the policies and the handler read; the lane sets the same. */
type LaneRequest = RestRequest & PolicyRequest;

/**
 * Returns a request listener that serves a request from the lane and returns true, or returns
 * false (having touched nothing) for express to serve it.
 */
export function restLane(
  routes: RestRoutes,
  policies: readonly RequestPolicy[],
  failures: RefusalDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const method = req.method ?? '';
    const url = req.url ?? '';
    if (url.charCodeAt(0) !== 47 /* '/': not an absolute-form URL */ || corsApplies(req)) return false;
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    if (csrfCheckApplies({ method, path: pathname, headers: req.headers })) return false;
    // HEAD and OPTIONS have no route of their own: found.route is undefined and express answers.
    const found = routes.find(method, pathname);
    if (!found?.route || !servedWithoutFramework(found.route)) return false;

    const entry = found.route;
    const laneReq = Object.assign(req, {
      path: pathname,
      originalUrl: url,
      baseUrl: '',
      route: { path: entry.route.path },
      query: parseQuery(queryAt === -1 ? '' : url.slice(queryAt + 1)),
      params: found.params,
    }) as LaneRequest;
    runPolicies(policies, laneReq, res, () => (entry.stream ? routes.handleStream(entry, laneReq, res) : routes.handle(entry, laneReq, res)), failures);
    return true;
  };
}

/** The policies in order, each calling the next, then the handler; a policy's throw is answered by the one rule, as in express. */
export function runPolicies(policies: readonly RequestPolicy[], req: PolicyRequest, res: ServerResponse, handler: () => void, failures: RefusalDeps): void {
  new PolicyChain(policies, req, res, handler, failures).step(0);
}

/**
 * One request's way through the policies. An object with a method, not a named closure per
 * request: a policy may keep its `next` for as long as the request lives (an event stream's: as
 * long as it follows), and a named closure costs a few hundred bytes more under tsx (keepNames).
 */
class PolicyChain {
  constructor(
    private readonly policies: readonly RequestPolicy[],
    private readonly req: PolicyRequest,
    private readonly res: ServerResponse,
    private readonly handler: () => void,
    private readonly failures: RefusalDeps,
  ) {}

  step(index: number): void {
    try {
      if (index === this.policies.length) this.handler();
      else this.policies[index]!(this.req, this.res, () => this.step(index + 1));
    } catch (error) {
      sendError(this.res, refusalFor(error, this.failures));
    }
  }
}
