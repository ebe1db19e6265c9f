/**
 * An entity's benchmark (docs/returns-and-csv.md#benchmarks): assigning one (Entity.benchmark, the
 * name of a BenchmarkLevel series uploaded to the entity's organization as file_type=benchmark),
 * the organization's series, and the comparison the period and calendar tables carry.
 *
 * - Levels are read a few probes at a time: the latest level on or before each date a table needs
 *   (one index probe per date, as ./growth-index-store.ts reads the growth index), plus the
 *   series' first level for the messages. A period table needs its rows' valuation dates and,
 *   for a period of a year or more, the calendar month ends inside it (the tracking error's
 *   months); a calendar its rows' dates. Never a pass over the whole series.
 * - The portfolio side is the table's own return (net of fees, in the reporting currency), taken
 *   unrounded from the growth index; the monthly returns of the tracking error are read from the
 *   index at the same month ends (the calendar's months).
 * - The benchmark never fails a table: a row whose comparison cannot be made (no level on or
 *   before a date it needs, no portfolio return) gets a comparison with null figures and the
 *   reason. Without a benchmark assigned there is no comparison at all (null).
 * - Every read and write is confined to the caller's organizations (./returns-service.ts findEntity).
 */
import type pg from 'pg';
import type { Decimal } from 'decimal.js';
import { AppError } from '../errors.ts';
import { pgArray } from '../db/sql-client.ts';
import { benchmarkExcess, compareToBenchmark, type BenchmarkLevel, type MonthlyReturn, wholeMonths } from './analytics/benchmark.ts';
import type { CalendarRow } from './analytics/calendar.ts';
import { endOfMonth, endOfPreviousMonth } from './analytics/dates.ts';
import { type GrowthPoint, growthRatio, latestOnOrBefore } from './analytics/growth-index.ts';
import type { PeriodRow } from './analytics/periods.ts';
import { convertIndex, currencyPair, ratesOn } from './currency-service.ts';
import { Dec, formatExact } from './decimal.ts';
import { pointsOnOrBefore } from './growth-index-store.ts';
import { findEntity, type EntityRow } from './returns-service.ts';

type Pool = Pick<pg.Pool, 'query' | 'connect'>;
type Scope = { orgIds: ReadonlySet<string> };

/** The longest benchmark name (as the benchmark upload format allows: docs/returns-and-csv.md#csv-formats). */
const BENCHMARK_NAME_MAX = 100;

export interface EntityBenchmark {
  /** the entity's id */
  id: string;
  organizationId: string;
  entityName: string;
  accountCode: string;
  /** the assigned benchmark's name; null: none */
  benchmark: string | null;
}

export interface BenchmarkSeries {
  organizationId: string;
  name: string;
  firstDate: string;
  lastDate: string;
  levelCount: number;
}

/** A standard period's comparison with the benchmark; figures null with nullReason when it cannot be made. */
export interface PeriodBenchmarkComparison {
  name: string;
  /** the dates of the levels used: the latest on or before the period's start and end valuation dates */
  startLevelDate: string | null;
  endLevelDate: string | null;
  returnValue: string | null;
  /** R_p - R_b */
  excessReturn: string | null;
  /** (1 + R_p) / (1 + R_b) - 1 */
  geometricExcessReturn: string | null;
  /** (1 + R_p)^(1/years) - (1 + R_b)^(1/years), from a year on */
  annualizedExcessReturn: string | null;
  /** the whole calendar months inside the period: the tracking error's sample */
  monthCount: number | null;
  trackingError: string | null;
  trackingErrorNullReason: string | null;
  informationRatio: string | null;
  informationRatioNullReason: string | null;
  nullReason: string | null;
}

/** A calendar month's or year's comparison with the benchmark. */
export interface CalendarBenchmarkComparison {
  name: string;
  startLevelDate: string | null;
  endLevelDate: string | null;
  returnValue: string | null;
  excessReturn: string | null;
  geometricExcessReturn: string | null;
  nullReason: string | null;
}

/** On a period or calendar table: the assigned benchmark's name (null: none, and no comparisons). */
export interface BenchmarkTableFields {
  benchmark?: string | null;
}

export interface BenchmarkPeriodFields {
  benchmarkComparison?: PeriodBenchmarkComparison | null;
}

export interface BenchmarkCalendarFields {
  benchmarkComparison?: CalendarBenchmarkComparison | null;
}

/** What the comparisons need of the entity: where its index and levels are, and its currency. */
type BenchmarkedEntity = Pick<EntityRow, 'id' | 'orgId' | 'currency'>;

type PeriodLike = Pick<PeriodRow, 'boundaryDate' | 'asOf' | 'span' | 'startValuationDate' | 'endValuationDate' | 'returnValue' | 'nullReason'>;
type CalendarLike = Pick<CalendarRow, 'period' | 'startDate' | 'endDate' | 'returnValue' | 'nullReason' | 'growthFactor'>;

