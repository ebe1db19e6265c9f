/**
 * Reported returns in another currency (`currency=`), over real HTTP (REST and /graphql), with the
 * rates stored the way the fx upload stores them. The expected figures are the textbook
 * decomposition (CFA Institute, "Currency Management"; Solnik & McLeavey, International
 * Investments): an asset returning 10 % in its own currency while that currency gains 5 % returns
 * (1.10)(1.05) - 1 = 15.5 % to the investor, of which 5.5 % is the currency effect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, insertFxRates, loadFiles } from '../helpers/returns-data.ts';

const FUND = 'Sterling Fund';
const FLOWS = 'Sterling Flows Fund';
const ORG = `Currency Returns ${Date.now()}`;
const OTHER_ORG = `Currency Other ${Date.now()}`;

/** 100 -> 105 -> 110 in GBP: 10 % since inception, no flows. */
const PNL = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-7101,${FUND},2024-12-31,100.00,,,`,
  `ACC-7101,${FUND},2025-01-31,105.00,,,`,
  `ACC-7101,${FUND},2025-02-28,110.00,,,`,
  `ACC-7102,${FLOWS},2024-12-31,100.00,,,`,
  `ACC-7102,${FLOWS},2025-01-31,115.00,10.00,end_of_day,contribution`,
  `ACC-7102,${FLOWS},2025-02-28,120.00,,,`,
].join('\n');

/** The custodian's figures: January as computed (5 %), February 4.5 % against the computed 110 / 105 - 1, and one on the first valuation date. */
const CUSTODIAN = [
  'account_code,entity_name,date,return,return_unit',
  `ACC-7101,${FUND},2024-12-31,0.1,percent`,
  `ACC-7101,${FUND},2025-01-31,5,percent`,
  `ACC-7101,${FUND},2025-02-28,4.5,percent`,
].join('\n');

let server: TestServer;
let user: TestUser;
let other: TestUser;
const get = (path: string) => getJson(`${server.url}${path}`, { headers: { 'x-api-key': user.key } });
const periods = (currency: string) => get(`/api/returns/periods?entity_name=${encodeURIComponent(FUND)}&currency=${encodeURIComponent(currency)}`);

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  other = await createUser(server.services, { scopes: ['read:returns'], role: 'member', org: OTHER_ORG });
  await loadFiles(
    server.url,
    user.key,
    user.orgId,
    [
      { name: 'sterling.csv', content: PNL },
      { name: 'sterling-custodian.csv', content: CUSTODIAN },
    ],
    60_000,
  );
  await server.services.db.pool.query(`UPDATE "Entity" SET currency = 'GBP' WHERE "orgId" = $1`, [user.orgId]);
  // GBP/EUR: the pound gains 5 % over the two months (1.15 -> 1.2075).
  await insertFxRates(server.services.db.pool, user.orgId, 'GBP', 'EUR', [
    ['2024-12-31', '1.15'],
    ['2025-01-31', '1.18'],
    ['2025-02-28', '1.2075'],
  ]);
  // Quoted the other way round (pounds per dollar): the dollar in GBP terms 0.80 -> 0.78125, so GBP/USD 1.25 -> 1.28.
  await insertFxRates(server.services.db.pool, user.orgId, 'USD', 'GBP', [
    ['2024-12-31', '0.8'],
    ['2025-01-31', '0.8'],
    ['2025-02-28', '0.78125'],
  ]);
  // CHF: one date has no rate.
  await insertFxRates(server.services.db.pool, user.orgId, 'GBP', 'CHF', [
    ['2024-12-31', '1.13'],
    ['2025-02-28', '1.12'],
  ]);
  // Another organization's JPY rates: never used for this one.
  await insertFxRates(server.services.db.pool, other.orgId, 'GBP', 'JPY', [
    ['2024-12-31', '190'],
    ['2025-01-31', '191'],
    ['2025-02-28', '192'],
  ]);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const row = (table: { periods: { period: string }[] }, period: string) => table.periods.find((p) => p.period === period);

describe('GET /api/returns/periods?currency=', () => {
  it('reports the textbook decomposition: 10 % local and a 5 % stronger pound are 15.5 % in euros', async () => {
    const response = await periods('EUR');
    expect(response.status).toBe(200);
    const table = response.body.data;
    expect(table).toMatchObject({ entity_name: FUND, currency: 'EUR', local_currency: 'GBP', as_of: '2025-02-28' });
    expect(row(table, 'SI')).toMatchObject({
      return_value: '0.155000000000',
      local_return_value: '0.100000000000',
      currency_effect: '0.055000000000',
      complete: true,
    });
    // MTD: 110 / 105 in pounds, 1.2075 / 1.18 in the rate.
    const local = 110 / 105;
    const fx = 1.2075 / 1.18;
    const mtd = row(table, 'MTD') as unknown as Record<string, string>;
    expect(Number(mtd.local_return_value)).toBeCloseTo(local - 1, 12);
    expect(Number(mtd.return_value)).toBeCloseTo(local * fx - 1, 12);
    expect(Number(mtd.currency_effect)).toBeCloseTo(local * fx - local, 12);
  });

  it('uses a pair quoted the other way round at its inverse', async () => {
    const response = await periods('usd');
    expect(response.status).toBe(200);
    // GBP/USD 1.25 -> 1.28 (+2.4 %): 1.10 x 1.024 - 1.
    expect(row(response.body.data, 'SI')).toMatchObject({ return_value: '0.126400000000', local_return_value: '0.100000000000' });
    expect(response.body.data.currency).toBe('USD');
  });

  it('in the entity’s own currency, or without currency, the effect is zero', async () => {
    for (const path of [
      `/api/returns/periods?entity_name=${encodeURIComponent(FUND)}`,
      `/api/returns/periods?entity_name=${encodeURIComponent(FUND)}&currency=GBP`,
    ]) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.body.data.currency).toBe('GBP');
      expect(row(response.body.data, 'SI')).toMatchObject({
        return_value: '0.100000000000',
        local_return_value: '0.100000000000',
        currency_effect: '0.000000000000',
      });
    }
  });

  it('refuses a missing rate, naming the pair and the dates, and never uses another organization’s rates', async () => {
    const chf = await periods('CHF');
    expect(chf.status).toBe(400);
    expect(chf.body.error).toMatch(/GBP\/CHF rate for 2025-01-31/);
    expect(chf.body.error).toMatch(/file_type=fx/);
    const jpy = await periods('JPY');
    expect(jpy.status).toBe(400);
    expect(jpy.body.error).toMatch(/GBP\/JPY rate for 2024-12-31, 2025-01-31, 2025-02-28/);
  });

  it('refuses a currency that is not an ISO 4217 code', async () => {
    for (const bad of ['EURO', 'E1', '€']) {
      const response = await periods(bad);
      expect(response.status, bad).toBe(400);
      expect(response.body.error).toMatch(/currency.*ISO 4217/);
    }
  });
});

describe('GET /api/returns/calendar?currency=', () => {
  it('converts every month and year with the rates of its two valuation dates', async () => {
    const response = await get(`/api/returns/calendar?entity_name=${encodeURIComponent(FUND)}&currency=EUR`);
    expect(response.status).toBe(200);
    const { months, years } = response.body.data;
    const january = months.find((m: { period: string }) => m.period === '2025-01');
    expect(Number(january.local_return_value)).toBeCloseTo(0.05, 12);
    expect(Number(january.return_value)).toBeCloseTo(1.05 * (1.18 / 1.15) - 1, 12);
    expect(years.find((y: { period: string }) => y.period === '2025')).toMatchObject({ return_value: '0.155000000000', currency_effect: '0.055000000000' });
  });
});

describe('GET /api/returns/irr?currency=', () => {
  it('converts the values at their dates’ rates before solving', async () => {
    const response = await get(`/api/returns/irr?entity_name=${encodeURIComponent(FUND)}&start_date=2024-12-31&end_date=2025-02-28&currency=EUR`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      currency: 'EUR',
      local_currency: 'GBP',
      begin_value: '115.0000',
      end_value: '132.8250',
      period_return: '0.155000000000',
      local_period_return: '0.100000000000',
      currency_effect: '0.055000000000',
    });
  });

  it('refuses a missing rate', async () => {
    const response = await get(`/api/returns/irr?entity_name=${encodeURIComponent(FUND)}&start_date=2024-12-31&end_date=2025-02-28&currency=SEK`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/GBP\/SEK/);
  });
});

describe('GraphQL', () => {
  it('takes the same currency argument', async () => {
    const response = await graphql(
      server.url,
      { 'x-api-key': user.key },
      `query($name: String!) { returnPeriods(entityName: $name, currency: "EUR") { currency localCurrency periods { period returnValue localReturnValue currencyEffect } } }`,
      { name: FUND },
    );
    expect(response.body.errors).toBeUndefined();
    const si = (response.body.data?.returnPeriods as { periods: { period: string }[] }).periods.find((p) => p.period === 'SI');
    expect(si).toMatchObject({ returnValue: '0.155000000000', localReturnValue: '0.100000000000', currencyEffect: '0.055000000000' });
  });
});

describe('GET /api/returns/dietz-daily?currency=', () => {
  const path = (currency: string) =>
    `/api/returns/dietz-daily?entity_name=${encodeURIComponent(FLOWS)}&start_date=2024-12-31&end_date=2025-02-28${currency ? `&currency=${currency}` : ''}`;

  it('converts each day: values at their dates’ rates, the return by (1 + r)(1 + r_fx) - 1', async () => {
    const response = await get(path('EUR'));
    expect(response.status).toBe(200);
    const result = response.body.data;
    expect(result).toMatchObject({ currency: 'EUR', local_currency: 'GBP' });
    const january = result.days.find((day: { date: string }) => day.date === '2025-01-31');
    // In pounds: (115 - 100 - 10) / 100 = 5 % (an end-of-day flow has no weight in its own day).
    expect(january).toMatchObject({ begin_value: '115.0000', end_value: '135.7000', net_flow: '11.8000', local_return_value: '0.050000000000' });
    expect(Number(january.return_value)).toBeCloseTo(1.05 * (1.18 / 1.15) - 1, 12);
    expect(Number(january.currency_effect)).toBeCloseTo(1.05 * (1.18 / 1.15) - 1.05, 12);
    // Linked: the product of the converted days, i.e. the local linked return times the rate ratio over the range.
    const local = await get(path(''));
    const localLinked = Number(local.body.data.time_weighted_return.value);
    expect(Number(result.time_weighted_return.value)).toBeCloseTo((1 + localLinked) * (1.2075 / 1.15) - 1, 11);
    // One Modified Dietz over the range, in euros: values and the flow at their own dates' rates.
    // The flow at the end of 2025-01-31 is at work for the 28 of the range's 59 days that follow.
    const expected = (120 * 1.2075 - 100 * 1.15 - 10 * 1.18) / (100 * 1.15 + 10 * 1.18 * (28 / 59));
    expect(Number(result.modified_dietz_return.value)).toBeCloseTo(expected, 11);
  });

  it('refuses a missing rate', async () => {
    const response = await get(path('CHF'));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/GBP\/CHF rate for 2025-01-31/);
  });
});

describe('GET /api/returns/cash-transactions?currency=', () => {
  it('converts each flow at the rate of its date and keeps the amount as uploaded beside it', async () => {
    const response = await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FLOWS)}&currency=EUR`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([expect.objectContaining({ date: '2025-01-31', amount: '11.8000', local_amount: '10.0000', currency: 'EUR' })]);
    const own = await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FLOWS)}`);
    expect(own.body.data).toEqual([expect.objectContaining({ amount: '10.0000', local_amount: '10.0000', currency: 'GBP' })]);
  });

  it('refuses a bad currency', async () => {
    const response = await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FLOWS)}&currency=12`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/ISO 4217/);
  });
});

