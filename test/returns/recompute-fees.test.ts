/**
 * Gross and net of fees on a real database: the ingest's recompute stores, per daily return, the
 * net-of-fee return (Modified Dietz over the external flows only), the fees, the gross-of-fee
 * return and both growth indexes; a partial recompute continues both; a row from before fees
 * existed anchors the gross index with its net factor, and the first read fills such rows; the
 * reads (periods, calendar, daily returns, cash transactions, IRR) report gross beside net.
 * Expected values come from the pure functions (src/returns/analytics/fees.ts, dietz.ts, tested
 * on their own against exact oracles) applied to the inserted inputs, and from linking the stored
 * daily returns one by one, not from the stored index the service reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { recomputeDailyReturns } from '../../src/returns/recompute.ts';
import { pointsOnOrBefore } from '../../src/returns/growth-index-store.ts';
import { ReturnsAnalyticsService } from '../../src/returns/analytics-service.ts';
import { ReturnsService } from '../../src/returns/returns-service.ts';
import { buildGrowthIndex } from '../../src/returns/analytics/growth-index.ts';
import { feeSeries, type FlowType, type TypedCashFlow } from '../../src/returns/analytics/fees.ts';
import { moneyWeightedReturn } from '../../src/returns/analytics/irr.ts';
import { dailySeries, linkReturns, type Valuation } from '../../src/returns/dietz.ts';
import { Dec } from '../../src/returns/decimal.ts';

let db: TestDatabase;
let orgId: string;
let orgIds: ReadonlySet<string>;

beforeAll(async () => {
  db = await createTestDatabase();
  orgId = (await db.pool.query<{ id: string }>(`INSERT INTO "Organization" (id, name) VALUES (gen_random_uuid(), 'Fees') RETURNING id`)).rows[0].id;
  orgIds = new Set([orgId]);
}, 60_000);

afterAll(async () => {
  await db?.cleanup();
});

const dateOf = (start: string, day: number) => new Date(Date.parse(`${start}T00:00:00Z`) + day * 86_400_000).toISOString().slice(0, 10);

interface Flow {
  date: string;
  amount: string;
  flowType: FlowType;
  timing: 'start_of_day' | 'end_of_day';
}

/** An entity valued every day for `days` days from `start` (values from `valueOf`), with the flows. */
async function entity(
  name: string,
  start: string,
  days: number,
  valueOf: (day: number) => string,
  flows: Flow[],
): Promise<{ id: string; valuations: Valuation[] }> {
  const id = (
    await db.pool.query<{ id: string }>(`INSERT INTO "Entity" (id, "orgId", "entityName", "accountCode") VALUES (gen_random_uuid(), $1, $2, $2) RETURNING id`, [
      orgId,
      name,
    ])
  ).rows[0].id;
  const valuations = Array.from({ length: days }, (_, day) => ({ date: dateOf(start, day), marketValue: valueOf(day) }));
  await db.pool.query(
    `INSERT INTO "Valuation" (id, "entityId", date, "marketValue") SELECT gen_random_uuid(), $1, d, v FROM unnest($2::date[], $3::numeric[]) AS t(d, v)`,
    [id, valuations.map((v) => v.date), valuations.map((v) => v.marketValue)],
  );
  await addFlows(id, flows);
  return { id, valuations };
}

async function addFlows(entityId: string, flows: Flow[]): Promise<void> {
  for (const flow of flows) {
    await db.pool.query(
      `INSERT INTO "CashTransaction" (id, "entityId", date, amount, timing, "flowType", description) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)`,
      [entityId, flow.date, flow.amount, flow.timing, flow.flowType, flow.flowType],
    );
  }
}

interface StoredRow {
  date: string;
  startDate: string;
  netFlow: string;
  weightedFlow: string;
  returnValue: string | null;
  nullReason: string | null;
  fees: string | null;
  grossReturnValue: string | null;
  growthFactor: string | null;
  grossGrowthFactor: string | null;
  chainStart: string | null;
}

