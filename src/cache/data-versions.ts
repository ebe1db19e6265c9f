/**
 * Data versions (docs/caching.md): one counter per scope, `o:<organization id>` for an
 * organization's returns data and `u:<user id>` for a user's workspace data, bumped by database
 * triggers in the same transaction as every write to the tables behind the cached reads
 * (prisma/migrations/20261128100000_data_versions). They live in the database, so every instance
 * of a fleet reads the same counters the moment a write commits: an answer keyed by them is never
 * served after the data it was read from changed, on any instance.
 */
import type { QueryResultRow } from 'pg';
import type { SqlClient } from '../db/sql-client.ts';

/** What reading versions needs of the database: one query (pg.Pool). */
export interface VersionSource {
  query<T extends QueryResultRow>(sql: string, params: unknown[]): Promise<{ rows: T[] }>;
}

export const organizationScope = (organizationId: string): string => `o:${organizationId}`;
export const userScope = (userId: string): string => `u:${userId}`;

/**
 * For the rest of the transaction open on `client` (a checked-out connection), the triggers
 * leave `scope` alone; the transaction must call `bumpDeferredVersion` right before its COMMIT.
 * For long transactions (an ingest's load): a version's row stays locked from its bump to the
 * commit, so bumped with the first write it would make every other writer of the scope wait for
 * the whole transaction, and one that had locked a row the transaction updates later would
 * deadlock with it (prisma/migrations/20261129000000_data_version_deferred names the same setting).
 */
export async function deferVersionBump(client: SqlClient, scope: string): Promise<void> {
  await client.query(`SELECT set_config('gateway.deferred_data_version', $1, true)`, [scope]);
}

/** Bumps the scope a transaction deferred: its last statement before COMMIT. */
export async function bumpDeferredVersion(client: SqlClient, scope: string): Promise<void> {
  await client.query(`SELECT "data_version_bump"(ARRAY[$1::text])`, [scope]);
}

export class DataVersions {
  constructor(private readonly db: VersionSource) {}

  /**
   * The versions of the scopes, in the order given, as one text ("3.0.17"): a scope never
   * written reads 0. Read before the data it keys (under READ COMMITTED the read that follows
   * sees every write these counters count, and maybe newer ones: never older). `known`: the
   * versions the credential check read with the key (they cover the viewer's scopes), no query.
   */
  async read(scopes: readonly string[], known?: ReadonlyMap<string, string>): Promise<string> {
    if (known) return scopes.map((scope) => known.get(scope) ?? '0').join('.');
    const { rows } = await this.db.query<{ scope: string; version: string }>(
      'SELECT scope, version::text AS version FROM "DataVersion" WHERE scope = ANY($1::text[])',
      [scopes],
    );
    const found = new Map(rows.map((row) => [row.scope, row.version]));
    return scopes.map((scope) => found.get(scope) ?? '0').join('.');
  }
}
