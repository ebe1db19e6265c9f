import { AppError } from '../../errors.ts';

const DAY_MS = 86_400_000;
const WEEK_PATTERN = /^(\d{4})-W(\d{2})$/;

export interface IsoWeekRange {
  /** Normalised label, e.g. `2026-W47`. */
  week: string;
  /** Monday 00:00 UTC (inclusive). */
  start: Date;
  /** The next Monday 00:00 UTC (exclusive). */
  end: Date;
}

/** Monday 00:00 UTC of ISO week 1 of `year` (the week holding 4 January). */
function week1Monday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const mondayBased = (new Date(jan4).getUTCDay() + 6) % 7;
  return jan4 - mondayBased * DAY_MS;
}

/** 52 or 53: the number of ISO weeks in `year`. */
export function isoWeeksInYear(year: number): number {
  return Math.round((week1Monday(year + 1) - week1Monday(year)) / (7 * DAY_MS));
}

/**
 * `YYYY-Www` (ISO 8601 week date, weeks start on Monday, week 1 holds 4 January) -> the UTC
 * range [Monday 00:00, next Monday 00:00). Anything else is a 400 naming `field`.
 */
export function parseIsoWeek(value: string, field = 'week'): IsoWeekRange {
  const match = WEEK_PATTERN.exec(value.trim());
  if (!match) throw AppError.badInput(field, `must be an ISO week like 2026-W47, got ${JSON.stringify(value)}`);
  const year = Number(match[1]);
  const week = Number(match[2]);
  if (year < 1970) throw AppError.badInput(field, 'the year must be 1970 or later');
  const weeks = isoWeeksInYear(year);
  if (week < 1 || week > weeks) throw AppError.badInput(field, `${year} has ISO weeks 01 to ${weeks}, got ${JSON.stringify(value)}`);
  const start = week1Monday(year) + (week - 1) * 7 * DAY_MS;
  return { week: `${year}-W${String(week).padStart(2, '0')}`, start: new Date(start), end: new Date(start + 7 * DAY_MS) };
}

/** The ISO week (`YYYY-Www`) an instant falls in, in UTC. */
export function isoWeekOf(instant: Date): string {
  const day = Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate());
  // The Thursday of the instant's week decides its ISO year.
  const thursday = day + (3 - ((new Date(day).getUTCDay() + 6) % 7)) * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - week1Monday(year)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}
