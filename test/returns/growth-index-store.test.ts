/**
 * The stored growth index on a real database: the ingest's recompute writes it, continuing from the
 * anchor when only the newest part changes (the same factors as recomputing everything), starting
 * over when the anchor has none (a row from before the index existed), and the first read of a
 * legacy entity fills it with the same factors; a null daily return starts a new chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { recomputeDailyReturns } from '../../src/returns/recompute.ts';
import { pointsOnOrBefore } from '../../src/returns/growth-index-store.ts';
import { buildGrowthIndex } from '../../src/returns/analytics/growth-index.ts';

let db: TestDatabase;
let orgId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  orgId = (await db.pool.query<{ id: string }>(`INSERT INTO "Organization" (id, name) VALUES (gen_random_uuid(), 'Growth') RETURNING id`)).rows[0].id;
});

afterAll(async () => {
  await db?.close();
});

/** An entity valued every day from 2024-01-01, with a zero value on `zeroOn` (its next return is null: a zero denominator). */
async function entityWithValues(name: string, days: number, zeroOn?: number): Promise<string> {
  const id = (
    await db.pool.query<{ id: string }>(`INSERT INTO "Entity" (id, "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, $2, $2) RETURNING id`, [
      orgId,
      name,
    ])
  ).rows[0].id;
  for (let day = 0; day < days; day++) {
    const value = day === zeroOn ? '0' : (1_000_000 + ((day * 7919) % 50_000) - 25_000).toFixed(2);
    await db.pool.query(`INSERT INTO "Valuation" (id, "entityId", date, "marketValue") VALUES (gen_random_uuid(), $1, ($2::date + $3::int), $4)`, [
      id,
      '2024-01-01',
      day,
      value,
    ]);
  }
  return id;
}

async function storedIndex(entityId: string) {
  const { rows } = await db.pool.query<{ date: string; returnValue: string | null; growthFactor: string | null; chainStart: string | null }>(
    `SELECT date::text AS date, "returnValue"::text AS "returnValue", trim_scale("growthFactor")::text AS "growthFactor", "chainStart"::text AS "chainStart"
       FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`,
    [entityId],
  );
  return rows;
}

/** The index as the pure code builds it from the stored returns (factors compared as numbers' text without trailing zeros). */
function expectedIndex(rows: { date: string; returnValue: string | null }[]) {
  return buildGrowthIndex('2024-01-01', rows)
    .slice(1)
    .map((point) => ({ date: point.date, growthFactor: point.growthFactor, chainStart: point.chainStart }));
}

describe('the stored growth index', () => {
  it('is written by the recompute, and a partial recompute continues it exactly', async () => {
    const entityId = await entityWithValues('Continued', 40, 25);
    await recomputeDailyReturns(db.pool as never, entityId);
    const whole = await storedIndex(entityId);
    expect(whole).toHaveLength(39);
    expect(whole.map(({ date, growthFactor, chainStart }) => ({ date, growthFactor, chainStart }))).toEqual(expectedIndex(whole));
    // The zero value on day 25 makes day 26's return null: a new chain starts there.
    expect(whole[25]).toMatchObject({ date: '2024-01-27', returnValue: null, growthFactor: '1', chainStart: '2024-01-27' });

    await recomputeDailyReturns(db.pool as never, entityId, '2024-01-20', { windowSize: 7 });
    expect(await storedIndex(entityId)).toEqual(whole);
  });

  it('recomputes the whole series when the anchor has no factor, and a read fills a legacy entity with the same factors', async () => {
    const entityId = await entityWithValues('Legacy', 30);
    await recomputeDailyReturns(db.pool as never, entityId);
    const whole = await storedIndex(entityId);
    await db.pool.query(`UPDATE "DailyReturn" SET "growthFactor" = NULL, "chainStart" = NULL WHERE "entityId" = $1`, [entityId]);

    const points = await pointsOnOrBefore(db.pool as never, { id: entityId, orgId }, '2024-01-01', ['2024-01-10', '2024-01-30']);
    expect(points.map((p) => p.date)).toEqual(['2024-01-01', '2024-01-10', '2024-01-30']);
    expect(await storedIndex(entityId)).toEqual(whole);

    await db.pool.query(`UPDATE "DailyReturn" SET "growthFactor" = NULL, "chainStart" = NULL WHERE "entityId" = $1`, [entityId]);
    await recomputeDailyReturns(db.pool as never, entityId, '2024-01-20');
    expect(await storedIndex(entityId)).toEqual(whole);
  });
});
