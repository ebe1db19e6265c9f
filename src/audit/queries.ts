/**
 * Reading the audit log: the events a viewer may see, filtered, newest first, a keyset page at a
 * time (GET /api/audit-events, the auditEvents connection) or all of them as a stream (the NDJSON
 * export). Who sees what: every user their own events (they are the actor); an organization's
 * admins (an admin user with the admin scope) its events. Nobody sees another organization's:
 * the filter leaves them out, so asking for them gives an empty page, never a refusal.
 */
import { AppError } from '../errors.ts';
import { decodeCursor, encodeCursor, instantAndId, keysetPage, UUID, type Page } from '../pagination.ts';
import { AUDIT_FRONTS, type AuditEvent } from './types.ts';

export interface AuditFilters {
  actor?: string | null;
  /** A credential's id or its public prefix. */
  credential?: string | null;
  front?: string | null;
  operation?: string | null;
  /** `ok`, `error` (any error), or an error code. */
  outcome?: string | null;
  since?: Date | null;
  until?: Date | null;
}

/** Whose events a reader sees. */
export interface AuditAudience {
  userId: string;
  /** The organizations whose every event the reader sees (those the reader is an admin of). */
  organizationIds: readonly string[];
}

interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

const COLUMNS = `id, chain, seq::text AS seq, "occurredAt", "organizationId", "actorId", "credentialKind", "credentialId", "credentialPrefix",
  front, operation, "targetType", "targetId", outcome, "clientAddress", "userAgent", "requestId", "traceId", variables, hash`;

type StoredRow = Omit<AuditEvent, 'seq'> & { seq: string };

export function fromRow(row: StoredRow): AuditEvent {
  return { ...row, seq: Number(row.seq) };
}

export function auditCursor(event: Pick<AuditEvent, 'occurredAt' | 'id'>): string {
  return encodeCursor({ t: event.occurredAt.toISOString(), id: event.id });
}

/** The WHERE clause and its parameters for an audience and filters. */
function whereClause(audience: AuditAudience, filters: AuditFilters): { sql: string; params: unknown[] } {
  const params: unknown[] = [audience.userId, audience.organizationIds];
  const conditions = ['("actorId" = $1::uuid OR "organizationId" = ANY($2::uuid[]))'];
  const add = (condition: (placeholder: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filters.actor) {
    if (!UUID.test(filters.actor)) throw AppError.badInput('actor', 'must be a user id (a UUID)');
    add((p) => `"actorId" = ${p}::uuid`, filters.actor);
  }
  if (filters.credential) add((p) => `("credentialId" = ${p} OR "credentialPrefix" = ${p})`, filters.credential);
  if (filters.front) {
    if (!(AUDIT_FRONTS as readonly string[]).includes(filters.front)) throw AppError.badInput('front', `must be one of ${AUDIT_FRONTS.join(', ')}`);
    add((p) => `front = ${p}`, filters.front);
  }
  if (filters.operation) add((p) => `operation = ${p}`, filters.operation);
  if (filters.outcome === 'error') conditions.push(`outcome <> 'ok'`);
  else if (filters.outcome) add((p) => `outcome = ${p}`, filters.outcome);
  if (filters.since) add((p) => `"occurredAt" >= ${p}`, filters.since);
  if (filters.until) add((p) => `"occurredAt" < ${p}`, filters.until);
  return { sql: conditions.join(' AND '), params };
}

export class AuditQueries {
  constructor(private readonly sql: Queryable) {}

  /** A page of events, newest first (`cursor`: the previous page's). */
  async list(audience: AuditAudience, filters: AuditFilters, page: { limit: number; cursor?: string | null }): Promise<Page<AuditEvent>> {
    const where = whereClause(audience, filters);
    const params = [...where.params];
    let sql = where.sql;
    if (page.cursor) {
      const after = decodeCursor(page.cursor, instantAndId('t', 'id'), 'list');
      params.push(after.at, after.id);
      sql += ` AND ("occurredAt", id) < ($${params.length - 1}, $${params.length}::uuid)`;
    }
    params.push(page.limit + 1);
    const { rows } = await this.sql.query<StoredRow>(
      `SELECT ${COLUMNS} FROM "AuditEvent" WHERE ${sql} ORDER BY "occurredAt" DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return keysetPage(rows.map(fromRow), page.limit, auditCursor);
  }

  /** Every matching event, newest first, read `chunk` rows at a time (the export streams them). */
  async *all(audience: AuditAudience, filters: AuditFilters, chunk = 500): AsyncGenerator<AuditEvent> {
    let cursor: string | null = null;
    do {
      const page: Page<AuditEvent> = await this.list(audience, filters, { limit: chunk, cursor });
      yield* page.rows;
      cursor = page.nextCursor;
    } while (cursor);
  }
}

/** The event as an export line or a REST row: snake_case, the time in ISO 8601. */
export function auditEventJson(event: AuditEvent): Record<string, unknown> {
  return {
    id: event.id,
    occurred_at: event.occurredAt.toISOString(),
    organization_id: event.organizationId,
    actor_id: event.actorId,
    credential: event.credentialKind ? { kind: event.credentialKind, id: event.credentialId, prefix: event.credentialPrefix } : null,
    front: event.front,
    operation: event.operation,
    target: event.targetType ? { type: event.targetType, id: event.targetId } : null,
    outcome: event.outcome,
    client_address: event.clientAddress,
    user_agent: event.userAgent,
    request_id: event.requestId,
    trace_id: event.traceId,
    variables: event.variables,
    chain: event.chain,
    seq: event.seq,
    hash: event.hash,
  };
}
