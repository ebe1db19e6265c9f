/**
 * Standard periods as of a date (MTD, QTD, YTD, 1M, 3M, 6M, 1Y, 3Y, 5Y, 10Y, SI) from a growth
 * index (./growth-index.ts).
 *
 * - Each period starts at the close of its boundary date, the last day before the period:
 *   MTD the last day of the previous month, QTD of the previous quarter, YTD 31 December of the
 *   previous year, nM / nY the same calendar day n months / years before as_of clamped to the
 *   month's end (as_of 2024-03-31: 1M -> 2024-02-29), SI the inception.
 * - The valuation dates used are the latest on or before the boundary and on or before as_of;
 *   `days` is the calendar days between them.
 * - A period whose boundary is before the inception is not covered: complete false, a null
 *   return and a reason. A shorter period is never substituted silently. Likewise when no
 *   valuation falls after the boundary (a stale index), rather than a 0 % return over 0 days.
 * - Annualised only when the period (boundary to as_of) is at least one calendar year (GIPS: never
 *   annualise below a year): (1 + R)^(1 / years) - 1 with years = whole calendar years + leftover
 *   days / 365 (dates.ts yearsOf). So 1Y/3Y/5Y/10Y annualise over exactly 1/3/5/10 years, leap
 *   days or not; SI over its whole years plus the rest actual/365; MTD..6M never.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber, daysBetween } from '../dietz.ts';
import { formatReturn } from '../decimal.ts';
import { addMonthsClamped, type CalendarSpan, calendarSpan, endOfPreviousMonth, endOfPreviousQuarter, endOfPreviousYear, yearsOf } from './dates.ts';
import { type GrowthPoint, growthRatio, latestOnOrBefore } from './growth-index.ts';
import { fail, type Outcome, succeed } from './outcome.ts';

export const STANDARD_PERIODS = ['MTD', 'QTD', 'YTD', '1M', '3M', '6M', '1Y', '3Y', '5Y', '10Y', 'SI'] as const;
export type StandardPeriod = (typeof STANDARD_PERIODS)[number];

export interface StandardPeriodsInput {
  /** YYYY-MM-DD */
  asOf: string;
  /** the first valuation date; the index's first point */
  inceptionDate: string;
  /** sorted by date, as buildGrowthIndex returns it */
  index: readonly GrowthPoint[];
}

export interface PeriodRow {
  period: StandardPeriod;
  /** the period starts at the close of this date */
  boundaryDate: string;
  asOf: string;
  /** the latest valuation date on or before boundaryDate; null when the period is not covered */
  startValuationDate: string | null;
  /** the latest valuation date on or before asOf */
  endValuationDate: string;
  /** calendar days between the two valuation dates used; null when the period is not covered */
  days: number | null;
  /** boundaryDate to asOf in calendar years + days: what annualisation divides by */
  span: CalendarSpan;
  /** false when the history starts after boundaryDate */
  complete: boolean;
  returnValue: string | null;
  nullReason: string | null;
  annualizedReturn: string | null;
  annualizedNullReason: string | null;
}

const monthsBack = (months: number) => (asOf: string) => addMonthsClamped(asOf, -months);

const BOUNDARIES: Record<StandardPeriod, (asOf: string, inceptionDate: string) => string> = {
  MTD: endOfPreviousMonth,
  QTD: endOfPreviousQuarter,
  YTD: endOfPreviousYear,
  '1M': monthsBack(1),
  '3M': monthsBack(3),
  '6M': monthsBack(6),
  '1Y': monthsBack(12),
  '3Y': monthsBack(36),
  '5Y': monthsBack(60),
  '10Y': monthsBack(120),
  SI: (_asOf, inceptionDate) => inceptionDate,
};

/** The boundary date of every standard period as of asOf: the dates whose index points the periods read. */
export function periodBoundaries(asOf: string, inceptionDate: string): string[] {
  return STANDARD_PERIODS.map((period) => BOUNDARIES[period](asOf, inceptionDate));
}

