import { performance } from 'node:perf_hooks';
import type { Database } from '../db/database.ts';

/**
 * `GET /api/benchmark`: times a representative returns workload against the live database and
 * rates it. The workload is what the returns endpoints do most:
 *
 *  1. the comparison query: custodian-reported returns FULL OUTER JOIN the service's own daily
 *     returns on (entity, date), joined to the entity, restricted to the caller's organizations,
 *     newest 50 rows (the default page of `GET /api/returns/comparison`);
 *  2. a one-year daily returns series: for the caller's largest entity (the one with the highest
 *     latest market value), every daily Modified Dietz return in the year up to its latest
 *     return date (what `GET /api/returns/dietz-daily` reads for a one-year range).
 *
 * The time is wall-clock around both database round trips, measured with performance.now() in
 * this process, so it includes the driver and the network (or the embedded socket), not only the
 * server's execution time. One execution per call, no warm-up: it reports what a client sees now.
 */

export type Rating = 'fast' | 'good' | 'slow' | 'critical';

export interface BenchmarkThresholds {
  /** Below this many milliseconds the rating is `fast`. */
  fastMs: number;
  /** Below this (and at or above fastMs): `good`. */
  goodMs: number;
  /** Below this (and at or above goodMs): `slow`; at or above it: `critical`. */
  slowMs: number;
}

export interface BenchmarkResult {
  query: string;
  description: string;
  executionTimeMs: number;
  rating: Rating;
  /** Rows returned by both queries together. */
  rowCount: number;
  thresholds: BenchmarkThresholds;
  measuredAt: Date;
}

export interface BenchmarkDeps {
  db: Database;
  thresholds: BenchmarkThresholds;
}

export const BENCHMARK_QUERY_NAME = 'returns.comparison+daily_series';

export const BENCHMARK_DESCRIPTION =
  'Two returns queries, timed together around their database round trips: (1) custodian returns FULL ' +
  'OUTER JOIN computed daily returns on entity and date, joined to Entity, restricted to your ' +
  'organizations, ordered by date descending, limit 50; (2) the one-year daily Modified Dietz series ' +
  '(the year up to its latest return date) of your largest entity by latest market value.';

/** Query 1: the comparison page (same shape as `GET /api/returns/comparison?limit=50`). */
export const COMPARISON_SQL = `
SELECT e."entityName", e."accountCode", COALESCE(c."date", d."date") AS "date",
       c."returnValue" AS "custodianReturn", d."returnValue" AS "computedReturn"
  FROM "CustodianReturn" c
  FULL OUTER JOIN "DailyReturn" d ON d."entityId" = c."entityId" AND d."date" = c."date"
  JOIN "Entity" e ON e."id" = COALESCE(c."entityId", d."entityId")
 WHERE e."orgId" = ANY($1::uuid[])
 ORDER BY "date" DESC, e."accountCode"
 LIMIT 50`;

/** Query 2: the largest entity (highest latest market value) and its one-year daily series. */
export const DAILY_SERIES_SQL = `
WITH latest AS (
  SELECT DISTINCT ON (v."entityId") v."entityId", v."marketValue"
    FROM "Valuation" v
    JOIN "Entity" e ON e."id" = v."entityId"
   WHERE e."orgId" = ANY($1::uuid[])
   ORDER BY v."entityId", v."date" DESC
), largest AS (
  SELECT "entityId" FROM latest ORDER BY "marketValue" DESC, "entityId" LIMIT 1
), span AS (
  SELECT MAX(d."date") AS "endDate" FROM "DailyReturn" d JOIN largest l ON l."entityId" = d."entityId"
)
SELECT d."date", d."returnValue", d."beginValue", d."endValue", d."netFlow"
  FROM "DailyReturn" d
  JOIN largest l ON l."entityId" = d."entityId"
  CROSS JOIN span s
 WHERE d."date" > (s."endDate" - INTERVAL '1 year')::date AND d."date" <= s."endDate"
 ORDER BY d."date"`;

/** `fast` below fastMs, `good` below goodMs, `slow` below slowMs, `critical` otherwise (lower bounds inclusive). */
export function rate(ms: number, thresholds: BenchmarkThresholds): Rating {
  if (!Number.isFinite(ms)) return 'critical';
  if (ms < thresholds.fastMs) return 'fast';
  if (ms < thresholds.goodMs) return 'good';
  if (ms < thresholds.slowMs) return 'slow';
  return 'critical';
}

export class BenchmarkService {
  constructor(private readonly deps: BenchmarkDeps) {
    const { fastMs, goodMs, slowMs } = deps.thresholds;
    if (!(fastMs > 0 && fastMs < goodMs && goodMs < slowMs)) {
      throw new Error('BenchmarkService: thresholds must satisfy 0 < fastMs < goodMs < slowMs');
    }
  }

  /** Runs the workload over the given organizations (the caller's memberships). */
  async run(orgIds: ReadonlySet<string>): Promise<BenchmarkResult> {
    const ids = [...orgIds];
    const pool = this.deps.db.pool;
    const started = performance.now();
    const comparison = await pool.query(COMPARISON_SQL, [ids]);
    const series = await pool.query(DAILY_SERIES_SQL, [ids]);
    const elapsed = performance.now() - started;
    const executionTimeMs = Math.round(elapsed * 100) / 100;
    return {
      query: BENCHMARK_QUERY_NAME,
      description: BENCHMARK_DESCRIPTION,
      executionTimeMs,
      rating: rate(elapsed, this.deps.thresholds),
      rowCount: comparison.rows.length + series.rows.length,
      thresholds: { ...this.deps.thresholds },
      measuredAt: new Date(),
    };
  }
}
