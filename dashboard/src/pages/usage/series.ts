import type { UsagePoint } from './usage-chart.tsx';

/** What the page reads of a usage row. */
export interface UsageRow {
  bucketStart: string;
  credential: { kind: string; id: string; name: string | null; prefix: string | null };
  userId: string;
  front: string;
  operation: string;
  requests: number;
  errors: number;
  rateLimited: number;
  p50Ms: number | null;
  p95Ms: number | null;
  lastSeenAt: string;
}

export type Granularity = 'hour' | 'day';

export interface CredentialTotal {
  key: string;
  credential: UsageRow['credential'];
  requests: number;
  errors: number;
  rateLimited: number;
  lastSeenAt: string;
}

export const credentialKey = (credential: UsageRow['credential']) => `${credential.kind}:${credential.id}`;

/** Each credential's totals over the rows, the busiest first. */
export function credentialTotals(rows: UsageRow[]): CredentialTotal[] {
  const totals = new Map<string, CredentialTotal>();
  for (const row of rows) {
    const key = credentialKey(row.credential);
    const total = totals.get(key) ?? { key, credential: row.credential, requests: 0, errors: 0, rateLimited: 0, lastSeenAt: row.lastSeenAt };
    total.requests += row.requests;
    total.errors += row.errors;
    total.rateLimited += row.rateLimited;
    if (row.lastSeenAt > total.lastSeenAt) total.lastSeenAt = row.lastSeenAt;
    totals.set(key, total);
  }
  return [...totals.values()].sort((a, b) => b.requests - a.requests || a.key.localeCompare(b.key));
}

/** Every bucket of the window, oldest first, with the credential's requests and errors (zero where it made none). */
export function timeline(rows: UsageRow[], granularity: Granularity, since: Date, until: Date): UsagePoint[] {
  const step = granularity === 'hour' ? 3_600_000 : 86_400_000;
  const counts = new Map<number, { requests: number; errors: number }>();
  for (const row of rows) {
    const at = new Date(row.bucketStart).getTime();
    const count = counts.get(at) ?? { requests: 0, errors: 0 };
    count.requests += row.requests;
    count.errors += row.errors;
    counts.set(at, count);
  }
  const points: UsagePoint[] = [];
  for (let at = bucketOf(since, granularity).getTime(); at <= until.getTime(); at += step) {
    const count = counts.get(at) ?? { requests: 0, errors: 0 };
    points.push({ label: bucketLabel(new Date(at), granularity), ...count });
  }
  return points;
}

/** Per operation and front: the credential's requests, errors and the slowest p95 of its buckets. */
export function byOperation(rows: UsageRow[]) {
  const operations = new Map<string, { operation: string; front: string; requests: number; errors: number; rateLimited: number; p95Ms: number | null }>();
  for (const row of rows) {
    const key = `${row.front} ${row.operation}`;
    const seen = operations.get(key) ?? { operation: row.operation, front: row.front, requests: 0, errors: 0, rateLimited: 0, p95Ms: null };
    seen.requests += row.requests;
    seen.errors += row.errors;
    seen.rateLimited += row.rateLimited;
    if (row.p95Ms !== null && (seen.p95Ms === null || row.p95Ms > seen.p95Ms)) seen.p95Ms = row.p95Ms;
    operations.set(key, seen);
  }
  return [...operations.values()].sort((a, b) => b.requests - a.requests || a.operation.localeCompare(b.operation));
}

export function bucketOf(at: Date, granularity: Granularity): Date {
  const start = new Date(at);
  start.setUTCMinutes(0, 0, 0);
  if (granularity === 'day') start.setUTCHours(0);
  return start;
}

function bucketLabel(at: Date, granularity: Granularity): string {
  const day = at.toISOString().slice(5, 10);
  return granularity === 'hour' ? `${day} ${at.toISOString().slice(11, 13)}h` : day;
}