/** Assigning benchmarks and listing the series (GraphQL, REST, MCP and the CLI all come here). */
export class EntityBenchmarks {
  constructor(private readonly pool: Pick<pg.Pool, 'query'>) {}

  /**
   * Gives the entity a benchmark (null clears it). The series must have levels in the entity's
   * organization; an entity outside the caller's organizations is not found.
   */
  async assign(scope: Scope & { entityName: string; benchmark: string | null }): Promise<EntityBenchmark> {
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const name = scope.benchmark === null ? null : scope.benchmark.trim();
    if (name !== null) {
      if (name.length === 0) throw AppError.badInput('benchmark', 'must not be empty (null clears the benchmark)');
      if (name.length > BENCHMARK_NAME_MAX) throw AppError.badInput('benchmark', `must be at most ${BENCHMARK_NAME_MAX} characters`);
      const { rows } = await this.pool.query(`SELECT 1 FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = $2 LIMIT 1`, [entity.orgId, name]);
      if (rows.length === 0) {
        throw AppError.badInput('benchmark', `no benchmark named ${JSON.stringify(name)} has been uploaded to this organization (file_type=benchmark)`);
      }
    }
    await this.pool.query(`UPDATE "Entity" SET benchmark = $2 WHERE id = $1`, [entity.id, name]);
    return { id: entity.id, organizationId: entity.orgId, entityName: entity.entityName, accountCode: entity.accountCode, benchmark: name };
  }

  /** The benchmark series of the caller's organizations (of one of them with organizationId), by organization and name. */
  async series(scope: Scope & { organizationId?: string | null }): Promise<BenchmarkSeries[]> {
    const orgIds = scope.organizationId ? [...scope.orgIds].filter((id) => id === scope.organizationId) : [...scope.orgIds];
    if (orgIds.length === 0) return [];
    const { rows } = await this.pool.query<BenchmarkSeries>(
      `SELECT "orgId" AS "organizationId", benchmark AS name, min(date)::text AS "firstDate", max(date)::text AS "lastDate", count(*)::int AS "levelCount"
         FROM "BenchmarkLevel" WHERE "orgId" = ANY($1::uuid[])
        GROUP BY "orgId", benchmark ORDER BY "orgId", benchmark`,
      [orgIds],
    );
    return rows;
  }
}

/** The entity's assigned benchmark, or null. */
async function assignedBenchmark(pool: Pick<pg.Pool, 'query'>, entityId: string): Promise<string | null> {
  const { rows } = await pool.query<{ benchmark: string | null }>(`SELECT benchmark FROM "Entity" WHERE id = $1`, [entityId]);
  return rows[0]?.benchmark ?? null;
}

/**
 * The series' levels on or before each date (one probe per date, deduplicated, by date) and its
 * first level, so a date before the series names the real first date: what the pure functions
 * of ./analytics/benchmark.ts need to answer for exactly these dates.
 */
async function levelsOnOrBefore(pool: Pick<pg.Pool, 'query'>, orgId: string, name: string, dates: readonly string[]): Promise<BenchmarkLevel[]> {
  const { rows } = await pool.query<BenchmarkLevel & { date: string; level: string }>(
    `SELECT l.date::text AS date, l.level::text AS level
       FROM unnest($3::date[]) AS wanted(date)
      CROSS JOIN LATERAL (
        SELECT date, level FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = $2 AND date <= wanted.date ORDER BY date DESC LIMIT 1
      ) l
     UNION
     SELECT f.date::text, f.level::text FROM (SELECT date, level FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = $2 ORDER BY date LIMIT 1) f
     ORDER BY 1`,
    [orgId, name, pgArray([...new Set(dates)].sort())],
  );
  return rows;
}

const monthStart = (month: string) => `${month}-01`;

/**
 * The period table with its benchmark: `benchmark` on the table and a comparison on each row
 * (null on every row when none is assigned). See the module comment.
 */
