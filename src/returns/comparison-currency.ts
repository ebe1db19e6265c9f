/**
 * The comparison page in a reporting currency (docs/returns-and-csv.md#currencies).
 *
 * A row compares the custodian's and the computed return of one entity on one day, in the
 * entity's currency. Asked for another currency, both are converted over the same day:
 * (1 + r) (rate_date / rate_start) - 1, start being the entity's previous valuation (the
 * sub-period both returns cover), and the difference is recomputed from the converted figures.
 * The status and its reason stay the reconciliation's: it was classified in the entity's currency
 * at load, it is what the `status` filter selected on, and a conversion that multiplies both sides
 * by the same factor cannot make one source right and the other wrong.
 *
 * Rows of several organizations and currencies can share a page: the rates are read per
 * (organization, pair), each only at the dates its rows need. A row on an entity's first valuation
 * has no earlier close to convert from: its converted returns are null (the local ones stay).
 */
import type pg from 'pg';
import type { Decimal } from 'decimal.js';
import { pgArray } from '../db/sql-client.ts';
import { classifyDifference } from './dietz.ts';
import { Dec, formatReturn } from './decimal.ts';
import { ratesOn, requestedCurrency, type RatesByDate } from './currency-service.ts';
import type { ComparisonRow } from './return-rows.ts';

type Pool = Pick<pg.Pool, 'query'>;

/** What a comparison row needs to be converted. */
export type ConvertibleComparison = Pick<
  ComparisonRow,
  | 'entityId'
  | 'orgId'
  | 'date'
  | 'currency'
  | 'localCurrency'
  | 'custodianReturn'
  | 'computedReturn'
  | 'localCustodianReturn'
  | 'localComputedReturn'
  | 'differenceBps'
  | 'matchThresholdBps'
  | 'reviewThresholdBps'
>;

/** The page's rows in `currency` (null = each entity's own: unchanged). */
export async function comparisonInCurrency<Row extends ConvertibleComparison>(pool: Pool, rows: Row[], currency: string | null | undefined): Promise<Row[]> {
  const reporting = requestedCurrency(currency);
  if (reporting === null) return rows;
  const foreign = rows.filter((row) => row.localCurrency !== reporting);
  const starts = await previousValuations(pool, foreign);
  const rates = await ratesByGroup(pool, foreign, starts, reporting);
  return rows.map((row) => {
    if (row.localCurrency === reporting) return { ...row, currency: reporting };
    const start = starts.get(key(row));
    const groupRates = rates.get(group(row));
    if (!start || !groupRates) return { ...row, currency: reporting, custodianReturn: null, computedReturn: null, differenceBps: null };
    const factor = (groupRates.get(row.date) as Decimal).dividedBy(groupRates.get(start) as Decimal);
    const convert = (value: string | null) => (value === null ? null : formatReturn(new Dec(value).plus(1).times(factor).minus(1)));
    const custodianReturn = convert(row.localCustodianReturn);
    const computedReturn = convert(row.localComputedReturn);
    const { differenceBps } = classifyDifference({
      custodian: custodianReturn,
      computed: computedReturn,
      matchThresholdBps: row.matchThresholdBps,
      reviewThresholdBps: row.reviewThresholdBps,
    });
    return { ...row, currency: reporting, custodianReturn, computedReturn, differenceBps };
  });
}

const key = (row: { entityId: string; date: string }) => `${row.entityId} ${row.date}`;
const group = (row: { orgId: string; localCurrency: string }) => `${row.orgId} ${row.localCurrency}`;

/** Each row's previous valuation date (the start of the day both returns cover), one index probe per row. */
async function previousValuations(pool: Pool, rows: readonly ConvertibleComparison[]): Promise<Map<string, string>> {
  if (rows.length === 0) return new Map();
  const { rows: found } = await pool.query<{ entityId: string; date: string; start: string | null }>(
    `SELECT w.entity_id::text AS "entityId", w.date::text AS date,
            (SELECT max(v.date) FROM "Valuation" v WHERE v."entityId" = w.entity_id AND v.date < w.date)::text AS start
       FROM unnest($1::uuid[], $2::date[]) AS w(entity_id, date)`,
    [pgArray(rows.map((row) => row.entityId)), pgArray(rows.map((row) => row.date))],
  );
  return new Map(found.filter((row) => row.start !== null).map((row) => [key(row), row.start as string]));
}

/** The rates of each (organization, local currency) group at its rows' dates and starts; a missing one is the 400 of ratesOn. */
async function ratesByGroup(
  pool: Pool,
  rows: readonly ConvertibleComparison[],
  starts: ReadonlyMap<string, string>,
  reporting: string,
): Promise<Map<string, RatesByDate>> {
  const dates = new Map<string, { orgId: string; local: string; dates: string[] }>();
  for (const row of rows) {
    const start = starts.get(key(row));
    if (!start) continue;
    const entry = dates.get(group(row)) ?? { orgId: row.orgId, local: row.localCurrency, dates: [] };
    entry.dates.push(start, row.date);
    dates.set(group(row), entry);
  }
  const result = new Map<string, RatesByDate>();
  for (const [name, entry] of dates) {
    result.set(name, await ratesOn(pool, entry.orgId, { local: entry.local, reporting }, entry.dates));
  }
  return result;
}
