/**
 * The usage tables (prisma/migrations/20261127150000_usage): additive upserts from each
 * instance's flush, the retention purge, and the reads behind GET /api/usage and
 * GET /api/usage/deprecated.
 */
import type { SqlClient } from '../db/sql-client.ts';
import { bucketStart, type DeprecatedCallRow, type Granularity, type UsageRow } from './usage-aggregate.ts';

/** Rows per INSERT statement (14 parameters a row: far below PostgreSQL's 65,535). */
const ROWS_PER_STATEMENT = 500;

const USAGE_COLUMNS = [
  ['granularity', 'text'],
  ['bucketStart', 'timestamptz'],
  ['credentialKind', 'text'],
  ['credentialId', 'text'],
  ['userId', 'uuid'],
  ['front', 'text'],
  ['operation', 'text'],
  ['requests', 'int'],
  ['errors', 'int'],
  ['rateLimited', 'int'],
  ['errorCodes', 'jsonb'],
  ['latencyBuckets', 'int[]'],
  ['firstSeenAt', 'timestamptz'],
  ['lastSeenAt', 'timestamptz'],
] as const;

/**
 * Counts are added to the stored row's (never replace it), error codes added code by code and
 * the latency histogram bucket by bucket: two instances flushing the same row both count.
 */
const USAGE_CONFLICT = `ON CONFLICT ("granularity", "bucketStart", "credentialKind", "credentialId", "front", "operation") DO UPDATE SET
  "requests" = "UsageBucket"."requests" + excluded."requests",
  "errors" = "UsageBucket"."errors" + excluded."errors",
  "rateLimited" = "UsageBucket"."rateLimited" + excluded."rateLimited",
  "errorCodes" = (SELECT coalesce(jsonb_object_agg(code, total), '{}'::jsonb) FROM (
      SELECT key AS code, sum(value::int) AS total
        FROM (SELECT * FROM jsonb_each_text("UsageBucket"."errorCodes") UNION ALL SELECT * FROM jsonb_each_text(excluded."errorCodes")) AS codes
       GROUP BY key) AS sums),
  "latencyBuckets" = ARRAY(SELECT coalesce(stored, 0) + coalesce(added, 0)
      FROM unnest("UsageBucket"."latencyBuckets", excluded."latencyBuckets") WITH ORDINALITY AS buckets(stored, added, position) ORDER BY position),
  "firstSeenAt" = least("UsageBucket"."firstSeenAt", excluded."firstSeenAt"),
  "lastSeenAt" = greatest("UsageBucket"."lastSeenAt", excluded."lastSeenAt")`;

const DEPRECATED_COLUMNS = [
  ['subjectKind', 'text'],
  ['subject', 'text'],
  ['credentialKind', 'text'],
  ['credentialId', 'text'],
  ['userId', 'uuid'],
  ['front', 'text'],
  ['operation', 'text'],
  ['calls', 'int'],
  ['firstCalledAt', 'timestamptz'],
  ['lastCalledAt', 'timestamptz'],
] as const;

const DEPRECATED_CONFLICT = `ON CONFLICT ("subjectKind", "subject", "credentialKind", "credentialId", "front", "operation") DO UPDATE SET
  "calls" = "DeprecatedCall"."calls" + excluded."calls",
  "firstCalledAt" = least("DeprecatedCall"."firstCalledAt", excluded."firstCalledAt"),
  "lastCalledAt" = greatest("DeprecatedCall"."lastCalledAt", excluded."lastCalledAt")`;

/** Who may read which rows: the viewer's own credentials, and with `orgAdmin` those of every member of the viewer's organizations. */
export interface UsageReader {
  userId: string;
  orgAdmin: boolean;
}

export interface UsageFilter {
  granularity: Granularity;
  credentialId?: string;
  operation?: string;
  front?: string;
  since?: Date;
  until?: Date;
}

/** A page position: the row after which the next page starts (newest bucket first). */
export interface UsagePosition {
  at: Date;
  credentialKind: string;
  credentialId: string;
  front: string;
  operation: string;
}

export interface StoredUsageRow extends UsageRow {
  credentialName: string | null;
  credentialPrefix: string | null;
}

export interface DeprecatedCaller {
  subjectKind: 'field' | 'route';
  subject: string;
  credentialKind: string;
  credentialId: string;
  credentialName: string | null;
  credentialPrefix: string | null;
  userId: string;
  front: string;
  operation: string;
  calls: number;
  lastCalledAt: Date;
}

