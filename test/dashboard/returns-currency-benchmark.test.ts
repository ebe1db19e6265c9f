/**
 * The Returns page's currencies, fees and benchmark in a real browser against a real service
 * (issue 28): a long daily history with a monthly management fee (pnl flow_type fee), EUR/USD rates
 * on every valuation date and a single USD/JPY one, and a benchmark series assigned to the entity.
 * The period table shows net and gross of fees; choosing EUR converts the periods and the heat map,
 * each net return with its USD return and currency effect; choosing JPY says which rates are
 * missing; the daily chart draws the benchmark's cumulative return. Figures as the REST routes
 * answer them, formatted as the page formats them; axe finds nothing; laid out soundly at 1280 and
 * 390 px (screenshots in /tmp/returns-1280.png and /tmp/returns-390.png).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type TestUser } from '../helpers/fixtures.ts';
import { loadFiles } from '../helpers/returns-data.ts';
import { LONG, longHistoryCsv } from '../helpers/long-history.ts';
import { browserAvailable, expectCount, expectSoundLayout, LAYOUT_WIDTHS, openPage, signInToDashboard } from '../helpers/browser.ts';
import { expectNoHorizontalScroll } from './phone.ts';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const FUND = 'Global Balanced Fund';
const INDEX = 'Global Equity Index';

/** The long history as another entity, with a management fee of 750.00 paid at every month end (its own row, flow_type fee). */
function feeHistoryCsv(): string {
  const [header, ...rows] = longHistoryCsv().split('\n');
  const out = [`${header},flow_type`];
  for (const row of rows) {
    const fields = row.replace(LONG, FUND).replace('ACC-7001', 'ACC-7401');
    out.push(`${fields},`);
    const date = fields.split(',')[2];
    const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    if (next.endsWith('-01')) out.push(`ACC-7401,${FUND},${date},,-750.00,end_of_day,Management fee,fee`);
  }
  return out.join('\n');
}

interface RestPeriod {
  period: string;
  return_value: string | null;
  gross_return_value: string | null;
  local_return_value: string | null;
  currency_effect: string | null;
  benchmark: { return_value: string | null; excess_return: string | null } | null;
}

/** A fraction as the page shows it: signed, in percent, 2 decimals (signedPercent(value, 2)). */
const percent = (fraction: string) => `${Number(fraction) > 0 ? '+' : ''}${(Number(fraction) * 100).toFixed(2)} %`;

