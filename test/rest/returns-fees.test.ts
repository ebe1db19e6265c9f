/**
 * Gross and net of fees over real HTTP: a pnl file with a `flow_type` column (external, fee,
 * income) uploaded as a client does (multipart), then GET /api/returns/dietz-daily, /periods,
 * /calendar, /cash-transactions and /irr, and /graphql. Expected values come from
 * test/helpers/exact-dietz.ts (exact rationals over the external flows: the net-of-fee return),
 * with the fees added back over the same denominator for the gross one, each rounded to the 12
 * places it is stored with, then linked; never from the service's code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { graphql, loadFiles } from '../helpers/returns-data.ts';
import { restUpload, waitForFileStatus } from '../helpers/upload.ts';
import { dayNumber, modifiedDietz, Rational, type SampleEntity } from '../helpers/exact-dietz.ts';

const FUND = 'Gross Net Fund';
const PLAIN = 'No Fee Column Fund';
const ORG = `Fees ${Date.now()}`;
const HEADER = 'account_code,entity_name,date,market_value,cash_flow,flow_timing,flow_type,description';

const dateOf = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);
const DAYS = 397; // 2024-01-01 .. 2025-01-31
const LAST = dateOf(DAYS - 1);
const valueOf = (day: number) => (2_000_000 + day * 150 + ((day * 7919) % 30_000) - 15_000 + (day >= 60 ? 100_000 : 0) - (day >= 200 ? 40_000 : 0)).toFixed(2);

interface Flow {
  date: string;
  amount: string;
  timing: 'start_of_day' | 'end_of_day';
  type: 'external' | 'fee' | 'income';
  description: string;
}

/** The last day of every month of 2024: the management fee. */
const MONTH_ENDS = Array.from({ length: 12 }, (_, m) => new Date(Date.UTC(2024, m + 1, 0)).toISOString().slice(0, 10));
const FLOWS: Flow[] = [
  { date: dateOf(60), amount: '100000.00', timing: 'start_of_day', type: 'external', description: 'subscription' },
  { date: dateOf(200), amount: '-40000.00', timing: 'end_of_day', type: 'external', description: 'redemption' },
  ...MONTH_ENDS.map((date): Flow => ({ date, amount: '-1500.00', timing: 'end_of_day', type: 'fee', description: 'management fee' })),
  ...['2024-03-15', '2024-06-14', '2024-09-13', '2024-12-13'].map(
    (date): Flow => ({ date, amount: '2400.00', timing: 'start_of_day', type: 'income', description: 'dividend' }),
  ),
];

function pnlCsv(name: string, account: string, flows: Flow[]): string {
  const rows = [HEADER];
  for (let day = 0; day < DAYS; day++) rows.push(`${account},${name},${dateOf(day)},${valueOf(day)},,,,`);
  for (const flow of flows) rows.push(`${account},${name},${flow.date},,${flow.amount},${flow.timing},${flow.type},${flow.description}`);
  return rows.join('\n');
}

/** The pnl format before flow_type: every flow external. */
const PLAIN_CSV = [
  'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
  ...Array.from({ length: 40 }, (_, day) => `ACC-8802,${PLAIN},${dateOf(day)},${valueOf(day)},,,`),
  `ACC-8802,${PLAIN},${dateOf(10)},,-1500.00,end_of_day,fee booked before flow_type existed`,
].join('\n');

// ---- the oracle -------------------------------------------------------------------------------

const externalOnly: SampleEntity = {
  accountCode: 'ACC-8801',
  entityName: FUND,
  valuations: Array.from({ length: DAYS }, (_, day) => ({ date: dateOf(day), value: Rational.parse(valueOf(day)) })),
  flows: FLOWS.filter((f) => f.type === 'external').map((f) => ({
    date: f.date,
    amount: Rational.parse(f.amount),
    timing: f.timing,
    description: f.description,
  })),
};

/** Each day: net = Modified Dietz over the external flows; F = fees paid; gross = net + F / D, D the same denominator. */
const days = externalOnly.valuations.slice(1).map((valuation, i) => {
  const start = externalOnly.valuations[i].date;
  const sub = modifiedDietz(externalOnly, start, valuation.date);
  const fees = FLOWS.filter((f) => f.type === 'fee' && f.date === valuation.date).reduce((sum, f) => sum.minus(Rational.parse(f.amount)), Rational.of(0));
  const denominator = sub.beginValue.plus(sub.weightedFlow);
  const gross = sub.returnValue === null ? null : sub.returnValue.plus(fees.div(denominator));
  return {
    date: valuation.date,
    fees: fees.toFixed(4),
    net: sub.returnValue === null ? null : sub.returnValue.toFixed(12),
    gross: gross === null ? null : gross.toFixed(12),
    netFlow: sub.netFlow.toFixed(4),
  };
});

