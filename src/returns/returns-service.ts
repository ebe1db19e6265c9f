import type pg from 'pg';
import { AppError } from '../errors.ts';
import { UUID, decodeCursor, encodeCursor, keysetPage, stringFields, type Page } from '../pagination.ts';
import type { CurrencyPair } from './analytics/currency.ts';
import { comparisonInCurrency } from './comparison-currency.ts';
import type { ComparisonRow, DailyReturnRow } from './return-rows.ts';

export type { ComparisonRow, DailyReturnRow } from './return-rows.ts';
import { convertAmount, currencyPair, dayInCurrency, ratesOn, requestedCurrency, type RatesByDate } from './currency-service.ts';
import { Dec, formatMoney } from './decimal.ts';
import { classifyDifference, dayNumber, linkReturns, cumulativeLinkedReturns, periodModifiedDietz, type ComparisonStatus, type FlowTiming } from './dietz.ts';
import type { FlowType } from './analytics/fees.ts';

/** Longest range the daily-returns endpoint serves in one response (about ten years). */
export const DIETZ_MAX_RANGE_DAYS = 3_660;

/** A daily return with the linked return from the range's first day up to it, and (./currency-service.ts) its local return and currency effect. */
export interface DailyReturnWithCumulative extends DailyReturnRow {
  cumulativeReturn: string | null;
  localReturnValue: string | null;
  currencyEffect: string | null;
}

export interface LabelledReturn {
  value: string | null;
  nullReason: string | null;
  method: string;
  weighting: 'time-weighted' | 'money-weighted';
}

export interface DietzDailyResult {
  entityId: string;
  entityName: string;
  accountCode: string;
  /** the currency the figures are in (the one asked for, else the entity's) */
  currency: string;
  localCurrency: string;
  startDate: string;
  endDate: string;
  days: DailyReturnWithCumulative[];
  timeWeightedReturn: LabelledReturn;
  modifiedDietzReturn: LabelledReturn;
  annualized: false;
}

export interface CashTransactionRow {
  id: string;
  entityName: string;
  accountCode: string;
  date: string;
  /** in `currency`, at the rate of the flow's date */
  amount: string;
  currency: string;
  /** in the entity's own currency */
  localAmount: string;
  timing: FlowTiming;
  /** external (a Modified Dietz flow), fee or income (inside the portfolio: ./analytics/fees.ts) */
  flowType: FlowType;
  description: string | null;
}

type Scope = { orgIds: ReadonlySet<string> };
/** `currency`: the reporting currency asked for (ISO 4217); null or absent = the entity's own (./currency-service.ts). */
type CurrencyScope = { currency?: string | null };

/**
 * Read side of the returns domain. Every query is confined to the caller's organizations:
 * an entity of another organization is indistinguishable from one that does not exist.
 */
export class ReturnsService {
  constructor(private readonly pool: pg.Pool) {}

  async comparison(
    scope: Scope & CurrencyScope & { accountCode?: string | null; status?: ComparisonStatus | null; limit: number; cursor?: string | null },
  ): Promise<Page<ComparisonRow>> {
    const after = scope.cursor ? decodeCursor(scope.cursor, stringFields(['date', 'accountCode']), 'endpoint') : null;
    const query = comparisonQuery({ ...scope, orgIds: [...scope.orgIds], after: after && { ...after, entityId: cursorEntityId(after) } });
    const { rows } = await this.pool.query<RawComparison>(query.text, query.values);
    // Validated before the read, so a bad currency is a 400 even on an empty page.
    requestedCurrency(scope.currency);
    const page = keysetPage(rows.map(toComparisonRow), scope.limit, comparisonCursor);
    return { ...page, rows: await comparisonInCurrency(this.pool, page.rows, scope.currency) };
  }

