/**
 * REST and GraphQL are two doors to one schema: the same question asked through /graphql and
 * through the REST route gives the same data (camelCase there, snake_case here), and the same
 * mistake gives the same error, as an `extensions.code` whose status in the one code table is
 * the REST status.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadSamples } from '../helpers/returns-data.ts';
import { HTTP_STATUS_BY_CODE, type ErrorCode } from '../../src/errors.ts';

const HARBOR = 'Bayview Growth Fund LP';
const NORTHWIND = 'Northwind Family Trust';

const COMPARISON_FIELDS =
  'accountCode entityName date currency localCurrency custodianReturn computedReturn localCustodianReturn localComputedReturn differenceBps status reason matchThresholdBps reviewThresholdBps';
const COMPARISON = `query Comparison($accountCode: String, $status: ComparisonStatus, $first: Int, $after: String) {
  returnComparison(accountCode: $accountCode, status: $status, first: $first, after: $after) {
    edges { cursor node { ${COMPARISON_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  } }`;
const DIETZ = `query Dietz($entityName: String!, $startDate: Date!, $endDate: Date!) {
  dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) {
    entityName accountCode currency localCurrency startDate endDate annualized
    timeWeightedReturn { value nullReason method weighting }
    modifiedDietzReturn { value nullReason method weighting }
    days { date startDate beginValue endValue netFlow weightedFlow returnValue nullReason cumulativeReturn localReturnValue currencyEffect fees grossReturnValue }
  } }`;
const CASH = `query Cash($entityName: String!, $first: Int, $after: String) {
  cashTransactions(entityName: $entityName, first: $first, after: $after) {
    edges { node { id entityName accountCode date amount currency localAmount timing description flowType } }
    pageInfo { hasNextPage endCursor }
  } }`;

let server: TestServer;
let user: TestUser;
let key: Record<string, string>;

const rest = (path: string, headers = key) => getJson(`${server.url}${path}`, { headers });
const gql = (query: string, variables: Record<string, unknown> = {}, headers = key) => graphql(server.url, headers, query, variables);

/** camelCase keys -> snake_case keys, deeply: what the REST layer promises to do. */
function snake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snake);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
}

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member' });
  key = { 'x-api-key': user.key };
  await loadSamples(server.url, user.key, user.orgId);
});

afterAll(async () => {
  await server?.close();
});

