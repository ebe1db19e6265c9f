/**
 * GET /api/returns/benchmark-levels (and benchmarkLevels on /graphql): the levels of an entity's
 * assigned benchmark over a range, each with the cumulative return since the latest level on or
 * before start_date, over real HTTP, with levels stored the way the benchmark upload stores them.
 * Expected figures by hand: level / base - 1, exact, 12 places half-even.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, insertBenchmarkLevels, loadFiles } from '../helpers/returns-data.ts';

const FUND = 'Benchmarked Fund';
const PLAIN = 'Unbenchmarked Fund';
const INDEX = 'World Equity Index';
const ORG = `Benchmark Levels ${Date.now()}`;
const OTHER_ORG = `Benchmark Levels Other ${Date.now()}`;

const PNL = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  `ACC-7301,${FUND},2025-01-02,100.00,,,`,
  `ACC-7301,${FUND},2025-01-03,101.00,,,`,
  `ACC-7301,${FUND},2025-01-06,102.00,,,`,
  `ACC-7302,${PLAIN},2025-01-02,100.00,,,`,
  `ACC-7302,${PLAIN},2025-01-03,100.50,,,`,
].join('\n');

/** The index publishes on 2024-12-31 and not on 2025-01-01 (a holiday). */
const LEVELS: [string, string][] = [
  ['2024-12-30', '2990.00000000'],
  ['2024-12-31', '3000.00000000'],
  ['2025-01-02', '3030.00000000'],
  ['2025-01-03', '3015.00000000'],
  ['2025-01-06', '3061.12345678'],
  ['2025-01-07', '3100.00000000'],
];

