/**
 * The returns figures reported on top of the daily Modified Dietz returns (docs/returns-and-csv.md#reported-returns):
 * standard periods, calendar months and years, and the money-weighted return (XIRR). The math is
 * ./analytics (pure, exact); this reads what it needs: periods and calendars a few points of the
 * stored growth index (./growth-index-store.ts), the IRR two valuations and the flows between.
 * Every read is confined to the caller's organizations, as in ./returns-service.ts.
 */
import type pg from 'pg';
import { AppError } from '../errors.ts';
import { dayNumber, type CashFlow, type FlowTiming } from './dietz.ts';
import { calendarFromIndex, type CalendarRow } from './analytics/calendar.ts';
import type { CurrencyPair } from './analytics/currency.ts';
import { moneyWeightedReturn, type MoneyWeightedResult } from './analytics/irr.ts';
import { Dec, formatMoney } from './decimal.ts';
import type { AnalyticsError, Outcome } from './analytics/outcome.ts';
import { periodBoundaries, standardPeriods, type PeriodRow } from './analytics/periods.ts';
import { grossIndex, monthEnds, pointsOnOrBefore } from './growth-index-store.ts';
import { DIETZ_MAX_RANGE_DAYS, findEntity, type EntityRow } from './returns-service.ts';
import type { GrowthPoint } from './analytics/growth-index.ts';
import { convertAmount, convertIndex, currencyEffect, currencyPair, ratesOn } from './currency-service.ts';
import {
  withCalendarBenchmark,
  withPeriodBenchmark,
  type BenchmarkCalendarFields,
  type BenchmarkPeriodFields,
  type BenchmarkTableFields,
} from './benchmark-service.ts';

type Scope = { orgIds: ReadonlySet<string> };
/** `currency`: the reporting currency asked for (ISO 4217); null or absent = the entity's own. */
type CurrencyScope = { currency?: string | null };

/** The local (the entity's currency) return beside the reported one, and the difference the rates made. */
export interface CurrencyFields {
  localReturnValue: string | null;
  /** returnValue - localReturnValue: (1 + r) = (1 + r_local)(1 + r_fx); zero in the entity's own currency */
  currencyEffect: string | null;
}

/**
 * Gross of fees beside net (./analytics/fees.ts): the same pure functions run on the gross-of-fee
 * growth index, so the rules (never annualised below a year, null periods) are the net ones.
 */
export interface GrossPeriodFields {
  grossReturnValue: string | null;
  grossAnnualizedReturn: string | null;
}

export interface GrossCalendarFields {
  grossReturnValue: string | null;
}

export type ReportedPeriodRow = PeriodRow & CurrencyFields & GrossPeriodFields & BenchmarkPeriodFields;
export type ReportedCalendarRow = CalendarRow & CurrencyFields & GrossCalendarFields & BenchmarkCalendarFields;

interface EntityHistory {
  entity: EntityRow;
  /** the first valuation date */
  inceptionDate: string;
  /** the latest valuation date */
  latestDate: string;
}

/** `currency` is the currency the figures are in (the one asked for, else the entity's); `localCurrency` the entity's. */
interface Described {
  entityName: string;
  accountCode: string;
  currency: string;
  localCurrency: string;
}

export interface PeriodTable extends Described, BenchmarkTableFields {
  asOf: string;
  inceptionDate: string;
  periods: ReportedPeriodRow[];
}

export interface CalendarTable extends Described, BenchmarkTableFields {
  inceptionDate: string;
  asOf: string;
  months: ReportedCalendarRow[];
  years: ReportedCalendarRow[];
  yearToDate: ReportedCalendarRow | null;
}

export interface MoneyWeightedTable extends MoneyWeightedResult, Described {
  /** the period return of the same values and flows in the entity's currency */
  localPeriodReturn: string | null;
  /** periodReturn - localPeriodReturn */
  currencyEffect: string | null;
  /** the dates asked for; startDate/endDate are the valuation dates used (the latest on or before each) */
  requestedStartDate: string;
  requestedEndDate: string;
  beginValue: string;
  endValue: string;
  netFlow: string;
  flowCount: number;
}

export class ReturnsAnalyticsService {
  constructor(private readonly pool: pg.Pool) {}

