/**
 * The audit log's hash chain: each event's hash is sha256(the previous event's hash + the
 * canonical JSON of the event), per chain (an organization, or "none"). Editing an event changes
 * its hash; deleting one breaks its successor's link; the chain head (AuditChain) holds the last
 * hash, so deleting the newest event is found too.
 */
import { hash } from 'node:crypto';
import type { AuditEvent } from './types.ts';

/** The predecessor of a chain's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** The fields the hash covers: every field of the event but the hash itself. */
export type HashedFields = Omit<AuditEvent, 'hash'>;

export function eventHash(previousHash: string, event: HashedFields): string {
  return hashOfText(previousHash, hashedText(event));
}

/** sha256 of the previous hash and the text: the one-shot `hash` (Node 20.12+), about half what a Hash object costs for an event. */
export function hashOfText(previousHash: string, text: string): string {
  return hash('sha256', previousHash + text, 'hex');
}

/**
 * What the hash covers: the canonical JSON (below) of the event's fields, the time in ISO 8601
 * with milliseconds. Written out in the canonical key order (the fields sorted by name, variables
 * last) so the native JSON.stringify writes it: the writer runs this for every event, and the
 * general canonicalJson, sorting the keys each time, was its largest cost (profiled). It gives the
 * same text, byte for byte (test/audit/hash-chain.test.ts checks it against canonicalJson).
 */
export function hashedText(event: HashedFields): string {
  return hashedTextOf(event, isoTime(event.occurredAt), canonicalJson(event.variables ?? null));
}

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** The day isoTime wrote last: its first millisecond and its date part (`2026-11-28T`). */
let dayStart = Number.NaN;
let dayPrefix = '';

/**
 * date.toISOString(), byte for byte (test/audit/hash-chain.test.ts), at a tenth of its cost: the
 * date part is written once a day, the time from the milliseconds (toISOString was a microsecond an
 * event, more than a tenth of the writer's work; measured).
 */
export function isoTime(date: Date): string {
  const time = date.getTime();
  let sinceDayStart = time - dayStart;
  if (!(sinceDayStart >= 0 && sinceDayStart < DAY_MS)) {
    const iso = date.toISOString();
    dayStart = time - (((time % DAY_MS) + DAY_MS) % DAY_MS);
    dayPrefix = iso.slice(0, -'00:00:00.000Z'.length);
    sinceDayStart = time - dayStart;
  }
  const seconds = Math.floor(sinceDayStart / 1000);
  return `${dayPrefix}${TWO_DIGITS[Math.floor(seconds / 3600)]}:${TWO_DIGITS[Math.floor(seconds / 60) % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[sinceDayStart % 1000]}Z`;
}

/**
 * hashedText from the parts the writer also stores (the time as ISO 8601, the variables'
 * canonical JSON), so each is written once per event.
 */
export function hashedTextOf(event: HashedFields, occurredAt: string, variables: string): string {
  const fields = JSON.stringify({
    actorId: event.actorId,
    chain: event.chain,
    clientAddress: event.clientAddress,
    credentialId: event.credentialId,
    credentialKind: event.credentialKind,
    credentialPrefix: event.credentialPrefix,
    front: event.front,
    id: event.id,
    occurredAt,
    operation: event.operation,
    organizationId: event.organizationId,
    outcome: event.outcome,
    requestId: event.requestId,
    seq: event.seq,
    targetId: event.targetId,
    targetType: event.targetType,
    traceId: event.traceId,
    userAgent: event.userAgent,
  });
  return `${fields.slice(0, -1)},"variables":${variables}}`;
}

/**
 * JSON with object keys sorted at every level and no whitespace: the same value always gives the
 * same text, whichever order its keys were written or stored in (PostgreSQL's jsonb reorders them).
 * Written for speed (it runs once per event): plain loops and string concatenation.
 */
export function canonicalJson(value: unknown): string {
  return canonicalValue(value) ?? 'null';
}

/** The value's canonical JSON, or undefined where JSON.stringify leaves a value out (undefined, a function, a symbol). */
function canonicalValue(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (typeof value !== 'object') return JSON.stringify(value);
  const json = (value as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return canonicalValue(json.call(value));
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + (canonicalValue(value[i]) ?? 'null');
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  // Keys sort by UTF-16 code units, as `<` compares them (the default sort does the same).
  const keys = Object.keys(object).sort();
  let text = '{';
  for (const key of keys) {
    const item = canonicalValue(object[key]);
    if (item === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${item}`;
  }
  return `${text}}`;
}
