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
import { calendarFromIndex, type CalendarReturns } from './analytics/calendar.ts';
import { moneyWeightedReturn, type MoneyWeightedResult } from './analytics/irr.ts';
import { Dec, formatMoney } from './decimal.ts';
import type { AnalyticsError, Outcome } from './analytics/outcome.ts';
import { periodBoundaries, standardPeriods, type PeriodRow } from './analytics/periods.ts';
import { monthEnds, pointsOnOrBefore } from './growth-index-store.ts';
import { DIETZ_MAX_RANGE_DAYS, findEntity, type EntityRow } from './returns-service.ts';

type Scope = { orgIds: ReadonlySet<string> };

interface EntityHistory {
  entity: EntityRow;
  /** the first valuation date */
  inceptionDate: string;
  /** the latest valuation date */
  latestDate: string;
}

export interface PeriodTable {
  entityName: string;
  accountCode: string;
  currency: string;
  asOf: string;
  inceptionDate: string;
  periods: PeriodRow[];
}

export interface CalendarTable extends CalendarReturns {
  entityName: string;
  accountCode: string;
  currency: string;
  inceptionDate: string;
  asOf: string;
}

export interface MoneyWeightedTable extends MoneyWeightedResult {
  entityName: string;
  accountCode: string;
  currency: string;
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
  async periods(scope: Scope & { entityName: string; asOf?: string | null }): Promise<PeriodTable> {
    const history = await this.history(scope);
    const asOf = scope.asOf ?? history.latestDate;
    const index = await pointsOnOrBefore(this.pool, history.entity, history.inceptionDate, [...periodBoundaries(asOf, history.inceptionDate), asOf]);
    const periods = orBadInput(standardPeriods({ asOf, inceptionDate: history.inceptionDate, index }), 'asOf');
    return { ...describe(history), asOf, inceptionDate: history.inceptionDate, periods };
  }

  /** Every month's and year's return from the inception to the latest valuation. */
  async calendar(scope: Scope & { entityName: string }): Promise<CalendarTable> {
    const history = await this.history(scope);
    const points = await pointsOnOrBefore(this.pool, history.entity, history.inceptionDate, monthEnds(history.inceptionDate, history.latestDate));
    return { ...describe(history), inceptionDate: history.inceptionDate, asOf: history.latestDate, ...calendarFromIndex(points) };
  }

  /** The IRR of the value at the close of startDate, the flows after it and the value at the close of endDate. */
  async irr(scope: Scope & { entityName: string; startDate: string; endDate: string }): Promise<MoneyWeightedTable> {
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
        WHERE "entityId" = $1 AND date > $2::date AND date <= $3::date ORDER BY date`,
      [history.entity.id, begin.date, end.date],
    );
    const result = orBadInput(
      moneyWeightedReturn({ startDate: begin.date, endDate: end.date, beginValue: begin.marketValue, endValue: end.marketValue, flows }),
      'startDate',
    );
    return {
      ...describe(history),
      ...result,
      requestedStartDate: scope.startDate,
      requestedEndDate: scope.endDate,
      beginValue: begin.marketValue,
      endValue: end.marketValue,
      netFlow: formatMoney(flows.reduce((sum, flow) => sum.plus(flow.amount), new Dec(0))),
      flowCount: flows.length,
    };
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

function describe(history: EntityHistory): { entityName: string; accountCode: string; currency: string } {
  return { entityName: history.entity.entityName, accountCode: history.entity.accountCode, currency: history.entity.currency };
}

/** The analytics' typed errors are the caller's: a 400 naming the argument. */
function orBadInput<T>(outcome: Outcome<T>, field: string): T {
  if (outcome.ok) return outcome.value;
  throw AppError.badInput(fieldOf(outcome.error, field), outcome.error.message);
}

function fieldOf(error: AnalyticsError, fallback: string): string {
  return error.code === 'reversed_dates' ? 'endDate' : fallback;
}