  async dietzDaily(scope: Scope & CurrencyScope & { entityName: string; startDate: string; endDate: string }): Promise<DietzDailyResult> {
    const span = dayNumber(scope.endDate) - dayNumber(scope.startDate);
    if (span < 0) throw AppError.badInput('endDate', 'must not be before start_date');
    if (span > DIETZ_MAX_RANGE_DAYS) throw AppError.badInput('endDate', `the range may span at most ${DIETZ_MAX_RANGE_DAYS} days`);
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const pair = currencyPair(entity, scope.currency);
    const stored = (
      await this.pool.query<DailyReturnRow>(
        `SELECT date::text AS "date", "startDate"::text AS "startDate", "beginValue"::text AS "beginValue", "endValue"::text AS "endValue",
                "netFlow"::text AS "netFlow", "weightedFlow"::text AS "weightedFlow", "returnValue"::text AS "returnValue", "nullReason",
                -- rows from before fees existed have neither: no fees then, gross = net
                COALESCE(fees, 0)::numeric(20, 4)::text AS fees, COALESCE("grossReturnValue", "returnValue")::text AS "grossReturnValue"
           FROM "DailyReturn" WHERE "entityId" = $1 AND "startDate" >= $2 AND date <= $3 ORDER BY date`,
        [entity.id, scope.startDate, scope.endDate],
      )
    ).rows;
    const rates = await ratesOn(
      this.pool,
      entity.orgId,
      pair,
      stored.flatMap((day) => [day.startDate, day.date]),
    );
    const days = stored.map((day) => withGross(day, dayInCurrency(day, pair, rates), pair, rates));
    const linked = linkReturns(days.map((day) => day.returnValue));
    const cumulative = cumulativeLinkedReturns(days.map((day) => day.returnValue));
    return {
      entityId: entity.id,
      entityName: entity.entityName,
      accountCode: entity.accountCode,
      currency: pair.reporting,
      localCurrency: pair.local,
      startDate: scope.startDate,
      endDate: scope.endDate,
      days: days.map((day, index) => ({ ...day, cumulativeReturn: cumulative[index] ?? null })),
      timeWeightedReturn: {
        ...(days.length === 0 ? { value: null, nullReason: 'no daily returns in the range' } : linked),
        method: 'geometric linking of the daily Modified Dietz returns: prod(1 + r) - 1',
        weighting: 'time-weighted',
      },
      modifiedDietzReturn: {
        ...(await this.periodReturn(entity, pair, scope.startDate, scope.endDate)),
        method: 'one Modified Dietz calculation over the whole range',
        weighting: 'money-weighted',
      },
      annualized: false,
    };
  }

  async cashTransactions(scope: Scope & CurrencyScope & { entityName: string; limit: number; cursor?: string | null }): Promise<Page<CashTransactionRow>> {
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const pair = currencyPair(entity, scope.currency);
    const after = scope.cursor ? decodeCursor(scope.cursor, stringFields(['date', 'id']), 'endpoint') : null;
    const { rows } = await this.pool.query<Omit<CashTransactionRow, 'entityName' | 'accountCode' | 'currency' | 'localAmount'>>(
      `SELECT id, date::text AS "date", amount::text AS amount, timing::text AS timing, "flowType"::text AS "flowType", description
         FROM "CashTransaction"
        WHERE "entityId" = $1 AND ($2::date IS NULL OR (date, id) < ($2::date, $3::uuid))
        ORDER BY date DESC, id DESC LIMIT $4`,
      [entity.id, after?.date ?? null, after?.id ?? null, scope.limit + 1],
    );
    // The page's rows only: the rates of the dates on it (the extra row fetched to see whether there is a next page included).
    const rates = await ratesOn(
      this.pool,
      entity.orgId,
      pair,
      rows.map((row) => row.date),
    );
    const withEntity = rows.map((row) => ({
      ...row,
      entityName: entity.entityName,
      accountCode: entity.accountCode,
      currency: pair.reporting,
      localAmount: row.amount,
      amount: formatMoney(new Dec(convertAmount(row.amount, row.date, rates))),
    }));
    return keysetPage(withEntity, scope.limit, cashTransactionCursor);
  }

