import { array, list, type RestRoute } from '../route.ts';

const CREDENTIAL = 'credential { kind id name prefix }';

/** Per-client usage and the callers of deprecated things (docs/usage-and-deprecation.md). */
export const usageRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/usage',
    summary:
      "Per-client usage, newest bucket first: requests, errors by code, rate-limit refusals and p50/p95 latency per credential, operation, front and hour or day (`granularity`). Your own credentials; an admin's also those of the members of their organizations.",
    params: { limit: 'first', cursor: 'after' },
    operation: `query Usage($credential: String, $operation: String, $front: UsageFront, $since: DateTime, $until: DateTime, $granularity: UsageGranularity, $first: Int, $after: String) {
      usage(credential: $credential, operation: $operation, front: $front, since: $since, until: $until, granularity: $granularity, first: $first, after: $after) {
        edges { node {
          granularity bucketStart ${CREDENTIAL} userId front operation
          requests errors errorCodes { code count } rateLimited p50Ms p95Ms firstSeenAt lastSeenAt
        } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('usage'),
  },
  {
    method: 'GET',
    path: '/api/usage/deprecated',
    summary:
      'Every deprecated schema field, REST route and MCP tool, with its reason and sunset and the credentials (yours; an admin: also those of the members of their organizations) that called it in the last 30 days, each with its last call.',
    operation: `query DeprecatedUsage {
      deprecatedUsage { kind name reason since sunset link callers { ${CREDENTIAL} userId calls lastCalledAt fronts } } }`,
    respond: array('deprecatedUsage'),
  },
];