async function stored(entityId: string): Promise<StoredRow[]> {
  const { rows } = await db.pool.query<StoredRow>(
    `SELECT date::text AS date, "startDate"::text AS "startDate", "netFlow"::text AS "netFlow", trim_scale("weightedFlow")::text AS "weightedFlow",
            "returnValue"::text AS "returnValue", "nullReason", fees::text AS fees, "grossReturnValue"::text AS "grossReturnValue",
            trim_scale("growthFactor")::text AS "growthFactor", trim_scale("grossGrowthFactor")::text AS "grossGrowthFactor", "chainStart"::text AS "chainStart"
       FROM "DailyReturn" WHERE "entityId" = $1 ORDER BY date`,
    [entityId],
  );
  return rows;
}

/** What the stored rows must be: fees.ts and dietz.ts on the inputs, the indexes built whole by growth-index.ts. */
function expectedRows(valuations: Valuation[], flows: Flow[]) {
  const typed: TypedCashFlow[] = flows;
  const net = dailySeries(
    valuations,
    typed.filter((flow) => flow.flowType === 'external'),
  ).periods;
  const fees = feeSeries(valuations, typed).periods;
  const inception = valuations[0].date;
  const netIndex = buildGrowthIndex(
    inception,
    net.map((p) => ({ date: p.endDate, returnValue: p.returnValue })),
  ).slice(1);
  const grossIndex = buildGrowthIndex(
    inception,
    fees.map((p) => ({ date: p.endDate, returnValue: p.grossReturn })),
  ).slice(1);
  return net.map((period, i) => ({
    date: period.endDate,
    startDate: period.startDate,
    netFlow: period.netFlow,
    weightedFlow: new Dec(period.weightedFlow).toFixed(),
    returnValue: period.returnValue,
    nullReason: period.nullReason,
    fees: fees[i].fees,
    grossReturnValue: fees[i].grossReturn,
    growthFactor: netIndex[i].growthFactor,
    grossGrowthFactor: grossIndex[i].growthFactor,
    chainStart: netIndex[i].chainStart,
  }));
}

// ---------------------------------------------------------------------------------------------
// A fund valued daily over 14 months: contributions and a withdrawal (external), a management fee
// at every month end, a rebate, quarterly dividends (income).
// ---------------------------------------------------------------------------------------------

const FUND = 'Fee Fund';
const START = '2023-01-01';
const DAYS = 425; // to 2024-02-29
const fundValue = (day: number) => (1_000_000 + day * 40 + ((day * 7919) % 20_000) - 10_000 + (day >= 73 ? 50_000 : 0) - (day >= 221 ? 20_000 : 0)).toFixed(2);
const monthEnds = Array.from({ length: 13 }, (_, m) => new Date(Date.UTC(2023, m + 1, 0)).toISOString().slice(0, 10));
const FUND_FLOWS: Flow[] = [
  { date: '2023-03-15', amount: '50000.00', flowType: 'external', timing: 'start_of_day' },
  { date: '2023-08-10', amount: '-20000.00', flowType: 'external', timing: 'end_of_day' },
  { date: '2024-01-05', amount: '10000.00', flowType: 'external', timing: 'start_of_day' },
  ...monthEnds.map((date): Flow => ({ date, amount: '-2500.00', flowType: 'fee', timing: 'end_of_day' })),
  { date: '2024-02-15', amount: '-300.00', flowType: 'fee', timing: 'end_of_day' },
  { date: '2023-06-20', amount: '100.00', flowType: 'fee', timing: 'start_of_day' },
  ...['2023-03-15', '2023-06-15', '2023-09-15', '2023-12-15'].map((date): Flow => ({ date, amount: '1200.00', flowType: 'income', timing: 'start_of_day' })),
];