/** A write that failed part way: `unwritten` are the rows not added (the earlier ones were). */
export class PartialWrite<T> extends Error {
  constructor(
    cause: unknown,
    readonly unwritten: T[],
  ) {
    super(`usage write failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export class UsageStore {
  constructor(private readonly sql: SqlClient) {}

  /** Adds the rows to the stored ones; a failure says which rows were not added (PartialWrite). */
  addUsage(rows: UsageRow[]): Promise<void> {
    return this.addInChunks(rows, (chunk) => {
      const values = chunk.flatMap((row) => USAGE_COLUMNS.map(([column]) => (column === 'errorCodes' ? JSON.stringify(row.errorCodes) : row[column])));
      return this.sql.query(insertSql('UsageBucket', USAGE_COLUMNS, chunk.length, USAGE_CONFLICT), values);
    });
  }

  addDeprecated(rows: DeprecatedCallRow[]): Promise<void> {
    return this.addInChunks(rows, (chunk) => {
      const values = chunk.flatMap((row) => DEPRECATED_COLUMNS.map(([column]) => row[column]));
      return this.sql.query(insertSql('DeprecatedCall', DEPRECATED_COLUMNS, chunk.length, DEPRECATED_CONFLICT), values);
    });
  }

  /** One statement per chunk, each committed on its own: a failure leaves the earlier chunks added. */
  private async addInChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
    for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
      try {
        await insert(rows.slice(at, at + ROWS_PER_STATEMENT));
      } catch (error) {
        throw new PartialWrite(error, rows.slice(at));
      }
    }
  }

  /** Deletes hourly rows older than `hourlyBefore`, daily rows and deprecated calls older than `dailyBefore`. */
  async purge(hourlyBefore: Date, dailyBefore: Date): Promise<number> {
    const usage = await this.sql.query(
      `DELETE FROM "UsageBucket" WHERE ("granularity" = 'hour' AND "bucketStart" < $1) OR ("granularity" = 'day' AND "bucketStart" < $2)`,
      [hourlyBefore, dailyBefore],
    );
    const deprecated = await this.sql.query(`DELETE FROM "DeprecatedCall" WHERE "lastCalledAt" < $1`, [dailyBefore]);
    return (usage.rowCount ?? 0) + (deprecated.rowCount ?? 0);
  }

  /** A page of usage rows the reader may see, newest bucket first; `limit + 1` rows are read to tell whether more follow. */
  async list(reader: UsageReader, filter: UsageFilter, limit: number, after: UsagePosition | null): Promise<StoredUsageRow[]> {
    const params: unknown[] = [reader.userId, reader.orgAdmin, filter.granularity];
    const where = [readable('u'), `u."granularity" = $3`];
    const add = (condition: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(condition(params.length));
    };
    if (filter.credentialId !== undefined) add((n) => `u."credentialId" = $${n}`, filter.credentialId);
    if (filter.operation !== undefined) add((n) => `u."operation" = $${n}`, filter.operation);
    if (filter.front !== undefined) add((n) => `u."front" = $${n}`, filter.front);
    // `since` within a bucket takes the whole bucket: a bucket is counted whole or not at all.
    if (filter.since !== undefined) add((n) => `u."bucketStart" >= $${n}`, bucketStart(filter.since, filter.granularity));
    if (filter.until !== undefined) add((n) => `u."bucketStart" < $${n}`, filter.until);
    if (after) {
      params.push(after.at, after.credentialKind, after.credentialId, after.front, after.operation);
      const n = params.length - 4;
      where.push(
        `(u."bucketStart" < $${n} OR (u."bucketStart" = $${n} AND (u."credentialKind", u."credentialId", u."front", u."operation") > ($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4})))`,
      );
    }
    params.push(limit + 1);
    const { rows } = await this.sql.query<StoredUsageRow>(
      `SELECT u.*, ${CREDENTIAL_LABEL}
         FROM "UsageBucket" u ${CREDENTIAL_JOINS}
        WHERE ${where.join(' AND ')}
        ORDER BY u."bucketStart" DESC, u."credentialKind", u."credentialId", u."front", u."operation"
        LIMIT $${params.length}`,
      params,
    );
    return rows;
  }

  /** Calls of the deprecated fields and routes since `since` by credentials the reader may see, each with its last call. */
  async deprecatedCallers(reader: UsageReader, since: Date): Promise<DeprecatedCaller[]> {
    const { rows } = await this.sql.query<DeprecatedCaller>(
      `SELECT u."subjectKind", u."subject", u."credentialKind", u."credentialId", u."userId", u."front", u."operation", u."calls", u."lastCalledAt", ${CREDENTIAL_LABEL}
         FROM "DeprecatedCall" u ${CREDENTIAL_JOINS}
        WHERE ${readable('u')} AND u."lastCalledAt" >= $3
        ORDER BY u."lastCalledAt" DESC`,
      [reader.userId, reader.orgAdmin, since],
    );
    return rows;
  }
}

/** Rows of the reader's own credentials ($1), and with $2 (an admin) of the members of the reader's organizations. */
function readable(alias: string): string {
  return `(${alias}."userId" = $1 OR ($2 AND ${alias}."userId" IN (
    SELECT member."userId" FROM "Membership" mine JOIN "Membership" member ON member."orgId" = mine."orgId" WHERE mine."userId" = $1)))`;
}

/** The credential's name and public prefix where it has them (API keys, access tokens, OAuth apps). */
const CREDENTIAL_JOINS = `
  LEFT JOIN "ApiKey" k ON u."credentialKind" IN ('api_key', 'access_token') AND k."id"::text = u."credentialId"
  LEFT JOIN "OAuthGrant" g ON u."credentialKind" = 'oauth_token' AND g."id"::text = u."credentialId"
  LEFT JOIN "OAuthClient" c ON c."id" = g."clientId"`;
const CREDENTIAL_LABEL = `coalesce(k."name", c."name") AS "credentialName", k."prefix" AS "credentialPrefix"`;

function insertSql(table: string, columns: readonly (readonly [string, string])[], rows: number, conflict: string): string {
  const tuples = Array.from(
    { length: rows },
    (_, row) => `(${columns.map(([, type], column) => `$${row * columns.length + column + 1}::${type}`).join(', ')})`,
  );
  return `INSERT INTO "${table}" (${columns.map(([name]) => `"${name}"`).join(', ')}) VALUES ${tuples.join(', ')} ${conflict}`;
}