  /**
   * One Modified Dietz over the range, net of fees: only external flows are flows (fees and income
   * stay inside the portfolio, the valuations show them); in another currency each valuation and
   * flow at its own date's rate first.
   */
  private async periodReturn(
    entity: EntityRow,
    pair: CurrencyPair,
    startDate: string,
    endDate: string,
  ): Promise<{ value: string | null; nullReason: string | null }> {
    const entityId = entity.id;
    const [valuations, flows] = await Promise.all([
      this.pool.query<{ date: string; marketValue: string }>(
        `SELECT date::text AS date, "marketValue"::text AS "marketValue" FROM "Valuation" WHERE "entityId" = $1 AND date BETWEEN $2 AND $3 ORDER BY date`,
        [entityId, startDate, endDate],
      ),
      this.pool.query<{ date: string; amount: string; timing: FlowTiming }>(
        `SELECT date::text AS date, amount::text AS amount, timing::text AS timing FROM "CashTransaction"
          WHERE "entityId" = $1 AND date > $2 AND date <= $3 AND "flowType" = 'external'`,
        [entityId, startDate, endDate],
      ),
    ]);
    if (valuations.rows.length < 2) return { value: null, nullReason: 'fewer than two valuations in the range' };
    const rates = await ratesOn(
      this.pool,
      entity.orgId,
      pair,
      [...valuations.rows, ...flows.rows].map((row) => row.date),
    );
    const result = periodModifiedDietz(
      valuations.rows.map((row) => ({ ...row, marketValue: convertAmount(row.marketValue, row.date, rates) })),
      flows.rows.map((row) => ({ ...row, amount: convertAmount(row.amount, row.date, rates) })),
      startDate,
      endDate,
    );
    return { value: result.returnValue, nullReason: result.nullReason };
  }
}

/**
 * The day's fees and gross-of-fee return in the reporting currency, converted exactly as
 * dayInCurrency converts the day's flows (at the end date's rate) and its return.
 */
function withGross<Day extends DailyReturnRow>(stored: DailyReturnRow, reported: Day, pair: CurrencyPair, rates: RatesByDate): Day {
  if (pair.local === pair.reporting) return reported;
  const gross = dayInCurrency({ ...stored, netFlow: stored.fees, returnValue: stored.grossReturnValue }, pair, rates);
  return { ...reported, fees: gross.netFlow, grossReturnValue: gross.returnValue };
}

export interface EntityRow {
  id: string;
  orgId: string;
  entityName: string;
  accountCode: string;
  currency: string;
}

/** An entity of the caller's organizations by name; another organization's is not found, as one that does not exist. */
export async function findEntity(pool: Pick<pg.Pool, 'query'>, orgIds: ReadonlySet<string>, entityName: string): Promise<EntityRow> {
  const name = entityName.trim();
  if (name.length === 0) throw AppError.badInput('entityName', 'must not be empty');
  const { rows } = await pool.query<EntityRow>(
    `SELECT id, "orgId", "entityName", "accountCode", currency FROM "Entity" WHERE "entityName" = $1 AND "orgId" = ANY($2::uuid[]) ORDER BY "createdAt" LIMIT 2`,
    [name, [...orgIds]],
  );
  if (rows.length === 0) throw AppError.notFound('Entity');
  if (rows.length > 1) throw AppError.badInput('entityName', 'names entities in several of your organizations');
  return rows[0];
}

export interface RawComparison {
  entityId: string;
  orgId: string;
  currency: string;
  accountCode: string;
  entityName: string;
  date: string;
  custodian: string | null;
  computed: string | null;
  computedNullReason: string | null;
  status: ComparisonStatus;
  matchBps: string;
  reviewBps: string;
}

/** The position of a cash transaction in its page order, as a cursor. */
export function cashTransactionCursor(row: Pick<CashTransactionRow, 'date' | 'id'>): string {
  return encodeCursor({ date: row.date, id: row.id });
}

