/**
 * Calendar returns: each month's and each year's return linked from the daily returns
 * (prod(1 + r) - 1 over the sub-periods ending in it), and the current (last) year's YTD.
 *
 * - A sub-period belongs to the month / year of its END date (the valuation date it closes on).
 *   With daily valuations that is exact; when a month ends on a day without a valuation, the
 *   sub-period spanning the month end counts in the next month.
 * - A row starts at the close of the previous row's last valuation date (the inception for the
 *   first row) and ends at its own last valuation date.
 * - partial: the first row when the inception falls inside it (the history starts after the
 *   month / year began), and the last row when the series ends before the month / year's last
 *   calendar day. The flag compares calendar days: a series ending on the Friday before a
 *   weekend month end is flagged; only the caller knows the business calendar.
 * - Any null daily return in a row makes that row null (with a reason); other rows are unaffected.
 * - growthFactor (1 + return, full precision) is there to link rows further without the
 *   rounding error of the 12 dp returnValue: linking the months gives the years exactly.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber, linkReturns } from '../dietz.ts';
import { type DailyReturn, type SubPeriod, toSubPeriods } from './daily-returns.ts';
import { endOfMonth, endOfPreviousMonth, endOfPreviousYear, monthOf, yearOf } from './dates.ts';
import { Dec, formatExact, formatReturn } from '../decimal.ts';
import { type GrowthPoint, growthRatio } from './growth-index.ts';

export interface CalendarRow {
  /** 'YYYY-MM' for a month, 'YYYY' for a year */
  period: string;
  /** the close the row starts from */
  startDate: string;
  /** the row's last valuation date */
  endDate: string;
  returnValue: string | null;
  nullReason: string | null;
  /** 1 + return at full precision; null with the return */
  growthFactor: string | null;
  partial: boolean;
  partialReason: string | null;
}

export interface CalendarReturns {
  months: CalendarRow[];
  years: CalendarRow[];
  /** the last year's row: year to date, or the whole year when the series reaches 31 December */
  yearToDate: CalendarRow | null;
}

/** How rows are cut: the key of a date, the last calendar day of its row, and the last day before its row. */
interface Calendar {
  unit: 'month' | 'year';
  keyOf: (date: string) => string;
  lastDay: (date: string) => string;
  dayBefore: (date: string) => string;
}

const MONTHS: Calendar = { unit: 'month', keyOf: monthOf, lastDay: endOfMonth, dayBefore: endOfPreviousMonth };
const YEARS: Calendar = { unit: 'year', keyOf: yearOf, lastDay: (date) => `${yearOf(date)}-12-31`, dayBefore: endOfPreviousYear };

/** Monthly and yearly returns of a daily series (see the module comment). Throws RangeError on an unsorted series. */
export function calendarReturns(inceptionDate: string, dailyReturns: readonly DailyReturn[]): CalendarReturns {
  const subPeriods = toSubPeriods(inceptionDate, dailyReturns);
  const years = calendarRows(subPeriods, YEARS);
  return { months: calendarRows(subPeriods, MONTHS), years, yearToDate: years.length > 0 ? years[years.length - 1] : null };
}

function calendarRows(subPeriods: readonly SubPeriod[], calendar: Calendar): CalendarRow[] {
  const groups: SubPeriod[][] = [];
  for (const subPeriod of subPeriods) {
    const last = groups[groups.length - 1];
    if (last && calendar.keyOf(last[0].endDate) === calendar.keyOf(subPeriod.endDate)) last.push(subPeriod);
    else groups.push([subPeriod]);
  }
  return groups.map((group, index) => calendarRow(group, calendar, index === groups.length - 1));
}

function calendarRow(group: readonly SubPeriod[], calendar: Calendar, isLast: boolean): CalendarRow {
  const startDate = group[0].startDate;
  const endDate = group[group.length - 1].endDate;
  return { period: calendar.keyOf(endDate), startDate, endDate, ...linkGroup(group), ...partiality(startDate, endDate, calendar, isLast) };
}

function linkGroup(group: readonly SubPeriod[]): Pick<CalendarRow, 'returnValue' | 'nullReason' | 'growthFactor'> {
  const linked = linkReturns(group.map((subPeriod) => subPeriod.returnValue));
  if (linked.value === null) {
    const nullDates = group.filter((subPeriod) => subPeriod.returnValue === null).map((subPeriod) => subPeriod.endDate);
    return { returnValue: null, nullReason: `no daily return for ${nullDates.join(', ')}: ${linked.nullReason}`, growthFactor: null };
  }
  const growth = group.reduce((product, subPeriod) => product.times((subPeriod.returnValue as Decimal).plus(1)), new Dec(1));
  return { returnValue: linked.value, nullReason: null, growthFactor: formatExact(growth) };
}

function partiality(startDate: string, endDate: string, calendar: Calendar, isLast: boolean): Pick<CalendarRow, 'partial' | 'partialReason'> {
  const reasons: string[] = [];
  // Only the first row can start after its month / year began: later rows start at the previous row's close.
  const periodStart = calendar.dayBefore(endDate);
  if (dayNumber(startDate) > dayNumber(periodStart)) reasons.push(`starts at the inception ${startDate}, after the ${calendar.unit} began`);
  const lastDay = calendar.lastDay(endDate);
  if (isLast && endDate !== lastDay) reasons.push(`ends at ${endDate}, before the ${calendar.unit}'s last day ${lastDay}`);
  return { partial: reasons.length > 0, partialReason: reasons.length > 0 ? reasons.join('; ') : null };
}

/**
 * The same rows from a growth index instead of the daily returns: `points` are the index's points
 * at the inception and at the last valuation of every month that has one (in date order), so a
 * calendar of ten years reads about 120 points, not 2,500 returns. A month's return is the ratio
 * of its last point to the previous month's (growth-index.ts: null when a null daily return breaks
 * the chain inside it); a year's, of its last point to the previous year's. The rows equal
 * calendarReturns' for the series the index was built from (test/returns/analytics/calendar.test.ts).
 */
export function calendarFromIndex(points: readonly GrowthPoint[]): CalendarReturns {
  const years = rowsFromIndex(points, YEARS);
  return { months: rowsFromIndex(points, MONTHS), years, yearToDate: years.length > 0 ? years[years.length - 1] : null };
}

function rowsFromIndex(points: readonly GrowthPoint[], calendar: Calendar): CalendarRow[] {
  // The last point of each row's month / year, after the inception (points[0]).
  const ends = points.slice(1).filter((point, index, rest) => index === rest.length - 1 || calendar.keyOf(rest[index + 1].date) !== calendar.keyOf(point.date));
  return ends.map((end, index) => {
    const start = index === 0 ? points[0] : ends[index - 1];
    const growth = growthRatio(start, end);
    const linked =
      growth.ratio === null
        ? { returnValue: null, nullReason: growth.nullReason, growthFactor: null }
        : { returnValue: formatReturn(growth.ratio.minus(1)), nullReason: null, growthFactor: formatExact(growth.ratio) };
    return {
      period: calendar.keyOf(end.date),
      startDate: start.date,
      endDate: end.date,
      ...linked,
      ...partiality(start.date, end.date, calendar, index === ends.length - 1),
    };
  });
}
