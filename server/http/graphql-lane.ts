/**
 * The GraphQL lane: `POST /graphql` with a GraphQL body type served straight from node's HTTP
 * server, before express, as the REST lane (rest-lane.ts) serves the route table's JSON routes.
 * Express walked its twenty-odd layers (probes, metrics page, OAuth server, CORS, CSRF, sign-in
 * pages, OpenAPI, API reference) before reaching /graphql, none of which has anything to do for
 * such a request, and the REST lane matched the path against the route table first: together
 * about 0.1-0.2 ms of CPU per request (docs/benchmarks.md, "/graphql against plain yoga").
 *
 * The lane answers exactly what express would, through the same request policies (metrics,
 * tracing, request id and log, shutdown, the client's turn, the anonymous body deadline) and the
 * same yoga handler (graphql.ts), which needs nothing of express for these requests. It takes
 * only requests express would hand to that handler with nothing else to do:
 *
 * - `POST /graphql`, exactly (no query string, no trailing slash, no `/graphql/stream`);
 * - a body type yoga reads (GRAPHQL_POST_TYPES; multipart uploads use express's helpers);
 * - nothing for the CORS policy or the CSRF check to do (asked of cors.ts and csrf.ts: no
 *   `Origin` header, no cookie-authenticated write).
 *
 * Everything else (GET, browsers' cross-origin calls, uploads, the SSE paths, 415s) goes to express.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RefusalDeps } from '../../src/refusal.ts';
import type { PolicyRequest, RequestPolicy } from './request-policies.ts';
import { corsApplies } from './cors.ts';
import { csrfCheckApplies } from './csrf.ts';
import { GRAPHQL_POST_TYPES } from './graphql.ts';
import { runPolicies } from './rest-lane.ts';

const PATH = '/graphql';

/**
 * Returns a request listener that serves a request from the lane and returns true, or returns
 * false (having touched nothing) for express to serve it.
 */
export function graphqlLane(
  serveBody: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  policies: readonly RequestPolicy[],
  failures: RefusalDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.url !== PATH || req.method !== 'POST' || corsApplies(req)) return false;
    if (!GRAPHQL_POST_TYPES.test(req.headers['content-type'] ?? 'application/json')) return false;
    if (csrfCheckApplies({ method: 'POST', path: PATH, headers: req.headers })) return false;
    // What express sets on a request mounted at /graphql, as the policies read it: the span's
    // and the metrics' route template is the mount.
    const laneReq = Object.assign(req, { path: PATH, originalUrl: PATH, baseUrl: PATH }) as PolicyRequest;
    runPolicies(policies, laneReq, res, () => void serveBody(laneReq, res), failures);
    return true;
  };
}
