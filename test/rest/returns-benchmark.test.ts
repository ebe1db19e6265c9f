/**
 * An entity's benchmark over real HTTP (REST, and /graphql once): assigned with PUT
 * /api/returns/benchmark, compared in /api/returns/periods and /api/returns/calendar, listed by
 * GET /api/returns/benchmarks. The portfolio is a pnl upload, the index levels a benchmark upload
 * (date,benchmark,level), both ingested by the worker; another organization's series is inserted
 * with SQL.
 *
 * The data are a published textbook example: Fabozzi, "Bond Markets, Analysis, and Strategies",
 * chapter 25 (indexing), exercise "compute the tracking error", which states twelve monthly returns
 * of Portfolio A and of its benchmark index (percent):
 *   A  2.15  0.89  1.15 -0.47  1.71  0.10  1.04  2.70  0.66  2.15 -1.38 -0.59
 *   B  1.65 -0.10  0.52 -0.60  0.65  0.33  2.31  1.10  1.23  2.02 -0.61 -1.20
 * The portfolio earns exactly A (valued at 1,000,000 every month end after paying out or taking in
 * the month's gain or loss at the close: Modified Dietz gives (EMV - BMV - CF) / BMV = A), and
 * the index, based at 10,000,000 so that its 8-place levels keep each month's return exact to
 * about 1e-15, earns B. Every expected figure below was computed from those returns independently
 * of the service, in exact rationals (the square root to 80 digits), and rounded half-even to 12
 * places: the differences A - B have the sample standard deviation 0.8335080120 % a month, so the
 * tracking error is 0.8335080120 % x sqrt(12) = 2.8873564506 % a year; over the year A links to
 * 10.4989792384 % and B to 7.4780450888 %, an excess of 3.0209341496 %, so the information ratio
 * is 3.0209341496 / 2.8873564506 = 1.046262974916.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, insertBenchmarkLevels, loadFiles } from '../helpers/returns-data.ts';

const ORG = `Benchmark Returns ${Date.now()}`;
const FUND = 'Fabozzi Portfolio A';
const INDEX = 'Fabozzi Index B';
const LATE = 'Late Index';
const MONTH_ENDS = [
  '2022-01-31',
  '2022-02-28',
  '2022-03-31',
  '2022-04-30',
  '2022-05-31',
  '2022-06-30',
  '2022-07-31',
  '2022-08-31',
  '2022-09-30',
  '2022-10-31',
  '2022-11-30',
  '2022-12-31',
];
const A = ['2.15', '0.89', '1.15', '-0.47', '1.71', '0.10', '1.04', '2.70', '0.66', '2.15', '-1.38', '-0.59'];

/** A month's gain paid out (a loss made good) at the close: -1,000,000 x A / 100, end of day. */
const PNL_CSV = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-8001,${FUND},2021-12-31,1000000.00,,,`,
  ...MONTH_ENDS.map((date, i) => `ACC-8001,${FUND},${date},1000000.00,${(-Number(A[i]) * 10_000).toFixed(2)},end_of_day,settlement`),
].join('\n');

/** 10,000,000 x prod(1 + B), rounded half-even to 8 places each month. */
const LEVELS: [string, string][] = [
  ['2021-12-31', '10000000'],
  ['2022-01-31', '10165000.00000000'],
  ['2022-02-28', '10154835.00000000'],
  ['2022-03-31', '10207640.14200000'],
  ['2022-04-30', '10146394.30114800'],
  ['2022-05-31', '10212345.86410546'],
  ['2022-06-30', '10246046.60545701'],
  ['2022-07-31', '10482730.28204307'],
  ['2022-08-31', '10598040.31514554'],
  ['2022-09-30', '10728396.21102183'],
  ['2022-10-31', '10945109.81448447'],
  ['2022-11-30', '10878344.64461611'],
  ['2022-12-31', '10747804.50888072'],
];

/** The year (YTD, 1Y and SI as of 2022-12-31 are all exactly 2022). */
const YEAR = {
  portfolio: '0.104989792384',
  benchmark: '0.074780450888',
  excess: '0.030209341496',
  geometric: '0.028107453454',
  trackingError: '0.028873564506',
  informationRatio: '1.046262974916',
};

/** B, and A - B, and (1 + A) / (1 + B) - 1 of each month. */
const MONTHS: { benchmark: string; excess: string; geometric: string }[] = [
  { benchmark: '0.016500000000', excess: '0.005000000000', geometric: '0.004918839154' },
  { benchmark: '-0.001000000000', excess: '0.009900000000', geometric: '0.009909909910' },
  { benchmark: '0.005200000000', excess: '0.006300000000', geometric: '0.006267409471' },
  { benchmark: '-0.006000000000', excess: '0.001300000000', geometric: '0.001307847082' },
  { benchmark: '0.006500000000', excess: '0.010600000000', geometric: '0.010531544958' },
  { benchmark: '0.003300000000', excess: '-0.002300000000', geometric: '-0.002292434965' },
  { benchmark: '0.023100000000', excess: '-0.012700000000', geometric: '-0.012413253836' },
  { benchmark: '0.011000000000', excess: '0.016000000000', geometric: '0.015825914936' },
  { benchmark: '0.012300000000', excess: '-0.005700000000', geometric: '-0.005630741875' },
  { benchmark: '0.020200000000', excess: '0.001300000000', geometric: '0.001274259949' },
  { benchmark: '-0.006100000000', excess: '-0.007700000000', geometric: '-0.007747258275' },
  { benchmark: '-0.012000000000', excess: '0.006100000000', geometric: '0.006174089069' },
];

let server: TestServer;
let user: TestUser;
const get = (path: string, who: TestUser = user) => getJson(`${server.url}${path}`, { headers: { 'x-api-key': who.key } });
const put = (body: unknown, who: TestUser | null = user) => callApi(server.url, who, 'PUT', '/api/returns/benchmark', body);
const periodsOf = async (query = '') => {
  const response = await get(`/api/returns/periods?entity_name=${encodeURIComponent(FUND)}${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
};
const row = (table: { periods: { period: string }[] }, period: string) => table.periods.find((p) => p.period === period) as Record<string, any>;

