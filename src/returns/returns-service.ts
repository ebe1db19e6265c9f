import type pg from 'pg';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { decodeCursor, encodeCursor, keysetPage, stringFields, type Page } from '../pagination.ts';
import {
  classifyDifference,
  dayNumber,
  linkReturns,
  cumulativeLinkedReturns,
  periodModifiedDietz,
  type ComparisonStatus,
  type FlowTiming,
} from './dietz.ts';

/** Longest range the daily-returns endpoint serves in one response (about ten years). */
export const DIETZ_MAX_RANGE_DAYS = 3_660;

export interface ComparisonRow {
  entityId: string;
  accountCode: string;
  entityName: string;
  date: string;
  custodianReturn: string | null;
  computedReturn: string | null;
  differenceBps: string | null;
  status: ComparisonStatus;
  reason: string;
  matchThresholdBps: string;
  reviewThresholdBps: string;
}

export interface DailyReturnRow {
  date: string;
  startDate: string;
  beginValue: string;
  endValue: string;
  netFlow: string;
  weightedFlow: string;
  returnValue: string | null;
  nullReason: string | null;
}

/** A daily return with the linked return from the range's first day up to it. */
export interface DailyReturnWithCumulative extends DailyReturnRow {
  cumulativeReturn: string | null;
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
  amount: string;
  timing: FlowTiming;
  description: string | null;
}

type Scope = { orgIds: ReadonlySet<string> };

/**
 * Read side of the returns domain. Every query is confined to the caller's organizations:
 * an entity of another organization is indistinguishable from one that does not exist.
 */
export class ReturnsService {
  constructor(private readonly pool: pg.Pool, private readonly thresholds: Config['comparison']) {}

  async comparison(scope: Scope & { accountCode?: string | null; status?: ComparisonStatus | null; limit: number; cursor?: string | null }): Promise<Page<ComparisonRow>> {
    const after = scope.cursor ? decodeCursor(scope.cursor, stringFields(['date', 'accountCode']), 'endpoint') : null;
    const { rows } = await this.pool.query<RawComparison>(COMPARISON_SQL, [
      [...scope.orgIds],
      scope.accountCode ?? null,
      scope.status ?? null,
      after?.date ?? null,
      after?.accountCode ?? null,
      scope.limit + 1,
      this.thresholds.matchBps,
      this.thresholds.reviewBps,
    ]);
    return keysetPage(rows.map(toComparisonRow), scope.limit, (row) => encodeCursor({ date: row.date, accountCode: row.accountCode }));
  }

  async dietzDaily(scope: Scope & { entityName: string; startDate: string; endDate: string }): Promise<DietzDailyResult> {
    const span = dayNumber(scope.endDate) - dayNumber(scope.startDate);
    if (span < 0) throw AppError.badInput('endDate', 'must not be before start_date');
    if (span > DIETZ_MAX_RANGE_DAYS) throw AppError.badInput('endDate', `the range may span at most ${DIETZ_MAX_RANGE_DAYS} days`);
    const entity = await this.findEntity(scope.orgIds, scope.entityName);
    const days = (
      await this.pool.query<DailyReturnRow>(
        `SELECT date::text AS "date", "startDate"::text AS "startDate", "beginValue"::text AS "beginValue", "endValue"::text AS "endValue",
                "netFlow"::text AS "netFlow", "weightedFlow"::text AS "weightedFlow", "returnValue"::text AS "returnValue", "nullReason"
           FROM "DailyReturn" WHERE "entityId" = $1 AND "startDate" >= $2 AND date <= $3 ORDER BY date`,
        [entity.id, scope.startDate, scope.endDate],
      )
    ).rows;
    const linked = linkReturns(days.map((day) => day.returnValue));
    const cumulative = cumulativeLinkedReturns(days.map((day) => day.returnValue));
    return {
      entityId: entity.id,
      entityName: entity.entityName,
      accountCode: entity.accountCode,
      startDate: scope.startDate,
      endDate: scope.endDate,
      days: days.map((day, index) => ({ ...day, cumulativeReturn: cumulative[index] ?? null })),
      timeWeightedReturn: {
        ...(days.length === 0 ? { value: null, nullReason: 'no daily returns in the range' } : linked),
        method: 'geometric linking of the daily Modified Dietz returns: prod(1 + r) - 1',
        weighting: 'time-weighted',
      },
      modifiedDietzReturn: { ...(await this.periodReturn(entity.id, scope.startDate, scope.endDate)), method: 'one Modified Dietz calculation over the whole range', weighting: 'money-weighted' },
      annualized: false,
    };
  }

  async cashTransactions(scope: Scope & { entityName: string; limit: number; cursor?: string | null }): Promise<Page<CashTransactionRow>> {
    const entity = await this.findEntity(scope.orgIds, scope.entityName);
    const after = scope.cursor ? decodeCursor(scope.cursor, stringFields(['date', 'id']), 'endpoint') : null;
    const { rows } = await this.pool.query<CashTransactionRow>(
      `SELECT id, date::text AS "date", amount::text AS amount, timing::text AS timing, description
         FROM "CashTransaction"
        WHERE "entityId" = $1 AND ($2::date IS NULL OR (date, id) < ($2::date, $3::uuid))
        ORDER BY date DESC, id DESC LIMIT $4`,
      [entity.id, after?.date ?? null, after?.id ?? null, scope.limit + 1],
    );
    const withEntity = rows.map((row) => ({ ...row, entityName: entity.entityName, accountCode: entity.accountCode }));
    return keysetPage(withEntity, scope.limit, (row) => encodeCursor({ date: row.date, id: row.id }));
  }

