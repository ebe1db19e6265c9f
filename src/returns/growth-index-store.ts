/**
 * Reading the stored growth index (DailyReturn.growthFactor and chainStart; ./analytics/growth-index.ts)
 * a few points at a time: the point of the latest valuation on or before each of a list of dates,
 * one index probe per date. Rows written before the index existed have no factor; the first read
 * that meets one fills the entity's whole index (fillGrowthIndex) and reads again.
 * Each point also carries the gross-of-fee index (DailyReturn.grossGrowthFactor, the same
 * chainStart; ./analytics/fees.ts): `grossIndex(points)` is that index as GrowthPoints, for the same
 * pure functions. Rows written before fees existed have none (gross = net then): the read fills it
 * the same way, from the net factor.
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
  grossGrowthFactor: string | null;
  chainStart: string | null;
}

/** A point of the net-of-fee index (growthFactor) with the gross-of-fee factor of the same date and chain. */
export interface IndexPoint extends GrowthPoint {
  grossGrowthFactor: string;
}

/** The gross-of-fee index of the points: what standardPeriods and calendarFromIndex read for the gross figures. */
export function grossIndex(points: readonly IndexPoint[]): GrowthPoint[] {
  return points.map((point) => ({ date: point.date, growthFactor: point.grossGrowthFactor, chainStart: point.chainStart }));
}

/**
 * The index's points on or before each date (deduplicated, in date order), the inception's point
 * first: it is the index's first point (factor 1) and has no DailyReturn row of its own.
 */
export async function pointsOnOrBefore(pool: Pool, entity: EntityRef, inceptionDate: string, dates: readonly string[]): Promise<IndexPoint[]> {
  const read = () =>
    pool.query<StoredPoint>(
      `SELECT DISTINCT p.date::text AS date, p."growthFactor"::text AS "growthFactor", p."grossGrowthFactor"::text AS "grossGrowthFactor",
              p."chainStart"::text AS "chainStart"
         FROM unnest($2::date[]) AS wanted(date)
        CROSS JOIN LATERAL (
          SELECT date, "growthFactor", "grossGrowthFactor", "chainStart" FROM "DailyReturn"
           WHERE "entityId" = $1 AND date <= wanted.date ORDER BY date DESC LIMIT 1
        ) p
        ORDER BY 1`,
      [entity.id, pgArray([...dates])],
    );
  let { rows } = await read();
  if (rows.some((row) => row.growthFactor === null || row.grossGrowthFactor === null || row.chainStart === null)) {
    await fillGrowthIndex(pool, entity, inceptionDate);
    ({ rows } = await read());
  }
  const inception: IndexPoint = { date: inceptionDate, growthFactor: '1', grossGrowthFactor: '1', chainStart: inceptionDate };
  return [
    inception,
    ...rows.map((row) => {
      const growthFactor = row.growthFactor ?? '1';
      // a null gross factor (a row from before fees existed) reads as the net one
      return { date: row.date, growthFactor, grossGrowthFactor: row.grossGrowthFactor ?? growthFactor, chainStart: row.chainStart ?? inceptionDate };
    }),
  ];
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
 * not interleave. Only rows still without a factor are written. A row without a gross factor was
 * written before fees existed (no flow was a fee then, and such rows are a prefix of the series:
 * a recompute replaces every row after its anchor): its gross return is its net one, its fees 0
 * and its gross factor its net factor.
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
      `UPDATE "DailyReturn" d
          SET "growthFactor" = COALESCE(d."growthFactor", p.factor),
              "chainStart" = CASE WHEN d."growthFactor" IS NULL THEN p.chain_start ELSE d."chainStart" END,
              "grossGrowthFactor" = COALESCE(d."grossGrowthFactor", d."growthFactor", p.factor),
              "grossReturnValue" = CASE WHEN d."grossGrowthFactor" IS NULL THEN d."returnValue" ELSE d."grossReturnValue" END,
              fees = CASE WHEN d."grossGrowthFactor" IS NULL THEN COALESCE(d.fees, 0) ELSE d.fees END
         FROM unnest($2::date[], $3::numeric[], $4::date[]) AS p(date, factor, chain_start)
        WHERE d."entityId" = $1 AND d.date = p.date AND (d."growthFactor" IS NULL OR d."grossGrowthFactor" IS NULL)`,
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
