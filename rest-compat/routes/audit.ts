import { list, type RestRoute } from '../route.ts';

const EVENT_FIELDS =
  'id occurredAt organizationId actorId credential { kind id prefix } front operation target { type id } outcome clientAddress userAgent requestId traceId variables chain seq hash';

/**
 * The audit log (docs/audit.md): the caller's own events, and every event of the organizations
 * the caller administers; newest first. Paging: `limit` (default 50, max 500) and `cursor`. The
 * NDJSON export (`GET /api/audit-events/export`, the same filters) streams and is served by
 * server/http/audit-export.ts, outside this table of JSON routes.
 */
export const auditRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/audit-events',
    summary:
      'Audit events, newest first: yours, and every event of the organizations you administer. Filters `actor`, `credential` (id or prefix), `front`, `operation`, `outcome` (`ok`, `error` or a code), `since`, `until`.',
    params: { limit: 'first', cursor: 'after' },
    operation: `query AuditEvents($actor: UUID, $credential: String, $front: String, $operation: String, $outcome: String, $since: DateTime, $until: DateTime, $first: Int, $after: String) {
      auditEvents(actor: $actor, credential: $credential, front: $front, operation: $operation, outcome: $outcome, since: $since, until: $until, first: $first, after: $after) {
        edges { node { ${EVENT_FIELDS} } }
        pageInfo { hasNextPage endCursor }
      } }`,
    respond: list('auditEvents'),
  },
];
