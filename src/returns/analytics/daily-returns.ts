/**
 * The daily return series every analytics module starts from: one entry per valuation date after
 * the inception, each the return from the close of the previous valuation date (the inception for
 * the first) to the close of its own date, i.e. the periods of ../dietz.ts's dailySeries.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber } from '../dietz.ts';
import { toDecimal } from '../decimal.ts';

export interface DailyReturn {
  /** YYYY-MM-DD: the valuation date the sub-period ends on */
  date: string;
  /** fraction; null when the sub-period has no return (e.g. a zero Dietz denominator) */
  returnValue: Decimal.Value | null;
}

/** One daily return with the close it starts from, parsed. */
export interface SubPeriod {
  startDate: string;
  endDate: string;
  /** null: the sub-period has no return */
  returnValue: Decimal | null;
}

/**
 * The series as sub-periods. Throws RangeError unless the dates are strictly increasing and all
 * after the inception: the series comes from stored valuations, so disorder is a bug upstream.
 */
export function toSubPeriods(inceptionDate: string, returns: readonly DailyReturn[]): SubPeriod[] {
  let previous = inceptionDate;
  let previousDay = dayNumber(inceptionDate, 'inceptionDate');
  return returns.map((entry, index) => {
    const day = dayNumber(entry.date, `returns[${index}].date`);
    if (day <= previousDay) throw new RangeError(`returns[${index}].date ${entry.date} must be after ${previous}: the series must be sorted, one entry a date`);
    const value = entry.returnValue === null || entry.returnValue === undefined ? null : toDecimal(entry.returnValue, `returns[${index}].returnValue`);
    const subPeriod = { startDate: previous, endDate: entry.date, returnValue: value };
    previous = entry.date;
    previousDay = day;
    return subPeriod;
  });
}
