import { graphql, type ResultOf } from '../../api/graphql.ts';

export const AUDIT_PAGE_SIZE = 50;

export const AuditEventsQuery = graphql(`
  query DashboardAuditEvents(
    $first: Int
    $after: String
    $actor: UUID
    $credential: String
    $front: String
    $operation: String
    $outcome: String
    $since: DateTime
    $until: DateTime
  ) {
    auditEvents(
      first: $first
      after: $after
      actor: $actor
      credential: $credential
      front: $front
      operation: $operation
      outcome: $outcome
      since: $since
      until: $until
    ) {
      edges {
        node {
          id
          occurredAt
          actorId
          credential { kind prefix }
          front
          operation
          target { type id }
          outcome
          clientAddress
          userAgent
          requestId
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

export type AuditEventRow = ResultOf<typeof AuditEventsQuery>['auditEvents']['edges'][number]['node'];
