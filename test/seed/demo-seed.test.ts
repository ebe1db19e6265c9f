import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getJson } from '../helpers/fixtures.ts';
import { verifyPassword } from '../../src/auth/passwords.ts';
import { parsePerformance, parsePnl } from '../../src/ingest/csv-formats/index.ts';
import { Readable } from 'node:stream';
import {
  buildPerformanceCsv,
  buildPnlCsv,
  businessDays,
  DEMO_ADMIN_EMAIL,
  DEMO_ANALYST_EMAIL,
  DEMO_ORG_NAME,
  DEMO_OTHER_ORG_NAME,
  demoPeriod,
  generateDemoData,
  RECENT_FLOW_DAYS,
  seedDemoData,
  yesterdayUtc,
  type SeedResult,
} from '../../src/seed/demo-seed.ts';

async function parseAll<T>(items: AsyncIterable<{ row: T } | { error: unknown }>): Promise<{ rows: T[]; errors: unknown[] }> {
  const rows: T[] = [];
  const errors: unknown[] = [];
  for await (const item of items) {
    if ('row' in item) rows.push(item.row);
    else errors.push(item.error);
  }
  return { rows, errors };
}

function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1 - months, d)).toISOString().slice(0, 10);
}

describe('demo data generators', () => {
  it('are deterministic and end on the last business day on or before the end date', () => {
    const a = generateDemoData({ endDate: '2026-03-08' }); // a Sunday
    const b = generateDemoData({ endDate: '2026-03-08' });
    expect(buildPnlCsv(a.demoCapital)).toBe(buildPnlCsv(b.demoCapital));
    expect(a.endDate).toBe('2026-03-06');
    expect(a.startDate <= monthsBefore(a.endDate, 13)).toBe(true);
    expect(demoPeriod('2026-03-06').endDate).toBe('2026-03-06');
    expect(businessDays('2026-03-06', '2026-03-09')).toEqual(['2026-03-06', '2026-03-09']);
  });

  it('produce files the ingest parsers accept, with every flow timing and a zero-value start', async () => {
    const data = generateDemoData({ endDate: '2026-06-30' });
    const pnl = await parseAll(parsePnl(Readable.from([buildPnlCsv(data.demoCapital)])));
    expect(pnl.errors).toEqual([]);
    const flows = pnl.rows.filter((row) => row.cashFlow !== null);
    expect(flows.some((row) => row.flowTiming === 'start_of_day')).toBe(true);
    expect(flows.some((row) => row.flowTiming === 'end_of_day')).toBe(true);
    expect(flows.some((row) => row.flowTiming === null)).toBe(true);
    expect(flows.some((row) => Number(row.cashFlow) < 0)).toBe(true);
    expect(flows.some((row) => row.marketValue === null)).toBe(true); // a flow on a row of its own
    const zeroStart = data.demoCapital.find((account) => account.spec.openingValue === 0)!;
    expect(zeroStart.valuations[0].marketValue).toBe('0.00');
    expect(zeroStart.flows[0]).toMatchObject({ timing: 'start_of_day', description: 'Initial funding' });

    const performance = buildPerformanceCsv(data.demoCapital);
    const perf = await parseAll(parsePerformance(Readable.from([performance.csv])));
    expect(perf.errors).toEqual([]);
    expect(perf.rows).toHaveLength(performance.rows);
    expect(performance.expected.review).toBeGreaterThanOrEqual(3);
    expect(performance.expected.investigate).toBeGreaterThanOrEqual(3);
    expect(performance.expected.match).toBeGreaterThan(performance.rows * 0.9);
    const kinds = new Set(performance.deviations.map((d) => d.kind));
    expect(kinds).toEqual(new Set(['review', 'large', 'sign_flip', 'missing']));
  });
});