export async function withPeriodBenchmark<Row extends PeriodLike, Table extends { periods: Row[] }>(
  pool: Pool,
  entity: BenchmarkedEntity,
  inceptionDate: string,
  currency: string | null | undefined,
  table: Table,
): Promise<Table & { benchmark: string | null; periods: (Row & { benchmarkComparison: PeriodBenchmarkComparison | null })[] }> {
  const name = await assignedBenchmark(pool, entity.id);
  if (name === null) return { ...table, benchmark: null, periods: table.periods.map((row) => ({ ...row, benchmarkComparison: null })) };
  const measured = table.periods.filter((row) => row.returnValue !== null && row.startValuationDate !== null);
  const rowDates = measured.flatMap((row) => [row.startValuationDate as string, row.endValuationDate]);
  // The tracking error's months: those of every period of a year or more (wholeMonths is empty below a month).
  const months = [...new Set(measured.filter(isYearOrMore).flatMap((row) => wholeMonths(row.boundaryDate, row.asOf)))].sort();
  const monthEnds = months.flatMap((month) => [endOfPreviousMonth(monthStart(month)), endOfMonth(monthStart(month))]);
  const [levels, portfolio] = await Promise.all([
    levelsOnOrBefore(pool, entity.orgId, name, [...rowDates, ...monthEnds]),
    measured.length === 0 ? null : portfolioIndex(pool, entity, inceptionDate, currency, rowDates, monthEnds),
  ]);
  const monthly = portfolio?.monthsNullReason === null ? monthlyReturns(portfolio.points, months) : [];
  const periods = table.periods.map((row) => {
    if (row.returnValue === null || row.startValuationDate === null || portfolio === null) {
      return { ...row, benchmarkComparison: uncomparedPeriod(name, `the period has no return: ${row.nullReason ?? 'not covered'}`) };
    }
    return { ...row, benchmarkComparison: comparePeriod(name, row, row.startValuationDate, portfolio, monthly, levels) };
  });
  return { ...table, benchmark: name, periods };
}

/** The calendar table with its benchmark: `benchmark` on the table and a comparison on each month and year. */
export async function withCalendarBenchmark<Row extends CalendarLike, Table extends { months: Row[]; years: Row[]; yearToDate: Row | null }>(
  pool: Pick<pg.Pool, 'query'>,
  entity: BenchmarkedEntity,
  table: Table,
): Promise<
  Table & {
    benchmark: string | null;
    months: (Row & BenchmarkCalendarFields)[];
    years: (Row & BenchmarkCalendarFields)[];
    yearToDate: (Row & BenchmarkCalendarFields) | null;
  }
> {
  const name = await assignedBenchmark(pool, entity.id);
  const rows = [...table.months, ...table.years];
  const levels =
    name === null
      ? []
      : await levelsOnOrBefore(
          pool,
          entity.orgId,
          name,
          rows.flatMap((row) => [row.startDate, row.endDate]),
        );
  const compared = new Map(rows.map((row) => [row, { ...row, benchmarkComparison: name === null ? null : compareCalendarRow(name, row, levels) }]));
  const attach = (row: Row) => compared.get(row) as Row & BenchmarkCalendarFields;
  return {
    ...table,
    benchmark: name,
    months: table.months.map(attach),
    years: table.years.map(attach),
    yearToDate: table.yearToDate === null ? null : (compared.get(table.yearToDate) ?? { ...table.yearToDate, benchmarkComparison: null }),
  };
}

/** A period of a year or more (boundary to as_of, as the period annualises): the tracking error's periods. */
const isYearOrMore = (row: PeriodLike): boolean => row.span.years >= 1;

interface PortfolioIndex {
  /** the index points at the rows' valuation dates and the month ends, in the reporting currency */
  points: GrowthPoint[];
  /** why there are no monthly returns (a missing exchange rate at a month end); null when there are */
  monthsNullReason: string | null;
}

/**
 * The growth index at the dates the comparison needs, in the reporting currency. The rows' own
 * dates always convert (the table itself converted them); a month end without a rate leaves the
 * tracking error null with the reason instead of failing the table.
 */
async function portfolioIndex(
  pool: Pool,
  entity: BenchmarkedEntity,
  inceptionDate: string,
  currency: string | null | undefined,
  rowDates: readonly string[],
  monthEnds: readonly string[],
): Promise<PortfolioIndex> {
  const points = await pointsOnOrBefore(pool, entity, inceptionDate, [...new Set([...rowDates, ...monthEnds])].sort());
  const pair = currencyPair(entity, currency);
  if (pair.local === pair.reporting) return { points, monthsNullReason: null };
  try {
    const rates = await ratesOn(
      pool,
      entity.orgId,
      pair,
      points.map((point) => point.date),
    );
    return { points: convertIndex(points, rates), monthsNullReason: null };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const needed = new Set([...rowDates, inceptionDate]);
    const kept = points.filter((point) => needed.has(point.date));
    const rates = await ratesOn(
      pool,
      entity.orgId,
      pair,
      kept.map((point) => point.date),
    );
    return {
      points: convertIndex(kept, rates),
      monthsNullReason: `no monthly returns in ${pair.reporting}: ${String(error.extensions.problem ?? error.message)}`,
    };
  }
}

/**
 * Each month's return from the index points on or before its first and last day, as the calendar
 * has it (a month with no valuation of its own has none: it is left out, and the tracking error
 * then names it).
 */
