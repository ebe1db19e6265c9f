/**
 * The Returns page's reported returns in a real browser against a real service: after a long daily
 * history (test/helpers/long-history.ts) is uploaded as a pnl file, choosing its entity shows the
 * standard periods (MTD … SI, the uncovered ones marked) and the month-by-year heat map, with the
 * figures the REST routes answer, as the page formats them; checked by axe (the heat map's colours
 * keep their text readable) and laid out soundly at 1280 and 390 px.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type TestUser } from '../helpers/fixtures.ts';
import { loadFiles } from '../helpers/returns-data.ts';
import { LONG, longHistoryCsv } from '../helpers/long-history.ts';
import { browserAvailable, expectCount, expectSoundLayout, LAYOUT_WIDTHS, openPage, signInToDashboard } from '../helpers/browser.ts';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PERIODS = ['MTD', 'QTD', 'YTD', '1M', '3M', '6M', '1Y', '3Y', '5Y', '10Y', 'SI'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface RestPeriod {
  period: string;
  complete: boolean;
  return_value: string | null;
  annualized_return: string | null;
  start_valuation_date: string | null;
  end_valuation_date: string;
}
interface RestCalendarRow {
  period: string;
  return_value: string | null;
  partial: boolean;
  partial_reason: string | null;
}

/** A fraction as the page shows it: signed, in percent, 2 decimals (signedPercent(value, 2)). */
const percent = (fraction: string) => `${Number(fraction) > 0 ? '+' : ''}${(Number(fraction) * 100).toFixed(2)} %`;