/** The position of a comparison row in the page order, as a cursor. */
export function comparisonCursor(row: Pick<ComparisonRow, 'date' | 'accountCode' | 'entityId'>): string {
  return encodeCursor({ date: row.date, accountCode: row.accountCode, entityId: row.entityId });
}

export interface ComparisonScope {
  orgIds: readonly string[];
  accountCode?: string | null;
  status?: ComparisonStatus | null;
  /** the keyset position: rows strictly after it in the page order */
  after?: { date: string; accountCode: string; entityId: string } | null;
  limit: number;
}

/**
 * One page of the comparison, read from the reconciliation the ingest maintains
 * (src/returns/reconciliation.ts): per organization, one range of an index in the page's order
 * (newest date first, then account code, then entity), at most limit + 1 rows each, merged. The
 * cost is the page's, whatever the length of the history. The thresholds shown are the ones the
 * rows were classified with.
 */
export function comparisonQuery(scope: ComparisonScope): { text: string; values: unknown[] } {
  return {
    text: COMPARISON_SQL,
    values: [
      [...scope.orgIds],
      scope.accountCode ?? null,
      scope.status ?? null,
      scope.after?.date ?? null,
      scope.after?.accountCode ?? null,
      scope.after?.entityId ?? null,
      scope.limit + 1,
    ],
  };
}

const COMPARISON_SQL = `
SELECT r."entityId", r."orgId", e.currency, r."accountCode", e."entityName", r.date::text AS date, r."custodianReturn"::text AS custodian,
       r."computedReturn"::text AS computed, r."computedNullReason", r.status,
       trim_scale(o."reconciledMatchBps")::text AS "matchBps", trim_scale(o."reconciledReviewBps")::text AS "reviewBps"
  FROM unnest($1::uuid[]) AS org(id)
  JOIN "Organization" o ON o.id = org.id
 CROSS JOIN LATERAL (
   SELECT * FROM "Reconciliation" x
    WHERE x."orgId" = org.id
      AND ($2::text IS NULL OR x."accountCode" = $2::text)
      AND ($3::text IS NULL OR x.status = $3::text)
      AND ($4::date IS NULL OR (x.date, x."accountCode", x."entityId") < ($4::date, $5::text, $6::uuid))
    ORDER BY x.date DESC, x."accountCode" DESC, x."entityId" DESC
    LIMIT $7
 ) r
  JOIN "Entity" e ON e.id = r."entityId"
 ORDER BY r.date DESC, r."accountCode" DESC, r."entityId" DESC
 LIMIT $7`;

/** Cursors from before the entity tie-break carry none: the lowest id keeps their meaning (after every row of that date and account). */
function cursorEntityId(position: Record<string, unknown>): string {
  const id = position.entityId;
  return typeof id === 'string' && UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000';
}

function toComparisonRow(raw: RawComparison): ComparisonRow {
  const classification = classifyDifference({
    custodian: raw.custodian,
    computed: raw.computed,
    matchThresholdBps: raw.matchBps,
    reviewThresholdBps: raw.reviewBps,
  });
  const reason = raw.computed === null && raw.computedNullReason ? `computed return undefined: ${raw.computedNullReason}` : classification.reason;
  return {
    entityId: raw.entityId,
    orgId: raw.orgId,
    accountCode: raw.accountCode,
    entityName: raw.entityName,
    date: raw.date,
    currency: raw.currency,
    localCurrency: raw.currency,
    custodianReturn: raw.custodian,
    computedReturn: raw.computed,
    localCustodianReturn: raw.custodian,
    localComputedReturn: raw.computed,
    differenceBps: classification.differenceBps,
    // as classified in the database (what the status filter selected on); the rule is the same
    status: raw.status,
    reason,
    matchThresholdBps: raw.matchBps,
    reviewThresholdBps: raw.reviewBps,
  };
}
