import { performance } from 'node:perf_hooks';
import type { Database } from '../db/database.ts';
import { PAGE_SIZES } from '../pagination.ts';
import { comparisonQuery } from '../returns/returns-service.ts';

/**
 * `GET /api/benchmark`: times a representative returns workload against the live database and
 * rates it. The workload is what the returns endpoints do most:
 *
 *  1. the comparison page: the newest 50 rows of the reconciliation of custodian and computed
 *     returns of the caller's organizations (what `GET /api/returns/comparison` reads, the same
 *     statement: src/returns/returns-service.ts comparisonQuery);
 *  2. a one-year daily returns series: for the caller's largest entity (the one with the highest
 *     latest market value), every daily Modified Dietz return in the year up to its latest
 *     return date (what `GET /api/returns/dietz-daily` reads for a one-year range).
 *
 * Both cost what they return, not the organization's history: the comparison reads one index
 * range per organization, and the largest entity is one index probe per organization (the ingest
 * keeps each entity's latest valuation on it: src/returns/latest-valuation.ts).
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
  'Two returns queries, timed together around their database round trips: (1) the comparison page of ' +
  'GET /api/returns/comparison (custodian vs computed daily returns, reconciled per entity and date, ' +
  `restricted to your organizations, ordered by date descending, ${PAGE_SIZES.returnComparison.first} rows); (2) the one-year daily ` +
  'Modified Dietz series (the year up to its latest return date) of your largest entity by latest market value.';

/** Rows of the comparison page the benchmark reads: the endpoint's default page. */
const COMPARISON_ROWS = PAGE_SIZES.returnComparison.first;

/** Query 2: the largest entity (highest latest market value) and its one-year daily series. */
export const DAILY_SERIES_SQL = `
WITH largest AS (
  SELECT l.id AS "entityId"
    FROM unnest($1::uuid[]) AS org(id)
   CROSS JOIN LATERAL (
     SELECT e."id", e."latestMarketValue" FROM "Entity" e
      WHERE e."orgId" = org.id AND e."latestMarketValue" IS NOT NULL
      ORDER BY e."latestMarketValue" DESC, e."id" LIMIT 1
   ) l
   ORDER BY l."latestMarketValue" DESC, l.id LIMIT 1
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
    const page = comparisonQuery({ orgIds: ids, limit: COMPARISON_ROWS });
    const comparison = await pool.query(page.text, page.values);
    const series = await pool.query(DAILY_SERIES_SQL, [ids]);
    const elapsed = performance.now() - started;
    const executionTimeMs = Math.round(elapsed * 100) / 100;
    return {
      query: BENCHMARK_QUERY_NAME,
      description: BENCHMARK_DESCRIPTION,
      executionTimeMs,
      rating: rate(elapsed, this.deps.thresholds),
      // the page query reads one row past the page, to know whether there is a next one
      rowCount: Math.min(comparison.rows.length, COMPARISON_ROWS) + series.rows.length,
      thresholds: { ...this.deps.thresholds },
      measuredAt: new Date(),
    };
  }
}
