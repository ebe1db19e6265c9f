/**
 * Recomputes the stored daily Modified Dietz returns (`DailyReturn`) of one entity from its
 * valuations and cash transactions, with the pure math of ./dietz.ts.
 *
 * - Only what can have changed is recomputed: with `fromDate` (the earliest date whose inputs
 *   changed), the sub-periods ending after the anchor (the last valuation dated before
 *   `fromDate`) are replaced; the ones ending on or before it cannot depend on anything dated
 *   `fromDate` or later. Without `fromDate` (or when nothing is dated before it) the whole
 *   series is replaced.
 * - Streaming: valuations are read in windows (`windowSize`, default 5000) in date order, each
 *   window computed with `dailySeries` together with the flows inside it and written in
 *   multi-row INSERTs, so memory does not grow with the length of the history.
 * - Runs on the given client; call it inside the transaction that changed the inputs so the
 *   returns never disagree with them (src/ingest/ingest-service.ts does).
 * - A return too large for the column NUMERIC(20,12) (|r| >= 1e8) is stored as null with a
 *   reason instead of failing the whole load.
 * - Each row carries the growth index (./analytics/growth-index.ts) of the returns as stored,
 *   continued from the anchor's row; an anchor without one (written before the index existed)
 *   makes the whole series recompute, so the index is never continued from a guess.
 */
import { dailySeries, type CashFlow, type FlowTiming, type SubPeriodResult, type Valuation } from './dietz.ts';
import { pgArray, type SqlClient } from '../db/sql-client.ts';
import { extendGrowthIndex, type GrowthPoint } from './analytics/growth-index.ts';

export interface RecomputeOptions {
  /** valuations per computation window (default 5000) */
  windowSize?: number;
}

export interface RecomputeResult {
  entityId: string;
  /** the last valuation date kept as is (sub-periods ending after it were replaced); null = all */
  anchorDate: string | null;
  /** sub-period returns written */
  periods: number;
  /** of which with a null return */
  nullReturns: number;
}

const RETURN_LIMIT = 1e8; // NUMERIC(20,12): at most 8 integer digits

export async function recomputeDailyReturns(
  client: SqlClient,
  entityId: string,
  fromDate?: string | null,
  options: RecomputeOptions = {},
): Promise<RecomputeResult> {
  const windowSize = options.windowSize ?? 1000;
  let previous: Valuation | null = null;
  if (fromDate) {
    const { rows } = await client.query<{ date: string; marketValue: string }>(
      `SELECT date, "marketValue"::text AS "marketValue" FROM "Valuation"
        WHERE "entityId" = $1 AND date < $2::date ORDER BY date DESC LIMIT 1`,
      [entityId, fromDate],
    );
    previous = rows[0] ?? null;
  }
  // the growth index's point the next return continues from
  let point = previous ? await anchorPoint(client, entityId, previous.date) : null;
  if (previous && !point) return recomputeDailyReturns(client, entityId, null, options);
  const anchorDate = previous?.date ?? null;
  await client.query(`DELETE FROM "DailyReturn" WHERE "entityId" = $1 AND ($2::date IS NULL OR date > $2::date)`, [entityId, anchorDate]);

  let periods = 0;
  let nullReturns = 0;
  let cursor = anchorDate;
  for (;;) {
    const { rows } = await client.query<{ date: string; marketValue: string }>(
      `SELECT date, "marketValue"::text AS "marketValue" FROM "Valuation"
        WHERE "entityId" = $1 AND ($2::date IS NULL OR date > $2::date) ORDER BY date LIMIT $3`,
      [entityId, cursor, windowSize],
    );
    if (rows.length === 0) break;
    const valuations: Valuation[] = previous ? [previous, ...rows] : rows;
    point ??= { date: valuations[0].date, growthFactor: '1', chainStart: valuations[0].date };
    if (valuations.length >= 2) {
      const first = valuations[0].date;
      const last = valuations[valuations.length - 1].date;
      const flows = await client.query<{ date: string; amount: string; timing: FlowTiming }>(
        `SELECT date, amount::text AS amount, timing::text AS timing FROM "CashTransaction"
          WHERE "entityId" = $1 AND date > $2::date AND date <= $3::date`,
        [entityId, first, last],
      );
      const stored = dailySeries(valuations, flows.rows as CashFlow[]).periods.map(storable);
      const points = extendGrowthIndex(
        point,
        stored.map((period) => ({ date: period.endDate, returnValue: period.returnValue })),
      );
      await insertPeriods(client, entityId, stored, points);
      nullReturns += stored.filter((period) => period.returnValue === null).length;
      periods += stored.length;
      point = points.at(-1) ?? point;
    }
    previous = rows[rows.length - 1];
    cursor = previous.date;
    if (rows.length < windowSize) break;
  }
  return { entityId, anchorDate, periods, nullReturns };
}