describe('the recompute', () => {
  let fund: { id: string; valuations: Valuation[] };

  beforeAll(async () => {
    fund = await entity(FUND, START, DAYS, fundValue, FUND_FLOWS);
    await recomputeDailyReturns(db.pool as never, fund.id);
  });

  it('stores net (external flows only), fees, gross and both growth indexes', async () => {
    const rows = await stored(fund.id);
    expect(rows).toHaveLength(DAYS - 1);
    expect(rows).toEqual(expectedRows(fund.valuations, FUND_FLOWS));
    // The month-end fee day: net carries the fee as a loss, gross adds it back; F/D apart.
    const feeDay = rows.find((row) => row.date === '2023-04-30') as StoredRow;
    expect(feeDay.fees).toBe('2500.0000');
    expect(Number(feeDay.grossReturnValue) - Number(feeDay.returnValue)).toBeCloseTo(2500 / Number(fundValue(118)), 12);
    // The rebate is negative fees; a day with income only is gross = net; netFlow counts external flows only.
    expect(rows.find((row) => row.date === '2023-06-20')?.fees).toBe('-100.0000');
    const dividendDay = rows.find((row) => row.date === '2023-06-15') as StoredRow;
    expect(dividendDay).toMatchObject({ fees: '0.0000', netFlow: '0.0000', grossReturnValue: dividendDay.returnValue });
    expect(rows.find((row) => row.date === '2023-03-15')?.netFlow).toBe('50000.0000');
  });

  it('continues both indexes exactly in a partial recompute', async () => {
    const whole = await stored(fund.id);
    await recomputeDailyReturns(db.pool as never, fund.id, '2023-07-01', { windowSize: 37 });
    expect(await stored(fund.id)).toEqual(whole);
  });

  it('with no fee or income rows stores gross = net, fees 0 and the gross index equal to the net one', async () => {
    const plain = await entity('Plain Fund', START, 60, fundValue, [{ date: '2023-01-20', amount: '5000.00', flowType: 'external', timing: 'start_of_day' }]);
    await recomputeDailyReturns(db.pool as never, plain.id);
    for (const row of await stored(plain.id)) {
      expect(row).toMatchObject({ fees: '0.0000', grossReturnValue: row.returnValue, grossGrowthFactor: row.growthFactor });
    }
  });

  it('stores a null gross return exactly where the net one is null, and restarts both chains there', async () => {
    const flows: Flow[] = [
      { date: '2024-01-10', amount: '-50.00', flowType: 'fee', timing: 'end_of_day' },
      { date: '2024-01-13', amount: '-75.00', flowType: 'fee', timing: 'end_of_day' },
    ];
    const broken = await entity('Broken Chain Fund', '2024-01-01', 20, (day) => (day === 8 ? '0' : (100_000 + day * 13).toFixed(2)), flows);
    await recomputeDailyReturns(db.pool as never, broken.id);
    const rows = await stored(broken.id);
    expect(rows).toEqual(expectedRows(broken.valuations, flows));
    const nulls = rows.filter((row) => row.returnValue === null).map((row) => row.date);
    expect(nulls).toEqual(['2024-01-10']);
    expect(rows.filter((row) => row.grossReturnValue === null).map((row) => row.date)).toEqual(nulls);
    expect(rows.find((row) => row.date === '2024-01-10')).toMatchObject({
      fees: '50.0000',
      growthFactor: '1',
      grossGrowthFactor: '1',
      chainStart: '2024-01-10',
    });
  });
});