  private async findEntity(orgIds: ReadonlySet<string>, entityName: string) {
    const name = entityName.trim();
    if (name.length === 0) throw AppError.badInput('entityName', 'must not be empty');
    const { rows } = await this.pool.query<{ id: string; entityName: string; accountCode: string }>(
      `SELECT id, "entityName", "accountCode" FROM "Entity" WHERE "entityName" = $1 AND "orgId" = ANY($2::uuid[]) ORDER BY "createdAt" LIMIT 2`,
      [name, [...orgIds]],
    );
    if (rows.length === 0) throw AppError.notFound('Entity');
    if (rows.length > 1) throw AppError.badInput('entityName', 'names entities in several of your organizations');
    return rows[0];
  }

  private async periodReturn(entityId: string, startDate: string, endDate: string): Promise<{ value: string | null; nullReason: string | null }> {
    const [valuations, flows] = await Promise.all([
      this.pool.query<{ date: string; marketValue: string }>(
        `SELECT date::text AS date, "marketValue"::text AS "marketValue" FROM "Valuation" WHERE "entityId" = $1 AND date BETWEEN $2 AND $3 ORDER BY date`,
        [entityId, startDate, endDate],
      ),
      this.pool.query<{ date: string; amount: string; timing: FlowTiming }>(
        `SELECT date::text AS date, amount::text AS amount, timing::text AS timing FROM "CashTransaction" WHERE "entityId" = $1 AND date > $2 AND date <= $3`,
        [entityId, startDate, endDate],
      ),
    ]);
    if (valuations.rows.length < 2) return { value: null, nullReason: 'fewer than two valuations in the range' };
    const result = periodModifiedDietz(valuations.rows, flows.rows, startDate, endDate);
    return { value: result.returnValue, nullReason: result.nullReason };
  }
}

interface RawComparison {
  entityId: string;
  accountCode: string;
  entityName: string;
  date: string;
  custodian: string | null;
  computed: string | null;
  computedNullReason: string | null;
  matchBps: string;
  reviewBps: string;
}

/**
 * Pairs custodian and computed daily returns (a full outer join, so a missing side shows up)
 * for entities the custodian reports on. The CASE expression mirrors classifyDifference so the
 * `status` filter and the page limit run in the database; test/returns/returns-service.test.ts
 * checks that the two agree.
 */
const COMPARISON_SQL = `
WITH entities AS (
  SELECT e.id, e."accountCode", e."entityName",
         COALESCE(o."matchThresholdBps", $7::numeric) AS "matchBps", COALESCE(o."reviewThresholdBps", $8::numeric) AS "reviewBps"
    FROM "Entity" e JOIN "Organization" o ON o.id = e."orgId"
   WHERE e."orgId" = ANY($1::uuid[])
     AND ($2::text IS NULL OR e."accountCode" = $2)
     AND EXISTS (SELECT 1 FROM "CustodianReturn" x WHERE x."entityId" = e.id)
), pairs AS (
  SELECT COALESCE(c."entityId", d."entityId") AS "entityId", COALESCE(c.date, d.date) AS date,
         c."returnValue" AS custodian, d."returnValue" AS computed, d."nullReason" AS "computedNullReason"
    FROM (SELECT * FROM "CustodianReturn" WHERE "entityId" IN (SELECT id FROM entities) AND ($4::date IS NULL OR date <= $4::date)) c
    FULL OUTER JOIN (SELECT * FROM "DailyReturn" WHERE "entityId" IN (SELECT id FROM entities) AND ($4::date IS NULL OR date <= $4::date)) d
      ON d."entityId" = c."entityId" AND d.date = c.date
), statused AS (
  SELECT p.*, e."accountCode", e."entityName", e."matchBps", e."reviewBps",
         CASE
           WHEN p.custodian IS NULL OR p.computed IS NULL THEN 'investigate'
           WHEN abs((p.computed - p.custodian) * 10000) <= e."matchBps" THEN 'match'
           WHEN sign(p.custodian) * sign(p.computed) < 0 THEN 'investigate'
           WHEN abs((p.computed - p.custodian) * 10000) <= e."reviewBps" THEN 'review'
           ELSE 'investigate'
         END AS status
    FROM pairs p JOIN entities e ON e.id = p."entityId"
)
SELECT "entityId", "accountCode", "entityName", date::text AS date, custodian::text AS custodian, computed::text AS computed,
       "computedNullReason", "matchBps"::text AS "matchBps", "reviewBps"::text AS "reviewBps"
  FROM statused
 WHERE ($3::text IS NULL OR status = $3)
   AND ($4::date IS NULL OR (statused.date, "accountCode") < ($4::date, $5::text))
 ORDER BY statused.date DESC, "accountCode" DESC
 LIMIT $6`;

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
    accountCode: raw.accountCode,
    entityName: raw.entityName,
    date: raw.date,
    custodianReturn: raw.custodian,
    computedReturn: raw.computed,
    differenceBps: classification.differenceBps,
    status: classification.status,
    reason,
    matchThresholdBps: raw.matchBps,
    reviewThresholdBps: raw.reviewBps,
  };
}

