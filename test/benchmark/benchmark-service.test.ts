import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { BENCHMARK_QUERY_NAME, BenchmarkService, DAILY_SERIES_SQL, rate, type BenchmarkThresholds } from '../../src/benchmark/benchmark-service.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { comparisonQuery, type RawComparison } from '../../src/returns/returns-service.ts';
import { recordedThresholds, refreshReconciliation } from '../../src/returns/reconciliation.ts';
import { refreshLatestValuations } from '../../src/returns/latest-valuation.ts';

const thresholds: BenchmarkThresholds = { fastMs: 50, goodMs: 200, slowMs: 1000 };

describe('rate', () => {
  it.each([
    [0, 'fast'],
    [49.999, 'fast'],
    [50, 'good'],
    [199.99, 'good'],
    [200, 'slow'],
    [999.9, 'slow'],
    [1000, 'critical'],
    [60_000, 'critical'],
    [Number.POSITIVE_INFINITY, 'critical'],
    [Number.NaN, 'critical'],
  ] as const)('%s ms is %s', (ms, expected) => {
    expect(rate(ms, thresholds)).toBe(expected);
  });

  it('follows other thresholds', () => {
    const tight = { fastMs: 1, goodMs: 2, slowMs: 3 };
    expect([0.5, 1, 2, 3].map((ms) => rate(ms, tight))).toEqual(['fast', 'good', 'slow', 'critical']);
  });
});

describe('BenchmarkService', () => {
  let db: Database & { cleanup(): Promise<void> };
  let orgA: string;
  let orgB: string;
  const comparisonPage = (orgIds: string[]) => {
    const query = comparisonQuery({ orgIds, limit: 50 });
    return db.pool.query<RawComparison>(query.text, query.values).then((result) => ({ rows: result.rows.slice(0, 50) }));
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    orgA = await seedOrg(db, 'Bench Org A', [
      { name: 'Small Fund', code: 'SMALL', marketValue: 1_000_000, days: 400 },
      { name: 'Large Fund', code: 'LARGE', marketValue: 9_000_000, days: 400 },
    ]);
    orgB = await seedOrg(db, 'Bench Org B', [{ name: 'Other Fund', code: 'OTHER', marketValue: 50_000_000, days: 30 }]);
  });

  afterAll(async () => {
    await db?.cleanup();
  });

  it('rejects thresholds that are not increasing', () => {
    expect(() => new BenchmarkService({ db, thresholds: { fastMs: 200, goodMs: 50, slowMs: 1000 } })).toThrow(/fastMs < goodMs < slowMs/);
  });

  it('runs the comparison and one-year series queries and reports a time and a rating', async () => {
    const service = new BenchmarkService({ db, thresholds });
    const before = Date.now();
    const result = await service.run(new Set([orgA]));
    expect(result.query).toBe(BENCHMARK_QUERY_NAME);
    expect(result.description).toMatch(/comparison page of GET \/api\/returns\/comparison/);
    expect(result.description).toMatch(/largest entity/);
    expect(result.executionTimeMs).toBeGreaterThan(0);
    expect(result.rating).toBe(rate(result.executionTimeMs, thresholds));
    expect(result.thresholds).toEqual(thresholds);
    expect(result.measuredAt.getTime()).toBeGreaterThanOrEqual(before);
    // 50 comparison rows + 365 (one year up to the latest return date, end inclusive) daily returns.
    expect(result.rowCount).toBe(50 + 365);
  });

  it('reads only the given organizations', async () => {
    const comparison = await comparisonPage([orgA]);
    expect(comparison.rows).toHaveLength(50);
    expect(new Set(comparison.rows.map((r) => r.accountCode))).toEqual(new Set(['LARGE', 'SMALL']));
    // Newest first: both entities' last day, then the day before.
    expect(comparison.rows[0].date >= comparison.rows[49].date).toBe(true);

    // The largest entity across A and B is OTHER (B); for A alone it is LARGE with 365 days.
    const seriesA = await db.pool.query<{ date: string }>(DAILY_SERIES_SQL, [[orgA]]);
    expect(seriesA.rows).toHaveLength(365);
    const both = await db.pool.query(DAILY_SERIES_SQL, [[orgA, orgB]]);
    expect(both.rows).toHaveLength(30);

    const none = await new BenchmarkService({ db, thresholds }).run(new Set());
    expect(none.rowCount).toBe(0);
    expect(none.rating).toBe(rate(none.executionTimeMs, thresholds));
  });

  it('includes rows present on one side only', async () => {
    const { rows } = await comparisonPage([orgB]);
    // OTHER has a computed return on its newest day and no custodian figure for it.
    expect(rows[0]).toMatchObject({ accountCode: 'OTHER', custodian: null, status: 'investigate' });
    expect(rows[0].computed).not.toBeNull();
  });
});

interface EntitySeed {
  name: string;
  code: string;
  marketValue: number;
  days: number;
}

/** An organization with entities, daily valuations, daily returns and custodian returns (all SQL, one statement each). */
async function seedOrg(db: Database, name: string, entities: EntitySeed[]): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(`INSERT INTO "Organization" ("id", "name") VALUES (gen_random_uuid(), $1) RETURNING "id"`, [name]);
  const orgId = rows[0].id;
  for (const entity of entities) {
    const inserted = await db.pool.query<{ id: string }>(
      `INSERT INTO "Entity" ("id", "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, $2, $3) RETURNING "id"`,
      [orgId, entity.name, entity.code],
    );
    const entityId = inserted.rows[0].id;
    const days = `generate_series(0, $2::int - 1) AS g(n)`;
    const dateExpr = `(DATE '2026-10-31' - ($2::int - 1 - g.n))`;
    await db.pool.query(
      `INSERT INTO "Valuation" ("id", "entityId", "date", "marketValue")
       SELECT gen_random_uuid(), $1, ${dateExpr}, $3::numeric + g.n FROM ${days}`,
      [entityId, entity.days, entity.marketValue],
    );
    await db.pool.query(
      `INSERT INTO "DailyReturn" ("id", "entityId", "date", "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue")
       SELECT gen_random_uuid(), $1, ${dateExpr}, ${dateExpr} - 1, $3::numeric + g.n - 1, $3::numeric + g.n, 0, 0,
              1 / ($3::numeric + g.n - 1)
         FROM ${days}`,
      [entityId, entity.days, entity.marketValue],
    );
    // Custodian figures for every day but the newest.
    await db.pool.query(
      `INSERT INTO "CustodianReturn" ("id", "entityId", "date", "returnValue")
       SELECT gen_random_uuid(), $1, ${dateExpr}, 1 / ($3::numeric + g.n - 1) + 0.00001
         FROM ${days} WHERE g.n < $2::int - 1`,
      [entityId, entity.days, entity.marketValue],
    );
    // what the ingest does after writing valuations and returns
    await refreshLatestValuations(db.pool, [entityId]);
    await refreshReconciliation(db.pool, entityId, null, await recordedThresholds(db.pool, orgId, { matchBps: 1, reviewBps: 10 }));
  }
  return orgId;
}
