/**
 * The audit log's hash chain: each event's hash is sha256(the previous event's hash + the
 * canonical JSON of the event), per chain (an organization, or "none"). Editing an event changes
 * its hash; deleting one breaks its successor's link; the chain head (AuditChain) holds the last
 * hash, so deleting the newest event is found too.
 */
import { createHash } from 'node:crypto';
import type { AuditEvent } from './types.ts';

/** The predecessor of a chain's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields the hash covers: every field of the event but the hash itself. */
export type HashedFields = Omit<AuditEvent, 'hash'>;

export function eventHash(previousHash: string, event: HashedFields): string {
  return createHash('sha256')
    .update(previousHash)
    .update(canonicalJson(hashedView(event)))
    .digest('hex');
}

/** The event as the hash sees it: a fixed set of keys, the time in ISO 8601 with milliseconds. */
function hashedView(event: HashedFields): Record<string, unknown> {
  return {
    id: event.id,
    chain: event.chain,
    seq: event.seq,
    occurredAt: event.occurredAt.toISOString(),
    organizationId: event.organizationId,
    actorId: event.actorId,
    credentialKind: event.credentialKind,
    credentialId: event.credentialId,
    credentialPrefix: event.credentialPrefix,
    front: event.front,
    operation: event.operation,
    targetType: event.targetType,
    targetId: event.targetId,
    outcome: event.outcome,
    clientAddress: event.clientAddress,
    userAgent: event.userAgent,
    requestId: event.requestId,
    traceId: event.traceId,
    variables: event.variables ?? null,
  };
}

/**
 * JSON with object keys sorted at every level and no whitespace: the same value always gives the
 * same text, whichever order its keys were written or stored in (PostgreSQL's jsonb reorders them).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  return JSON.stringify(value);
}