describe('rows from before fees existed', () => {
  const LEGACY_FLOWS: Flow[] = [{ date: '2023-01-10', amount: '7000.00', flowType: 'external', timing: 'start_of_day' }];
  const LATER_FEES: Flow[] = [
    { date: '2023-02-10', amount: '-400.00', flowType: 'fee', timing: 'end_of_day' },
    { date: '2023-02-20', amount: '-400.00', flowType: 'fee', timing: 'end_of_day' },
  ];
  const toLegacy = (entityId: string) =>
    db.pool.query(`UPDATE "DailyReturn" SET fees = NULL, "grossReturnValue" = NULL, "grossGrowthFactor" = NULL WHERE "entityId" = $1`, [entityId]);

  it('anchor the gross index with their net factor: a partial recompute equals recomputing everything', async () => {
    const legacy = await entity('Legacy Fee Fund', START, 60, fundValue, LEGACY_FLOWS);
    await recomputeDailyReturns(db.pool as never, legacy.id);
    await toLegacy(legacy.id);
    await addFlows(legacy.id, LATER_FEES);
    await recomputeDailyReturns(db.pool as never, legacy.id, '2023-02-10');
    const rows = await stored(legacy.id);
    const expected = expectedRows(legacy.valuations, [...LEGACY_FLOWS, ...LATER_FEES]);
    // Up to the anchor (2023-02-09) the rows are as the old code left them; after it, as a whole recompute writes them.
    const anchor = rows.findIndex((row) => row.date === '2023-02-09');
    expect(rows.slice(anchor + 1)).toEqual(expected.slice(anchor + 1));
    expect(rows.slice(0, anchor + 1).every((row) => row.fees === null && row.grossGrowthFactor === null)).toBe(true);
    expect(rows.find((row) => row.date === '2023-02-10')?.fees).toBe('400.0000');

    // The first read fills them: gross = net, fees 0, the gross factor the net one; then everything is as a whole recompute.
    const points = await pointsOnOrBefore(db.pool as never, { id: legacy.id, orgId }, START, ['2023-01-31', '2023-03-01']);
    expect(points.map((p) => p.date)).toEqual([START, '2023-01-31', '2023-03-01']);
    expect(await stored(legacy.id)).toEqual(expected);
    expect(points[2].grossGrowthFactor).toBe(expected.at(-1)?.grossGrowthFactor);
  });

  it('are filled by the first read of periods, and report gross = net', async () => {
    const legacy = await entity('Legacy Plain Fund', START, 45, fundValue, LEGACY_FLOWS);
    await recomputeDailyReturns(db.pool as never, legacy.id);
    const whole = await stored(legacy.id);
    await toLegacy(legacy.id);
    await db.pool.query(`UPDATE "DailyReturn" SET "growthFactor" = NULL, "chainStart" = NULL WHERE "entityId" = $1`, [legacy.id]);
    const table = await new ReturnsAnalyticsService(db.pool).periods({ orgIds, entityName: 'Legacy Plain Fund' });
    for (const row of table.periods) expect(row.grossReturnValue, row.period).toBe(row.returnValue);
    expect(await stored(legacy.id)).toEqual(whole);
  });
});

