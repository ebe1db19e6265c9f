/**
 * Benchmark comparison from an index level series.
 *
 * - Benchmark return between two dates: level_b / level_a - 1, each level the latest on or
 *   before its date (an index does not publish on holidays; the last published level stands).
 *   No level on or before a needed date is a typed error.
 * - Excess return: arithmetic R_p - R_b and geometric (1 + R_p) / (1 + R_b) - 1.
 * - Tracking error, for periods of at least one calendar year only: the sample standard deviation
 *   (n - 1) of the monthly return differences R_p,m - R_b,m over the whole calendar months inside
 *   the period, annualised x sqrt(12). Monthly, not daily: monthly returns are what GIPS
 *   composites report (GIPS's 3-year ex-post deviation is monthly too), and daily differences are
 *   dominated by the timing noise between a portfolio's and an index's closing prices.
 * - Information ratio: annualised excess / tracking error, the annualised excess being the
 *   difference of the two annualised returns ((1 + R)^(1 / years) - 1, years as in dates.ts
 *   yearsOf). Null with a reason when the tracking error is zero or null.
 */
import type { Decimal } from 'decimal.js';
import { dayNumber } from '../dietz.ts';
import { addMonthsClamped, calendarSpan, endOfMonth, endOfPreviousMonth, monthOf, yearsOf } from './dates.ts';
import { Dec, formatReturn, toDecimal } from '../decimal.ts';
import { fail, listDates, type Outcome, reversedDates, succeed } from './outcome.ts';

export interface BenchmarkLevel {
  /** YYYY-MM-DD */
  date: string;
  /** the index level at the close; > 0 */
  level: Decimal.Value;
}

export interface BenchmarkPeriodReturn {
  fromDate: string;
  toDate: string;
  /** the dates of the levels used: the latest on or before fromDate / toDate */
  startLevelDate: string;
  endLevelDate: string;
  returnValue: string;
}

export interface ExcessReturn {
  /** R_p - R_b */
  arithmetic: string;
  /** (1 + R_p) / (1 + R_b) - 1; null when R_b = -100 % */
  geometric: string | null;
  geometricNullReason: string | null;
}

export interface MonthlyReturn {
  /** YYYY-MM */
  month: string;
  returnValue: Decimal.Value | null;
}

export interface BenchmarkComparisonInput {
  startDate: string;
  endDate: string;
  /** the portfolio's return over (startDate, endDate] */
  portfolioReturn: Decimal.Value;
  /** the portfolio's monthly returns (e.g. calendar.ts months); those of the whole months inside the period are used */
  portfolioMonthly: readonly MonthlyReturn[];
  /** sorted by date */
  levels: readonly BenchmarkLevel[];
  /**
   * The reported period when it differs from (startDate, endDate]: a standard period runs from its
   * boundary to as_of while its returns are measured between the valuations on or before them.
   * It decides "a year or more", the years the excess is annualised over and the whole months of
   * the tracking error. Default: startDate and endDate.
   */
  period?: { startDate: string; endDate: string };
}

export interface Statistic {
  value: string | null;
  nullReason: string | null;
}

export interface BenchmarkComparison {
  startDate: string;
  endDate: string;
  portfolioReturn: string;
  benchmark: BenchmarkPeriodReturn;
  excess: ExcessReturn;
  /** the whole calendar months inside the period, the tracking error's sample */
  months: string[];
  annualizedExcess: Statistic;
  trackingError: Statistic;
  informationRatio: Statistic;
}

interface ParsedLevel {
  date: string;
  day: number;
  level: Decimal;
}

/** Levels parsed; throws RangeError unless sorted by strictly increasing date with positive levels (bad data upstream). */
function parseLevels(levels: readonly BenchmarkLevel[]): ParsedLevel[] {
  return levels.map((entry, index) => {
    const day = dayNumber(entry.date, `levels[${index}].date`);
    if (index > 0 && day <= dayNumber(levels[index - 1].date)) throw new RangeError(`levels must be sorted by date, one a date: ${entry.date}`);
    const level = toDecimal(entry.level, `levels[${index}].level`);
    if (!level.isPositive() || level.isZero()) throw new RangeError(`levels[${index}].level must be positive, got ${level.toString()}`);
    return { date: entry.date, day, level };
  });
}

