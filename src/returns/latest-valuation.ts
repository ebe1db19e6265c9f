/**
 * Each entity's latest valuation, kept on the entity ("latestValuationDate", "latestMarketValue")
 * so that the largest entities of an organization by latest market value are read from one index
 * (GET /api/benchmark) instead of a lookup per entity. The ingest refreshes the entities a file
 * touched, in its load transaction: valuations are only ever added or replaced there.
 */
import type { SqlClient } from '../db/sql-client.ts';
import { pgArray } from '../db/sql-client.ts';

/** Sets the latest valuation of each of `entityIds` (one index probe each) in the caller's transaction. */
export async function refreshLatestValuations(client: SqlClient, entityIds: readonly string[]): Promise<void> {
  if (entityIds.length === 0) return;
  await client.query(
    `UPDATE "Entity" e SET "latestValuationDate" = v.date, "latestMarketValue" = v."marketValue"
       FROM unnest($1::uuid[]) AS t(id)
       CROSS JOIN LATERAL (SELECT date, "marketValue" FROM "Valuation" WHERE "entityId" = t.id ORDER BY date DESC LIMIT 1) v
      WHERE e.id = t.id`,
    [pgArray(entityIds)],
  );
}
