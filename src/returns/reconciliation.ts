/**
 * The reconciliation of custodian-reported and computed returns, kept as data ("Reconciliation":
 * one row per entity and date present on either side, for entities the custodian reports on), so
 * that the comparison page reads one index range of its organization instead of joining the
 * organization's whole history.
 *
 * - **Maintained with the returns.** The ingest calls `refreshReconciliation` for every entity it
 *   touched, inside the load transaction, after the daily returns are recomputed: the rows dated
 *   from the earliest changed date are replaced (the whole entity the first time the custodian
 *   reports on it). The comparison never disagrees with the returns it compares.
 * - **Classified under recorded thresholds.** `status` is the rule of classifyDifference
 *   (src/returns/dietz.ts; in SQL the function `reconciliation_status`) under the thresholds
 *   recorded on the organization ("reconciledMatchBps"/"reconciledReviewBps"). The thresholds in
 *   force are the organization's own, else the service's COMPARISON_MATCH_BPS/REVIEW_BPS.
 * - **Re-classified when thresholds change.** `setThresholds` (the CLI's `org thresholds`)
 *   re-classifies the organization in the transaction that changes them; at start the service
 *   re-classifies every organization whose recorded thresholds differ from the ones in force (a
 *   changed COMPARISON_* setting, or thresholds edited directly in the database). A re-classification
 *   locks the organization row, and the ingest reads the recorded thresholds with FOR SHARE, so
 *   rows written by a concurrent load are never classified under thresholds being replaced.
 */
import type pg from 'pg';
import { pgArray, type SqlClient } from '../db/sql-client.ts';

export interface Thresholds {
  matchBps: number | string;
  reviewBps: number | string;
}

/**
 * The thresholds `orgId`'s rows are classified with, locked FOR SHARE until the caller's
 * transaction ends (a re-classification waits for it, and it for a re-classification). An
 * organization created since the service started has none recorded yet: the ones in force are
 * recorded first (a no-op otherwise; a concurrent load of the same organization waits for it
 * rather than deadlocking against it).
 */
export async function recordedThresholds(client: SqlClient, orgId: string, defaults: Thresholds): Promise<Thresholds> {
  await client.query(
    `UPDATE "Organization"
        SET "reconciledMatchBps" = COALESCE("matchThresholdBps", $2::numeric), "reconciledReviewBps" = COALESCE("reviewThresholdBps", $3::numeric)
      WHERE id = $1 AND ("reconciledMatchBps" IS NULL OR "reconciledReviewBps" IS NULL)`,
    [orgId, defaults.matchBps, defaults.reviewBps],
  );
  const { rows } = await client.query<{ matchBps: string; reviewBps: string }>(
    `SELECT "reconciledMatchBps"::text AS "matchBps", "reconciledReviewBps"::text AS "reviewBps"
       FROM "Organization" WHERE id = $1 FOR SHARE`,
    [orgId],
  );
  if (!rows[0]) throw new Error(`Organization ${orgId} not found`);
  return rows[0];
}

/** Rows of one entity that became `investigate` (new rows, or rows whose status or returns changed). */
export interface InvestigateChange {
  accountCode: string;
  rows: number;
  /** the earliest and latest such date (YYYY-MM-DD) */
  from: string;
  to: string;
}

/**
 * Replaces `entityId`'s rows dated `fromDate` or later (all of them when null, or when the entity
 * has none yet) from its custodian and daily returns. Run it in the transaction that changed them.
 * Returns the rows that are `investigate` now and were not before with the same returns (a new
 * date, another status, a changed return), for the `reconciliation.investigate` webhook; null when none.
 */
export async function refreshReconciliation(
  client: SqlClient,
  entityId: string,
  fromDate: string | null,
  thresholds: Thresholds,
): Promise<InvestigateChange | null> {
  const { rows } = await client.query<{ known: boolean }>(`SELECT EXISTS (SELECT 1 FROM "Reconciliation" WHERE "entityId" = $1) AS known`, [entityId]);
  const from = rows[0]?.known ? fromDate : null;
  // The replaced rows that were `investigate`, to tell the new ones from those already known.
  const replaced = await client.query<{ date: string; custodian: string | null; computed: string | null }>(
    `WITH gone AS (DELETE FROM "Reconciliation" WHERE "entityId" = $1 AND ($2::date IS NULL OR date >= $2::date) RETURNING date, status, "custodianReturn", "computedReturn")
     SELECT date::text AS date, "custodianReturn"::text AS custodian, "computedReturn"::text AS computed FROM gone WHERE status = 'investigate'`,
    [entityId, from],
  );
  const old = replaced.rows;
  const changed = await client.query<{ rows: number; from: string | null; to: string | null; accountCode: string | null }>(
    `WITH added AS (
       INSERT INTO "Reconciliation" ("entityId", date, "orgId", "accountCode", "custodianReturn", "computedReturn", "computedNullReason", status)
       SELECT e.id, COALESCE(c.date, d.date), e."orgId", e."accountCode", c."returnValue", d."returnValue", d."nullReason",
              reconciliation_status(c."returnValue", d."returnValue", $3::numeric, $4::numeric)
         FROM (SELECT * FROM "CustodianReturn" WHERE "entityId" = $1 AND ($2::date IS NULL OR date >= $2::date)) c
         FULL OUTER JOIN (SELECT * FROM "DailyReturn" WHERE "entityId" = $1 AND ($2::date IS NULL OR date >= $2::date)) d ON d.date = c.date
         JOIN "Entity" e ON e.id = $1
        WHERE EXISTS (SELECT 1 FROM "CustodianReturn" x WHERE x."entityId" = $1)
       RETURNING date, status, "accountCode", "custodianReturn", "computedReturn")
     SELECT count(*)::int AS rows, min(a.date)::text AS "from", max(a.date)::text AS "to", max(a."accountCode") AS "accountCode"
       FROM added a
       LEFT JOIN unnest($5::date[], $6::text[], $7::text[]) AS o(date, custodian, computed) ON o.date = a.date
      WHERE a.status = 'investigate'
        AND (o.date IS NULL OR o.custodian IS DISTINCT FROM a."custodianReturn"::text OR o.computed IS DISTINCT FROM a."computedReturn"::text)`,
    [
      entityId,
      from,
      thresholds.matchBps,
      thresholds.reviewBps,
      pgArray(old.map((r) => r.date)),
      pgArray(old.map((r) => r.custodian)),
      pgArray(old.map((r) => r.computed)),
    ],
  );
  const result = changed.rows[0];
  if (!result || result.rows === 0 || !result.accountCode || !result.from || !result.to) return null;
  return { accountCode: result.accountCode, rows: result.rows, from: result.from, to: result.to };
}

