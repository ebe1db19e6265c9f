/**
 * Calendar arithmetic on 'YYYY-MM-DD' strings (validated by ../dietz.ts's dayNumber, so the same
 * dates are accepted everywhere): month ends, period boundaries and the span used to annualise.
 */
import { dayNumber, daysBetween } from '../dietz.ts';
import { Dec } from '../decimal.ts';
import type { Decimal } from 'decimal.js';

interface CalendarDate {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
}

function parseDate(date: string, label: string): CalendarDate {
  dayNumber(date, label);
  return { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) };
}

function formatDate(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The last calendar day of the month holding `date`. */
export function endOfMonth(date: string): string {
  const { year, month } = parseDate(date, 'date');
  return formatDate(year, month, daysInMonth(year, month));
}

/** The last calendar day of the month `months` months after (negative: before) the month of `date`. */
function endOfMonthShifted(date: string, months: number): string {
  const { year, month } = parseDate(date, 'date');
  const index = year * 12 + (month - 1) + months;
  const shiftedYear = Math.floor(index / 12);
  const shiftedMonth = index - shiftedYear * 12 + 1;
  return formatDate(shiftedYear, shiftedMonth, daysInMonth(shiftedYear, shiftedMonth));
}

/** The last day of the previous month (the MTD boundary). */
export const endOfPreviousMonth = (date: string): string => endOfMonthShifted(date, -1);

/** The last day of the previous calendar quarter (the QTD boundary). */
export function endOfPreviousQuarter(date: string): string {
  const { month } = parseDate(date, 'date');
  const monthsIntoQuarter = (month - 1) % 3;
  return endOfMonthShifted(date, -monthsIntoQuarter - 1);
}

/** 31 December of the previous year (the YTD boundary). */
export function endOfPreviousYear(date: string): string {
  return formatDate(parseDate(date, 'date').year - 1, 12, 31);
}

/** The same calendar day `months` months later (negative: earlier), clamped to the month's end: 2024-03-31 - 1 month = 2024-02-29. */
export function addMonthsClamped(date: string, months: number): string {
  const { day } = parseDate(date, 'date');
  const monthEnd = endOfMonthShifted(date, months);
  const lastDay = Number(monthEnd.slice(8, 10));
  return `${monthEnd.slice(0, 8)}${String(Math.min(day, lastDay)).padStart(2, '0')}`;
}

/** 'YYYY-MM' of a date. */
export const monthOf = (date: string): string => date.slice(0, 7);

/** 'YYYY' of a date. */
export const yearOf = (date: string): string => date.slice(0, 4);

/**
 * The length of (start, end] as whole calendar years plus the days left over, counting the years
 * back from `end` with the same clamping as the nY periods (so 2023-02-28 .. 2024-02-29 is exactly
 * 1 year and 0 days). This is the annualisation day count: see yearsOf.
 */
export interface CalendarSpan {
  years: number;
  extraDays: number;
}

export function calendarSpan(start: string, end: string): CalendarSpan {
  if (daysBetween(start, end) < 0) throw new RangeError(`end ${end} is before start ${start}`);
  let years = 0;
  while (dayNumber(addMonthsClamped(end, -12 * (years + 1))) >= dayNumber(start)) years++;
  return { years, extraDays: daysBetween(start, addMonthsClamped(end, -12 * years)) };
}

/**
 * Years for annualisation: whole calendar years count as exactly 1 each (a 3-year period is 3
 * years whether or not it holds a 29 February, which is how GIPS examples annualise: 33.1 % over
 * 3 years is 10 % a year), and only the part shorter than a year is counted actual/365.
 */
export function yearsOf(span: CalendarSpan): Decimal {
  return new Dec(span.extraDays).dividedBy(365).plus(span.years);
}
