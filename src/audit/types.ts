/**
 * The audit log's event, as the recorder takes it and as readers get it (docs/audit.md).
 */

/** Where an event came from: each request front, plus the CLI, the web pages and the service itself. */
export const AUDIT_FRONTS = ['rest', 'graphql', 'graphql-ws', 'dashboard', 'mcp', 'cli', 'web', 'system'] as const;
export type AuditFront = (typeof AUDIT_FRONTS)[number];

/** api_key (sk_...), access_token (pat_...), oauth_app (an OAuth grant), session (a browser), cli. */
export type AuditCredentialKind = 'api_key' | 'access_token' | 'oauth_app' | 'session' | 'cli';

export interface AuditCredential {
  kind: AuditCredentialKind;
  id: string;
  /** Its public prefix when the recorder knows it already; otherwise the writer looks it up. */
  prefix?: string | null;
}

/** What a caller hands the recorder: everything it knows now; the writer resolves the rest. */
export interface AuditEventInput {
  front: AuditFront;
  operation: string;
  /** `ok`, or the error code (UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, ...). */
  outcome: string;
  actorId?: string | null;
  credential?: AuditCredential | null;
  /**
   * The organization, when the caller knows it. Otherwise the writer decides: the one `orgHint`
   * names when the actor (or `subjectUserId`) is a member, else that user's first organization.
   */
  organizationId?: string | null;
  orgHint?: string | null;
  /** The user the event is about when there is no actor (a failed sign-in to a known account). */
  subjectUserId?: string | null;
  target?: { type: string; id: string } | null;
  clientAddress?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
  traceId?: string | null;
  /** Already redacted (redactVariables). */
  variables?: Record<string, unknown> | null;
  /** Default: now. */
  occurredAt?: Date;
}

/** An event as stored: the fields the hash covers, then its hash. */
export interface AuditEvent {
  id: string;
  chain: string;
  seq: number;
  occurredAt: Date;
  organizationId: string | null;
  actorId: string | null;
  credentialKind: string | null;
  credentialId: string | null;
  credentialPrefix: string | null;
  front: string;
  operation: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  traceId: string | null;
  variables: unknown;
  hash: string;
}

/** The chain of events that have no organization. */
export const NO_ORGANIZATION_CHAIN = 'none';
