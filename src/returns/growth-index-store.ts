/**
 * Reading the stored growth index (DailyReturn.growthFactor and chainStart; ./analytics/growth-index.ts)
 * a few points at a time: the point of the latest valuation on or before each of a list of dates,
 * one index probe per date. Rows written before the index existed have no factor; the first read
 * that meets one fills the entity's whole index (fillGrowthIndex) and reads again.
 */
import type pg from 'pg';
import { pgArray } from '../db/sql-client.ts';
import { addMonthsClamped, endOfMonth } from './analytics/dates.ts';
import { buildGrowthIndex, type GrowthPoint } from './analytics/growth-index.ts';
import { lockOrganizationReturns } from './returns-lock.ts';

type Pool = Pick<pg.Pool, 'query' | 'connect'>;

export interface EntityRef {
  id: string;
  orgId: string;
}

interface StoredPoint {
  date: string;
  growthFactor: string | null;
  chainStart: string | null;
}

/**
 * The index's points on or before each date (deduplicated, in date order), the inception's point
 * first: it is the index's first point (factor 1) and has no DailyReturn row of its own.
 */
export async function pointsOnOrBefore(pool: Pool, entity: EntityRef, inceptionDate: string, dates: readonly string[]): Promise<GrowthPoint[]> {
  const read = () =>
    pool.query<StoredPoint>(
      `SELECT DISTINCT p.date::text AS date, p."growthFactor"::text AS "growthFactor", p."chainStart"::text AS "chainStart"
         FROM unnest($2::date[]) AS wanted(date)
        CROSS JOIN LATERAL (
          SELECT date, "growthFactor", "chainStart" FROM "DailyReturn"
           WHERE "entityId" = $1 AND date <= wanted.date ORDER BY date DESC LIMIT 1
        ) p
        ORDER BY 1`,
      [entity.id, pgArray([...dates])],
    );
  let { rows } = await read();
  if (rows.some((row) => row.growthFactor === null || row.chainStart === null)) {
    await fillGrowthIndex(pool, entity, inceptionDate);
    ({ rows } = await read());
  }
  const inception: GrowthPoint = { date: inceptionDate, growthFactor: '1', chainStart: inceptionDate };
  return [inception, ...rows.map((row) => ({ date: row.date, growthFactor: row.growthFactor ?? '1', chainStart: row.chainStart ?? inceptionDate }))];
}

/** The last day of every month from the inception's month to asOf's, asOf itself for the last: a calendar's points. */
export function monthEnds(inceptionDate: string, asOf: string): string[] {
  const dates: string[] = [];
  // ISO dates compare as strings.
  for (let end = endOfMonth(inceptionDate); end < asOf; end = endOfMonth(addMonthsClamped(end, 1))) dates.push(end);
  dates.push(asOf);
  return dates;
}

/**
 * Computes and stores the growth index of an entity's daily returns, in one transaction under the
 * organization's returns lock (the ingest's), so a concurrent ingest's recompute and this fill do
 * not interleave. Only rows still without a factor are written.
 */
export async function fillGrowthIndex(pool: Pool, entity: EntityRef, inceptionDate: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await lockOrganizationReturns(client, entity.orgId);
    const entityId = entity.id;
    const { rows } = await client.query<{ date: string; returnValue: string | null }>(
      `SELECT date::text AS date, "returnValue"::text AS "returnValue" FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`,
      [entityId],
    );
    const points = buildGrowthIndex(inceptionDate, rows).slice(1);
    await client.query(
      `UPDATE "DailyReturn" d SET "growthFactor" = p.factor, "chainStart" = p.chain_start
         FROM unnest($2::date[], $3::numeric[], $4::date[]) AS p(date, factor, chain_start)
        WHERE d."entityId" = $1 AND d.date = p.date AND d."growthFactor" IS NULL`,
      [entityId, pgArray(points.map((p) => p.date)), pgArray(points.map((p) => p.growthFactor)), pgArray(points.map((p) => p.chainStart))],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