function monthlyReturns(points: readonly GrowthPoint[], months: readonly string[]): MonthlyReturn[] {
  return months.flatMap((month): MonthlyReturn[] => {
    const start = latestOnOrBefore(points, endOfPreviousMonth(monthStart(month)));
    const end = latestOnOrBefore(points, endOfMonth(monthStart(month)));
    if (start === null || end === null || start.date === end.date) return [];
    const growth = growthRatio(start, end);
    return [{ month, returnValue: growth.ratio === null ? null : growth.ratio.minus(1) }];
  });
}

/** The portfolio's unrounded return between two of its valuation dates, or null when the chain breaks between them. */
function portfolioReturn(points: readonly GrowthPoint[], startDate: string, endDate: string): Decimal | null {
  const start = latestOnOrBefore(points, startDate);
  const end = latestOnOrBefore(points, endDate);
  if (start === null || end === null) return null;
  const growth = growthRatio(start, end);
  return growth.ratio === null ? null : growth.ratio.minus(1);
}

function comparePeriod(
  name: string,
  row: PeriodLike,
  startValuationDate: string,
  portfolio: PortfolioIndex,
  monthly: readonly MonthlyReturn[],
  levels: readonly BenchmarkLevel[],
): PeriodBenchmarkComparison {
  const exact = portfolioReturn(portfolio.points, startValuationDate, row.endValuationDate);
  const periodReturn = exact === null ? (row.returnValue as string) : formatExact(exact);
  // The period's own dates first, so a missing start level is named alone (not with every month end after it).
  const headline = benchmarkExcess(levels, startValuationDate, row.endValuationDate, periodReturn);
  if (!headline.ok) return uncomparedPeriod(name, headline.error.message);
  const outcome = compareToBenchmark({
    startDate: startValuationDate,
    endDate: row.endValuationDate,
    period: { startDate: row.boundaryDate, endDate: row.asOf },
    portfolioReturn: periodReturn,
    portfolioMonthly: monthly,
    levels,
  });
  if (!outcome.ok) return uncomparedPeriod(name, outcome.error.message);
  const result = outcome.value;
  const ratesMissing = portfolio.monthsNullReason !== null && result.trackingError.value === null && isYearOrMore(row) && result.months.length > 0;
  const trackingError = ratesMissing ? { value: null, nullReason: portfolio.monthsNullReason } : result.trackingError;
  const informationRatio = ratesMissing ? { value: null, nullReason: `no tracking error: ${portfolio.monthsNullReason}` } : result.informationRatio;
  return {
    name,
    startLevelDate: result.benchmark.startLevelDate,
    endLevelDate: result.benchmark.endLevelDate,
    returnValue: result.benchmark.returnValue,
    excessReturn: result.excess.arithmetic,
    geometricExcessReturn: result.excess.geometric,
    annualizedExcessReturn: result.annualizedExcess.value,
    monthCount: result.months.length,
    trackingError: trackingError.value,
    trackingErrorNullReason: trackingError.nullReason,
    informationRatio: informationRatio.value,
    informationRatioNullReason: informationRatio.nullReason,
    nullReason: null,
  };
}

function uncomparedPeriod(name: string, nullReason: string): PeriodBenchmarkComparison {
  return {
    name,
    startLevelDate: null,
    endLevelDate: null,
    returnValue: null,
    excessReturn: null,
    geometricExcessReturn: null,
    annualizedExcessReturn: null,
    monthCount: null,
    trackingError: null,
    trackingErrorNullReason: nullReason,
    informationRatio: null,
    informationRatioNullReason: nullReason,
    nullReason,
  };
}

function compareCalendarRow(name: string, row: CalendarLike, levels: readonly BenchmarkLevel[]): CalendarBenchmarkComparison {
  const unit = row.period.length === 4 ? 'year' : 'month';
  const none = (nullReason: string): CalendarBenchmarkComparison => ({
    name,
    startLevelDate: null,
    endLevelDate: null,
    returnValue: null,
    excessReturn: null,
    geometricExcessReturn: null,
    nullReason,
  });
  if (row.returnValue === null || row.growthFactor === null) return none(`the ${unit} has no return: ${row.nullReason ?? 'no daily returns'}`);
  const outcome = benchmarkExcess(levels, row.startDate, row.endDate, new Dec(row.growthFactor).minus(1));
  if (!outcome.ok) return none(outcome.error.message);
  const { benchmark, excess } = outcome.value;
  return {
    name,
    startLevelDate: benchmark.startLevelDate,
    endLevelDate: benchmark.endLevelDate,
    returnValue: benchmark.returnValue,
    excessReturn: excess.arithmetic,
    geometricExcessReturn: excess.geometric,
    nullReason: null,
  };
}
