/**
 * Currency conversion and the currency effect.
 *
 * Direction: a rate is the number of units of the REPORTING currency for one unit of the LOCAL
 * currency, and a pair is written LOCAL/REPORTING as the market quotes it: EUR/USD at 1.0850 means
 * 1 EUR = 1.0850 USD, so reporting amount = local amount x rate. invertRates gives the other way.
 *
 * For a sub-period from the close of s to the close of e:
 *     r_fx        = rate_e / rate_s - 1
 *     r_reporting = (1 + r_local)(1 + r_fx) - 1
 *     currency effect = r_reporting - r_local = r_fx (1 + r_local)  (includes the cross term, so
 *     local + effect = reporting exactly)
 *
 * A rate needed for a date that has none is a typed error naming the pair and the dates. Rates
 * are never interpolated or carried forward: a fill policy (e.g. Friday's rate for the weekend)
 * is the caller's explicit decision, made before calling.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber } from '../dietz.ts';
import { type DailyReturn, toSubPeriods } from './daily-returns.ts';
import { Dec, formatExact, formatReturn, toDecimal } from '../decimal.ts';
import { fail, listDates, type Outcome, succeed } from './outcome.ts';

export interface CurrencyPair {
  /** the currency the amounts / returns are in, e.g. EUR */
  local: string;
  /** the currency to report in, e.g. USD */
  reporting: string;
}

export interface FxRate {
  /** YYYY-MM-DD */
  date: string;
  /** units of the reporting currency per one unit of the local currency; > 0 */
  rate: Decimal.Value;
}

export interface LocalAmount {
  date: string;
  amount: Decimal.Value;
}

export interface ConvertedAmount {
  date: string;
  /** the rate used (reporting per local) */
  rate: string;
  /** amount x rate at full precision: converted values and flows feed modifiedDietz, so they are not rounded here */
  reportingAmount: string;
}

export interface CurrencyDecomposition {
  localReturn: string;
  currencyReturn: string;
  reportingReturn: string;
  /** reportingReturn - localReturn */
  currencyEffect: string;
}

export interface CurrencyReturn {
  startDate: string;
  endDate: string;
  /** null when the local return is null */
  localReturn: string | null;
  currencyReturn: string;
  reportingReturn: string | null;
  currencyEffect: string | null;
  nullReason: string | null;
}

export interface ConvertReturnsInput {
  inceptionDate: string;
  /** local-currency daily returns (see daily-returns.ts) */
  localReturns: readonly DailyReturn[];
  rates: readonly FxRate[];
  pair: CurrencyPair;
}

const pairName = (pair: CurrencyPair): string => `${pair.local}/${pair.reporting}`;

/** Rates by date; throws RangeError on a non-positive rate or two rates for one date (bad data upstream). */
function ratesByDate(rates: readonly FxRate[]): Map<string, Decimal> {
  const byDate = new Map<string, Decimal>();
  rates.forEach((entry, index) => {
    dayNumber(entry.date, `rates[${index}].date`);
    const rate = toDecimal(entry.rate, `rates[${index}].rate`);
    if (!rate.isPositive() || rate.isZero()) throw new RangeError(`rates[${index}].rate must be positive, got ${rate.toString()}`);
    if (byDate.has(entry.date)) throw new RangeError(`two rates for ${entry.date}`);
    byDate.set(entry.date, rate);
  });
  return byDate;
}

/** The rates of every date needed, or the typed error naming the dates without one. */
function requireRates(byDate: ReadonlyMap<string, Decimal>, dates: readonly string[], pair: CurrencyPair): Outcome<ReadonlyMap<string, Decimal>> {
  const missing = [...new Set(dates.filter((date) => !byDate.has(date)))];
  if (missing.length === 0) return succeed(byDate);
  const name = pairName(pair);
  return fail({
    code: 'missing_fx_rate',
    message: `no ${name} rate for ${listDates(missing)}; rates are never interpolated or carried forward`,
    pair: name,
    dates: missing,
  });
}

/** The same rates the other way round (local per reporting), at full precision. */
export function invertRates(rates: readonly FxRate[]): FxRate[] {
  return [...ratesByDate(rates)].map(([date, rate]) => ({ date, rate: formatExact(new Dec(1).dividedBy(rate)) }));
}

/** Values or flows converted at their own date's rate; a missing rate is a typed error. */
export function convertAmounts(amounts: readonly LocalAmount[], rates: readonly FxRate[], pair: CurrencyPair): Outcome<ConvertedAmount[]> {
  amounts.forEach((entry, index) => dayNumber(entry.date, `amounts[${index}].date`));
  const found = requireRates(
    ratesByDate(rates),
    amounts.map((entry) => entry.date),
    pair,
  );
  if (!found.ok) return found;
  return succeed(
    amounts.map((entry, index) => {
      const rate = found.value.get(entry.date) as Decimal;
      return { date: entry.date, rate: formatExact(rate), reportingAmount: formatExact(toDecimal(entry.amount, `amounts[${index}].amount`).times(rate)) };
    }),
  );
}

/** One sub-period's decomposition: (1 + r_reporting) = (1 + r_local)(1 + r_fx). */
export function decomposeCurrencyReturn(localReturn: Decimal.Value, currencyReturn: Decimal.Value): CurrencyDecomposition {
  const local = toDecimal(localReturn, 'localReturn');
  const currency = toDecimal(currencyReturn, 'currencyReturn');
  const reporting = local.plus(1).times(currency.plus(1)).minus(1);
  return {
    localReturn: formatReturn(local),
    currencyReturn: formatReturn(currency),
    reportingReturn: formatReturn(reporting),
    currencyEffect: formatReturn(reporting.minus(local)),
  };
}

/** Each local daily return in the reporting currency, with the currency return and effect beside it. */
export function convertReturns(input: ConvertReturnsInput): Outcome<CurrencyReturn[]> {
  const subPeriods = toSubPeriods(input.inceptionDate, input.localReturns);
  const needed = [input.inceptionDate, ...subPeriods.map((subPeriod) => subPeriod.endDate)];
  const found = requireRates(ratesByDate(input.rates), needed, input.pair);
  if (!found.ok) return found;
  const rateOn = (date: string) => found.value.get(date) as Decimal;
  return succeed(
    subPeriods.map(({ startDate, endDate, returnValue }) => {
      const currency = rateOn(endDate).dividedBy(rateOn(startDate)).minus(1);
      if (returnValue === null) {
        const nullReason = 'the local return is null';
        return { startDate, endDate, localReturn: null, currencyReturn: formatReturn(currency), reportingReturn: null, currencyEffect: null, nullReason };
      }
      return { startDate, endDate, ...decomposeCurrencyReturn(returnValue, currency), nullReason: null };
    }),
  );
}