describe.skipIf(!browserAvailable)('Returns page: currencies, gross and net, the benchmark', () => {
  let server: TestServer, browser: Browser, owner: TestUser;
  const api = async (path: string) => {
    const response = await callApi(server.url, owner, 'GET', path);
    expect(response.status, path).toBe(200);
    return response.body.data;
  };
  const name = encodeURIComponent(FUND);

  beforeAll(async () => {
    ({ server, browser, owner } = await startServerAndBrowser({ owner: { role: 'member', scopes: ['read:returns', 'read:pnl', 'write:upload'] } }));
    await loadFiles(server.url, owner.key, owner.orgId, [{ name: 'fee-history.csv', content: feeHistoryCsv() }], 120_000);
    const pool = server.services.db.pool;
    const valuations = `SELECT v.date, row_number() OVER (ORDER BY v.date) AS n FROM "Valuation" v JOIN "Entity" e ON e.id = v."entityId" WHERE e."orgId" = $1 AND e."entityName" = $2`;
    // EUR/USD (dollars per euro, the pair the other way round) on every valuation date: the dollar's return in euros differs day by day.
    await pool.query(
      `INSERT INTO "FxRate" ("orgId", base, quote, date, rate)
       SELECT $1, 'EUR', 'USD', date, round((1.08 + 0.05 * sin(n / 60.0))::numeric, 6) FROM (${valuations}) d`,
      [owner.orgId, FUND],
    );
    // USD/JPY on one date only: JPY is offered, and its figures name the dates without a rate.
    await pool.query(`INSERT INTO "FxRate" ("orgId", base, quote, date, rate) VALUES ($1, 'USD', 'JPY', '2025-06-30', 157.2)`, [owner.orgId]);
    // A benchmark with a level on every valuation date (assigned on the page).
    await pool.query(
      `INSERT INTO "BenchmarkLevel" ("orgId", benchmark, date, level)
       SELECT $1, $3, date, round((1000 * exp(0.00035 * n + 0.04 * sin(n / 35.0)))::numeric, 8) FROM (${valuations}) d`,
      [owner.orgId, FUND, INDEX],
    );
  }, 180_000);

  afterAll(() => closeBrowserAndServer(browser, server));

  async function showFund(page: Page): Promise<void> {
    await openPage(page, '/returns', 'Returns');
    await page.getByText('Enter an entity and a date range to chart its daily returns.').waitFor();
    await page.getByLabel(/^Entity/).fill(FUND);
    await page.getByLabel(/^From/).fill('2024-06-30');
    await page.getByLabel(/^To/).fill('2025-06-30');
    await page.getByRole('button', { name: 'Show returns' }).click();
  }

  it('shows net and gross of fees, converts to a chosen currency, names missing rates, and draws the benchmark line', async () => {
    const { page, problems } = await signInToDashboard(browser, server.url, owner, LAYOUT_WIDTHS.desktop, { bypassCSP: true });
    await showFund(page);

    // Net and gross of fees, in the entity's own currency (USD): as the API answers them; the fees make gross higher.
    const usd: { periods: RestPeriod[] } = await api(`/api/returns/periods?entity_name=${name}`);
    const table = page.getByRole('table', { name: new RegExp(`^${FUND} \\(ACC-7401\\): time-weighted returns as of Jun 30, 2025, in USD$`) });
    await table.waitFor();
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'Period',
      'Return, net of fees',
      'Return, gross of fees',
      'Annualised, net',
      'Annualised, gross',
      'Start valuation',
      'Note',
    ]);
    const row = (period: string) => table.locator(`tbody > tr[data-period="${period}"]`);
    const si = usd.periods.find((p) => p.period === 'SI')!;
    expect(Number(si.gross_return_value)).toBeGreaterThan(Number(si.return_value));
    await expect.poll(() => row('SI').locator('td.period-return').textContent()).toBe(percent(si.return_value!));
    await expect.poll(() => row('SI').locator('td.period-gross').textContent()).toBe(percent(si.gross_return_value!));
    await expectCount(row('SI').locator('.currency-split'), 0);

    // No benchmark yet: the chart says so. Assigning one (setEntityBenchmark) adds its return and the excess to the periods.
    await expect.poll(() => page.locator('.chart-legend-note').textContent()).toContain(`No benchmark line: no benchmark is assigned to ${FUND}.`);
    const benchmark = page.getByRole('combobox', { name: /^Benchmark/ });
    await expect.poll(() => benchmark.locator('option').allTextContents()).toEqual(['None', INDEX]);
    await benchmark.selectOption(INDEX);
    await expect.poll(() => page.locator('.benchmark-field .hint').textContent()).toContain(`${INDEX}: levels from Dec 30, 2022 to Jun 30, 2025.`);
    await page.getByRole('button', { name: 'Assign' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'is now compared with' }).textContent()).toBe(`${FUND} is now compared with ${INDEX}.`);
    await expect
      .poll(() => table.locator('thead th').allTextContents())
      .toEqual([
        'Period',
        'Return, net of fees',
        'Return, gross of fees',
        'Annualised, net',
        'Annualised, gross',
        'Benchmark return',
        'Excess, net',
        'Start valuation',
        'Note',
      ]);
    const compared: { benchmark: string; periods: RestPeriod[] } = await api(`/api/returns/periods?entity_name=${name}`);
    expect(compared.benchmark).toBe(INDEX);
    for (const period of ['1Y', 'SI']) {
      const expected = compared.periods.find((p) => p.period === period)!.benchmark!;
      await expect.poll(() => row(period).locator('td.period-benchmark').textContent()).toBe(percent(expected.return_value!));
      await expect.poll(() => row(period).locator('td.period-excess').textContent()).toBe(percent(expected.excess_return!));
    }

    // The currency selector: the entity's own, then the currencies one uploaded pair away.
    const currency = page.getByRole('combobox', { name: /^Currency/ });
    await expect.poll(() => currency.locator('option').allTextContents()).toEqual(['USD (the entity’s own)', 'EUR', 'JPY']);

    // EUR: the periods and the heat map converted; under each net return its USD return and the currency effect.
    await currency.selectOption('EUR');
    const eur: { periods: RestPeriod[] } = await api(`/api/returns/periods?entity_name=${name}&currency=EUR`);
    const eurTable = page.getByRole('table', { name: /time-weighted returns as of Jun 30, 2025, in EUR$/ });
    await eurTable.waitFor();
    const eurRow = (period: string) => eurTable.locator(`tbody > tr[data-period="${period}"]`);
    for (const period of ['1Y', 'SI', 'YTD']) {
      const expected = eur.periods.find((p) => p.period === period)!;
      expect(Number(expected.currency_effect)).not.toBe(0);
      await expect.poll(() => eurRow(period).locator('.period-value').textContent()).toBe(percent(expected.return_value!));
      await expect.poll(() => eurRow(period).locator('.split-local').textContent()).toBe(`in USD ${percent(expected.local_return_value!)}`);
      await expect.poll(() => eurRow(period).locator('.split-fx').textContent()).toBe(`FXcurrency effect ${percent(expected.currency_effect!)}`);
      await expect.poll(() => eurRow(period).locator('td.period-gross').textContent()).toBe(percent(expected.gross_return_value!));
    }
    // At 1280 px the whole table fits its panel: nothing to scroll to, the converted figures' two lines included.
    const frame = page.getByRole('region', { name: /in EUR \(scrolls sideways\)$/ });
    await expect.poll(() => frame.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0);
    const calendar: { months: { period: string; return_value: string }[] } = await api(`/api/returns/calendar?entity_name=${name}&currency=EUR`);
    const heatmap = page.getByRole('table', { name: new RegExp(`^${FUND} \\(ACC-7401\\): time-weighted return of each month and year, net of fees, in EUR`) });
    await heatmap.waitFor();
    const may = calendar.months.find((m) => m.period === '2025-05')!;
    await expect.poll(() => heatmap.locator('tbody > tr').nth(3).locator('td').nth(4).locator('.heat-value').textContent()).toBe(percent(may.return_value));

    // JPY: a rate on one date only; both panels say which are missing instead of going blank, and the selector stays.
    await currency.selectOption('JPY');
    const warnings = page.locator('.notice-warning', { hasText: /No figures in JPY: no USD\/JPY rate for .+ and \d+ more/ });
    await expectCount(warnings, 2);
    await page.locator('#period-returns').screenshot({ path: '/tmp/returns-missing-rates-1280.png' });
    await currency.selectOption('EUR');
    await eurTable.waitFor();

    // The benchmark's cumulative return on the chart: a dashed line with its legend entry, ending where the API's levels do.
    const levels: { points: { date: string; cumulative_return: string }[] } = await api(
      `/api/returns/benchmark-levels?entity_name=${name}&start_date=2024-06-30&end_date=2025-06-30`,
    );
    const last = levels.points.at(-1)!;
    expect(last.date).toBe('2025-06-30');
    const chart = page.getByRole('img', { name: /^Chart of the daily Modified Dietz returns/ });
    await expect
      .poll(() => chart.getAttribute('aria-label'))
      .toContain(`the cumulative return of the benchmark ${INDEX} as a dashed line ending at ${percent(last.cumulative_return)}`);
    await expect
      .poll(() => page.locator('.benchmark-key').textContent())
      .toMatch(
        new RegExp(
          `Benchmark: ${INDEX}, its cumulative return from its level of Jun 30, 2024 .*ending at ${percent(last.cumulative_return).replace('+', '\\+')}`,
        ),
      );
    // The canvas legend draws the same entry (Chart.js keeps its items on the chart instance, which the page does not expose; the pixels of the dash colour are there).
    const dashPixels = await chart.evaluate((canvas) => {
      const context = (canvas as HTMLCanvasElement).getContext('2d')!;
      const { data } = context.getImageData(0, 0, (canvas as HTMLCanvasElement).width, (canvas as HTMLCanvasElement).height);
      let count = 0;
      for (let i = 0; i < data.length; i += 4)
        if (Math.abs(data[i] - 0x6a) < 12 && Math.abs(data[i + 1] - 0x3d) < 12 && Math.abs(data[i + 2] - 0x9a) < 12) count++;
      return count;
    });
    expect(dashPixels).toBeGreaterThan(50);

    // Readable: axe (WCAG 2.1 AA) finds nothing in the chart's panel, the periods and the heat map.
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: object, options: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
      const result = await axe.run(
        { include: [['#entity-returns'], ['#period-returns'], ['#calendar-returns']] },
        { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } },
      );
      return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`);
    });
    expect(violations).toEqual([]);

    // Headers over their columns at 1280 px (the period table's two header rows too); nothing off a phone's screen.
    expect((await expectSoundLayout(page, { screenshot: 'returns-currency-benchmark' })).tablesChecked).toBe(4);
    await page.screenshot({ path: '/tmp/returns-1280.png', fullPage: true });
    await page.locator('#period-returns').screenshot({ path: '/tmp/returns-periods-1280.png' });
    await page.locator('.dietz-results .chart-box').screenshot({ path: '/tmp/returns-chart-1280.png' });
    expect(problems).toEqual([]);
  });

  it('reads on a phone: the selector, the converted figures and the benchmark legend within the screen', async () => {
    // Assigned as the first test did, so this one stands alone.
    expect((await callApi(server.url, owner, 'PUT', '/api/returns/benchmark', { entity_name: FUND, benchmark: INDEX })).status).toBe(200);
    const { page, problems } = await signInToDashboard(browser, server.url, owner, LAYOUT_WIDTHS.phone);
    await showFund(page);
    const currency = page.getByRole('combobox', { name: /^Currency/ });
    await expect.poll(() => currency.locator('option').count()).toBe(3);
    await currency.selectOption('EUR');
    const table = page.getByRole('table', { name: /time-weighted returns as of Jun 30, 2025, in EUR$/ });
    await table.waitFor();
    await expect.poll(() => table.locator('tbody > tr[data-period="SI"] .split-fx').count()).toBe(1);
    await page.locator('.benchmark-key').waitFor();
    await page.getByRole('table', { name: /time-weighted return of each month and year, net of fees, in EUR/ }).waitFor();
    await expectNoHorizontalScroll(page);
    // The period table scrolls in its own frame (its gross columns off to the side), reachable by keyboard.
    const frame = page.getByRole('region', { name: /time-weighted returns as of .* in EUR \(scrolls sideways\)$/ });
    await expect.poll(() => frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await frame.getAttribute('tabindex')).toBe('0');
    for (const locator of [currency, page.locator('.benchmark-key'), page.getByRole('img', { name: /^Chart of the daily Modified Dietz returns/ })]) {
      await locator.scrollIntoViewIfNeeded();
      const box = await locator.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(LAYOUT_WIDTHS.phone.width);
    }
    await page.screenshot({ path: '/tmp/returns-390.png', fullPage: true });
    await page.locator('#period-returns').screenshot({ path: '/tmp/returns-periods-390.png' });
    await page.locator('#entity-returns .chart-box').screenshot({ path: '/tmp/returns-chart-390.png' });
    await page.locator('#calendar-returns').screenshot({ path: '/tmp/returns-calendar-390.png' });
    // The cash flows, the periods and the heat map (and the folded daily figures): headers over their columns at 1280 px.
    await page.getByRole('table', { name: 'Cash flows' }).waitFor();
    // The cash flows, the folded daily figures, the periods and the heat map, once laid out at 1280 px (the folded table
    // only after a first pass at that width: measured until it counts).
    await expect.poll(async () => (await expectSoundLayout(page)).tablesChecked).toBe(4);
    expect(problems).toEqual([]);
  });
});