describe('same data', () => {
  it.each([
    [{}, {}],
    [{ status: 'review' }, { status: 'review' }],
    [
      { status: 'investigate', account_code: 'ACC-1001' },
      { status: 'investigate', accountCode: 'ACC-1001' },
    ],
    [
      { account_code: 'ACC-2002', limit: '3' },
      { accountCode: 'ACC-2002', first: 3 },
    ],
  ])('comparison %j', async (params, variables) => {
    const viaRest = await rest(`/api/returns/comparison?${new URLSearchParams(params as Record<string, string>)}`);
    const viaGraphql = await gql(COMPARISON, variables);
    expect(viaRest.status).toBe(200);
    expect(viaGraphql.body.errors).toBeUndefined();
    const connection = viaGraphql.body.data.returnComparison;
    expect(viaRest.body.data.length).toBeGreaterThan(0);
    expect(viaRest.body.data).toEqual(connection.edges.map((edge: any) => snake(edge.node)));
    expect(viaRest.body.pagination).toEqual({
      has_more: connection.pageInfo.hasNextPage,
      next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
    });
  });

  it('comparison cursors are interchangeable between the two', async () => {
    const firstRest = await rest('/api/returns/comparison?limit=4');
    const cursor = firstRest.body.pagination.next_cursor;
    expect(cursor).toEqual(expect.any(String));
    const nextGraphql = await gql(COMPARISON, { first: 4, after: cursor });
    const nextRest = await rest(`/api/returns/comparison?limit=4&cursor=${cursor}`);
    expect(nextRest.body.data).toEqual(nextGraphql.body.data.returnComparison.edges.map((edge: any) => snake(edge.node)));
    const firstGraphql = await gql(COMPARISON, { first: 4 });
    expect(firstGraphql.body.data.returnComparison.pageInfo.endCursor).toBe(cursor);
    // each edge's cursor resumes right after it
    const edges = firstGraphql.body.data.returnComparison.edges;
    const afterSecond = await rest(`/api/returns/comparison?limit=2&cursor=${edges[1].cursor}`);
    expect(afterSecond.body.data).toEqual(edges.slice(2, 4).map((edge: any) => snake(edge.node)));
  });

  it.each([
    [HARBOR, '2025-03-03', '2025-03-21'],
    [NORTHWIND, '2025-03-10', '2025-03-19'],
    [NORTHWIND, '2025-03-15', '2025-03-16'],
  ])('dietz-daily %s %s..%s', async (entityName, startDate, endDate) => {
    const viaRest = await rest(`/api/returns/dietz-daily?${new URLSearchParams({ entity_name: entityName, start_date: startDate, end_date: endDate })}`);
    const viaGraphql = await gql(DIETZ, { entityName, startDate, endDate });
    expect(viaRest.status).toBe(200);
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaRest.body).toEqual({ data: snake(viaGraphql.body.data.dietzDailyReturns) });
  });

  it.each([
    [HARBOR, '2025-03-03', '2025-03-21'],
    [NORTHWIND, '2025-03-10', '2025-03-19'],
  ])(
    "each day's cumulativeReturn links the days before it; the last is the period's time-weighted return (%s %s..%s)",
    async (entityName, startDate, endDate) => {
      const response = await gql(
        `query ($entityName: String!, $startDate: Date!, $endDate: Date!) { dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) { timeWeightedReturn { value } days { returnValue cumulativeReturn } } }`,
        { entityName, startDate, endDate },
      );
      const { days, timeWeightedReturn } = response.body.data.dietzDailyReturns as {
        days: { returnValue: string; cumulativeReturn: string }[];
        timeWeightedReturn: { value: string };
      };
      expect(days.length).toBeGreaterThan(1);
      expect(days[0]!.cumulativeReturn).toBe(new Decimal(days[0]!.returnValue).toFixed(12));
      expect(days.at(-1)!.cumulativeReturn).toBe(timeWeightedReturn.value);
      // Increasing by its own day: (1 + c_i) = (1 + c_{i-1})(1 + r_i), to the 12 places returned.
      for (let i = 1; i < days.length; i++) {
        const linked = new Decimal(days[i - 1]!.cumulativeReturn).plus(1).times(new Decimal(days[i]!.returnValue).plus(1)).minus(1);
        expect(linked.minus(days[i]!.cumulativeReturn).abs().lessThan('1e-11')).toBe(true);
      }
    },
  );

  it.each([
    [HARBOR, undefined],
    [NORTHWIND, 2],
  ])('cash-transactions %s (limit %s)', async (entityName, limit) => {
    const params = new URLSearchParams({ entity_name: entityName, ...(limit ? { limit: String(limit) } : {}) });
    const viaRest = await rest(`/api/returns/cash-transactions?${params}`);
    const viaGraphql = await gql(CASH, { entityName, ...(limit ? { first: limit } : {}) });
    expect(viaRest.status).toBe(200);
    const connection = viaGraphql.body.data.cashTransactions;
    expect(viaRest.body.data).toEqual(connection.edges.map((edge: any) => snake(edge.node)));
    expect(viaRest.body.pagination.has_more).toBe(connection.pageInfo.hasNextPage);
  });
});

interface ErrorCase {
  name: string;
  path: string;
  query: string;
  variables: Record<string, unknown>;
  headers?: Record<string, string>;
  code: ErrorCode;
  /** the REST message, where it is the same as GraphQL's */
  sameMessage?: boolean;
  /** for field errors: the GraphQL field named and the REST parameter named */
  field?: [graphqlName: string, restName: string];
}

