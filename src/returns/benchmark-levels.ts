/**
 * The levels of an entity's assigned benchmark over a range, each with the benchmark's cumulative
 * return since the range's start (docs/returns-and-csv.md#reported-returns): what a chart draws
 * beside the entity's cumulative linked return. The cumulative return is measured from the level
 * the benchmark comparison uses for a period starting at startDate, the latest on or before it (an
 * index does not publish on holidays; the last published level stands, ./analytics/benchmark.ts):
 * `level / base − 1`, exact decimals, 12 places half-even. Confined to the caller's organizations.
 */
import type pg from 'pg';
import { AppError } from '../errors.ts';
import { dayNumber } from './dietz.ts';
import { Dec, formatReturn, toDecimal } from './decimal.ts';
import { DIETZ_MAX_RANGE_DAYS, findEntity } from './returns-service.ts';

type Scope = { orgIds: ReadonlySet<string> };

export interface BenchmarkLevelPoint {
  date: string;
  /** the index level at the close of date, as uploaded */
  level: string;
  /** level / baseLevel − 1 */
  cumulativeReturn: string;
}

export interface BenchmarkLevelsTable {
  entityName: string;
  accountCode: string;
  /** the assigned benchmark's name; null when none is assigned */
  benchmark: string | null;
  /** why there are no points (no benchmark assigned) */
  nullReason: string | null;
  startDate: string;
  endDate: string;
  /** the level the cumulative return is measured from: the latest on or before startDate */
  baseDate: string | null;
  baseLevel: string | null;
  /** the base level first (cumulative 0), then every level after it up to endDate, by date */
  points: BenchmarkLevelPoint[];
}

export class BenchmarkLevels {
  constructor(private readonly pool: pg.Pool) {}

  async forEntity(scope: Scope & { entityName: string; startDate: string; endDate: string }): Promise<BenchmarkLevelsTable> {
    const span = dayNumber(scope.endDate) - dayNumber(scope.startDate);
    if (span < 0) throw AppError.badInput('endDate', 'must not be before start_date');
    if (span > DIETZ_MAX_RANGE_DAYS) throw AppError.badInput('endDate', `the range may span at most ${DIETZ_MAX_RANGE_DAYS} days`);
    const entity = await findEntity(this.pool, scope.orgIds, scope.entityName);
    const { rows: assigned } = await this.pool.query<{ benchmark: string | null }>(`SELECT benchmark FROM "Entity" WHERE id = $1`, [entity.id]);
    const benchmark = assigned[0]?.benchmark ?? null;
    const described = { entityName: entity.entityName, accountCode: entity.accountCode, startDate: scope.startDate, endDate: scope.endDate };
    if (benchmark === null) {
      return { ...described, benchmark, nullReason: `no benchmark is assigned to ${entity.entityName}`, baseDate: null, baseLevel: null, points: [] };
    }
    // The base (the latest level on or before startDate) and every level after it up to endDate.
    const { rows } = await this.pool.query<{ date: string; level: string }>(
      `SELECT date::text AS date, level::text AS level FROM "BenchmarkLevel"
        WHERE "orgId" = $1 AND benchmark = $2 AND date <= $4::date
          AND date >= coalesce((SELECT max(date) FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = $2 AND date <= $3::date), $3::date)
        ORDER BY date`,
      [entity.orgId, benchmark, scope.startDate, scope.endDate],
    );
    const base = rows[0];
    if (!base || base.date > scope.startDate) {
      const { rows: first } = await this.pool.query<{ date: string | null }>(
        `SELECT min(date)::text AS date FROM "BenchmarkLevel" WHERE "orgId" = $1 AND benchmark = $2`,
        [entity.orgId, benchmark],
      );
      const since = first[0]?.date ? `its first level is on ${first[0].date}` : 'it has no levels yet';
      throw AppError.badInput(
        'startDate',
        `no level of the benchmark ${JSON.stringify(benchmark)} on or before ${scope.startDate}: ${since} (upload its levels as file_type=benchmark)`,
      );
    }
    const baseLevel = toDecimal(base.level, `${base.date} level`);
    const points = rows.map((row) => ({
      date: row.date,
      level: row.level,
      cumulativeReturn: formatReturn(toDecimal(row.level, `${row.date} level`).dividedBy(baseLevel).minus(new Dec(1))),
    }));
    return { ...described, benchmark, nullReason: null, baseDate: base.date, baseLevel: base.level, points };
  }
}