/**
 * The anchor's point of the growth index: its row's factor, or the inception (factor 1) when it
 * has no row (the first valuation has no return into it); null when its row has no factor yet.
 */
async function anchorPoint(client: SqlClient, entityId: string, anchorDate: string): Promise<GrowthPoint | null> {
  const { rows } = await client.query<{ growthFactor: string | null; chainStart: string | null }>(
    `SELECT "growthFactor"::text AS "growthFactor", "chainStart"::text AS "chainStart" FROM "DailyReturn" WHERE "entityId" = $1 AND date = $2::date`,
    [entityId, anchorDate],
  );
  const row = rows[0];
  if (!row) return { date: anchorDate, growthFactor: '1', chainStart: anchorDate };
  return row.growthFactor !== null && row.chainStart !== null ? { date: anchorDate, growthFactor: row.growthFactor, chainStart: row.chainStart } : null;
}

/** The period as stored: a return too large for its column is null, with the reason. */
function storable(period: SubPeriodResult): SubPeriodResult {
  if (period.returnValue === null || Math.abs(Number(period.returnValue)) < RETURN_LIMIT) return period;
  return { ...period, returnValue: null, nullReason: `return ${period.returnValue} is outside the storable range (|r| < 1e8)` };
}

const INSERT_BATCH = 1000;

/** Multi-row inserts (unnest of arrays: a fixed number of parameters per statement), each period with its point of the growth index. */
async function insertPeriods(client: SqlClient, entityId: string, periods: readonly SubPeriodResult[], points: readonly GrowthPoint[]): Promise<void> {
  for (let start = 0; start < periods.length; start += INSERT_BATCH) {
    const slice = periods.slice(start, start + INSERT_BATCH);
    const growth = points.slice(start, start + INSERT_BATCH);
    await client.query(
      `INSERT INTO "DailyReturn"
         (id, "entityId", date, "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue", "nullReason", "growthFactor", "chainStart", "computedAt")
       SELECT gen_random_uuid(), $1::uuid, t.date, t.start_date, t.begin_value, t.end_value, t.net_flow, t.weighted_flow, t.return_value, t.null_reason,
              t.growth_factor, t.chain_start, now()
         FROM unnest($2::date[], $3::date[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::text[], $10::numeric[], $11::date[])
           AS t(date, start_date, begin_value, end_value, net_flow, weighted_flow, return_value, null_reason, growth_factor, chain_start)`,
      [
        entityId,
        pgArray(slice.map((p) => p.endDate)),
        pgArray(slice.map((p) => p.startDate)),
        pgArray(slice.map((p) => p.beginValue)),
        pgArray(slice.map((p) => p.endValue)),
        pgArray(slice.map((p) => p.netFlow)),
        pgArray(slice.map((p) => p.weightedFlow)),
        pgArray(slice.map((p) => p.returnValue)),
        pgArray(slice.map((p) => p.nullReason)),
        pgArray(growth.map((point) => point.growthFactor)),
        pgArray(growth.map((point) => point.chainStart)),
      ],
    );
  }
}
