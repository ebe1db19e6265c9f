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
 * - Gross and net of fees (./analytics/fees.ts): only external flows are Modified Dietz flows, so
 *   returnValue is the net-of-fee return; each row also stores the fees paid in its sub-period,
 *   the gross-of-fee return (null exactly when returnValue is) and the gross returns' own growth
 *   index (grossGrowthFactor, the same chainStart), continued from the anchor's gross factor or,
 *   on a row written before fees existed (gross = net then), from its growthFactor.
 */
import { dailySeries, type SubPeriodResult, type Valuation } from './dietz.ts';
import { pgArray, type SqlClient } from '../db/sql-client.ts';
import { feeSeries, type TypedCashFlow } from './analytics/fees.ts';
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
  // the growth indexes' points (net and gross of fees) the next return continues from
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
    point ??= inception(valuations[0].date);
    if (valuations.length >= 2) {
      const first = valuations[0].date;
      const last = valuations[valuations.length - 1].date;
      const flows = await client.query<Required<Pick<TypedCashFlow, 'date' | 'amount' | 'timing' | 'flowType'>>>(
        `SELECT date, amount::text AS amount, timing::text AS timing, "flowType"::text AS "flowType" FROM "CashTransaction"
          WHERE "entityId" = $1 AND date > $2::date AND date <= $3::date`,
        [entityId, first, last],
      );
      const stored = withFees(valuations, flows.rows).map(storable);
      const net = extendGrowthIndex(
        point.net,
        stored.map((period) => ({ date: period.endDate, returnValue: period.returnValue })),
      );
      const gross = extendGrowthIndex(
        point.gross,
        stored.map((period) => ({ date: period.endDate, returnValue: period.grossReturnValue })),
      );
      await insertPeriods(client, entityId, stored, net, gross);
      nullReturns += stored.filter((period) => period.returnValue === null).length;
      periods += stored.length;
      point = { net: net.at(-1) ?? point.net, gross: gross.at(-1) ?? point.gross };
    }
    previous = rows[rows.length - 1];
    cursor = previous.date;
    if (rows.length < windowSize) break;
  }
  return { entityId, anchorDate, periods, nullReturns };
}

/** A point of each growth index: net of fees (growthFactor) and gross of fees (grossGrowthFactor). */
interface AnchorPoints {
  net: GrowthPoint;
  gross: GrowthPoint;
}

function inception(date: string): AnchorPoints {
  const point: GrowthPoint = { date, growthFactor: '1', chainStart: date };
  return { net: point, gross: point };
}

/**
 * The anchor's points of the growth indexes: its row's factors, or the inception (factor 1) when
 * it has no row (the first valuation has no return into it); null when its row has no factor yet.
 * A row written before fees existed has no gross factor: gross = net there, so its net factor is
 * the gross one (fees were not recorded before, so every earlier row is such a row too).
 */
async function anchorPoint(client: SqlClient, entityId: string, anchorDate: string): Promise<AnchorPoints | null> {
  const { rows } = await client.query<{ growthFactor: string | null; grossGrowthFactor: string | null; chainStart: string | null }>(
    `SELECT "growthFactor"::text AS "growthFactor", "grossGrowthFactor"::text AS "grossGrowthFactor", "chainStart"::text AS "chainStart"
       FROM "DailyReturn" WHERE "entityId" = $1 AND date = $2::date`,
    [entityId, anchorDate],
  );
  const row = rows[0];
  if (!row) return inception(anchorDate);
  if (row.growthFactor === null || row.chainStart === null) return null;
  return {
    net: { date: anchorDate, growthFactor: row.growthFactor, chainStart: row.chainStart },
    gross: { date: anchorDate, growthFactor: row.grossGrowthFactor ?? row.growthFactor, chainStart: row.chainStart },
  };
}

/** A sub-period as stored: the net-of-fee row with its fees and gross-of-fee return. */
interface StoredPeriod extends SubPeriodResult {
  /** F, fees paid (positive = paid) */
  fees: string;
  /** null exactly when returnValue is */
  grossReturnValue: string | null;
}

/**
 * The window's sub-periods: Modified Dietz over the external flows only (net of fees, the row as
 * before fees existed), with fees.ts's fees and gross-of-fee return of the same sub-period. Without
 * a fee or income flow in the window there is nothing to add back: gross = net, fees 0.
 */
function withFees(valuations: readonly Valuation[], flows: readonly TypedCashFlow[]): StoredPeriod[] {
  const external = flows.filter((flow) => flow.flowType === 'external');
  const net = dailySeries(valuations, external).periods;
  if (external.length === flows.length) return net.map((period) => ({ ...period, fees: '0.0000', grossReturnValue: period.returnValue }));
  const gross = feeSeries(valuations, flows).periods;
  return net.map((period, index) => ({ ...period, fees: gross[index].fees, grossReturnValue: gross[index].grossReturn }));
}

/** The period as stored: a return too large for its column is null, with the reason; gross and net together, so either is null only with the other. */
function storable(period: StoredPeriod): StoredPeriod {
  const outside = [period.returnValue, period.grossReturnValue].find((value) => value !== null && Math.abs(Number(value)) >= RETURN_LIMIT);
  if (outside === undefined) return period;
  return { ...period, returnValue: null, grossReturnValue: null, nullReason: `return ${outside} is outside the storable range (|r| < 1e8)` };
}

const INSERT_BATCH = 1000;

/** Multi-row inserts (unnest of arrays: a fixed number of parameters per statement), each period with its points of the two growth indexes. */
async function insertPeriods(
  client: SqlClient,
  entityId: string,
  periods: readonly StoredPeriod[],
  points: readonly GrowthPoint[],
  grossPoints: readonly GrowthPoint[],
): Promise<void> {
  for (let start = 0; start < periods.length; start += INSERT_BATCH) {
    const slice = periods.slice(start, start + INSERT_BATCH);
    const growth = points.slice(start, start + INSERT_BATCH);
    const grossGrowth = grossPoints.slice(start, start + INSERT_BATCH);
    await client.query(
      `INSERT INTO "DailyReturn"
         (id, "entityId", date, "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue", "nullReason", "growthFactor", "chainStart",
          fees, "grossReturnValue", "grossGrowthFactor", "computedAt")
       SELECT gen_random_uuid(), $1::uuid, t.date, t.start_date, t.begin_value, t.end_value, t.net_flow, t.weighted_flow, t.return_value, t.null_reason,
              t.growth_factor, t.chain_start, t.fees, t.gross_return_value, t.gross_growth_factor, now()
         FROM unnest($2::date[], $3::date[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::text[], $10::numeric[], $11::date[],
                     $12::numeric[], $13::numeric[], $14::numeric[])
           AS t(date, start_date, begin_value, end_value, net_flow, weighted_flow, return_value, null_reason, growth_factor, chain_start,
                fees, gross_return_value, gross_growth_factor)`,
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
        pgArray(slice.map((p) => p.fees)),
        pgArray(slice.map((p) => p.grossReturnValue)),
        pgArray(grossGrowth.map((point) => point.growthFactor)),
      ],
    );
  }
}
