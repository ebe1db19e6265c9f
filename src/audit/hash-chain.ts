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
 * Written for speed (it runs once per event): plain loops and string concatenation.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${text}]`;
  }
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const object = value as Record<string, unknown>;
  // Keys sort by UTF-16 code units, as `<` compares them (the default sort does the same).
  const keys = Object.keys(object).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    first = false;
  }
  return `${text}}`;
}