describe('the reads report gross beside net', () => {
  const analytics = () => new ReturnsAnalyticsService(db.pool);

  /** The daily returns stored in (from, to], linked one by one (dietz.ts linkReturns), net and gross. */
  async function linkedStored(from: string, to: string): Promise<{ net: string | null; gross: string | null }> {
    const rows = (await stored((await entityId(FUND)) as string)).filter((row) => row.date > from && row.date <= to);
    return { net: linkReturns(rows.map((row) => row.returnValue)).value, gross: linkReturns(rows.map((row) => row.grossReturnValue)).value };
  }

  async function entityId(name: string): Promise<string | undefined> {
    return (await db.pool.query<{ id: string }>(`SELECT id FROM "Entity" WHERE "entityName" = $1`, [name])).rows[0]?.id;
  }

  it('periods: gross and net each the linked daily returns, annualised by the same rule', async () => {
    const table = await analytics().periods({ orgIds, entityName: FUND });
    expect(table.asOf).toBe('2024-02-29');
    const byPeriod = new Map<string, (typeof table.periods)[number]>(table.periods.map((row) => [row.period, row]));
    for (const row of table.periods) {
      if (!row.complete) {
        expect([row.returnValue, row.grossReturnValue, row.grossAnnualizedReturn]).toEqual([null, null, null]);
        continue;
      }
      const linked = await linkedStored(row.startValuationDate as string, row.endValuationDate);
      expect({ period: row.period, net: row.returnValue, gross: row.grossReturnValue }).toEqual({ period: row.period, ...linked });
    }
    // Fees paid every month: gross above net over every period with a fee in it.
    for (const period of ['MTD', 'YTD', '1M', '3M', '6M', '1Y', 'SI']) {
      const row = byPeriod.get(period)!;
      expect(Number(row.grossReturnValue), period).toBeGreaterThan(Number(row.returnValue));
    }
    // 1Y is exactly one year: annualised = the return itself, gross and net; below a year neither.
    const oneYear = byPeriod.get('1Y')!;
    expect(oneYear).toMatchObject({ boundaryDate: '2023-02-28', annualizedReturn: oneYear.returnValue, grossAnnualizedReturn: oneYear.grossReturnValue });
    expect(byPeriod.get('6M')).toMatchObject({ annualizedReturn: null, grossAnnualizedReturn: null });
    const si = byPeriod.get('SI')!;
    expect(si.span).toEqual({ years: 1, extraDays: 58 }); // 2023-01-01 to 2023-02-28, then a year to 2024-02-29
    expect(Number(si.grossAnnualizedReturn)).toBeCloseTo((1 + Number(si.grossReturnValue)) ** (1 / (1 + 58 / 365)) - 1, 11);
    for (const period of ['3Y', '5Y', '10Y'])
      expect(byPeriod.get(period)).toMatchObject({ complete: false, grossReturnValue: null, grossAnnualizedReturn: null });
  });

  it('calendar: every month and year gross and net, each the product of its daily returns', async () => {
    const table = await analytics().calendar({ orgIds, entityName: FUND });
    expect(table.months).toHaveLength(14);
    for (const row of [...table.months, ...table.years]) {
      const linked = await linkedStored(row.startDate, row.endDate);
      expect({ period: row.period, net: row.returnValue, gross: row.grossReturnValue }).toEqual({ period: row.period, ...linked });
    }
    // The linked gross over 2023 is the product of the year's daily gross returns, and above the net one by about the 12 fees.
    const year = table.years.find((row) => row.period === '2023')!;
    expect(year.grossReturnValue).toBe((await linkedStored('2023-01-01', '2023-12-31')).gross);
    expect(Number(year.grossReturnValue) - Number(year.returnValue)).toBeGreaterThan(0.025);
    expect(Number(year.grossReturnValue) - Number(year.returnValue)).toBeLessThan(0.035);
    expect(table.yearToDate).toMatchObject({ period: '2024', grossReturnValue: (await linkedStored('2023-12-31', '2024-02-29')).gross });
  });

  it('daily returns carry fees and gross; cash transactions their flow type; the IRR is net of fees', async () => {
    const service = new ReturnsService(db.pool);
    const daily = await service.dietzDaily({ orgIds, entityName: FUND, startDate: '2023-04-28', endDate: '2023-05-02' });
    const rows = (await stored((await entityId(FUND)) as string)).filter((row) => row.date > '2023-04-28' && row.date <= '2023-05-02');
    expect(daily.days.map((day) => [day.date, day.returnValue, day.fees, day.grossReturnValue])).toEqual(
      rows.map((row) => [row.date, row.returnValue, row.fees, row.grossReturnValue]),
    );
    expect(daily.days.find((day) => day.date === '2023-04-30')?.fees).toBe('2500.0000');

    const page = await service.cashTransactions({ orgIds, entityName: FUND, limit: 100 });
    const types = page.rows.map((row) => row.flowType);
    expect(types.filter((type) => type === 'external')).toHaveLength(3);
    expect(types.filter((type) => type === 'fee')).toHaveLength(15);
    expect(types.filter((type) => type === 'income')).toHaveLength(4);

    // The IRR of the values and the external flows only: the fees stay inside (the end value shows them).
    const irr = await analytics().irr({ orgIds, entityName: FUND, startDate: START, endDate: '2024-02-29' });
    const external = FUND_FLOWS.filter((flow) => flow.flowType === 'external');
    const expected = moneyWeightedReturn({ startDate: START, endDate: '2024-02-29', beginValue: fundValue(0), endValue: fundValue(DAYS - 1), flows: external });
    expect(expected.ok).toBe(true);
    expect(irr).toMatchObject({ flowCount: 3, netFlow: '40000.0000', annualizedReturn: expected.ok ? expected.value.annualizedReturn : 'unreachable' });
  });
});
