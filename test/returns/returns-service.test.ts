import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { ReturnsService } from '../../src/returns/returns-service.ts';
import { ReconciliationService, recordedThresholds, refreshReconciliation } from '../../src/returns/reconciliation.ts';
import { classifyDifference } from '../../src/returns/dietz.ts';

/**
 * The comparison reads the reconciliation, classified in SQL (the function
 * `reconciliation_status`), while each row's reason comes from classifyDifference in TypeScript.
 * These tests pin the two together on the boundaries that matter: thresholds (inclusive), sign
 * flips, missing sides, per-org overrides; and check that a change of thresholds re-classifies.
 */
const DEFAULTS = { matchBps: 1, reviewBps: 10 };

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
    service = new ReturnsService(db.pool);
    orgId = (await db.pool.query<{ id: string }>(`INSERT INTO "Organization" (id, name) VALUES (gen_random_uuid(), 'A') RETURNING id`)).rows[0].id;
    otherOrgId = (
      await db.pool.query<{ id: string }>(
        `INSERT INTO "Organization" (id, name, "matchThresholdBps", "reviewThresholdBps") VALUES (gen_random_uuid(), 'B', 50, 500) RETURNING id`,
      )
    ).rows[0].id;
    for (const [index, org] of [orgId, otherOrgId].entries()) {
      const entityId = (
        await db.pool.query<{ id: string }>(
          `INSERT INTO "Entity" (id, "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
          [org, `Fund ${index}`, 'ACC-1'], // the same account code in both: the page order's tie-break is the entity
        )
      ).rows[0].id;
      for (const [day, [custodian, computed]] of cases.entries()) {
        const date = new Date(Date.UTC(2025, 0, 2 + day)).toISOString().slice(0, 10);
        if (custodian !== null) {
          await db.pool.query(`INSERT INTO "CustodianReturn" (id, "entityId", date, "returnValue") VALUES (gen_random_uuid(), $1, $2, $3)`, [
            entityId,
            date,
            custodian,
          ]);
        }
        await db.pool.query(
          `INSERT INTO "DailyReturn" (id, "entityId", date, "startDate", "beginValue", "endValue", "netFlow", "weightedFlow", "returnValue", "nullReason")
           VALUES (gen_random_uuid(), $1, $2, $2::date - 1, 100, 101, 0, 0, $3, $4)`,
          [entityId, date, computed, computed === null ? 'denominator is zero' : null],
        );
      }
      // what the ingest does after writing returns, in its transaction
      await refreshReconciliation(db.pool, entityId, null, await recordedThresholds(db.pool, org, DEFAULTS));
    }
  }, 120_000);

  afterAll(() => db?.cleanup());

  const expected = [
    'match',
    'match',
    'review',
    'review',
    'investigate',
    'investigate',
    'match',
    'investigate',
    'investigate',
    'investigate',
    'match',
    'review',
  ];

  it('classifies every boundary case as classifyDifference does', async () => {
    const page = await service.comparison({ orgIds: new Set([orgId]), limit: 50 });
    const byDate = [...page.rows].sort((a, b) => a.date.localeCompare(b.date));
    expect(byDate.map((row) => row.status)).toEqual(expected);
    for (const row of byDate) {
      const classified = classifyDifference({ custodian: row.custodianReturn, computed: row.computedReturn, matchThresholdBps: 1, reviewThresholdBps: 10 });
      expect(row.status).toBe(classified.status);
    }
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
    expect(page.rows.every((row) => row.matchThresholdBps === '50' && row.reviewThresholdBps === '500')).toBe(true);
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
      seen.push(...page.rows.map((row) => `${row.entityName}/${row.date}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.length).toBe(cases.length);
    expect(new Set(seen).size).toBe(cases.length);
    expect(seen.every((key) => key.startsWith('Fund 0/'))).toBe(true);
  });

  it('re-classifies an organization when its thresholds change, and back when they are cleared', async () => {
    const reconciliation = new ReconciliationService(db.pool, DEFAULTS);
    const statuses = async () => {
      const rows = (await service.comparison({ orgIds: new Set([orgId]), limit: 50 })).rows.sort((a, b) => a.date.localeCompare(b.date));
      return rows.map((row) => row.status);
    };
    const widened = await reconciliation.setThresholds(orgId, { matchBps: 50, reviewBps: 500 });
    const rows = (await service.comparison({ orgIds: new Set([orgId]), limit: 50 })).rows;
    expect(rows.every((row) => row.matchThresholdBps === '50' && row.reviewThresholdBps === '500')).toBe(true);
    for (const row of rows) {
      expect(row.status).toBe(
        classifyDifference({ custodian: row.custodianReturn, computed: row.computedReturn, matchThresholdBps: 50, reviewThresholdBps: 500 }).status,
      );
    }
    expect(widened.changed).toBe(expected.filter((status, i) => status !== rows.find((r) => r.date === dateOf(i))?.status).length);
    expect((await service.comparison({ orgIds: new Set([orgId]), status: 'review', limit: 50 })).rows).toEqual([]);

    await reconciliation.setThresholds(orgId, { matchBps: null, reviewBps: null });
    expect(await statuses()).toEqual(expected);
  });

  it('re-classifies at start the organizations that follow changed service-wide thresholds, once', async () => {
    const strict = new ReconciliationService(db.pool, { matchBps: 0, reviewBps: 0.5 });
    const done = await strict.reclassifyStale();
    // A follows the service's thresholds; B has its own and keeps its classification
    expect(done.map((entry) => entry.orgId)).toContain(orgId);
    expect(done.map((entry) => entry.orgId)).not.toContain(otherOrgId);
    expect(await strict.reclassifyStale()).toEqual([]);
    const rows = (await service.comparison({ orgIds: new Set([orgId]), limit: 50 })).rows;
    for (const row of rows) {
      expect(row.matchThresholdBps).toBe('0');
      expect(row.status).toBe(
        classifyDifference({ custodian: row.custodianReturn, computed: row.computedReturn, matchThresholdBps: 0, reviewThresholdBps: 0.5 }).status,
      );
    }
    // and back under the defaults, as a restart with them would
    await new ReconciliationService(db.pool, DEFAULTS).reclassifyStale();
    const back = (await service.comparison({ orgIds: new Set([orgId]), limit: 50 })).rows.sort((a, b) => a.date.localeCompare(b.date));
    expect(back.map((row) => row.status)).toEqual(expected);
  });

  it('pages across organizations sharing account codes and dates without gaps or duplicates', async () => {
    const both = new Set([orgId, otherOrgId]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await service.comparison({ orgIds: both, limit: 3, cursor });
      seen.push(...page.rows.map((row) => `${row.entityId}/${row.date}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.length).toBe(cases.length * 2);
    expect(new Set(seen).size).toBe(cases.length * 2);
  });
});

function dateOf(day: number): string {
  return new Date(Date.UTC(2025, 0, 2 + day)).toISOString().slice(0, 10);
}