/** Re-classifies one organization's rows under `thresholds` and records them; in the caller's transaction. */
async function reclassify(client: SqlClient, orgId: string, thresholds: Thresholds): Promise<number> {
  const { rowCount } = await client.query(
    `UPDATE "Reconciliation" SET status = reconciliation_status("custodianReturn", "computedReturn", $2::numeric, $3::numeric)
      WHERE "orgId" = $1 AND status <> reconciliation_status("custodianReturn", "computedReturn", $2::numeric, $3::numeric)`,
    [orgId, thresholds.matchBps, thresholds.reviewBps],
  );
  await client.query(`UPDATE "Organization" SET "reconciledMatchBps" = $2::numeric, "reconciledReviewBps" = $3::numeric WHERE id = $1`, [
    orgId,
    thresholds.matchBps,
    thresholds.reviewBps,
  ]);
  return rowCount ?? 0;
}

export interface ReclassifiedOrganization {
  orgId: string;
  /** rows whose status changed */
  changed: number;
}

export class ReconciliationService {
  constructor(
    private readonly pool: pg.Pool,
    /** the service-wide thresholds (COMPARISON_MATCH_BPS / COMPARISON_REVIEW_BPS) */
    private readonly defaults: Thresholds,
  ) {}

  /**
   * Sets (or, with null, clears back to the service's) `orgId`'s thresholds and re-classifies its
   * rows, in one transaction: readers see the old classification or the new, never a mix.
   */
  async setThresholds(orgId: string, thresholds: { matchBps: number | null; reviewBps: number | null }): Promise<ReclassifiedOrganization> {
    return this.inTransaction(async (client) => {
      const { rows } = await client.query<{ matchBps: string; reviewBps: string }>(
        `UPDATE "Organization" SET "matchThresholdBps" = $2::numeric, "reviewThresholdBps" = $3::numeric WHERE id = $1
         RETURNING COALESCE("matchThresholdBps", $4::numeric)::text AS "matchBps", COALESCE("reviewThresholdBps", $5::numeric)::text AS "reviewBps"`,
        [orgId, thresholds.matchBps, thresholds.reviewBps, this.defaults.matchBps, this.defaults.reviewBps],
      );
      if (!rows[0]) throw new Error(`Organization ${orgId} not found`);
      return { orgId, changed: await reclassify(client, orgId, rows[0]) };
    });
  }

  /**
   * Re-classifies every organization whose recorded thresholds differ from the ones in force (run at
   * start). Each organization in its own transaction, re-checked under its row lock, so instances
   * starting together do the work once.
   */
  async reclassifyStale(): Promise<ReclassifiedOrganization[]> {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM "Organization" WHERE ${stale('$1', '$2')}`, [
      this.defaults.matchBps,
      this.defaults.reviewBps,
    ]);
    const done: ReclassifiedOrganization[] = [];
    for (const { id } of rows) {
      const result = await this.inTransaction(async (client) => {
        const locked = await client.query<{ matchBps: string; reviewBps: string }>(
          `SELECT COALESCE("matchThresholdBps", $2::numeric)::text AS "matchBps", COALESCE("reviewThresholdBps", $3::numeric)::text AS "reviewBps"
             FROM "Organization" WHERE id = $1 AND ${stale('$2', '$3')} FOR UPDATE`,
          [id, this.defaults.matchBps, this.defaults.reviewBps],
        );
        return locked.rows[0] ? { orgId: id, changed: await reclassify(client, id, locked.rows[0]) } : null;
      });
      if (result) done.push(result);
    }
    return done;
  }

  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}

/** SQL: the recorded thresholds differ from the ones in force (the parameters hold the service's defaults). */
function stale(matchParam: string, reviewParam: string): string {
  return `("reconciledMatchBps" IS DISTINCT FROM COALESCE("matchThresholdBps", ${matchParam}::numeric)
    OR "reconciledReviewBps" IS DISTINCT FROM COALESCE("reviewThresholdBps", ${reviewParam}::numeric))`;
}