  /** MTD ... SI as of asOf (default: the latest valuation). */
  async periods(scope: Scope & CurrencyScope & { entityName: string; asOf?: string | null }): Promise<PeriodTable> {
    const history = await this.history(scope);
    const asOf = scope.asOf ?? history.latestDate;
    const index = await pointsOnOrBefore(this.pool, history.entity, history.inceptionDate, [...periodBoundaries(asOf, history.inceptionDate), asOf]);
    const rows = (points: GrowthPoint[]) => orBadInput(standardPeriods({ asOf, inceptionDate: history.inceptionDate, index: points }), 'asOf');
    const [net, gross] = await this.reported(history, scope.currency, [index, grossIndex(index)], rows);
    const periods = net.map((row, position) => ({
      ...row,
      grossReturnValue: gross[position].returnValue,
      grossAnnualizedReturn: gross[position].annualizedReturn,
    }));
    const table = { ...describe(history, scope.currency), asOf, inceptionDate: history.inceptionDate, periods };
    return withPeriodBenchmark(this.pool, history.entity, history.inceptionDate, scope.currency, table);
  }

  /** Every month's and year's return from the inception to the latest valuation. */
  async calendar(scope: Scope & CurrencyScope & { entityName: string }): Promise<CalendarTable> {
    const history = await this.history(scope);
    const points = await pointsOnOrBefore(this.pool, history.entity, history.inceptionDate, monthEnds(history.inceptionDate, history.latestDate));
    // Months then years in one list, so the local and reported rows pair up by position.
    const rows = (index: GrowthPoint[]): CalendarRow[] => {
      const table = calendarFromIndex(index);
      return [...table.months, ...table.years];
    };
    const [net, gross] = await this.reported(history, scope.currency, [points, grossIndex(points)], rows);
    const all = net.map((row, position) => ({ ...row, grossReturnValue: gross[position].returnValue }));
    const monthCount = all.findIndex((row) => row.period.length === 4);
    const months = monthCount < 0 ? all : all.slice(0, monthCount);
    const years = monthCount < 0 ? [] : all.slice(monthCount);
    return withCalendarBenchmark(this.pool, history.entity, {
      ...describe(history, scope.currency),
      inceptionDate: history.inceptionDate,
      asOf: history.latestDate,
      months,
      years,
      yearToDate: years.at(-1) ?? null,
    });
  }

  /**
   * The IRR of the value at the close of startDate, the external flows after it and the value at the
   * close of endDate. Net of fees: fees (and income) are not external flows, they stay inside the
   * portfolio and the end value already shows them.
   */
  async irr(scope: Scope & CurrencyScope & { entityName: string; startDate: string; endDate: string }): Promise<MoneyWeightedTable> {
    const span = dayNumber(scope.endDate) - dayNumber(scope.startDate);
    if (span < 0) throw AppError.badInput('endDate', 'must not be before start_date');
    if (span > DIETZ_MAX_RANGE_DAYS) throw AppError.badInput('endDate', `the range may span at most ${DIETZ_MAX_RANGE_DAYS} days`);
    const history = await this.history(scope);
    const [begin, end] = await Promise.all([
      this.valuationOnOrBefore(history, scope.startDate, 'startDate'),
      this.valuationOnOrBefore(history, scope.endDate, 'endDate'),
    ]);
    const { rows: flows } = await this.pool.query<CashFlow & { timing: FlowTiming }>(
      `SELECT date::text AS date, amount::text AS amount, timing::text AS timing FROM "CashTransaction"
        WHERE "entityId" = $1 AND date > $2::date AND date <= $3::date AND "flowType" = 'external' ORDER BY date`,
      [history.entity.id, begin.date, end.date],
    );
    const solve = (values: { beginValue: string; endValue: string; flows: (CashFlow & { timing: FlowTiming })[] }) =>
      orBadInput(moneyWeightedReturn({ startDate: begin.date, endDate: end.date, ...values }), 'startDate');
    const local = { beginValue: begin.marketValue, endValue: end.marketValue, flows };
    const pair = currencyPair(history.entity, scope.currency);
    // Each value and flow at its own date's rate; the IRR is then solved in the reporting currency.
    const rates = await ratesOn(this.pool, history.entity.orgId, pair, [begin.date, end.date, ...flows.map((flow) => flow.date)]);
    const reported =
      pair.local === pair.reporting
        ? local
        : {
            beginValue: convertAmount(begin.marketValue, begin.date, rates),
            endValue: convertAmount(end.marketValue, end.date, rates),
            flows: flows.map((flow) => ({ ...flow, amount: convertAmount(flow.amount, flow.date, rates) })),
          };
    const result = solve(reported);
    const localPeriodReturn = reported === local ? result.periodReturn : solve(local).periodReturn;
    return {
      ...describe(history, scope.currency),
      ...result,
      localPeriodReturn,
      currencyEffect: currencyEffect(result.periodReturn, localPeriodReturn),
      requestedStartDate: scope.startDate,
      requestedEndDate: scope.endDate,
      beginValue: formatMoney(new Dec(reported.beginValue)),
      endValue: formatMoney(new Dec(reported.endValue)),
      netFlow: formatMoney(reported.flows.reduce((sum, flow) => sum.plus(flow.amount), new Dec(0))),
      flowCount: flows.length,
    };
  }