describe('same errors', () => {
  let pnlOnly: string;

  beforeAll(async () => {
    pnlOnly = (await server.services.apiKeys.create({ userId: user.userId, name: 'pnl', scopes: ['read:pnl'] })).secret;
  });

  const dietzPath = (start: string, end: string, entity = HARBOR) =>
    `/api/returns/dietz-daily?${new URLSearchParams({ entity_name: entity, start_date: start, end_date: end })}`;
  const cases = (): ErrorCase[] => [
    {
      name: 'limit out of range',
      path: '/api/returns/comparison?limit=0',
      query: COMPARISON,
      variables: { first: 0 },
      code: 'BAD_USER_INPUT',
      field: ['first', 'limit'],
    },
    {
      name: 'limit over the maximum',
      path: '/api/returns/comparison?limit=501',
      query: COMPARISON,
      variables: { first: 501 },
      code: 'BAD_USER_INPUT',
      field: ['first', 'limit'],
    },
    { name: 'status not allowed', path: '/api/returns/comparison?status=bad', query: COMPARISON, variables: { status: 'bad' }, code: 'BAD_USER_INPUT' },
    {
      name: 'bad cursor',
      path: '/api/returns/comparison?cursor=bad',
      query: COMPARISON,
      variables: { after: 'bad' },
      code: 'BAD_USER_INPUT',
      field: ['cursor', 'cursor'],
    },
    {
      name: 'bad date',
      path: dietzPath('2025-02-30', '2025-03-21'),
      query: DIETZ,
      variables: { entityName: HARBOR, startDate: '2025-02-30', endDate: '2025-03-21' },
      code: 'BAD_USER_INPUT',
    },
    {
      name: 'end before start',
      path: dietzPath('2025-03-21', '2025-03-03'),
      query: DIETZ,
      variables: { entityName: HARBOR, startDate: '2025-03-21', endDate: '2025-03-03' },
      code: 'BAD_USER_INPUT',
      field: ['endDate', 'end_date'],
    },
    { name: 'no credential', path: '/api/returns/comparison', query: COMPARISON, variables: {}, headers: {}, code: 'UNAUTHENTICATED', sameMessage: true },
    {
      name: 'wrong key',
      path: '/api/returns/comparison',
      query: COMPARISON,
      variables: {},
      headers: { 'x-api-key': `sk_${'0'.repeat(32)}` },
      code: 'UNAUTHENTICATED',
      sameMessage: true,
    },
    {
      name: 'bad session',
      path: '/api/returns/comparison',
      query: COMPARISON,
      variables: {},
      headers: { cookie: 'sso_token=forged' },
      code: 'UNAUTHENTICATED',
      sameMessage: true,
    },
    {
      name: 'missing scope (comparison)',
      path: '/api/returns/comparison',
      query: COMPARISON,
      variables: {},
      headers: { 'x-api-key': pnlOnly },
      code: 'FORBIDDEN',
      sameMessage: true,
    },
    {
      name: 'missing scope (dietz)',
      path: dietzPath('2025-03-03', '2025-03-21'),
      query: DIETZ,
      variables: { entityName: HARBOR, startDate: '2025-03-03', endDate: '2025-03-21' },
      headers: { 'x-api-key': pnlOnly },
      code: 'FORBIDDEN',
      sameMessage: true,
    },
    {
      name: 'unknown entity (dietz)',
      path: dietzPath('2025-03-03', '2025-03-21', 'Nobody'),
      query: DIETZ,
      variables: { entityName: 'Nobody', startDate: '2025-03-03', endDate: '2025-03-21' },
      code: 'NOT_FOUND',
      sameMessage: true,
    },
    {
      name: 'unknown entity (cash)',
      path: '/api/returns/cash-transactions?entity_name=Nobody',
      query: CASH,
      variables: { entityName: 'Nobody' },
      code: 'NOT_FOUND',
      sameMessage: true,
    },
  ];

  it('every case below uses a code of the one table', () => {
    for (const code of ['BAD_USER_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND'] as const) expect(HTTP_STATUS_BY_CODE[code]).toBeDefined();
    expect([HTTP_STATUS_BY_CODE.BAD_USER_INPUT, HTTP_STATUS_BY_CODE.UNAUTHENTICATED, HTTP_STATUS_BY_CODE.FORBIDDEN, HTTP_STATUS_BY_CODE.NOT_FOUND]).toEqual([
      400, 401, 403, 404,
    ]);
  });

  it.each(cases().map((c) => [c.name, c.name]))('%s', async (name) => {
    const c = cases().find((x) => x.name === name)!;
    const headers = c.headers ?? key;
    const viaRest = await rest(c.path, headers);
    const viaGraphql = await gql(c.query, c.variables, headers);

    expect(viaRest.body).toEqual({ error: expect.any(String) });
    expect(viaGraphql.body.errors).toHaveLength(1);
    const error = viaGraphql.body.errors![0];
    expect(error.extensions!.code).toBe(c.code);
    expect(viaRest.status).toBe(HTTP_STATUS_BY_CODE[c.code]);
    if (c.sameMessage) expect(viaRest.body.error).toBe(error.message);
    if (c.field) {
      const [graphqlName, restName] = c.field;
      expect(error.message).toMatch(new RegExp(`^Invalid ${graphqlName}: `));
      expect(viaRest.body.error).toBe(error.message.replace(`Invalid ${graphqlName}:`, `Invalid ${restName}:`));
    }
  });

  it("the spec's fixed messages are the same on both", async () => {
    const anonymous = await gql(COMPARISON, {}, {});
    expect(anonymous.body.errors![0].message).toBe('Invalid or expired API key');
    const forbidden = await gql(COMPARISON, {}, { 'x-api-key': pnlOnly });
    expect(forbidden.body.errors![0].message).toBe('Insufficient permissions');
  });
});