describe.skipIf(!browserAvailable)('Returns page: reported returns', () => {
  let server: TestServer, browser: Browser, owner: TestUser;
  let periods: { currency: string; as_of: string; periods: RestPeriod[] };
  let calendar: { months: RestCalendarRow[]; years: RestCalendarRow[] };

  beforeAll(async () => {
    ({ server, browser, owner } = await startServerAndBrowser({ owner: { role: 'member', scopes: ['read:returns', 'read:pnl', 'write:upload'] } }));
    await loadFiles(server.url, owner.key, owner.orgId, [{ name: 'long-history.csv', content: longHistoryCsv() }], 120_000);
    const name = encodeURIComponent(LONG);
    const periodsResponse = await callApi(server.url, owner, 'GET', `/api/returns/periods?entity_name=${name}`);
    expect(periodsResponse.status).toBe(200);
    periods = periodsResponse.body.data;
    const calendarResponse = await callApi(server.url, owner, 'GET', `/api/returns/calendar?entity_name=${name}`);
    expect(calendarResponse.status).toBe(200);
    calendar = calendarResponse.body.data;
  }, 180_000);

  afterAll(() => closeBrowserAndServer(browser, server));

  it('shows the standard periods and the monthly heat map of the chosen entity, as the API answers them', async () => {
    // bypassCSP: axe is added to the page as a script tag.
    const { page, problems } = await signInToDashboard(browser, server.url, owner, LAYOUT_WIDTHS.desktop, { bypassCSP: true });
    await openPage(page, '/returns', 'Returns');
    // No custodian returns: nothing is suggested, the entity is typed.
    await page.getByText('Enter an entity and a date range to chart its daily returns.').waitFor();
    await page.getByLabel(/^Entity/).fill(LONG);
    await page.getByLabel(/^From/).fill('2022-12-30');
    await page.getByLabel(/^To/).fill('2025-06-30');
    await page.getByRole('button', { name: 'Show returns' }).click();

    // The standard periods, in the service's order, as of the latest valuation, in the entity's currency.
    expect(periods.as_of).toBe('2025-06-30');
    const table = page.getByRole('table', { name: new RegExp(`^${LONG} \\(ACC-7001\\): time-weighted returns as of Jun 30, 2025, in ${periods.currency}$`) });
    await table.waitFor();
    const rows = table.locator('tbody > tr');
    await expectCount(rows, 11);
    expect(await rows.locator('.period-code').allTextContents()).toEqual(PERIODS);
    expect(periods.periods.map((p) => p.period)).toEqual(PERIODS);
    const row = (period: string) => rows.nth(PERIODS.indexOf(period));

    // The history starts at 2022-12-30: 3Y, 5Y and 10Y are not covered, with the reason; the rest are.
    for (const period of PERIODS) {
      const expected = periods.periods.find((p) => p.period === period)!;
      const covered = !['3Y', '5Y', '10Y'].includes(period);
      expect(expected.complete).toBe(covered);
      const badge = row(period).locator('td.period-return .badge', { hasText: 'not covered' });
      await expectCount(badge, covered ? 0 : 1);
      if (!covered) await expect.poll(() => row(period).locator('.period-note').textContent()).toMatch(/the history starts at 2022-12-30.*not covered/);
    }
    // SI and 1Y: the API's returns and annualised returns, formatted as the page formats them.
    for (const period of ['SI', '1Y']) {
      const expected = periods.periods.find((p) => p.period === period)!;
      expect(expected.return_value).not.toBeNull();
      expect(expected.annualized_return).not.toBeNull();
      await expect.poll(() => row(period).locator('td.period-return').textContent()).toBe(percent(expected.return_value!));
      await expect.poll(() => row(period).locator('td.period-annualized').textContent()).toBe(percent(expected.annualized_return!));
    }
    // Below a year nothing is annualised: an em dash, and why for assistive technology.
    const mtdAnnualized = row('MTD').locator('td.period-annualized');
    await expect.poll(() => mtdAnnualized.locator('[aria-hidden="true"]').textContent()).toBe('—');
    await expect.poll(() => mtdAnnualized.locator('.visually-hidden').textContent()).toMatch(/^not annualised: .+/);

    // The heat map: a row per year, a column per month and the year's return.
    const heatmap = page.getByRole('table', { name: new RegExp(`^${LONG} \\(ACC-7001\\): time-weighted return of each month and year`) });
    await heatmap.waitFor();
    expect(await heatmap.locator('thead th').allTextContents()).toEqual(['Calendar year', ...MONTHS, 'Year']);
    const years = heatmap.locator('tbody > tr');
    await expectCount(years, 4);
    expect(await years.locator('th').allTextContents()).toEqual(['2022', '2023', '2024', '2025']);
    const filled = async (year: Locator) => (await year.locator('td').allTextContents()).map((text) => text !== '');
    // 2022: only December (from the first valuation on 2022-12-30); 2025: January to June.
    expect(await filled(years.nth(0))).toEqual([...Array(11).fill(false), true, true]);
    expect(await filled(years.nth(1))).toEqual(Array(13).fill(true));
    expect(await filled(years.nth(3))).toEqual([...Array(6).fill(true), ...Array(6).fill(false), true]);

    // Every month and year shows the API's return; partial ones are marked, with the reason; the colour follows the sign.
    const cell = (period: string) => {
      const year = years.nth(Number(period.slice(0, 4)) - 2022);
      return year.locator('td').nth(period.length === 4 ? 12 : Number(period.slice(5, 7)) - 1);
    };
    expect(calendar.months.length).toBe(31);
    for (const expected of [...calendar.months, ...calendar.years]) {
      const found = cell(expected.period);
      expect(expected.return_value).not.toBeNull();
      expect(await found.locator('.heat-value').textContent(), expected.period).toBe(percent(expected.return_value!));
      const className = (await found.getAttribute('class')) ?? '';
      expect(className.includes('heat-partial'), expected.period).toBe(expected.partial);
      expect((await found.textContent())?.includes('†'), expected.period).toBe(expected.partial);
      if (expected.partial) expect(await found.getAttribute('title')).toContain(expected.partial_reason);
      if (expected.period.length === 7) expect(className).toContain(Number(expected.return_value) > 0 ? 'heat-gain-' : 'heat-loss-');
    }
    expect(calendar.months.filter((m) => m.partial).map((m) => m.period)).toEqual(['2022-12']);
    expect(calendar.years.filter((y) => y.partial).map((y) => y.period)).toEqual(['2022', '2025']);
    await expectCount(page.getByRole('list', { name: 'Colour of a month’s return' }).getByRole('listitem'), 8);

    // Readable: axe (WCAG 2.1 AA, colour contrast among them) finds nothing in the two panels.
    await page.addScriptTag({ path: AXE_SCRIPT });
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: object, options: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
      const result = await axe.run(
        { include: [['#period-returns'], ['#calendar-returns']] },
        { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } },
      );
      return result.violations.map((violation) => `${violation.id} (${violation.nodes.length})`);
    });
    expect(violations).toEqual([]);

    // On a phone the heat map scrolls inside its own frame, which the keyboard can reach.
    await page.setViewportSize(LAYOUT_WIDTHS.phone);
    const frame = page.getByRole('region', { name: /time-weighted return of each month and year.*\(scrolls sideways\)$/ });
    await expect.poll(() => frame.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
    expect(await frame.getAttribute('tabindex')).toBe('0');
    await page.setViewportSize(LAYOUT_WIDTHS.desktop);

    // The cash flows, the daily figures (laid out though folded), the periods and the heat map:
    // headers over their columns; nothing off a phone's screen.
    expect((await expectSoundLayout(page, { screenshot: 'returns-analytics' })).tablesChecked).toBe(4);
    expect(problems).toEqual([]);
  });
});
