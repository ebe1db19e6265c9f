/**
 * The returns endpoints over real HTTP, against data loaded the way a client loads it: the two
 * sample files uploaded through POST /api/storage/upload and ingested by the worker. Expected
 * values come from the sample CSVs and an independent exact implementation of DESIGN.md's
 * Modified Dietz formula (test/helpers/exact-dietz.ts), never from the service's own code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { loadFiles, loadSamples, readSample, SAMPLE_PERFORMANCE, SAMPLE_PNL } from '../helpers/returns-data.ts';
import { dailyReturns, dayNumber, link, modifiedDietz, parsePerformance, parsePnl, Rational } from '../helpers/exact-dietz.ts';

const HARBOR = 'Bayview Growth Fund LP';
const NORTHWIND = 'Northwind Family Trust';
const pnl = parsePnl(readSample(SAMPLE_PNL));
const performance = parsePerformance(readSample(SAMPLE_PERFORMANCE));

/** A third account with custodian returns only (no valuations): 40 rows the custodian reports and we cannot compute. */
const EXTRA_DAYS = 40;
const extraPerformance = [
  'account_code,entity_name,date,return,return_unit',
  ...Array.from({ length: EXTRA_DAYS }, (_, i) => {
    const date = new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10);
    return `ACC-3003,Cedar Endowment,${date},${((i % 7) - 3) / 10},percent`;
  }),
].join('\n');

let server: TestServer;
let user: TestUser;
let headers: Record<string, string>;
const get = (path: string, extra: Record<string, string> = {}) => getJson(`${server.url}${path}`, { headers: { ...headers, ...extra } });
const query = (params: Record<string, string>) => new URLSearchParams(params).toString();

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member' });
  headers = { 'x-api-key': user.key };
  await loadSamples(server.url, user.key, user.orgId);
  await loadFiles(server.url, user.key, user.orgId, [{ name: 'cedar-performance.csv', content: extraPerformance }]);
});

afterAll(async () => {
  await server?.close();
});

/** Every comparison row, through the largest page. */
async function allComparisonRows(params: Record<string, string> = {}) {
  const response = await get(`/api/returns/comparison?${query({ ...params, limit: '500' })}`);
  expect(response.status).toBe(200);
  expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
  return response.body.data as Record<string, any>[];
}

/** Status of a custodian/computed pair by the documented default thresholds (1 and 10 bps). */
function expectedStatus(custodian: Rational | null, computed: Rational | null, matchBps = 1, reviewBps = 10): string {
  if (!custodian || !computed) return 'investigate';
  const bps = computed.minus(custodian).times(Rational.of(10_000)).abs();
  if (bps.compare(Rational.of(matchBps)) <= 0) return 'match';
  if (custodian.sign() * computed.sign() < 0) return 'investigate';
  return bps.compare(Rational.of(reviewBps)) <= 0 ? 'review' : 'investigate';
}

/** Every row's status against the exact classification under the given thresholds. */
function expectClassified(rows: Record<string, any>[], matchBps: number, reviewBps: number): void {
  for (const row of rows) {
    expect(row).toMatchObject({ match_threshold_bps: String(matchBps), review_threshold_bps: String(reviewBps) });
    const custodian = row.custodian_return === null ? null : Rational.parse(row.custodian_return);
    const computed = row.computed_return === null ? null : Rational.parse(row.computed_return);
    expect(row.status, `${row.account_code} ${row.date}`).toBe(expectedStatus(custodian, computed, matchBps, reviewBps));
  }
}