/** Every standard period as of asOf, in STANDARD_PERIODS order. asOf before the inception is a typed error. */
export function standardPeriods(input: StandardPeriodsInput): Outcome<PeriodRow[]> {
  const { asOf, inceptionDate, index } = input;
  if (index.length === 0 || index[0].date !== inceptionDate) {
    throw new RangeError(`the growth index must start at the inception ${inceptionDate}, not ${index[0]?.date ?? '(empty)'}`);
  }
  if (dayNumber(asOf, 'asOf') < dayNumber(inceptionDate, 'inceptionDate')) {
    return fail({ code: 'as_of_before_inception', message: `as_of ${asOf} is before the inception ${inceptionDate}`, asOf, inceptionDate });
  }
  // asOf >= inception, so the inception point itself is on or before it.
  const end = latestOnOrBefore(index, asOf) as GrowthPoint;
  return succeed(STANDARD_PERIODS.map((period) => periodRow(period, BOUNDARIES[period](asOf, inceptionDate), end, input)));
}

function periodRow(period: StandardPeriod, boundaryDate: string, end: GrowthPoint, input: StandardPeriodsInput): PeriodRow {
  const span = calendarSpan(boundaryDate, input.asOf);
  const common = { period, boundaryDate, asOf: input.asOf, endValuationDate: end.date, span };
  const uncovered = uncoveredReason(boundaryDate, end, input);
  if (uncovered !== null) {
    return {
      ...common,
      startValuationDate: null,
      days: null,
      complete: false,
      returnValue: null,
      nullReason: uncovered,
      annualizedReturn: null,
      annualizedNullReason: 'the period is not covered',
    };
  }
  // inception <= boundary, so a point on or before the boundary exists.
  const start = latestOnOrBefore(input.index, boundaryDate) as GrowthPoint;
  const growth = growthRatio(start, end);
  return {
    ...common,
    startValuationDate: start.date,
    days: daysBetween(start.date, end.date),
    complete: true,
    returnValue: growth.ratio === null ? null : formatReturn(growth.ratio.minus(1)),
    nullReason: growth.nullReason,
    ...annualized(growth.ratio, span),
  };
}

/**
 * Why the history does not cover the period, or null when it does. Besides a late inception, a
 * stale index (no valuation after the boundary although as_of is after it) would otherwise show a
 * 0 % return over 0 days. SI as of the inception itself is a genuine 0-day period.
 */
function uncoveredReason(boundaryDate: string, end: GrowthPoint, input: StandardPeriodsInput): string | null {
  const boundaryDay = dayNumber(boundaryDate);
  if (dayNumber(input.inceptionDate) > boundaryDay) {
    return `the history starts at ${input.inceptionDate}, after the period's start ${boundaryDate}: the period is not covered`;
  }
  if (dayNumber(end.date) <= boundaryDay && dayNumber(input.asOf) > boundaryDay) {
    return `no valuation after the period's start ${boundaryDate}: the latest valuation on or before as_of is ${end.date}`;
  }
  return null;
}

/** (growth)^(1 / years) - 1 for a period of at least one calendar year; see the module comment. */
function annualized(growth: Decimal | null, span: CalendarSpan): { annualizedReturn: string | null; annualizedNullReason: string | null } {
  if (span.years < 1) return { annualizedReturn: null, annualizedNullReason: 'the period is shorter than one year: returns are not annualised below a year' };
  if (growth === null) return { annualizedReturn: null, annualizedNullReason: 'the period return is null' };
  if (!growth.isPositive() || growth.isZero()) {
    return { annualizedReturn: null, annualizedNullReason: 'a loss of 100 % or more cannot be annualised' };
  }
  return { annualizedReturn: formatReturn(growth.pow(yearsOf(span).pow(-1)).minus(1)), annualizedNullReason: null };
}