  /**
   * Rows of each growth index (net, gross) in the reporting currency, each with its local return and the currency
   * effect: `rows` runs once on the local index and, for another currency, once more on the index
   * converted at the rates of the points' dates (a 400 when one is missing). Both runs make the
   * same rows in the same order; only the figures differ.
   */
  private async reported<Row extends { returnValue: string | null }>(
    history: EntityHistory,
    currency: string | null | undefined,
    indexes: readonly GrowthPoint[][],
    rows: (points: GrowthPoint[]) => Row[],
  ): Promise<(Row & CurrencyFields)[][]> {
    const pair = currencyPair(history.entity, currency);
    const withLocal = (row: Row, localRow: Row | undefined) => {
      const localReturnValue = localRow?.returnValue ?? null;
      return { ...row, localReturnValue, currencyEffect: currencyEffect(row.returnValue, localReturnValue) };
    };
    // One read of the rates for every index (net and gross share their dates).
    const rates =
      pair.local === pair.reporting
        ? null
        : await ratesOn(
            this.pool,
            history.entity.orgId,
            pair,
            indexes.flat().map((point) => point.date),
          );
    return indexes.map((index) => {
      const local = rows(index);
      if (rates === null) return local.map((row) => withLocal(row, row));
      return rows(convertIndex(index, rates)).map((row, position) => withLocal(row, local[position]));
    });
  }

  private async history(scope: Scope & { entityName: string }): Promise<EntityHistory> {
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const { rows } = await this.pool.query<{ first: string | null; last: string | null }>(
      `SELECT (SELECT min(date) FROM "Valuation" WHERE "entityId" = $1)::text AS first, (SELECT max(date) FROM "Valuation" WHERE "entityId" = $1)::text AS last`,
      [entity.id],
    );
    const { first, last } = rows[0] ?? { first: null, last: null };
    if (first === null || last === null) throw AppError.badInput('entityName', `${entity.entityName} has no valuations yet: there is no return to report`);
    return { entity, inceptionDate: first, latestDate: last };
  }

  private async valuationOnOrBefore(history: EntityHistory, date: string, field: string): Promise<{ date: string; marketValue: string }> {
    const { rows } = await this.pool.query<{ date: string; marketValue: string }>(
      `SELECT date::text AS date, "marketValue"::text AS "marketValue" FROM "Valuation" WHERE "entityId" = $1 AND date <= $2::date ORDER BY date DESC LIMIT 1`,
      [history.entity.id, date],
    );
    if (!rows[0]) throw AppError.badInput(field, `no valuation on or before ${date}: the history starts at ${history.inceptionDate}`);
    return rows[0];
  }
}

function describe(history: EntityHistory, currency: string | null | undefined): Described {
  const { entityName, accountCode, currency: localCurrency } = history.entity;
  return { entityName, accountCode, currency: currencyPair(history.entity, currency).reporting, localCurrency };
}

/** The analytics' typed errors are the caller's: a 400 naming the argument. */
function orBadInput<T>(outcome: Outcome<T>, field: string): T {
  if (outcome.ok) return outcome.value;
  throw AppError.badInput(fieldOf(outcome.error, field), outcome.error.message);
}

function fieldOf(error: AnalyticsError, fallback: string): string {
  return error.code === 'reversed_dates' ? 'endDate' : fallback;
}