describe('GET /api/returns/comparison', () => {
  const sampleRows = performance.length; // every custodian row of the sample has a computed return
  const totalRows = sampleRows + EXTRA_DAYS;

  it('pairs every custodian return with the computed one, newest first, classified by the documented thresholds', async () => {
    const rows = await allComparisonRows();
    expect(rows).toHaveLength(totalRows);
    // newest first; on the same date by account code, descending
    const order = rows.map((row) => `${row.date}|${row.account_code}`);
    expect(order).toEqual([...order].sort().reverse());

    for (const custodian of performance) {
      const row = rows.find((r) => r.account_code === custodian.accountCode && r.date === custodian.date);
      expect(row, `${custodian.accountCode} ${custodian.date}`).toBeDefined();
      const entity = pnl.get(custodian.entityName)!;
      const index = entity.valuations.findIndex((v) => v.date === custodian.date);
      const computed = modifiedDietz(entity, entity.valuations[index - 1].date, custodian.date).returnValue!;
      expect(row).toMatchObject({
        entity_name: custodian.entityName,
        custodian_return: custodian.value.toFixed(12),
        computed_return: computed.toFixed(12),
        match_threshold_bps: '1',
        review_threshold_bps: '10',
      });
      const computedRounded = Rational.parse(computed.toFixed(12));
      expect(row!.difference_bps).toBe(computedRounded.minus(custodian.value).times(Rational.of(10_000)).toFixed(8));
      expect(row!.status, `${custodian.accountCode} ${custodian.date}`).toBe(expectedStatus(custodian.value, computedRounded));
    }
    const cedar = rows.filter((row) => row.account_code === 'ACC-3003');
    expect(cedar).toHaveLength(EXTRA_DAYS);
    for (const row of cedar) {
      expect(row).toMatchObject({ entity_name: 'Cedar Endowment', computed_return: null, difference_bps: null, status: 'investigate' });
      expect(row.reason).toMatch(/missing/);
    }
  });

  it('returns 50 rows by default, and at most `limit`', async () => {
    const byDefault = await get('/api/returns/comparison');
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.data).toHaveLength(50);
    expect(byDefault.body.pagination.has_more).toBe(true);
    expect(typeof byDefault.body.pagination.next_cursor).toBe('string');

    for (const limit of [1, 7, 500]) {
      const response = await get(`/api/returns/comparison?limit=${limit}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toHaveLength(Math.min(limit, totalRows));
      expect(response.body.pagination.has_more).toBe(limit < totalRows);
    }
  });

  it.each([
    ['0', 'Invalid limit: must be an integer between 1 and 500'],
    ['501', 'Invalid limit: must be an integer between 1 and 500'],
    ['-1', 'Invalid limit: must be an integer between 1 and 500'],
    ['1.5', 'Invalid limit: must be an integer, got "1.5"'],
    ['ten', 'Invalid limit: must be an integer, got "ten"'],
    ['', 'Invalid limit: must be an integer, got ""'],
  ])('limit=%j is 400 naming the limit', async (limit, message) => {
    const response = await get(`/api/returns/comparison?limit=${encodeURIComponent(limit)}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: message });
  });

  it('limit given twice is 400', async () => {
    const response = await get('/api/returns/comparison?limit=1&limit=2');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Invalid limit: may be given only once' });
  });

  it.each(['match', 'review', 'investigate'])('status=%s returns only rows of that status', async (status) => {
    const all = await allComparisonRows();
    const rows = await allComparisonRows({ status });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.status === status)).toBe(true);
    expect(rows).toEqual(all.filter((row) => row.status === status));
  });

  it('finds the sample review (ACC-1001 2025-03-12) and investigate (ACC-1001 2025-03-18) rows', async () => {
    const review = await allComparisonRows({ status: 'review', account_code: 'ACC-1001' });
    expect(review.map((row) => row.date)).toContain('2025-03-12');
    const row12 = review.find((row) => row.date === '2025-03-12')!;
    expect(row12).toMatchObject({ custodian_return: '0.001308000000', computed_return: '0.000870203530', difference_bps: '-4.37796470' });

    const investigate = await allComparisonRows({ status: 'investigate', account_code: 'ACC-1001' });
    expect(investigate.map((row) => row.date)).toEqual(['2025-03-18']);
    expect(investigate[0]).toMatchObject({ custodian_return: '-0.004601000000', computed_return: '-0.008500037807', difference_bps: '-38.99037807' });
    expect(investigate[0].reason).toMatch(/^Over the review threshold: [0-9.]+ bps apart \(threshold 10 bps\)$/);

    const match = await allComparisonRows({ status: 'match', account_code: 'ACC-1001' });
    expect(match.map((row) => row.date)).not.toContain('2025-03-12');
    expect(match.map((row) => row.date)).not.toContain('2025-03-18');
  });

  it('a status outside match/review/investigate is 400 naming the allowed values', async () => {
    for (const status of ['bad', 'MATCH', '']) {
      const response = await get(`/api/returns/comparison?status=${status}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: `Invalid status: must be one of match, review, investigate, got ${JSON.stringify(status)}` });
    }
  });

  it('account_code filters to one account; an unknown account gives an empty list', async () => {
    const harbor = await allComparisonRows({ account_code: 'ACC-1001' });
    expect(harbor).toHaveLength(performance.filter((row) => row.accountCode === 'ACC-1001').length);
    expect(harbor.every((row) => row.account_code === 'ACC-1001' && row.entity_name === HARBOR)).toBe(true);

    const combined = await allComparisonRows({ account_code: 'ACC-2002', status: 'match' });
    expect(combined.length).toBeGreaterThan(0);
    expect(combined.every((row) => row.account_code === 'ACC-2002' && row.status === 'match')).toBe(true);

    const unknown = await get('/api/returns/comparison?account_code=ACC-9999');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ data: [], pagination: { has_more: false, next_cursor: null } });
  });

  it('cursor pagination walks every row once, in order', async () => {
    const all = await allComparisonRows();
    const seen: Record<string, any>[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await get(`/api/returns/comparison?${query({ limit: '7', ...(cursor ? { cursor } : {}) })}`);
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...response.body.data);
      cursor = response.body.pagination.next_cursor;
      expect(response.body.pagination.has_more).toBe(cursor !== null);
      pages += 1;
      expect(pages).toBeLessThan(100);
    } while (cursor);
    expect(pages).toBe(Math.ceil(totalRows / 7));
    const keys = seen.map((row) => `${row.account_code}|${row.date}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(seen).toEqual(all);
  });

  it('cursor pagination respects the filters', async () => {
    const expected = await allComparisonRows({ status: 'investigate' });
    const seen: Record<string, any>[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(`/api/returns/comparison?${query({ status: 'investigate', limit: '9', ...(cursor ? { cursor } : {}) })}`);
      expect(response.status).toBe(200);
      seen.push(...response.body.data);
      cursor = response.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('a cursor it did not issue is 400', async () => {
    const cashCursor = Buffer.from(JSON.stringify({ date: '2025-03-12', id: '00000000-0000-0000-0000-000000000000' })).toString('base64url');
    for (const cursor of ['bad', 'eyJ4IjoxfQ', cashCursor]) {
      const response = await get(`/api/returns/comparison?cursor=${cursor}`);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'Invalid cursor: is not a cursor this endpoint issued' });
    }
  });

  it("re-classifies every row when the organization's thresholds change, and later loads follow them", async () => {
    const before = await allComparisonRows();
    const { changed } = await server.services.reconciliation.setThresholds(user.orgId, { matchBps: 5, reviewBps: 50 });
    const widened = await allComparisonRows();
    expectClassified(widened, 5, 50);
    expect(changed).toBe(widened.filter((row, i) => row.status !== before[i].status).length);
    expect(changed).toBeGreaterThan(0);
    // the status filter selects on the new classification
    const review = (await allComparisonRows({ status: 'review' })).map((row) => `${row.account_code} ${row.date}`);
    expect(review).toEqual(widened.filter((row) => row.status === 'review').map((row) => `${row.account_code} ${row.date}`));

    // a load after the change is classified under the thresholds in force
    await loadFiles(server.url, user.key, user.orgId, [{ name: 'performance-again.csv', content: readSample(SAMPLE_PERFORMANCE) }]);
    expectClassified(await allComparisonRows(), 5, 50);

    await server.services.reconciliation.setThresholds(user.orgId, { matchBps: null, reviewBps: null });
    expect(await allComparisonRows()).toEqual(before);
  });
});

describe('GET /api/returns/dietz-daily', () => {
  const dietz = (params: Record<string, string>) => get(`/api/returns/dietz-daily?${query(params)}`);

  it.each([HARBOR, NORTHWIND])('%s: every daily return equals the formula computed from the sample CSV', async (name) => {
    const entity = pnl.get(name)!;
    const first = entity.valuations[0].date;
    const last = entity.valuations.at(-1)!.date;
    const response = await dietz({ entity_name: name, start_date: first, end_date: last });
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data).toMatchObject({ entity_name: name, account_code: entity.accountCode, start_date: first, end_date: last, annualized: false });

    const expected = dailyReturns(entity);
    expect(data.days).toHaveLength(expected.length);
    expected.forEach((period, i) => {
      const day = data.days[i];
      expect(day.date).toBe(period.date);
      expect(day.start_date).toBe(period.startDate);
      expect(Rational.parse(day.begin_value).compare(period.beginValue)).toBe(0);
      expect(Rational.parse(day.end_value).compare(period.endValue)).toBe(0);
      expect(Rational.parse(day.net_flow).compare(period.netFlow), `${period.date} net flow`).toBe(0);
      expect(Rational.parse(day.weighted_flow).compare(period.weightedFlow), `${period.date} weighted flow`).toBe(0);
      expect(day.return_value, `${name} ${period.date}`).toBe(period.returnValue!.toFixed(12));
      expect(day.null_reason).toBeNull();
    });

    // The linked (time-weighted) return links the daily returns as published (12 dp).
    const linked = link(data.days.map((day: any) => Rational.parse(day.return_value)));
    expect(data.time_weighted_return).toMatchObject({ value: linked.toFixed(12), null_reason: null, weighting: 'time-weighted' });
    // Each day's cumulative_return (as GraphQL's cumulativeReturn) links the days up to it; the last is the period's.
    data.days.forEach((day: any, i: number) => {
      const upTo = link(data.days.slice(0, i + 1).map((d: any) => Rational.parse(d.return_value)));
      expect(day.cumulative_return, `${name} ${day.date} cumulative`).toBe(upTo.toFixed(12));
    });
    expect(data.days.at(-1).cumulative_return).toBe(data.time_weighted_return.value);
    expect(data.time_weighted_return.method).toMatch(/link/i);
    // One Modified Dietz over the whole range is the money-weighted return.
    const whole = modifiedDietz(entity, first, last);
    expect(data.modified_dietz_return).toMatchObject({ value: whole.returnValue!.toFixed(12), null_reason: null, weighting: 'money-weighted' });
    expect(data.modified_dietz_return.method).toMatch(/Modified Dietz/);
  });

  it('worked days: end-of-day flows weigh 0, start-of-day flows weigh 1, an explicit timing overrides the default', async () => {
    const response = await dietz({ entity_name: NORTHWIND, start_date: '2025-03-13', end_date: '2025-03-19' });
    expect(response.status).toBe(200);
    const byDate = Object.fromEntries(response.body.data.days.map((day: any) => [day.date, day]));
    expect(Object.keys(byDate)).toEqual(['2025-03-14', '2025-03-17', '2025-03-18', '2025-03-19']);
    // 2025-03-14: +100000 and -2500, both explicitly end of day: (3369216.96 - 3266868.54 - 97500) / 3266868.54
    const r14 = Rational.parse('3369216.96').minus(Rational.parse('3266868.54')).minus(Rational.parse('97500')).div(Rational.parse('3266868.54'));
    expect(byDate['2025-03-14'].return_value).toBe(r14.toFixed(12));
    expect(byDate['2025-03-14'].return_value).toBe('0.001484118489'); // bc: 4848.42 / 3266868.54
    expect(Number(byDate['2025-03-14'].net_flow)).toBe(97500);
    expect(Number(byDate['2025-03-14'].weighted_flow)).toBe(0);
    // 2025-03-17 spans the weekend (CD = 3) and has no flows: a plain EMV / BMV - 1
    const r17 = Rational.parse('3361757.57').div(Rational.parse('3369216.96')).minus(Rational.of(1));
    expect(byDate['2025-03-17'].start_date).toBe('2025-03-14');
    expect(byDate['2025-03-17'].return_value).toBe(r17.toFixed(12));
    // 2025-03-19: -15000 explicitly start of day (the default for an outflow is end of day): weight 1
    const r19 = Rational.parse('3364511.53')
      .minus(Rational.parse('3370200.16'))
      .plus(Rational.parse('15000'))
      .div(Rational.parse('3370200.16').minus(Rational.parse('15000')));
    expect(byDate['2025-03-19'].return_value).toBe(r19.toFixed(12));
    expect(Number(byDate['2025-03-19'].weighted_flow)).toBe(-15000);
    // The range's money-weighted return starts at the 2025-03-13 valuation: CD = 6, three flows
    const whole = modifiedDietz(pnl.get(NORTHWIND)!, '2025-03-13', '2025-03-19');
    const cd = 6;
    const by = (amount: string, d: number) => Rational.parse(amount).times(new Rational(BigInt(cd - d), BigInt(cd)));
    const expected = Rational.parse('3364511.53')
      .minus(Rational.parse('3266868.54'))
      .minus(Rational.parse('82500'))
      .div(Rational.parse('3266868.54').plus(by('100000', 1)).plus(by('-2500', 1)).plus(by('-15000', 5)));
    expect(whole.returnValue!.compare(expected)).toBe(0);
    expect(response.body.data.modified_dietz_return.value).toBe(expected.toFixed(12));
  });

  it('a range starting between valuations links only the sub-periods inside it', async () => {
    // 2025-03-08 is a Saturday: the first sub-period inside the range is (03-10, 03-11]
    const response = await dietz({ entity_name: HARBOR, start_date: '2025-03-08', end_date: '2025-03-14' });
    expect(response.status).toBe(200);
    const days = response.body.data.days as any[];
    expect(days.map((day) => day.date)).toEqual(['2025-03-11', '2025-03-12', '2025-03-13', '2025-03-14']);
    const entity = pnl.get(HARBOR)!;
    expect(response.body.data.modified_dietz_return.value).toBe(modifiedDietz(entity, '2025-03-10', '2025-03-14').returnValue!.toFixed(12));
    expect(response.body.data.time_weighted_return.value).toBe(link(days.map((day) => Rational.parse(day.return_value))).toFixed(12));
  });

  it('a range without two valuations has null period returns with a reason, never NaN', async () => {
    const response = await dietz({ entity_name: HARBOR, start_date: '2025-03-15', end_date: '2025-03-16' });
    expect(response.status).toBe(200);
    expect(response.body.data.days).toEqual([]);
    expect(response.body.data.time_weighted_return.value).toBeNull();
    expect(response.body.data.time_weighted_return.null_reason).toEqual(expect.any(String));
    expect(response.body.data.modified_dietz_return.value).toBeNull();
    expect(response.body.data.modified_dietz_return.null_reason).toEqual(expect.any(String));
  });

  it.each([
    [{ start_date: '2025-02-30', end_date: '2025-03-21' }, 'Invalid start_date: must be an ISO date (YYYY-MM-DD), got "2025-02-30"'],
    [{ start_date: '03/03/2025', end_date: '2025-03-21' }, 'Invalid start_date: must be an ISO date (YYYY-MM-DD), got "03/03/2025"'],
    [{ start_date: '2025-03-03', end_date: '2025-3-21' }, 'Invalid end_date: must be an ISO date (YYYY-MM-DD), got "2025-3-21"'],
    [{ start_date: '2025-03-03', end_date: '2025-03-21T00:00:00Z' }, 'Invalid end_date: must be an ISO date (YYYY-MM-DD), got "2025-03-21T00:00:00Z"'],
    [{ start_date: '2025-03-21', end_date: '2025-03-03' }, 'Invalid end_date: must not be before start_date'],
  ])('bad dates %j are 400 naming the parameter', async (dates, message) => {
    const response = await dietz({ entity_name: HARBOR, ...dates });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: message });
  });

  it.each([
    [{}, 'entity_name'],
    [{ start_date: '2025-03-03', end_date: '2025-03-21' }, 'entity_name'],
    [{ entity_name: HARBOR, end_date: '2025-03-21' }, 'start_date'],
    [{ entity_name: HARBOR, start_date: '2025-03-03' }, 'end_date'],
  ])('missing parameters %j are 400 naming the first one missing', async (params, missing) => {
    const response = await dietz(params as Record<string, string>);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: `Missing required parameter: ${missing}` });
  });

  it('an unknown entity is 404', async () => {
    const response = await dietz({ entity_name: 'No Such Fund', start_date: '2025-03-03', end_date: '2025-03-21' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Entity not found' });
  });
});

