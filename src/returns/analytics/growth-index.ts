/**
 * Cumulative growth index: G_d = prod(1 + r) over the daily returns up to and including date d,
 * G = 1 at the close of the inception's valuation date. The return from the close of a to the
 * close of b is G_b / G_a - 1, so a table of periods costs a few lookups in a stored index.
 *
 * A null daily return breaks the chain. For a null return dated d:
 * - the point for d gets G = 1 again and chainStart = d: the close of d is a valid valuation (only
 *   the return INTO it is unknown), so a new chain starts there;
 * - a factor is relative to its chainStart, so two points are comparable only when they have the
 *   same chainStart. A period from a to b with a before a break and b on or after it spans the
 *   null return and gets a null return with a nullReason naming the break; periods wholly after
 *   the break (a >= d) are computed as usual.
 * Factors are kept at full precision (34 significant digits), not rounded: the service stores
 * them and every period return divides two of them.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber } from '../dietz.ts';
import { Dec, formatExact, formatReturn, toDecimal } from '../decimal.ts';
import type { DailyReturn } from './daily-returns.ts';
import { toSubPeriods } from './daily-returns.ts';
import { type Outcome, reversedDates, succeed } from './outcome.ts';

export interface GrowthPoint {
  /** YYYY-MM-DD: a valuation date */
  date: string;
  /** prod(1 + r) from the close of chainStart to the close of date, full precision */
  growthFactor: string;
  /** the close this factor is relative to: the inception, or the date of the latest null daily return */
  chainStart: string;
}

export interface PeriodReturn {
  /** the dates asked for */
  fromDate: string;
  toDate: string;
  /** the valuation dates used: the latest on or before fromDate and toDate (null: none that early) */
  startDate: string | null;
  endDate: string | null;
  returnValue: string | null;
  nullReason: string | null;
}

/** The index of a daily return series (see the module comment); the first point is the inception with G = 1. */
export function buildGrowthIndex(inceptionDate: string, dailyReturns: readonly DailyReturn[]): GrowthPoint[] {
  const inception: GrowthPoint = { date: inceptionDate, growthFactor: '1', chainStart: inceptionDate };
  return [inception, ...extendGrowthIndex(inception, dailyReturns)];
}

/**
 * The points after `last` for the daily returns that follow it (each after the one before, the
 * first after last.date): how a stored index is continued when only its newest part is
 * recomputed (src/returns/recompute.ts), with the same result as building it whole.
 */
export function extendGrowthIndex(last: GrowthPoint, dailyReturns: readonly DailyReturn[]): GrowthPoint[] {
  let growth: Decimal = toDecimal(last.growthFactor, `growthFactor of ${last.date}`);
  let chainStart = last.chainStart;
  return toSubPeriods(last.date, dailyReturns).map((subPeriod) => {
    if (subPeriod.returnValue === null) {
      growth = new Dec(1);
      chainStart = subPeriod.endDate;
    } else {
      growth = growth.times(subPeriod.returnValue.plus(1));
    }
    return { date: subPeriod.endDate, growthFactor: formatExact(growth), chainStart };
  });
}

/** The point of the latest valuation date on or before `date` (binary search), or null when the index starts after it. */
export function latestOnOrBefore(index: readonly GrowthPoint[], date: string): GrowthPoint | null {
  const day = dayNumber(date, 'date');
  let low = 0;
  let high = index.length - 1;
  let found: GrowthPoint | null = null;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (dayNumber(index[mid].date) <= day) {
      found = index[mid];
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** G_end / G_start, unrounded (for annualising), or why there is none. */
export type GrowthRatio = { ratio: Decimal; nullReason: null } | { ratio: null; nullReason: string };

/** G_end / G_start between two points of one index (start not after end). */
export function growthRatio(start: GrowthPoint, end: GrowthPoint): GrowthRatio {
  if (start.chainStart !== end.chainStart) {
    return {
      ratio: null,
      nullReason: `the daily return for ${end.chainStart} is null, so the chain of daily returns breaks there and no return spans it (from ${start.date} to ${end.date})`,
    };
  }
  const startGrowth = toDecimal(start.growthFactor, `growthFactor of ${start.date}`);
  if (startGrowth.isZero()) {
    return { ratio: null, nullReason: `the growth factor at ${start.date} is zero (a -100 % return): a return from there is undefined` };
  }
  return { ratio: toDecimal(end.growthFactor, `growthFactor of ${end.date}`).dividedBy(startGrowth), nullReason: null };
}

function growthBetween(start: GrowthPoint, end: GrowthPoint): { returnValue: string | null; nullReason: string | null } {
  const growth = growthRatio(start, end);
  return growth.ratio === null ? { returnValue: null, nullReason: growth.nullReason } : { returnValue: formatReturn(growth.ratio.minus(1)), nullReason: null };
}

/**
 * The return from the close of fromDate to the close of toDate, each resolved to the latest
 * valuation on or before it. toDate before fromDate is a typed error; fromDate before the
 * inception is null with a reason (the history does not cover it: no shorter period is used).
 */
export function periodReturn(index: readonly GrowthPoint[], fromDate: string, toDate: string): Outcome<PeriodReturn> {
  if (dayNumber(toDate, 'toDate') < dayNumber(fromDate, 'fromDate')) return reversedDates(fromDate, toDate);
  const start = latestOnOrBefore(index, fromDate);
  const end = latestOnOrBefore(index, toDate);
  if (start === null || end === null) {
    const history = index.length > 0 ? `the history starts at ${index[0].date}` : 'the index is empty';
    const nullReason = `${history}, after ${fromDate}: the period is not covered`;
    return succeed({ fromDate, toDate, startDate: null, endDate: end?.date ?? null, returnValue: null, nullReason });
  }
  return succeed({ fromDate, toDate, startDate: start.date, endDate: end.date, ...growthBetween(start, end) });
}
