import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { ReturnsService } from '../../src/returns/returns-service.ts';

/**
 * The comparison's status filter runs in SQL (a CASE expression) while each row's status and
 * reason come from classifyDifference in TypeScript. These tests pin the two together on the
 * boundaries that matter: thresholds (inclusive), sign flips, missing sides, per-org overrides.
 */
describe('ReturnsService.comparison', () => {
  let db: TestDatabase;
  let service: ReturnsService;
  let orgId: string;
  let otherOrgId: string;

  // custodian, computed (fractions); 1 bp = 0.0001
  const cases: [string | null, string | null][] = [
    ['0.0100', '0.0100'], // 0 bp -> match
    ['0.0100', '0.01010'], // +1 bp exactly -> match (inclusive)
    ['0.0100', '0.010100001'], // just over 1 bp -> review
    ['0.0100', '0.0110'], // +10 bp exactly -> review (inclusive)
    ['0.0100', '0.01100001'], // just over 10 bp -> investigate
    ['-0.0100', '0.0100'], // sign flip, 200 bp -> investigate
    ['-0.00002', '0.00003'], // sign flip within 1 bp (0.5 bp) -> match
    ['-0.0002', '0.0003'], // sign flip beyond the match threshold (5 bp) -> investigate
    [null, '0.0100'], // custodian missing -> investigate
    ['0.0100', null], // computed missing -> investigate
    ['0', '-0.00005'], // zero has no sign: 0.5 bp -> match
    ['0', '-0.0005'], // zero vs negative, 5 bp -> review, not a sign flip
  ];

  beforeAll(async () => {
    db = await createTestDatabase();
    service = new ReturnsService(db.pool, { matchBps: 1, reviewBps: 10 });
    orgId = (await db.pool.query<{ id: string }>(`INSERT INTO "Organization" (id, name) VALUES (gen_random_uuid(), 'A') RETURNING id`)).rows[0].id;
    otherOrgId = (await db.pool.query<{ id: string }>(`INSERT INTO "Organization" (id, name, "matchThresholdBps", "reviewThresholdBps") VALUES (gen_random_uuid(), 'B', 50, 500) RETURNING id`)).rows[0].id;
    for (const [index, org] of [orgId, otherOrgId].entries()) {
      const entityId = (
        await db.pool.query<{ id: string }>(
          `INSERT INTO "Entity" (id, "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
          [org, `Fund ${index}`, `ACC-${index}`],
        )
      ).rows[0].id;
      for (const [day, [custodian, computed]] of cases.entries()) {
        const date = new Date(Date.UTC(2025, 0, 2 + day)).toISOString().slice(0, 10);
        if (custodian !== null) {
          await db.pool.query(`INSERT INTO "CustodianReturn" (id, "entityId", date, "returnValue") VALUES (gen_random_uuid(), $1, $2, $3)`, [entityId, date, custodian]);
        }
        await db.pool.query(
          `INSERT INTO "DailyReturn" (id, "entityId", date, "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue", "nullReason")
           VALUES (gen_random_uuid(), $1, $2, $2::date - 1, 100, 101, 0, 0, $3, $4)`,
          [entityId, date, computed, computed === null ? 'denominator is zero' : null],
        );
      }
    }
  }, 120_000);

  afterAll(() => db?.cleanup());

  const expected = ['match', 'match', 'review', 'review', 'investigate', 'investigate', 'match', 'investigate', 'investigate', 'investigate', 'match', 'review'];

  it('classifies every boundary case as classifyDifference does', async () => {
    const page = await service.comparison({ orgIds: new Set([orgId]), limit: 50 });
    const byDate = [...page.rows].sort((a, b) => a.date.localeCompare(b.date));
    expect(byDate.map((row) => row.status)).toEqual(expected);
    expect(byDate[9].reason).toBe('computed return undefined: denominator is zero');
  });

  it('filters by status in SQL exactly as the rows are classified', async () => {
    for (const status of ['match', 'review', 'investigate'] as const) {
      const page = await service.comparison({ orgIds: new Set([orgId]), status, limit: 50 });
      expect(page.rows.length).toBe(expected.filter((s) => s === status).length);
      expect(page.rows.every((row) => row.status === status)).toBe(true);
    }
  });

  it('uses per-organization thresholds', async () => {
    const page = await service.comparison({ orgIds: new Set([otherOrgId]), limit: 50 });
    expect(page.rows.every((row) => row.matchThresholdBps === '50.0000' && row.reviewThresholdBps === '500.0000')).toBe(true);
    const review = await service.comparison({ orgIds: new Set([otherOrgId]), status: 'review', limit: 50 });
    // Every non-flipped difference is within 50 bp; the 200 bp sign flip is investigate.
    expect(review.rows).toEqual([]);
    const statuses = (await service.comparison({ orgIds: new Set([otherOrgId]), limit: 50 })).rows.map((r) => r.status);
    expect(statuses.filter((s) => s === 'investigate').length).toBe(3); // the flip and two missing sides
  });

  it('pages with a cursor without gaps or duplicates and never crosses organizations', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await service.comparison({ orgIds: new Set([orgId]), limit: 5, cursor });
      seen.push(...page.rows.map((row) => `${row.accountCode}/${row.date}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.length).toBe(cases.length);
    expect(new Set(seen).size).toBe(cases.length);
    expect(seen.every((key) => key.startsWith('ACC-0/'))).toBe(true);
  });
});