describe('GET /api/returns/cash-transactions', () => {
  const cash = (params: Record<string, string>) => get(`/api/returns/cash-transactions?${query(params)}`);
  const key = (row: { date: string; amount: string; timing: string; description: string | null }) =>
    `${row.date}|${Rational.parse(row.amount).toFixed(4)}|${row.timing}|${row.description}`;

  it.each([HARBOR, NORTHWIND])('%s: every flow of the sample, newest first, with its timing', async (name) => {
    const entity = pnl.get(name)!;
    const response = await cash({ entity_name: name });
    expect(response.status).toBe(200);
    const rows = response.body.data as any[];
    expect(rows).toHaveLength(entity.flows.length);
    expect(response.body.pagination).toEqual({ has_more: false, next_cursor: null });
    const dates = rows.map((row) => dayNumber(row.date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(rows.every((row) => row.entity_name === name && row.account_code === entity.accountCode)).toBe(true);
    expect(rows.map(key).sort()).toEqual(entity.flows.map((flow) => key({ ...flow, amount: flow.amount.toFixed(4) })).sort());
  });

  it('limit bounds the page and the cursor walks the rest', async () => {
    const all = (await cash({ entity_name: NORTHWIND })).body.data as any[];
    const first = await cash({ entity_name: NORTHWIND, limit: '2' });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual(all.slice(0, 2));
    expect(first.body.pagination.has_more).toBe(true);
    const second = await cash({ entity_name: NORTHWIND, limit: '2', cursor: first.body.pagination.next_cursor });
    expect(second.body.data).toEqual(all.slice(2, 4));
    expect(second.body.pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it.each([
    ['0', 'Invalid limit: must be an integer between 1 and 1000'],
    ['1001', 'Invalid limit: must be an integer between 1 and 1000'],
    ['x', 'Invalid limit: must be an integer, got "x"'],
  ])('limit=%s is 400', async (limit, message) => {
    const response = await cash({ entity_name: HARBOR, limit });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: message });
  });

  it('an unknown entity is 404, a missing entity_name 400', async () => {
    const unknown = await cash({ entity_name: 'No Such Fund' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Entity not found' });
    const missing = await cash({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'Missing required parameter: entity_name' });
  });
});