/** The stored (12-place) daily returns in (from, to], linked; the product cut to 40 places a day (error far under 1e-12). */
function linked(from: string, to: string, side: 'net' | 'gross'): string {
  const inRange = days.filter((day) => dayNumber(day.date) > dayNumber(from) && dayNumber(day.date) <= dayNumber(to));
  const growth = inRange.reduce(
    (product, day) => Rational.parse(product.times(Rational.parse(day[side] as string).plus(Rational.of(1))).toFixed(40)),
    Rational.of(1),
  );
  return growth.minus(Rational.of(1)).toFixed(12);
}

// ---- the service ------------------------------------------------------------------------------

let server: TestServer;
let user: TestUser;
let headers: Record<string, string>;
const get = (path: string) => getJson(`${server.url}${path}`, { headers });

beforeAll(async () => {
  server = await startTestServer();
  user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'write:upload'], role: 'member', org: ORG });
  headers = { 'x-api-key': user.key };
  await loadFiles(
    server.url,
    user.key,
    user.orgId,
    [
      { name: 'gross-net.csv', content: pnlCsv(FUND, 'ACC-8801', FLOWS) },
      { name: 'plain.csv', content: PLAIN_CSV },
    ],
    120_000,
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
});

describe('GET /api/returns/dietz-daily', () => {
  it('each day: the net return (external flows only), the fees and the gross return', async () => {
    const response = await get(`/api/returns/dietz-daily?entity_name=${encodeURIComponent(FUND)}&start_date=2024-03-13&end_date=2024-04-02`);
    expect(response.status).toBe(200);
    const served = response.body.data.days.map((day: Record<string, string | null>) => ({
      date: day.date,
      fees: day.fees,
      net: day.return_value,
      gross: day.gross_return_value,
      netFlow: day.net_flow,
    }));
    expect(served).toEqual(days.filter((day) => day.date > '2024-03-13' && day.date <= '2024-04-02'));
    const feeDay = served.find((day: { date: string }) => day.date === '2024-03-31');
    expect(feeDay.fees).toBe('1500.0000');
    expect(Number(feeDay.gross)).toBeGreaterThan(Number(feeDay.net));
    // The dividend is not a flow: net_flow 0, fees 0, gross = net.
    expect(served.find((day: { date: string }) => day.date === '2024-03-15')).toMatchObject({ fees: '0.0000', netFlow: '0.0000' });
  });

  it('a file without flow_type loads every flow as external: gross = net, no fees', async () => {
    const response = await get(`/api/returns/dietz-daily?entity_name=${encodeURIComponent(PLAIN)}&start_date=2024-01-01&end_date=2024-02-09`);
    expect(response.status).toBe(200);
    for (const day of response.body.data.days) expect(day).toMatchObject({ fees: '0.0000', gross_return_value: day.return_value });
    expect(response.body.data.days.find((day: { date: string }) => day.date === dateOf(10)).net_flow).toBe('-1500.0000');
  });
});

describe('GET /api/returns/periods', () => {
  it('reports gross beside net, each linked from its daily returns, annualised by the same rule', async () => {
    const response = await get(`/api/returns/periods?entity_name=${encodeURIComponent(FUND)}`);
    expect(response.status).toBe(200);
    const table = response.body.data;
    expect(table.as_of).toBe(LAST);
    for (const row of table.periods) {
      if (!row.complete) {
        expect(row, row.period).toMatchObject({ return_value: null, gross_return_value: null, gross_annualized_return: null });
        continue;
      }
      expect(row, row.period).toMatchObject({
        return_value: linked(row.start_valuation_date, row.end_valuation_date, 'net'),
        gross_return_value: linked(row.start_valuation_date, row.end_valuation_date, 'gross'),
      });
    }
    const byPeriod = (period: string) => table.periods.find((p: { period: string }) => p.period === period);
    // 1Y: exactly one year, annualised = the return, gross and net alike; below a year neither is annualised.
    expect(byPeriod('1Y')).toMatchObject({
      boundary_date: '2024-01-31',
      years: 1,
      extra_days: 0,
      annualized_return: linked('2024-01-31', LAST, 'net'),
      gross_annualized_return: linked('2024-01-31', LAST, 'gross'),
    });
    expect(byPeriod('6M')).toMatchObject({ annualized_return: null, gross_annualized_return: null });
    expect(byPeriod('6M').annualized_null_reason).toMatch(/not annualised below a year/);
    // Twelve fees of 1,500 on about 2.1 million: gross ahead of net by a little under 1 % over the year.
    const gap = Number(byPeriod('1Y').gross_return_value) - Number(byPeriod('1Y').return_value);
    expect(gap).toBeGreaterThan(0.0075);
    expect(gap).toBeLessThan(0.0095);
    // MTD (January 2025) holds no fee: gross = net.
    expect(byPeriod('MTD').gross_return_value).toBe(byPeriod('MTD').return_value);
  });
});

