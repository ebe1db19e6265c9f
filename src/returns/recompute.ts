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
 */
import { dailySeries, type CashFlow, type FlowTiming, type SubPeriodResult, type Valuation } from './dietz.ts';
import { pgArray, type SqlClient } from '../db/sql-client.ts';

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
    if (valuations.length >= 2) {
      const first = valuations[0].date;
      const last = valuations[valuations.length - 1].date;
      const flows = await client.query<{ date: string; amount: string; timing: FlowTiming }>(
        `SELECT date, amount::text AS amount, timing::text AS timing FROM "CashTransaction"
          WHERE "entityId" = $1 AND date > $2::date AND date <= $3::date`,
        [entityId, first, last],
      );
      const series = dailySeries(valuations, flows.rows as CashFlow[]);
      nullReturns += await insertPeriods(client, entityId, series.periods);
      periods += series.periods.length;
    }
    previous = rows[rows.length - 1];
    cursor = previous.date;
    if (rows.length < windowSize) break;
  }
  return { entityId, anchorDate, periods, nullReturns };
}

const INSERT_BATCH = 1000;

/** Multi-row inserts (unnest of arrays: a fixed number of parameters per statement). Returns the null-return count. */
async function insertPeriods(client: SqlClient, entityId: string, periods: readonly SubPeriodResult[]): Promise<number> {
  let nulls = 0;
  for (let start = 0; start < periods.length; start += INSERT_BATCH) {
    const slice = periods.slice(start, start + INSERT_BATCH);
    const cols = {
      date: [] as string[],
      startDate: [] as string[],
      beginValue: [] as string[],
      endValue: [] as string[],
      netFlow: [] as string[],
      weightedFlow: [] as string[],
      returnValue: [] as (string | null)[],
      nullReason: [] as (string | null)[],
    };
    for (const p of slice) {
      let returnValue = p.returnValue;
      let nullReason = p.nullReason;
      if (returnValue !== null && Math.abs(Number(returnValue)) >= RETURN_LIMIT) {
        returnValue = null;
        nullReason = `return ${p.returnValue} is outside the storable range (|r| < 1e8)`;
      }
      if (returnValue === null) nulls++;
      cols.date.push(p.endDate);
      cols.startDate.push(p.startDate);
      cols.beginValue.push(p.beginValue);
      cols.endValue.push(p.endValue);
      cols.netFlow.push(p.netFlow);
      cols.weightedFlow.push(p.weightedFlow);
      cols.returnValue.push(returnValue);
      cols.nullReason.push(nullReason);
    }
    await client.query(
      `INSERT INTO "DailyReturn"
         (id, "entityId", date, "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue", "nullReason", "computedAt")
       SELECT gen_random_uuid(), $1::uuid, t.date, t.start_date, t.begin_value, t.end_value, t.net_flow, t.weighted_flow, t.return_value, t.null_reason, now()
         FROM unnest($2::date[], $3::date[], $4::numeric[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::text[])
           AS t(date, start_date, begin_value, end_value, net_flow, weighted_flow, return_value, null_reason)`,
      [
        entityId,
        pgArray(cols.date),
        pgArray(cols.startDate),
        pgArray(cols.beginValue),
        pgArray(cols.endValue),
        pgArray(cols.netFlow),
        pgArray(cols.weightedFlow),
        pgArray(cols.returnValue),
        pgArray(cols.nullReason),
      ],
    );
  }
  return nulls;
}