describe('demo flows the dashboard shows', () => {
  it('every account has a cash flow in the last RECENT_FLOW_DAYS business days, whatever the end date', () => {
    // A year of end dates: the flow schedule is drawn over a period that moves with the date.
    const missing: string[] = [];
    for (let day = 0; day < 366; day += 3) {
      const endDate = new Date(Date.UTC(2026, 0, 1 + day)).toISOString().slice(0, 10);
      const data = generateDemoData({ endDate });
      const days = businessDays(data.startDate, data.endDate);
      const recentFrom = days[days.length - RECENT_FLOW_DAYS]!;
      for (const account of [...data.demoCapital, ...data.northwind]) {
        if (!account.flows.some((flow) => flow.date >= recentFrom)) missing.push(`${endDate} ${account.spec.accountCode}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('seedDemoData', () => {
  let server: TestServer;
  let first: SeedResult;
  let printed: string[];
  let demoOrgId: string;
  let otherOrgId: string;

  beforeAll(async () => {
    server = await startTestServer({ SEED_DEMO_DATA: 'false' });
    printed = [];
    first = await seedDemoData(server.services, { print: (line) => printed.push(line) });
    demoOrgId = first.organizations!.demoCapital;
    otherOrgId = first.organizations!.northwind;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('seeds once and prints the credentials once', async () => {
    expect(first.seeded).toBe(true);
    expect(first.durationMs).toEqual(expect.any(Number)); // timed in the log line, never asserted (loaded machines)
    expect(first.apiKey).toMatch(/^sk_[0-9a-f]{32}$/);
    const block = printed.join('\n');
    for (const text of [first.apiKey!, first.adminPassword!, DEMO_ADMIN_EMAIL, demoOrgId, otherOrgId, 'Dashboard:', 'ONLY NOW']) {
      expect(block).toContain(text);
    }

    const { prisma } = server.services;
    const counts = async () => ({
      users: await prisma.user.count(),
      organizations: await prisma.organization.count(),
      memberships: await prisma.membership.count(),
      keys: await prisma.apiKey.count(),
      files: await prisma.uploadedFile.count(),
      entities: await prisma.entity.count(),
      valuations: await prisma.valuation.count(),
    });
    const before = await counts();
    const again: string[] = [];
    await expect(seedDemoData(server.services, { print: (line) => again.push(line) })).resolves.toEqual({ seeded: false });
    expect(again).toEqual([]);
    expect(await counts()).toEqual(before);
    expect(before).toMatchObject({ users: 2, organizations: 2, memberships: 2, keys: 1, files: 4, entities: 6 });
  });

  it('creates the admin, the analyst in another organization and the admin key', async () => {
    const { prisma, apiKeys } = server.services;
    const admin = await prisma.user.findUniqueOrThrow({ where: { email: DEMO_ADMIN_EMAIL }, include: { memberships: { include: { org: true } } } });
    expect(admin.role).toBe('admin');
    expect(admin.memberships.map((m) => m.org.name)).toEqual([DEMO_ORG_NAME]);
    expect(await verifyPassword(admin.passwordHash!, first.adminPassword!)).toBe(true);
    const analyst = await prisma.user.findUniqueOrThrow({ where: { email: DEMO_ANALYST_EMAIL }, include: { memberships: { include: { org: true } } } });
    expect(analyst.role).toBe('member');
    expect(analyst.memberships.map((m) => m.org.name)).toEqual([DEMO_OTHER_ORG_NAME]);
    const verified = await apiKeys.verify(first.apiKey!);
    expect(verified).toMatchObject({ scopes: ['admin'], owner: { email: DEMO_ADMIN_EMAIL } });
    expect((await prisma.apiKey.findFirstOrThrow()).name).toBe('demo key');
  });

  it('loads >= 4 accounts with >= 13 months of valuations ending yesterday (last business day)', async () => {
    const { rows } = await server.services.db.pool.query<{
      accountCode: string;
      first: string;
      last: string;
      valuations: number;
      flows: number;
      returns: number;
    }>(
      `SELECT e."accountCode",
              (SELECT min(date)::text FROM "Valuation" v WHERE v."entityId" = e.id) AS first,
              (SELECT max(date)::text FROM "Valuation" v WHERE v."entityId" = e.id) AS last,
              (SELECT count(*)::int FROM "Valuation" v WHERE v."entityId" = e.id) AS valuations,
              (SELECT count(*)::int FROM "CashTransaction" c WHERE c."entityId" = e.id) AS flows,
              (SELECT count(*)::int FROM "DailyReturn" d WHERE d."entityId" = e.id AND d."returnValue" IS NOT NULL) AS returns
         FROM "Entity" e WHERE e."orgId" = $1 ORDER BY e."accountCode"`,
      [demoOrgId],
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const lastBusinessDay = demoPeriod(yesterdayUtc()).endDate;
    for (const row of rows) {
      expect(row.last).toBe(lastBusinessDay);
      expect(row.first <= monthsBefore(row.last, 13)).toBe(true);
      expect(row.flows).toBeGreaterThanOrEqual(3);
      expect(row.returns).toBe(row.valuations - 1);
    }
    const northwind = await server.services.prisma.entity.count({ where: { orgId: otherOrgId } });
    expect(northwind).toBe(1);
  });

  it('lists the four files as processed in their organizations', async () => {
    const { storage } = server.services;
    for (const orgId of [demoOrgId, otherOrgId]) {
      const files = await storage.list(new Set([orgId]), { orgId }, { take: 10 });
      expect(files.map((f) => f.fileType).sort()).toEqual(['performance', 'pnl']);
      for (const file of files) {
        expect(file.status).toBe('processed');
        expect(file.rowCount).toBeGreaterThan(200);
        expect(file.errorCount).toBe(0);
      }
    }
  });

  it('gives a comparison with match, review and investigate rows, isolated per organization', async () => {
    const { returns } = server.services;
    const scope = { orgIds: new Set([demoOrgId]), limit: 500 };
    const match = await returns.comparison({ ...scope, status: 'match' });
    const review = await returns.comparison({ ...scope, status: 'review' });
    const investigate = await returns.comparison({ ...scope, status: 'investigate' });
    expect(match.rows.length).toBeGreaterThan(100);
    expect(review.rows.length).toBeGreaterThanOrEqual(3);
    expect(investigate.rows.length).toBeGreaterThanOrEqual(3);
    const reasons = investigate.rows.map((row) => row.reason).join('\n');
    expect(reasons).toMatch(/^Opposite signs: /m);
    expect(reasons).toMatch(/^The custodian return is missing$/m);
    expect(reasons).toMatch(/^Over the review threshold: /m);
    for (const row of review.rows) expect(Math.abs(Number(row.differenceBps))).toBeGreaterThan(1);
    const accounts = new Set([...match.rows, ...review.rows, ...investigate.rows].map((row) => row.accountCode));
    expect([...accounts].every((code) => code.startsWith('DC-'))).toBe(true);

    const other = await returns.comparison({ orgIds: new Set([otherOrgId]), limit: 500 });
    expect(other.rows.length).toBeGreaterThan(100);
    expect(other.rows.every((row) => row.accountCode === 'NW-2001')).toBe(true);
  });

  it('lets the printed key read the comparison over HTTP', async () => {
    const response = await getJson(`${server.url}/api/returns/comparison?status=review&limit=5`, { headers: { 'x-api-key': first.apiKey! } });
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).toContain('DC-');
  });
});