/** Both series as one benchmark upload: the index from its base, and a late copy of it from 30 June 2022. */
const LEVELS_CSV = [
  'date,benchmark,level',
  ...LEVELS.map(([date, level]) => `${date},${INDEX},${level}`),
  ...LEVELS.slice(6).map(([date, level]) => `${date},${LATE},${level}`),
].join('\n');

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '1000' });
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  await loadFiles(
    server.url,
    user.key,
    user.orgId,
    [
      { name: 'fabozzi.csv', content: PNL_CSV },
      { name: 'fabozzi-index.csv', content: LEVELS_CSV },
    ],
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('PUT /api/returns/benchmark and GET /api/returns/benchmarks', () => {
  it("lists the organization's series and assigns one, answering the entity with its benchmark", async () => {
    const series = await get('/api/returns/benchmarks');
    expect(series.status).toBe(200);
    expect(series.body).toEqual({
      data: [
        { organization_id: user.orgId, name: INDEX, first_date: '2021-12-31', last_date: '2022-12-31', level_count: 13 },
        { organization_id: user.orgId, name: LATE, first_date: '2022-06-30', last_date: '2022-12-31', level_count: 7 },
      ],
    });
    expect((await get(`/api/returns/benchmarks?org_id=${user.orgId}`)).body.data).toHaveLength(2);
    expect((await get('/api/returns/benchmarks?org_id=00000000-0000-4000-8000-000000000000')).body).toEqual({ data: [] });

    const assigned = await put({ entity_name: FUND, benchmark: INDEX });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toEqual({
      data: { id: expect.any(String), organization_id: user.orgId, entity_name: FUND, account_code: 'ACC-8001', benchmark: INDEX },
    });
  });

  it('compares every standard period: benchmark return, excesses, and from a year on tracking error and information ratio', async () => {
    await put({ entity_name: FUND, benchmark: INDEX });
    const table = await periodsOf();
    expect(table).toMatchObject({ as_of: '2022-12-31', inception_date: '2021-12-31', benchmark: INDEX });
    // YTD, 1Y and SI as of 31 December are the calendar year 2022: twelve months, the textbook's.
    for (const period of ['YTD', '1Y', 'SI']) {
      expect(row(table, period), period).toMatchObject({ return_value: YEAR.portfolio, years: 1, extra_days: 0 });
      expect(row(table, period).benchmark, period).toEqual({
        name: INDEX,
        start_level_date: '2021-12-31',
        end_level_date: '2022-12-31',
        return_value: YEAR.benchmark,
        excess_return: YEAR.excess,
        geometric_excess_return: YEAR.geometric,
        annualized_excess_return: YEAR.excess,
        month_count: 12,
        tracking_error: YEAR.trackingError,
        tracking_error_null_reason: null,
        information_ratio: YEAR.informationRatio,
        information_ratio_null_reason: null,
        null_reason: null,
      });
    }
    // Below a year: the benchmark's return and the excesses only. MTD and 1M are December, QTD and 3M the fourth quarter, 6M the second half.
    const short: Record<string, [string, string, string, string, number]> = {
      MTD: ['-0.005900000000', '-0.012000000000', '0.006100000000', '0.006174089069', 1],
      '1M': ['-0.005900000000', '-0.012000000000', '0.006100000000', '0.006174089069', 1],
      QTD: ['0.001459620530', '0.001809058640', '-0.000349438110', '-0.000348807098', 3],
      '3M': ['0.001459620530', '0.001809058640', '-0.000349438110', '-0.000348807098', 3],
      '6M': ['0.046054109973', '0.048970878500', '-0.002916768528', '-0.002780600098', 6],
    };
    for (const [period, [portfolio, benchmark, excess, geometric, months]] of Object.entries(short)) {
      expect(row(table, period).return_value, period).toBe(portfolio);
      expect(row(table, period).benchmark, period).toMatchObject({
        return_value: benchmark,
        excess_return: excess,
        geometric_excess_return: geometric,
        annualized_excess_return: null,
        month_count: months,
        tracking_error: null,
        information_ratio: null,
        null_reason: null,
      });
      expect(row(table, period).benchmark.tracking_error_null_reason, period).toMatch(/shorter than one year/);
    }
    // Periods the history does not cover have no comparison, with the reason.
    for (const period of ['3Y', '5Y', '10Y']) {
      expect(row(table, period).benchmark, period).toMatchObject({ name: INDEX, return_value: null, excess_return: null, tracking_error: null });
      expect(row(table, period).benchmark.null_reason, period).toMatch(/^the period has no return: the history starts at 2021-12-31/);
    }
  });

  it('compares every calendar month and year', async () => {
    await put({ entity_name: FUND, benchmark: INDEX });
    const response = await get(`/api/returns/calendar?entity_name=${encodeURIComponent(FUND)}`);
    expect(response.status).toBe(200);
    const { months, years, year_to_date: ytd, benchmark } = response.body.data;
    expect(benchmark).toBe(INDEX);
    expect(months.map((m: { period: string }) => m.period)).toEqual(MONTH_ENDS.map((date) => date.slice(0, 7)));
    months.forEach((month: Record<string, any>, i: number) => {
      expect(month.return_value, month.period).toBe((Number(A[i]) / 100).toFixed(12));
      expect(month.benchmark, month.period).toEqual({
        name: INDEX,
        start_level_date: i === 0 ? '2021-12-31' : MONTH_ENDS[i - 1],
        end_level_date: MONTH_ENDS[i],
        return_value: MONTHS[i].benchmark,
        excess_return: MONTHS[i].excess,
        geometric_excess_return: MONTHS[i].geometric,
        null_reason: null,
      });
    });
    const year = { name: INDEX, start_level_date: '2021-12-31', end_level_date: '2022-12-31', return_value: YEAR.benchmark, excess_return: YEAR.excess };
    expect(years).toHaveLength(1);
    expect(years[0].benchmark).toMatchObject({ ...year, geometric_excess_return: YEAR.geometric, null_reason: null });
    expect(ytd.benchmark).toEqual(years[0].benchmark);
  });

  it('gives a row a null comparison with the reason when the benchmark has no level on or before a date it needs', async () => {
    // The late index starts on 30 June 2022: the year and the first half are not covered, the second half is.
    expect((await put({ entity_name: FUND, benchmark: LATE })).status).toBe(200);
    const table = await periodsOf();
    for (const period of ['YTD', '1Y', 'SI']) {
      expect(row(table, period).return_value, period).toBe(YEAR.portfolio);
      expect(row(table, period).benchmark, period).toMatchObject({
        name: LATE,
        return_value: null,
        excess_return: null,
        tracking_error: null,
        information_ratio: null,
        null_reason: 'no benchmark level on or before 2021-12-31 (the first level is on 2022-06-30)',
      });
    }
    expect(row(table, '6M').benchmark).toMatchObject({ return_value: '0.048970878500', excess_return: '-0.002916768528', null_reason: null });

    const calendar = (await get(`/api/returns/calendar?entity_name=${encodeURIComponent(FUND)}`)).body.data;
    expect(calendar.months[0].benchmark.null_reason).toBe('no benchmark level on or before 2021-12-31, 2022-01-31 (the first level is on 2022-06-30)');
    expect(calendar.months[5].benchmark).toMatchObject({
      return_value: null,
      null_reason: 'no benchmark level on or before 2022-05-31 (the first level is on 2022-06-30)',
    });
    expect(calendar.months[6].benchmark).toMatchObject({ return_value: MONTHS[6].benchmark, excess_return: MONTHS[6].excess, null_reason: null });
    expect(calendar.years[0].benchmark.return_value).toBeNull();
    expect(calendar.months[6].return_value).toBe('0.010400000000');
  });

  it('in another currency: the same comparison at a constant rate, and a month end without a rate leaves only the tracking error null', async () => {
    const pool = server.services.db.pool;
    const dates = ['2021-12-31', ...MONTH_ENDS];
    await pool.query(`INSERT INTO "FxRate" ("orgId", base, quote, date, rate) SELECT $1, 'USD', 'EUR', d, 0.9 FROM unnest($2::date[]) AS t(d)`, [
      user.orgId,
      dates,
    ]);
    await put({ entity_name: FUND, benchmark: INDEX });
    try {
      const inEur = await periodsOf('&currency=EUR');
      expect(inEur.currency).toBe('EUR');
      expect(row(inEur, '1Y').benchmark).toMatchObject({
        excess_return: YEAR.excess,
        tracking_error: YEAR.trackingError,
        information_ratio: YEAR.informationRatio,
      });
      // March has no rate: the periods (which need only their own dates) and their excesses stand; the tracking error says why it is missing.
      await pool.query(`DELETE FROM "FxRate" WHERE "orgId" = $1 AND date = '2022-03-31'`, [user.orgId]);
      const gap = await periodsOf('&currency=EUR');
      expect(row(gap, '1Y').benchmark).toMatchObject({ excess_return: YEAR.excess, tracking_error: null, information_ratio: null, null_reason: null });
      expect(row(gap, '1Y').benchmark.tracking_error_null_reason).toMatch(/^no monthly returns in EUR: no USD\/EUR rate for 2022-03-31/);
      expect(row(gap, 'MTD').benchmark).toMatchObject({ excess_return: '0.006100000000', null_reason: null });
    } finally {
      await pool.query(`DELETE FROM "FxRate" WHERE "orgId" = $1`, [user.orgId]);
    }
  });

  it('clears the benchmark with null: no comparison at all', async () => {
    const cleared = await put({ entity_name: FUND, benchmark: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.benchmark).toBeNull();
    const table = await periodsOf();
    expect(table.benchmark).toBeNull();
    expect(table.periods.every((p: { benchmark: unknown }) => p.benchmark === null)).toBe(true);
    const calendar = (await get(`/api/returns/calendar?entity_name=${encodeURIComponent(FUND)}`)).body.data;
    expect(calendar.benchmark).toBeNull();
    expect([...calendar.months, ...calendar.years, calendar.year_to_date].every((r: { benchmark: unknown }) => r.benchmark === null)).toBe(true);
  });

  it('refuses what it cannot do with the documented error bodies', async () => {
    const otherOrg = await createUser(server.services, { scopes: ['read:returns', 'write:upload'], role: 'member' });
    await insertBenchmarkLevels(server.services.db.pool, otherOrg.orgId, 'Other Org Index', LEVELS.slice(0, 2));
    const cases: [unknown, number, string | RegExp][] = [
      [
        { entity_name: FUND, benchmark: 'MSCI World' },
        400,
        'Invalid benchmark: no benchmark named "MSCI World" has been uploaded to this organization (file_type=benchmark)',
      ],
      // Another organization's series is not this organization's.
      [
        { entity_name: FUND, benchmark: 'Other Org Index' },
        400,
        'Invalid benchmark: no benchmark named "Other Org Index" has been uploaded to this organization (file_type=benchmark)',
      ],
      [{ entity_name: 'Nobody', benchmark: INDEX }, 404, 'Entity not found'],
      [{ entity_name: FUND }, 400, /^Invalid benchmark: is required/],
      [{ entity_name: FUND, benchmark: '  ' }, 400, /^Invalid benchmark: must not be empty/],
      [{ entity_name: FUND, benchmark: 7 }, 400, /^Invalid benchmark/],
      [{ entity_name: 5, benchmark: INDEX }, 400, /^Invalid entity_name/],
      [{ benchmark: INDEX }, 400, 'Missing required parameter: entity_name'],
      [{ entity_name: FUND, benchmark: INDEX, org_id: user.orgId }, 400, 'Unknown field: org_id'],
      ['{"entity_name": ', 400, 'Malformed JSON body'],
    ];
    for (const [body, status, error] of cases) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(Object.keys(response.body), JSON.stringify(body)).toEqual(['error']);
      if (typeof error === 'string') expect(response.body.error, JSON.stringify(body)).toBe(error);
      else expect(response.body.error, JSON.stringify(body)).toMatch(error);
    }
    // Another organization's entity is not found, even with a series of that name in its own organization.
    expect(await put({ entity_name: FUND, benchmark: 'Other Org Index' }, otherOrg)).toMatchObject({ status: 404, body: { error: 'Entity not found' } });
    // Scopes: write:upload to assign, read:returns to list; no credential at all is 401.
    const reader = await createUser(server.services, { scopes: ['read:returns'], role: 'member', org: ORG });
    expect(await put({ entity_name: FUND, benchmark: INDEX }, reader)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    const uploader = await createUser(server.services, { scopes: ['write:upload'], role: 'member', org: ORG });
    expect(await get('/api/returns/benchmarks', uploader)).toMatchObject({ status: 403, body: { error: 'Insufficient permissions' } });
    expect((await put({ entity_name: FUND, benchmark: INDEX }, null)).status).toBe(401);
    // Nothing changed: the series of the other organization is not listed here, and the fund still has the benchmark it had.
    expect((await get('/api/returns/benchmarks')).body.data.map((s: { name: string }) => s.name)).toEqual([INDEX, LATE]);
    expect((await periodsOf()).benchmark).toBeNull();
  });
});

describe('GraphQL', () => {
  it('setEntityBenchmark, benchmarkSeries, and the comparison on returnPeriods and calendarReturns', async () => {
    const headers = { 'x-api-key': user.key };
    const set = await graphql(
      server.url,
      headers,
      `mutation Set($entityName: String!, $benchmark: String) { setEntityBenchmark(entityName: $entityName, benchmark: $benchmark) { entityName benchmark } }`,
      { entityName: FUND, benchmark: INDEX },
    );
    expect(set.body).toEqual({ data: { setEntityBenchmark: { entityName: FUND, benchmark: INDEX } } });
    const read = await graphql(
      server.url,
      headers,
      `query Read($entityName: String!) {
        benchmarkSeries { name levelCount }
        returnPeriods(entityName: $entityName) { benchmark periods { period benchmark { name returnValue excessReturn geometricExcessReturn trackingError informationRatio nullReason } } }
        calendarReturns(entityName: $entityName) { benchmark yearToDate { benchmark { returnValue excessReturn } } }
      }`,
      { entityName: FUND },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.benchmarkSeries).toEqual([
      { name: INDEX, levelCount: 13 },
      { name: LATE, levelCount: 7 },
    ]);
    expect(read.body.data.returnPeriods.benchmark).toBe(INDEX);
    expect(read.body.data.returnPeriods.periods.find((p: { period: string }) => p.period === '1Y').benchmark).toEqual({
      name: INDEX,
      returnValue: YEAR.benchmark,
      excessReturn: YEAR.excess,
      geometricExcessReturn: YEAR.geometric,
      trackingError: YEAR.trackingError,
      informationRatio: YEAR.informationRatio,
      nullReason: null,
    });
    expect(read.body.data.calendarReturns).toEqual({ benchmark: INDEX, yearToDate: { benchmark: { returnValue: YEAR.benchmark, excessReturn: YEAR.excess } } });

    const reader = await createUser(server.services, { scopes: ['read:returns'], role: 'member', org: ORG });
    const refused = await graphql(
      server.url,
      { 'x-api-key': reader.key },
      `mutation { setEntityBenchmark(entityName: "${FUND}", benchmark: null) { benchmark } }`,
    );
    expect(refused.body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    const cleared = await graphql(server.url, headers, `mutation { setEntityBenchmark(entityName: "${FUND}", benchmark: null) { benchmark } }`);
    expect(cleared.body).toEqual({ data: { setEntityBenchmark: { benchmark: null } } });
  });
});
