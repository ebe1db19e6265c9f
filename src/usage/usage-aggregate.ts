/**
 * One instance's usage since its last flush, aggregated in memory: a row per hour and per day for
 * each credential, front and operation, and a row per deprecated field or route called by each
 * credential. A flush takes the rows (take()) and adds them to the database's; a failed flush puts
 * them back (restore()), so nothing is lost or counted twice by this instance.
 */
import { addHistogram, bucketOf, emptyHistogram } from './latency-histogram.ts';

export type Granularity = 'hour' | 'day';
const GRANULARITIES: readonly Granularity[] = ['hour', 'day'];

/**
 * Who made a request: the credential it presented (its kind and id: the context's
 * `CredentialKind`, kept as text like the table) and the credential's owner.
 */
export interface UsageCaller {
  credentialKind: string;
  credentialId: string;
  userId: string;
}

/** One operation that ran, as the pipeline saw it end. */
export interface OperationUse extends UsageCaller {
  front: string;
  operation: string;
  /** The first error's code (what the client got); undefined when it succeeded. */
  errorCode?: string;
  durationMs: number;
  at: Date;
}

/** A deprecated field (`Type.field`) or route (`GET /path`) a caller used. */
export interface DeprecatedUse extends UsageCaller {
  subjectKind: 'field' | 'route';
  subject: string;
  front: string;
  operation: string;
  at: Date;
}

export interface UsageRow extends UsageCaller {
  granularity: Granularity;
  bucketStart: Date;
  front: string;
  operation: string;
  requests: number;
  errors: number;
  rateLimited: number;
  errorCodes: Record<string, number>;
  latencyBuckets: number[];
  firstSeenAt: Date;
  lastSeenAt: Date;
}

export interface DeprecatedCallRow extends UsageCaller {
  subjectKind: 'field' | 'route';
  subject: string;
  front: string;
  operation: string;
  calls: number;
  firstCalledAt: Date;
  lastCalledAt: Date;
}

/** The code a refusal for a spent rate budget carries on every front. */
const RATE_LIMITED_CODE = 'RATE_LIMITED';

export function bucketStart(at: Date, granularity: Granularity): Date {
  const start = new Date(at);
  start.setUTCMinutes(0, 0, 0);
  if (granularity === 'day') start.setUTCHours(0);
  return start;
}

/** A usage row's primary key (the table's), as one string. */
function usageKey(row: Pick<UsageRow, 'granularity' | 'bucketStart' | 'credentialKind' | 'credentialId' | 'front' | 'operation'>): string {
  return [row.granularity, row.bucketStart.getTime(), row.credentialKind, row.credentialId, row.front, row.operation].join('\u0000');
}

function deprecatedKey(row: Pick<DeprecatedCallRow, 'subjectKind' | 'subject' | 'credentialKind' | 'credentialId' | 'front' | 'operation'>): string {
  return [row.subjectKind, row.subject, row.credentialKind, row.credentialId, row.front, row.operation].join('\u0000');
}

export class UsageAggregate {
  private usage = new Map<string, UsageRow>();
  private deprecated = new Map<string, DeprecatedCallRow>();

  get size(): number {
    return this.usage.size + this.deprecated.size;
  }

  addOperation(use: OperationUse): void {
    for (const granularity of GRANULARITIES) {
      const start = bucketStart(use.at, granularity);
      const key = usageKey({ ...use, granularity, bucketStart: start });
      let row = this.usage.get(key);
      if (!row) {
        row = {
          granularity,
          bucketStart: start,
          credentialKind: use.credentialKind,
          credentialId: use.credentialId,
          userId: use.userId,
          front: use.front,
          operation: use.operation,
          requests: 0,
          errors: 0,
          rateLimited: 0,
          errorCodes: {},
          latencyBuckets: emptyHistogram(),
          firstSeenAt: use.at,
          lastSeenAt: use.at,
        };
        this.usage.set(key, row);
      }
      row.requests += 1;
      if (use.errorCode !== undefined) {
        row.errors += 1;
        row.errorCodes[use.errorCode] = (row.errorCodes[use.errorCode] ?? 0) + 1;
        if (use.errorCode === RATE_LIMITED_CODE) row.rateLimited += 1;
      }
      row.latencyBuckets[bucketOf(use.durationMs)] += 1;
      if (use.at > row.lastSeenAt) row.lastSeenAt = use.at;
    }
  }

  addDeprecated(use: DeprecatedUse): void {
    const key = deprecatedKey(use);
    const row = this.deprecated.get(key);
    if (row) {
      row.calls += 1;
      if (use.at > row.lastCalledAt) row.lastCalledAt = use.at;
      return;
    }
    const { at, ...caller } = use;
    this.deprecated.set(key, { ...caller, calls: 1, firstCalledAt: at, lastCalledAt: at });
  }

  /** Everything aggregated so far; the aggregate starts empty again. */
  take(): { usage: UsageRow[]; deprecated: DeprecatedCallRow[] } {
    const taken = { usage: [...this.usage.values()], deprecated: [...this.deprecated.values()] };
    this.usage = new Map();
    this.deprecated = new Map();
    return taken;
  }

  /** Puts back rows a flush could not write, added to what arrived meanwhile. */
  restore(taken: { usage: UsageRow[]; deprecated: DeprecatedCallRow[] }): void {
    const later = this.take();
    for (const row of [...taken.usage, ...later.usage]) this.mergeUsage(row);
    for (const row of [...taken.deprecated, ...later.deprecated]) this.mergeDeprecated(row);
  }

  private mergeUsage(row: UsageRow): void {
    const key = usageKey(row);
    const into = this.usage.get(key);
    if (!into) {
      this.usage.set(key, row);
      return;
    }
    into.requests += row.requests;
    into.errors += row.errors;
    into.rateLimited += row.rateLimited;
    for (const [code, count] of Object.entries(row.errorCodes)) into.errorCodes[code] = (into.errorCodes[code] ?? 0) + count;
    addHistogram(into.latencyBuckets, row.latencyBuckets);
    if (row.firstSeenAt < into.firstSeenAt) into.firstSeenAt = row.firstSeenAt;
    if (row.lastSeenAt > into.lastSeenAt) into.lastSeenAt = row.lastSeenAt;
  }

  private mergeDeprecated(row: DeprecatedCallRow): void {
    const key = deprecatedKey(row);
    const into = this.deprecated.get(key);
    if (!into) {
      this.deprecated.set(key, row);
      return;
    }
    into.calls += row.calls;
    if (row.firstCalledAt < into.firstCalledAt) into.firstCalledAt = row.firstCalledAt;
    if (row.lastCalledAt > into.lastCalledAt) into.lastCalledAt = row.lastCalledAt;
  }
}
