/**
 * The reported returns over real HTTP (REST and /graphql), against histories uploaded as pnl files
 * the way a client loads them. Expected values come from test/helpers/exact-dietz.ts (exact
 * rationals: the daily Modified Dietz returns, rounded to the 12 places they are stored with, then
 * linked), from period boundaries written out by hand, and from Microsoft's published XIRR
 * example; never from the service's own code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadFiles } from '../helpers/returns-data.ts';
import { dailyReturns, dayNumber, parsePnl, Rational } from '../helpers/exact-dietz.ts';
import { LONG, longHistoryCsv } from '../helpers/long-history.ts';

const XIRR = 'XIRR Example Fund';
const TWO_RATES = 'Two Rates Fund';
const EMPTY = 'Custodian Only Fund';
const ORG = `Reported Returns ${Date.now()}`;

/**
 * Microsoft's XIRR example (support.microsoft.com, "XIRR function"): -10,000 on 2008-01-01, then
 * 2,750, 4,250, 3,250 and 2,750 received; 37.34 % (0.373362535 as published, which Excel stops
 * within 1e-8 of the root 0.3733625335...). As a portfolio: worth 10,000 at the start, three
 * withdrawals, worth 2,750 at the end.
 */
const XIRR_CSV = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-7002,${XIRR},2008-01-01,10000.00,,,`,
  `ACC-7002,${XIRR},2008-03-01,,-2750.00,end_of_day,withdrawal`,
  `ACC-7002,${XIRR},2008-10-30,,-4250.00,end_of_day,withdrawal`,
  `ACC-7002,${XIRR},2009-02-15,,-3250.00,end_of_day,withdrawal`,
  `ACC-7002,${XIRR},2009-04-01,2750.00,,,`,
].join('\n');

/** -100, +230, -132 a year apart (investor's view): both 10 % and 20 % solve it. */
const TWO_RATES_CSV = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-7003,${TWO_RATES},2021-01-01,100.00,,,`,
  `ACC-7003,${TWO_RATES},2022-01-01,,-230.00,end_of_day,withdrawal`,
  `ACC-7003,${TWO_RATES},2022-12-31,,132.00,end_of_day,contribution`,
  `ACC-7003,${TWO_RATES},2022-12-31,0.00,,,`,
].join('\n');

const CUSTODIAN_ONLY_CSV = ['account_code,entity_name,date,return,return_unit', `ACC-7004,${EMPTY},2025-01-02,0.5,percent`].join('\n');

let server: TestServer;
let user: TestUser;
let headers: Record<string, string>;
const long = parsePnl(longHistoryCsv()).get(LONG)!;
/** The stored daily returns: exact Modified Dietz, rounded half-even to 12 places. */
const stored = dailyReturns(long).map((period) => ({ date: period.date, value: Rational.parse(period.returnValue!.toFixed(12)) }));
const get = (path: string, extra: Record<string, string> = headers) => getJson(`${server.url}${path}`, { headers: extra });

/**
 * The linked stored returns of the days in (from, to]: what the service's return over that period
 * must be. Exact rationals grow by some 40 digits a day, so the product is cut to 40 places after
 * each day (an error below 1e-36 over a thousand days, far under the 12 places compared).
 */
