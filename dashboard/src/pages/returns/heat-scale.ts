import type { CalendarRow, CalendarTable } from './analytics-queries.ts';
import { toNumber } from './format.ts';

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Where a month's colour gets one step deeper, in percent of |return| (the legend's bands). */
export const STEPS = [1, 2.5, 5];

/** A month's colour: `gain-1` … `gain-4`, `loss-1` … `loss-4`, `zero`, or `none` (no return). */
export function heatClass(value: string | null): string {
  const number = toNumber(value);
  if (number === null) return 'none';
  if (number === 0) return 'zero';
  const percent = Math.abs(number * 100);
  const level = 1 + STEPS.filter((step) => percent >= step).length;
  return `${number > 0 ? 'gain' : 'loss'}-${level}`;
}

export interface HeatYear {
  year: string;
  /** Twelve entries, January first: undefined where the history has no such month. */
  months: (CalendarRow | undefined)[];
  total: CalendarRow | undefined;
}

/** The calendar's months and years as rows of a year each, oldest first. */
export function heatRows(calendar: CalendarTable): HeatYear[] {
  const years = new Map<string, HeatYear>();
  const yearOf = (year: string) => {
    let row = years.get(year);
    if (!row) years.set(year, (row = { year, months: Array.from({ length: 12 }, () => undefined), total: undefined }));
    return row;
  };
  for (const month of calendar.months) yearOf(month.period.slice(0, 4)).months[Number(month.period.slice(5, 7)) - 1] = month;
  for (const year of calendar.years) yearOf(year.period).total = year;
  return [...years.values()].sort((a, b) => a.year.localeCompare(b.year));
}