function latestLevel(levels: readonly ParsedLevel[], date: string): ParsedLevel | null {
  const day = dayNumber(date);
  let low = 0;
  let high = levels.length - 1;
  let found: ParsedLevel | null = null;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (levels[mid].day <= day) {
      found = levels[mid];
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** The levels of pairs of dates, or the typed error naming every date that has no level on or before it. */
function levelPairs(levels: readonly ParsedLevel[], pairs: readonly [string, string][]): Outcome<[ParsedLevel, ParsedLevel][]> {
  const found = pairs.map(([from, to]) => [latestLevel(levels, from), latestLevel(levels, to)] as const);
  const missing = [...new Set(pairs.flat().filter((date) => latestLevel(levels, date) === null))];
  if (missing.length > 0) {
    const first = levels.length > 0 ? `the first level is on ${levels[0].date}` : 'there are no levels';
    return fail({ code: 'missing_benchmark_level', message: `no benchmark level on or before ${listDates(missing)} (${first})`, dates: missing });
  }
  return succeed(found as [ParsedLevel, ParsedLevel][]);
}

const growthOf = ([start, end]: [ParsedLevel, ParsedLevel]): Decimal => end.level.dividedBy(start.level);

/** The benchmark's return from the close of fromDate to the close of toDate. */
export function benchmarkReturn(levels: readonly BenchmarkLevel[], fromDate: string, toDate: string): Outcome<BenchmarkPeriodReturn> {
  if (dayNumber(toDate, 'toDate') < dayNumber(fromDate, 'fromDate')) return reversedDates(fromDate, toDate);
  const found = levelPairs(parseLevels(levels), [[fromDate, toDate]]);
  if (!found.ok) return found;
  const [start, end] = found.value[0];
  return succeed({ fromDate, toDate, startLevelDate: start.date, endLevelDate: end.date, returnValue: formatReturn(growthOf(found.value[0]).minus(1)) });
}

/**
 * The benchmark's return from the close of fromDate to the close of toDate and the portfolio's
 * excess over it, the excess computed from the unrounded benchmark return.
 */
export function benchmarkExcess(
  levels: readonly BenchmarkLevel[],
  fromDate: string,
  toDate: string,
  portfolioReturn: Decimal.Value,
): Outcome<{ benchmark: BenchmarkPeriodReturn; excess: ExcessReturn }> {
  if (dayNumber(toDate, 'toDate') < dayNumber(fromDate, 'fromDate')) return reversedDates(fromDate, toDate);
  const found = levelPairs(parseLevels(levels), [[fromDate, toDate]]);
  if (!found.ok) return found;
  const [start, end] = found.value[0];
  const growth = growthOf(found.value[0]);
  return succeed({
    benchmark: { fromDate, toDate, startLevelDate: start.date, endLevelDate: end.date, returnValue: formatReturn(growth.minus(1)) },
    excess: excessReturn(portfolioReturn, growth.minus(1)),
  });
}

/** Arithmetic and geometric excess of a portfolio return over a benchmark return. */
export function excessReturn(portfolioReturn: Decimal.Value, benchmarkReturn: Decimal.Value): ExcessReturn {
  const portfolio = toDecimal(portfolioReturn, 'portfolioReturn');
  const benchmark = toDecimal(benchmarkReturn, 'benchmarkReturn');
  const arithmetic = formatReturn(portfolio.minus(benchmark));
  if (benchmark.plus(1).isZero()) {
    return { arithmetic, geometric: null, geometricNullReason: 'the benchmark return is -100 %: the geometric excess is undefined' };
  }
  return { arithmetic, geometric: formatReturn(portfolio.plus(1).dividedBy(benchmark.plus(1)).minus(1)), geometricNullReason: null };
}

/** A statistic before formatting: every figure derived from it is computed from the unrounded value. */
type Exact = { value: Decimal; nullReason: null } | { value: null; nullReason: string };

const absent = (nullReason: string): Exact => ({ value: null, nullReason });

function formatted(exact: Exact): Statistic {
  return exact.value === null ? { value: null, nullReason: exact.nullReason } : { value: formatReturn(exact.value), nullReason: null };
}

function exactTrackingError(differences: readonly Decimal[]): Exact {
  const n = differences.length;
  if (n < 2) return absent(`${n} monthly difference${n === 1 ? '' : 's'}: a sample standard deviation needs at least 2`);
  const mean = differences.reduce((sum, d) => sum.plus(d), new Dec(0)).dividedBy(n);
  const squares = differences.reduce((sum, d) => sum.plus(d.minus(mean).pow(2)), new Dec(0));
  // One square root of the annualised variance: 12 s^2 = 12 * sum (d - mean)^2 / (n - 1).
  return {
    value: squares
      .times(12)
      .dividedBy(n - 1)
      .sqrt(),
    nullReason: null,
  };
}

function exactInformationRatio(annualizedExcess: Exact, te: Exact): Exact {
  if (annualizedExcess.value === null) return absent(`no annualised excess: ${annualizedExcess.nullReason}`);
  if (te.value === null) return absent(`no tracking error: ${te.nullReason}`);
  if (te.value.isZero()) return absent('the tracking error is zero: the portfolio tracked the benchmark exactly');
  return { value: annualizedExcess.value.dividedBy(te.value), nullReason: null };
}

/** sqrt(12) x the sample standard deviation of monthly differences; null with a reason below two months. */
export function trackingError(monthlyDifferences: readonly Decimal.Value[]): Statistic {
  return formatted(exactTrackingError(monthlyDifferences.map((d, index) => toDecimal(d, `monthlyDifferences[${index}]`))));
}

/** Annualised excess / tracking error (both fractions). */
export function informationRatio(annualizedExcess: Decimal.Value | null, trackingErrorValue: Decimal.Value | null): Statistic {
  const exact = (value: Decimal.Value | null, label: string): Exact =>
    value === null ? absent('given as null') : { value: toDecimal(value, label), nullReason: null };
  return formatted(exactInformationRatio(exact(annualizedExcess, 'annualizedExcess'), exact(trackingErrorValue, 'trackingError')));
}

/** The whole calendar months inside (startDate, endDate], as 'YYYY-MM'. */
export function wholeMonths(startDate: string, endDate: string): string[] {
  const months: string[] = [];
  const startDay = dayNumber(startDate);
  for (let date = endOfMonth(startDate); dayNumber(date) <= dayNumber(endDate); date = endOfMonth(addMonthsClamped(date, 1))) {
    if (dayNumber(endOfPreviousMonth(date)) >= startDay) months.push(monthOf(date));
  }
  return months;
}

/**
 * The benchmark return, excess returns and (for a period of a year or more) tracking error and
 * information ratio. Reversed dates and missing levels are typed errors; a missing or null
 * portfolio month makes the tracking error null with a reason.
 */
export function compareToBenchmark(input: BenchmarkComparisonInput): Outcome<BenchmarkComparison> {
  const { startDate, endDate } = input;
  if (dayNumber(endDate, 'endDate') < dayNumber(startDate, 'startDate')) return reversedDates(startDate, endDate);
  const period = input.period ?? { startDate, endDate };
  if (dayNumber(period.endDate, 'period.endDate') < dayNumber(period.startDate, 'period.startDate')) return reversedDates(period.startDate, period.endDate);
  const levels = parseLevels(input.levels);
  const months = wholeMonths(period.startDate, period.endDate);
  const monthPairs = months.map((month): [string, string] => [endOfPreviousMonth(`${month}-01`), endOfMonth(`${month}-01`)]);
  const found = levelPairs(levels, [[startDate, endDate], ...monthPairs]);
  if (!found.ok) return found;
  const [periodLevels, ...monthLevels] = found.value;
  const portfolio = toDecimal(input.portfolioReturn, 'portfolioReturn');
  const benchmarkGrowth = growthOf(periodLevels);
  const span = calendarSpan(period.startDate, period.endDate);
  const yearOrMore = span.years >= 1;
  const annualizedExcess = yearOrMore ? annualizedDifference(portfolio.plus(1), benchmarkGrowth, yearsOf(span)) : shortPeriod();
  const te = yearOrMore ? monthlyTrackingError(input.portfolioMonthly, months, monthLevels.map(growthOf)) : shortPeriod();
  return succeed({
    startDate,
    endDate,
    portfolioReturn: formatReturn(portfolio),
    benchmark: {
      fromDate: startDate,
      toDate: endDate,
      startLevelDate: periodLevels[0].date,
      endLevelDate: periodLevels[1].date,
      returnValue: formatReturn(benchmarkGrowth.minus(1)),
    },
    excess: excessReturn(portfolio, benchmarkGrowth.minus(1)),
    months,
    annualizedExcess: formatted(annualizedExcess),
    trackingError: formatted(te),
    informationRatio: formatted(yearOrMore ? exactInformationRatio(annualizedExcess, te) : shortPeriod()),
  });
}

const shortPeriod = (): Exact => absent('the period is shorter than one year: not annualised, no tracking error or information ratio');

/** (growth_p)^(1/years) - (growth_b)^(1/years); null for a portfolio loss of 100 % or more (benchmark levels are positive). */
function annualizedDifference(portfolioGrowth: Decimal, benchmarkGrowth: Decimal, years: Decimal): Exact {
  if (!portfolioGrowth.isPositive() || portfolioGrowth.isZero()) return absent('a portfolio loss of 100 % or more cannot be annualised');
  const exponent = new Dec(1).dividedBy(years);
  return { value: portfolioGrowth.pow(exponent).minus(benchmarkGrowth.pow(exponent)), nullReason: null };
}

function monthlyTrackingError(portfolioMonthly: readonly MonthlyReturn[], months: readonly string[], benchmarkGrowths: readonly Decimal[]): Exact {
  const byMonth = new Map(portfolioMonthly.map((entry) => [entry.month, entry.returnValue]));
  const missing = months.filter((month) => byMonth.get(month) === undefined || byMonth.get(month) === null);
  if (missing.length > 0) return absent(`no portfolio return for ${listDates(missing)}`);
  return exactTrackingError(
    months.map((month, i) => toDecimal(byMonth.get(month) as Decimal.Value, `portfolio return of ${month}`).minus(benchmarkGrowths[i].minus(1))),
  );
}
