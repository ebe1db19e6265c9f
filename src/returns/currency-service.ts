/**
 * Returns in a reporting currency (docs/returns-and-csv.md#currencies).
 *
 * An entity's returns are computed in its own (local) currency. A read asked for `currency=XXX`
 * converts with the organization's uploaded rates (file_type=fx: 1 base = rate quote at the close
 * of date), either direction of the pair: EUR/USD rows serve both EUR -> USD and USD -> EUR (the
 * inverse at full precision). There is no triangulation through a third currency and no
 * interpolation: a rate missing on a date the answer needs is a 400 naming the pair and the dates.
 *
 * Day by day (1 + r_reporting) = (1 + r_local)(1 + r_fx) with r_fx = rate_end / rate_start - 1,
 * so multiplying each point of the growth index by its date's rate gives the reporting currency's
 * index: any period's return is still the ratio of two points, and needs only the rates at the
 * two valuation dates it uses (convertIndex).
 */
import type pg from 'pg';
import type { Decimal } from 'decimal.js';
import { AppError } from '../errors.ts';
import { pgArray } from '../db/sql-client.ts';
import type { CurrencyPair } from './analytics/currency.ts';
import type { GrowthPoint } from './analytics/growth-index.ts';
import type { DailyReturnRow } from './return-rows.ts';
import { listDates } from './analytics/outcome.ts';
import { Dec, fixed, formatExact, formatMoney, formatReturn, toDecimal } from './decimal.ts';

type Pool = Pick<pg.Pool, 'query'>;

const ISO_4217 = /^[A-Za-z]{3}$/;

/** The currency a read asked for, upper case; null when it asked for none (the entity's own). */
export function requestedCurrency(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (!ISO_4217.test(value)) throw AppError.badInput('currency', `${JSON.stringify(value)} is not an ISO 4217 currency code (three letters, e.g. EUR)`);
  return value.toUpperCase();
}

/** Rates by date: units of pair.reporting for one unit of pair.local. */
export type RatesByDate = ReadonlyMap<string, Decimal>;

/**
 * The rate of the pair on each date (deduplicated), from the organization's uploads, or a 400 naming
 * the pair and the dates without one. The same currency on both sides is rate 1 without a read.
 */
export async function ratesOn(pool: Pool, orgId: string, pair: CurrencyPair, dates: readonly string[]): Promise<RatesByDate> {
  const wanted = [...new Set(dates)].sort();
  if (pair.local === pair.reporting) return new Map(wanted.map((date) => [date, new Dec(1)]));
  const { rows } = await pool.query<{ date: string; rate: string; direct: boolean }>(
    `SELECT date::text AS date, rate::text AS rate, base = $2 AS direct FROM "FxRate"
      WHERE "orgId" = $1 AND ((base = $2 AND quote = $3) OR (base = $3 AND quote = $2)) AND date = ANY($4::date[])`,
    [orgId, pair.local, pair.reporting, pgArray(wanted)],
  );
  const rates = new Map<string, Decimal>();
  // A direct quote wins over the inverse of the other direction when both were uploaded.
  for (const row of rows.sort((a, b) => Number(a.direct) - Number(b.direct))) {
    const rate = toDecimal(row.rate, `${row.date} rate`);
    rates.set(row.date, row.direct ? rate : new Dec(1).dividedBy(rate));
  }
  const missing = wanted.filter((date) => !rates.has(date));
  if (missing.length > 0) {
    throw AppError.badInput(
      'currency',
      `no ${pair.local}/${pair.reporting} rate for ${listDates(missing)}: upload the rates (file_type=fx, columns date,base,quote,rate); rates are never interpolated or carried forward`,
    );
  }
  return rates;
}

/** The growth index in the reporting currency: each point's factor times its date's rate (see the module comment). */
export function convertIndex(points: readonly GrowthPoint[], rates: RatesByDate): GrowthPoint[] {
  return points.map((point) => ({ ...point, growthFactor: formatExact(new Dec(point.growthFactor).times(rateAt(rates, point.date))) }));
}

/** An amount at its date's rate, at full precision (it may feed further arithmetic). */
export function convertAmount(amount: Decimal.Value, date: string, rates: RatesByDate): string {
  return formatExact(toDecimal(amount, 'amount').times(rateAt(rates, date)));
}

/** The entity's currency and the one to report in (the one asked for, else the entity's). */
export function currencyPair(entity: { currency: string }, requested: string | null | undefined): CurrencyPair {
  return { local: entity.currency, reporting: requestedCurrency(requested) ?? entity.currency };
}

type StoredDay = Pick<DailyReturnRow, 'date' | 'startDate' | 'beginValue' | 'endValue' | 'netFlow' | 'weightedFlow' | 'returnValue'>;

/**
 * A stored daily return in the reporting currency: its return by (1 + r)(1 + r_fx) - 1, the begin
 * and end values at their own dates' rates, and its flows (netFlow, weightedFlow: sums over the
 * sub-period) at the rate of its end date, which is each flow's own date with daily valuations.
 * In the entity's own currency it is unchanged, with a zero effect.
 */
export function dayInCurrency<Day extends StoredDay>(
  day: Day,
  pair: CurrencyPair,
  rates: RatesByDate,
): Day & { localReturnValue: string | null; currencyEffect: string | null } {
  if (pair.local === pair.reporting) return { ...day, localReturnValue: day.returnValue, currencyEffect: currencyEffect(day.returnValue, day.returnValue) };
  const start = rateAt(rates, day.startDate);
  const end = rateAt(rates, day.date);
  const money = (amount: string, rate: Decimal) => formatMoney(toDecimal(amount, 'amount').times(rate));
  const reported = day.returnValue === null ? null : formatReturn(new Dec(day.returnValue).plus(1).times(end.dividedBy(start)).minus(1));
  return {
    ...day,
    beginValue: money(day.beginValue, start),
    endValue: money(day.endValue, end),
    netFlow: money(day.netFlow, end),
    weightedFlow: fixed(toDecimal(day.weightedFlow, 'weightedFlow').times(end), 8),
    returnValue: reported,
    localReturnValue: day.returnValue,
    currencyEffect: currencyEffect(reported, day.returnValue),
  };
}

/** reporting - local, both fractions; null when either is. */
export function currencyEffect(reportingReturn: string | null, localReturn: string | null): string | null {
  if (reportingReturn === null || localReturn === null) return null;
  return formatReturn(new Dec(reportingReturn).minus(localReturn));
}

function rateAt(rates: RatesByDate, date: string): Decimal {
  const rate = rates.get(date);
  // ratesOn either returned every date asked for or threw: a miss here is a caller bug.
  if (!rate) throw new RangeError(`no rate read for ${date}`);
  return rate;
}