describe('GET /api/returns/comparison?currency=', () => {
  const path = (currency: string) => `/api/returns/comparison?account_code=ACC-7101${currency ? `&currency=${currency}` : ''}`;

  it('converts both sides over each row’s own day and keeps the reconciliation’s status', async () => {
    const local = await get(path(''));
    const response = await get(path('EUR'));
    expect(response.status).toBe(200);
    const byDate = (body: { data: { date: string }[] }, date: string) => body.data.find((row) => row.date === date) as unknown as Record<string, string | null>;
    const january = byDate(response.body, '2025-01-31');
    expect(january).toMatchObject({
      currency: 'EUR',
      local_currency: 'GBP',
      local_custodian_return: '0.050000000000',
      local_computed_return: '0.050000000000',
      status: 'match',
    });
    expect(Number(january.custodian_return)).toBeCloseTo(1.05 * (1.18 / 1.15) - 1, 12);
    expect(january.computed_return).toBe(january.custodian_return);
    expect(Number(january.difference_bps)).toBe(0);
    // February: the difference scales with the same day's 1 + r_fx; the status is the one reconciled in pounds.
    const february = byDate(response.body, '2025-02-28');
    const localFebruary = byDate(local.body, '2025-02-28');
    const fx = 1.2075 / 1.18;
    expect(Number(february.custodian_return)).toBeCloseTo(1.045 * fx - 1, 12);
    expect(Number(february.computed_return)).toBeCloseTo((110 / 105) * fx - 1, 11);
    expect(Number(february.difference_bps)).toBeCloseTo(Number(localFebruary.difference_bps) * fx, 6);
    expect(february.status).toBe(localFebruary.status);
    // The first valuation date has no earlier close to convert from.
    expect(byDate(response.body, '2024-12-31')).toMatchObject({ custodian_return: null, computed_return: null, local_custodian_return: '0.001000000000' });
    // Without currency, each entity's own.
    expect(byDate(local.body, '2025-01-31')).toMatchObject({ currency: 'GBP', local_currency: 'GBP', custodian_return: '0.050000000000' });
  });

  it('refuses a missing rate and a malformed currency', async () => {
    const missing = await get(path('CHF'));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/GBP\/CHF rate for 2025-01-31/);
    const bad = await get(path('XX'));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/ISO 4217/);
  });
});