function linked(from: string, to: string): string {
  const days = stored.filter((day) => dayNumber(day.date) > dayNumber(from) && dayNumber(day.date) <= dayNumber(to));
  const growth = days.reduce((product, day) => Rational.parse(product.times(day.value.plus(Rational.of(1))).toFixed(40)), Rational.of(1));
  return growth.minus(Rational.of(1)).toFixed(12);
}

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  headers = { 'x-api-key': user.key };
  await loadFiles(
    server.url,
    user.key,
    user.orgId,
    [
      { name: 'long.csv', content: longHistoryCsv() },
      { name: 'xirr.csv', content: XIRR_CSV },
      { name: 'two-rates.csv', content: TWO_RATES_CSV },
      { name: 'custodian-only.csv', content: CUSTODIAN_ONLY_CSV },
    ],
    120_000,
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /api/returns/periods', () => {
  it('links the stored daily returns over every standard period as of the latest valuation; 3Y and longer are not covered', async () => {
    const response = await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}`);
    expect(response.status).toBe(200);
    const table = response.body.data;
    expect(table).toMatchObject({ entity_name: LONG, account_code: 'ACC-7001', currency: 'USD', as_of: '2025-06-30', inception_date: '2022-12-30' });
    const boundaries: Record<string, string> = {
      MTD: '2025-05-31',
      QTD: '2025-03-31',
      YTD: '2024-12-31',
      '1M': '2025-05-30',
      '3M': '2025-03-30',
      '6M': '2024-12-30',
      '1Y': '2024-06-30',
      SI: '2022-12-30',
    };
    for (const [period, boundary] of Object.entries(boundaries)) {
      const row = table.periods.find((p: { period: string }) => p.period === period);
      expect(row, period).toMatchObject({
        boundary_date: boundary,
        start_valuation_date: boundary,
        end_valuation_date: '2025-06-30',
        days: dayNumber('2025-06-30') - dayNumber(boundary),
        complete: true,
        return_value: linked(boundary, '2025-06-30'),
        null_reason: null,
      });
    }
    // Annualised from a year on only: 1Y over exactly one year is its own return; SI over 2 years and 182 days.
    const byPeriod = (period: string) => table.periods.find((p: { period: string }) => p.period === period);
    expect(byPeriod('1Y')).toMatchObject({ years: 1, extra_days: 0, annualized_return: linked('2024-06-30', '2025-06-30') });
    expect(byPeriod('6M').annualized_return).toBeNull();
    expect(byPeriod('6M').annualized_null_reason).toMatch(/not annualised below a year/);
    const si = byPeriod('SI');
    expect(si).toMatchObject({ years: 2, extra_days: 182 });
    expect(Number(si.annualized_return)).toBeCloseTo((1 + Number(si.return_value)) ** (1 / (2 + 182 / 365)) - 1, 10);
    for (const period of ['3Y', '5Y', '10Y']) {
      expect(byPeriod(period)).toMatchObject({ complete: false, return_value: null, start_valuation_date: null, days: null });
      expect(byPeriod(period).null_reason).toMatch(/history starts at 2022-12-30/);
    }
  });

  it('answers as of an earlier date: YTD as of 31 December is the whole year', async () => {
    const response = await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}&as_of=2024-12-31`);
    expect(response.status).toBe(200);
    const ytd = response.body.data.periods.find((p: { period: string }) => p.period === 'YTD');
    expect(ytd).toMatchObject({ boundary_date: '2023-12-31', return_value: linked('2023-12-31', '2024-12-31'), complete: true });
  });

  it('refuses what it cannot answer with the documented error bodies', async () => {
    const cases: [string, number, RegExp][] = [
      ['/api/returns/periods', 400, /entity_name/],
      [`/api/returns/periods?entity_name=Nobody`, 404, /not found/i],
      [`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}&as_of=2022-12-01`, 400, /as_of.*before the inception 2022-12-30/],
      [`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}&as_of=31-12-2024`, 400, /as_of/],
      [`/api/returns/periods?entity_name=${encodeURIComponent(EMPTY)}`, 400, /no valuations/],
    ];
    for (const [path, status, message] of cases) {
      const response = await get(path);
      expect(response.status, path).toBe(status);
      expect(response.body.error, path).toMatch(message);
    }
    expect((await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}`, {})).status).toBe(401);
    const noScope = await createUser(server.services, { scopes: ['read:pnl'], role: 'member', org: ORG });
    expect((await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}`, { 'x-api-key': noScope.key })).status).toBe(403);
    const stranger = await createUser(server.services, { scopes: ['read:returns'], role: 'member' });
    expect((await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}`, { 'x-api-key': stranger.key })).status).toBe(404);
  });
});

describe('GET /api/returns/calendar', () => {
  it('has every month and year, linked from the stored daily returns, flagged partial where the history starts late or ends early', async () => {
    const response = await get(`/api/returns/calendar?entity_name=${encodeURIComponent(LONG)}`);
    expect(response.status).toBe(200);
    const { months, years, year_to_date: ytd, inception_date, as_of } = response.body.data;
    expect({ inception_date, as_of }).toEqual({ inception_date: '2022-12-30', as_of: '2025-06-30' });
    expect(months).toHaveLength(31); // 2022-12 .. 2025-06
    const monthEnd = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
    for (const row of months) {
      const from = row.period === '2022-12' ? '2022-12-30' : monthEnd(previousMonth(row.period));
      expect(row, row.period).toMatchObject({
        end_date: monthEnd(row.period),
        start_date: from,
        return_value: linked(from, monthEnd(row.period)),
        null_reason: null,
      });
    }
    expect(months[0]).toMatchObject({ period: '2022-12', partial: true });
    expect(months[1]).toMatchObject({ period: '2023-01', partial: false, partial_reason: null });
    expect(years.map((row: { period: string }) => row.period)).toEqual(['2022', '2023', '2024', '2025']);
    expect(years[2]).toMatchObject({ start_date: '2023-12-31', end_date: '2024-12-31', return_value: linked('2023-12-31', '2024-12-31'), partial: false });
    expect(ytd).toMatchObject({ period: '2025', return_value: linked('2024-12-31', '2025-06-30'), partial: true });
    expect(ytd.partial_reason).toMatch(/before the year's last day 2025-12-31/);
  });

  it('refuses an unknown entity and a missing name', async () => {
    expect((await get('/api/returns/calendar?entity_name=Nobody')).status).toBe(404);
    const missing = await get('/api/returns/calendar');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/entity_name/);
  });
});

/** The month before YYYY-MM, as YYYY-MM. */
function previousMonth(month: string): string {
  const [year, number] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number - 1, 0)).toISOString().slice(0, 7);
}

describe('GET /api/returns/irr', () => {
  it("reproduces Microsoft's XIRR example: 37.34 %, within Excel's stated accuracy of the published 0.373362535", async () => {
    const response = await get(`/api/returns/irr?entity_name=${encodeURIComponent(XIRR)}&start_date=2008-01-01&end_date=2009-04-01`);
    expect(response.status).toBe(200);
    const irr = response.body.data;
    expect(irr).toMatchObject({
      start_date: '2008-01-01',
      end_date: '2009-04-01',
      days: 456,
      begin_value: '10000.0000',
      end_value: '2750.0000',
      net_flow: '-10250.0000',
      flow_count: 3,
      null_reason: null,
    });
    expect(irr.annualized_return.slice(0, 10)).toBe('0.37336253');
    expect(Math.abs(Number(irr.annualized_return) - 0.373362535)).toBeLessThan(1e-8);
    expect(Number(irr.period_return)).toBeCloseTo(1.373362535 ** (456 / 365) - 1, 8);
  });

  it('is null with a reason when more than one rate solves the flows, and never annualises below a year', async () => {
    const two = await get(`/api/returns/irr?entity_name=${encodeURIComponent(TWO_RATES)}&start_date=2021-01-01&end_date=2022-12-31`);
    expect(two.status).toBe(200);
    expect(two.body.data).toMatchObject({ period_return: null, annualized_return: null });
    expect(two.body.data.null_reason).toMatch(/more than one rate/);
    const short = await get(`/api/returns/irr?entity_name=${encodeURIComponent(LONG)}&start_date=2025-01-31&end_date=2025-06-30`);
    expect(short.status).toBe(200);
    expect(short.body.data.annualized_return).toBeNull();
    expect(short.body.data.annualized_null_reason).toMatch(/shorter than a year/);
    expect(short.body.data.period_return).toMatch(/^-?\d+\.\d{12}$/);
  });

  it('uses the latest valuation on or before each date, and refuses reversed, too long or uncovered ranges', async () => {
    const latest = await get(`/api/returns/irr?entity_name=${encodeURIComponent(XIRR)}&start_date=2008-01-15&end_date=2010-01-01`);
    expect(latest.status).toBe(200);
    expect(latest.body.data).toMatchObject({ requested_start_date: '2008-01-15', start_date: '2008-01-01', end_date: '2009-04-01' });
    const cases: [string, number, RegExp][] = [
      [`entity_name=${encodeURIComponent(LONG)}&start_date=2025-01-01&end_date=2024-01-01`, 400, /end_date.*before start_date/],
      [`entity_name=${encodeURIComponent(LONG)}&start_date=2010-01-01&end_date=2025-01-01`, 400, /at most 3660 days/],
      [`entity_name=${encodeURIComponent(LONG)}&start_date=2020-01-01&end_date=2023-01-01`, 400, /no valuation on or before 2020-01-01/],
      [`entity_name=${encodeURIComponent(LONG)}&end_date=2025-01-01`, 400, /start_date/],
      [`entity_name=Nobody&start_date=2024-01-01&end_date=2025-01-01`, 404, /not found/i],
    ];
    for (const [params, status, message] of cases) {
      const response = await get(`/api/returns/irr?${params}`);
      expect(response.status, params).toBe(status);
      expect(response.body.error, params).toMatch(message);
    }
  });
});

describe('the same figures through /graphql', () => {
  it('answers returnPeriods, calendarReturns and moneyWeightedReturn as REST does', async () => {
    const response = await graphql(
      server.url,
      headers,
      `query ($name: String!, $x: String!) {
        returnPeriods(entityName: $name) { asOf periods { period returnValue complete } }
        calendarReturns(entityName: $name) { years { period returnValue } }
        moneyWeightedReturn(entityName: $x, startDate: "2008-01-01", endDate: "2009-04-01") { annualizedReturn }
      }`,
      { name: LONG, x: XIRR },
    );
    expect(response.body.errors).toBeUndefined();
    const rest = (await get(`/api/returns/periods?entity_name=${encodeURIComponent(LONG)}`)).body.data;
    expect(response.body.data.returnPeriods.periods).toEqual(
      rest.periods.map((row: { period: string; return_value: string | null; complete: boolean }) => ({
        period: row.period,
        returnValue: row.return_value,
        complete: row.complete,
      })),
    );
    expect(response.body.data.calendarReturns.years[1]).toEqual({ period: '2023', returnValue: linked('2022-12-31', '2023-12-31') });
    expect(response.body.data.moneyWeightedReturn.annualizedReturn.slice(0, 10)).toBe('0.37336253');
  });
});