describe('GET /api/returns/calendar', () => {
  it('each month and year gross and net, linked from the daily returns', async () => {
    const response = await get(`/api/returns/calendar?entity_name=${encodeURIComponent(FUND)}`);
    expect(response.status).toBe(200);
    const { months, years, year_to_date: ytd } = response.body.data;
    expect(months).toHaveLength(13);
    for (const row of [...months, ...years]) {
      expect(row, row.period).toMatchObject({
        return_value: linked(row.start_date, row.end_date, 'net'),
        gross_return_value: linked(row.start_date, row.end_date, 'gross'),
      });
    }
    expect(years.map((row: { period: string }) => row.period)).toEqual(['2024', '2025']);
    expect(ytd).toMatchObject({ period: '2025', gross_return_value: ytd.return_value });
  });
});

describe('GET /api/returns/cash-transactions and /irr', () => {
  it('each transaction carries its flow_type; the IRR counts the external flows only', async () => {
    const response = await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FUND)}&limit=100`);
    expect(response.status).toBe(200);
    const served = response.body.data.map((t: Record<string, string>) => [t.date, t.amount, t.flow_type]);
    const expected = FLOWS.map((f) => [f.date, Rational.parse(f.amount).toFixed(4), f.type]);
    expect([...served].sort()).toEqual([...expected].sort());

    const irr = await get(`/api/returns/irr?entity_name=${encodeURIComponent(FUND)}&start_date=2024-01-01&end_date=${LAST}`);
    expect(irr.status).toBe(200);
    expect(irr.body.data).toMatchObject({ flow_count: 2, net_flow: '60000.0000' });
  });

  it('answers the same through /graphql, flowType as the FlowType enum', async () => {
    const response = await graphql(
      server.url,
      headers,
      `query ($name: String!) {
        cashTransactions(entityName: $name, first: 3) { edges { node { date amount flowType } } }
        returnPeriods(entityName: $name) { periods { period returnValue grossReturnValue grossAnnualizedReturn } }
      }`,
      { name: FUND },
    );
    expect(response.body.errors).toBeUndefined();
    for (const edge of response.body.data.cashTransactions.edges) expect(['external', 'fee', 'income']).toContain(edge.node.flowType);
    const rest = (await get(`/api/returns/periods?entity_name=${encodeURIComponent(FUND)}`)).body.data;
    expect(response.body.data.returnPeriods.periods).toEqual(
      rest.periods.map((row: Record<string, string | null>) => ({
        period: row.period,
        returnValue: row.return_value,
        grossReturnValue: row.gross_return_value,
        grossAnnualizedReturn: row.gross_annualized_return,
      })),
    );
  });
});

describe('a bad flow_type', () => {
  it('fails the file with a row error naming the column and line, and loads nothing of it', async () => {
    const before = await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FUND)}&limit=100`);
    const csv = [
      HEADER,
      `ACC-8801,${FUND},2024-05-02,,-10.00,end_of_day,bogus,custody charge`,
      `ACC-8801,${FUND},2024-05-03,,-10.00,end_of_day,fee,custody`,
    ].join('\n');
    const upload = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'bogus.csv', bytes: csv } });
    expect(upload.status).toBe(201);
    const file = await waitForFileStatus(server.url, user.key, user.orgId, upload.body.data.id, ['processed', 'failed']);
    expect(file.status).toBe('failed');
    expect(file.row_errors.map((e: { line: number; column: string | null }) => [e.line, e.column])).toEqual([[2, 'flow_type']]);
    expect(file.row_errors[0].message).toMatch(/bogus/);
    expect((await get(`/api/returns/cash-transactions?entity_name=${encodeURIComponent(FUND)}&limit=100`)).body).toEqual(before.body);
  });
});