let server: TestServer;
let user: TestUser;
let other: TestUser;
const get = (path: string, key = user.key) => getJson(`${server.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });
const levels = (entity: string, start: string, end: string, key?: string) =>
  get(`/api/returns/benchmark-levels?entity_name=${encodeURIComponent(entity)}&start_date=${start}&end_date=${end}`, key);

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  other = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: OTHER_ORG });
  await loadFiles(server.url, user.key, user.orgId, [{ name: 'benchmarked.csv', content: PNL }], 60_000);
  await loadFiles(server.url, other.key, other.orgId, [{ name: 'benchmarked.csv', content: PNL }], 60_000);
  await insertBenchmarkLevels(server.services.db.pool, user.orgId, INDEX, LEVELS);
  // Another organization's series of the same name, other levels: never read for this one.
  await insertBenchmarkLevels(server.services.db.pool, other.orgId, INDEX, [
    ['2024-12-31', '1.00000000'],
    ['2025-01-06', '2.00000000'],
  ]);
  await server.services.db.pool.query(`UPDATE "Entity" SET benchmark = $3 WHERE "orgId" = $1 AND "entityName" = $2`, [user.orgId, FUND, INDEX]);
  await server.services.db.pool.query(`UPDATE "Entity" SET benchmark = $3 WHERE "orgId" = $1 AND "entityName" = $2`, [other.orgId, FUND, INDEX]);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /api/returns/benchmark-levels', () => {
  it('measures the cumulative return from the latest level on or before start_date (a holiday falls back)', async () => {
    // 2025-01-01 has no level: the base is 2024-12-31's 3000.
    const response = await levels(FUND, '2025-01-01', '2025-01-06');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      entity_name: FUND,
      account_code: 'ACC-7301',
      benchmark: INDEX,
      null_reason: null,
      start_date: '2025-01-01',
      end_date: '2025-01-06',
      base_date: '2024-12-31',
      base_level: '3000.00000000',
      points: [
        { date: '2024-12-31', level: '3000.00000000', cumulative_return: '0.000000000000' },
        { date: '2025-01-02', level: '3030.00000000', cumulative_return: '0.010000000000' },
        { date: '2025-01-03', level: '3015.00000000', cumulative_return: '0.005000000000' },
        // 3061.12345678 / 3000 - 1 = 0.020374485593333…: half-even at 12 places.
        { date: '2025-01-06', level: '3061.12345678', cumulative_return: '0.020374485593' },
      ],
    });
  });

  it('starts at start_date itself when the index published on it, and stops at end_date', async () => {
    const response = await levels(FUND, '2025-01-02', '2025-01-03');
    expect(response.status).toBe(200);
    expect(response.body.data.base_date).toBe('2025-01-02');
    expect(response.body.data.points.map((p: { date: string; cumulative_return: string }) => [p.date, p.cumulative_return])).toEqual([
      ['2025-01-02', '0.000000000000'],
      // 3015 / 3030 - 1 = -0.00495049504950495…
      ['2025-01-03', '-0.004950495050'],
    ]);
  });

  it('has no benchmark and no points for an entity without one', async () => {
    const response = await levels(PLAIN, '2025-01-01', '2025-01-06');
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ benchmark: null, points: [], base_date: null, null_reason: `no benchmark is assigned to ${PLAIN}` });
  });

  it('reads the caller’s organization’s series only', async () => {
    const response = await levels(FUND, '2025-01-01', '2025-01-06', other.key);
    expect(response.status).toBe(200);
    expect(response.body.data.points.map((p: { cumulative_return: string }) => p.cumulative_return)).toEqual(['0.000000000000', '1.000000000000']);
  });

  it('answers on /graphql the same', async () => {
    const response = await graphql(
      server.url,
      { 'x-api-key': user.key },
      `query ($n: String!) { benchmarkLevels(entityName: $n, startDate: "2025-01-06", endDate: "2025-01-07") { benchmark baseDate points { date cumulativeReturn } } }`,
      { n: FUND },
    );
    expect(response.body).toEqual({
      data: {
        benchmarkLevels: {
          benchmark: INDEX,
          baseDate: '2025-01-06',
          points: [
            { date: '2025-01-06', cumulativeReturn: '0.000000000000' },
            // 3100 / 3061.12345678 - 1 = 0.0127001036…
            { date: '2025-01-07', cumulativeReturn: (3100 / 3061.12345678 - 1).toFixed(12) },
          ],
        },
      },
    });
  });

  it('refuses what it cannot answer with the documented error bodies', async () => {
    const name = encodeURIComponent(FUND);
    const cases: [string, number, RegExp][] = [
      [`entity_name=${name}&start_date=2025-01-06&end_date=2025-01-02`, 400, /end_date.*before start_date/],
      [`entity_name=${name}&start_date=2014-12-01&end_date=2025-01-06`, 400, /at most 3660 days/],
      [`entity_name=${name}&start_date=2025-13-01&end_date=2025-01-06`, 400, /start_date/],
      [`entity_name=${name}&start_date=06-01-2025&end_date=2025-01-06`, 400, /start_date/],
      [`entity_name=${name}&start_date=2025-01-02`, 400, /end_date/],
      [
        `entity_name=${name}&start_date=2024-12-01&end_date=2025-01-06`,
        400,
        /no level of the benchmark "World Equity Index" on or before 2024-12-01: its first level is on 2024-12-30/,
      ],
      [`start_date=2025-01-02&end_date=2025-01-06`, 400, /entity_name/],
      [`entity_name=Nobody&start_date=2025-01-02&end_date=2025-01-06`, 404, /not found/i],
    ];
    for (const [query, status, message] of cases) {
      const response = await get(`/api/returns/benchmark-levels?${query}`);
      expect(response.status, query).toBe(status);
      expect(response.body.error, query).toMatch(message);
    }
    // An entity of another organization is not found, as one that does not exist.
    const stranger = await createUser(server.services, { scopes: ['read:returns'], role: 'member' });
    expect((await levels(FUND, '2025-01-02', '2025-01-06', stranger.key)).status).toBe(404);
    expect((await levels(FUND, '2025-01-02', '2025-01-06', '')).status).toBe(401);
    const noScope = await createUser(server.services, { scopes: ['read:pnl'], role: 'member', org: ORG });
    expect((await levels(FUND, '2025-01-02', '2025-01-06', noScope.key)).status).toBe(403);
  });
});
