/**
 * The Files and Returns pages in a real browser against a real service: uploads through the file
 * input and by drag and drop, live ingest status, row errors of a failed file, a too-big file
 * refused before sending, then the comparison table, its filters and the daily-returns chart of
 * the ingested samples. The service runs with a small UPLOAD_MAX_BYTES (8 KB; the samples are
 * about 2 KB each) so the size check can be tried with a small file.
 */
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { closeBrowserAndServer } from '../helpers/browser-and-server.ts';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser, openPage, screenshot, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { INGEST_QUEUE } from '../../src/ingest/ingest-job.ts';
import { expectNoHorizontalScroll, expectOneLine, expectWithinWidth, PHONE } from './phone.ts';

const LIMIT = 8192;
const HARBOR = 'Bayview Growth Fund LP';
const NORTHWIND = 'Northwind Family Trust';
const sample = (name: string) => fileURLToPath(new URL(`../../samples/${name}`, import.meta.url));

let server: TestServer;
let browser: Browser;
let user: TestUser;
let otherOrgId: string;

beforeAll(async () => {
  if (!browserAvailable) return;
  server = await startTestServer({ UPLOAD_MAX_BYTES: String(LIMIT) });
  user = await createUser(server.services, { role: 'member', org: 'Zephyr Capital', scopes: ['read:pnl', 'read:returns', 'write:upload'] });
  // A second organization, listed first (by name), so the page has a choice to remember.
  const { org } = await server.services.organizations.ensureUser({ email: user.email, orgName: 'Alder Partners' });
  otherOrgId = org!.id;
  browser = await launchBrowser();
});

afterAll(() => closeBrowserAndServer(browser, server));

const filesOf = (orgId: string) => server.services.prisma.uploadedFile.count({ where: { orgId } });
const fileRow = (page: Page, name: string) => page.getByRole('table', { name: 'Uploaded files' }).locator('tbody > tr[data-file-id]', { hasText: name });

/**
 * Waits for a listed file to reach `status`; when it does not, the error says where it stopped:
 * the stored file and its ingest job, what the row and the upload queue show (a CI run once timed
 * out here with no more than Playwright's timeout to go on).
 */
async function waitForFileStatus(page: Page, name: string, status: 'processed' | 'failed', timeout: number): Promise<void> {
  try {
    await fileRow(page, name).locator('.badge', { hasText: status }).waitFor({ timeout });
  } catch (error) {
    const stored = await server.services.prisma.uploadedFile.findFirst({
      where: { fileName: name },
      select: { id: true, status: true, statusDetail: true, createdAt: true, processedAt: true },
    });
    const jobs = stored
      ? (
          await server.services.prisma.job.findMany({
            where: { queue: INGEST_QUEUE },
            select: { state: true, attempts: true, lockedAt: true, lockedBy: true, lastError: true, payload: true, createdAt: true },
          })
        ).filter((job) => JSON.stringify(job.payload).includes(stored.id))
      : [];
    const row = (await fileRow(page, name).count()) > 0 ? await fileRow(page, name).textContent() : '(not listed)';
    const queue = await page.locator('.upload-item', { hasText: name }).allTextContents();
    throw new Error(
      `${(error as Error).message.split('\n')[0]}\n  stored file: ${JSON.stringify(stored)}\n  its ingest job: ${JSON.stringify(jobs)}\n  the row shows: ${row}\n  the upload queue shows: ${JSON.stringify(queue)}\n  now: ${new Date().toISOString()}`,
    );
  }
}

/** The graphql answer for the same question the page asks, to compare the page with. */
async function api<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await graphql(server.url, { 'x-api-key': user.key }, query, variables);
  expect(response.body.errors).toBeUndefined();
  return response.body.data as T;
}

describe.skipIf(!browserAvailable)('Files page', () => {
  it('uploads by file input and by drag and drop, follows ingest live, shows row errors, refuses a too-big file before sending', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/files', 'Files');

    // The organization: the first one by name until chosen, then remembered in this browser.
    const orgSelect = page.getByLabel(/^Organization/);
    await expect.poll(() => orgSelect.inputValue()).toBe(otherOrgId);
    await orgSelect.selectOption({ label: 'Zephyr Capital' });
    await page.getByRole('heading', { name: 'Upload to Zephyr Capital' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Upload to Zephyr Capital' }).waitFor();
    await expect.poll(() => page.getByLabel(/^Organization/).inputValue()).toBe(user.orgId);
    await page.getByText('No files uploaded to this organization yet').waitFor();

    // The limit is shown before anything is sent.
    await page.getByText('8.0 KB').first().waitFor();
    await expect.poll(() => page.getByTestId('drop-zone').textContent()).toContain('8,192 bytes');

    // 1. Choose a file with the (keyboard-usable) file input.
    const input = page.getByLabel('Or choose files');
    await input.setInputFiles(sample('pnl-sample.csv'));
    await page.getByRole('progressbar', { name: 'Upload of pnl-sample.csv' }).waitFor();
    await page.getByText('Uploaded as pnl').waitFor();
    // The list polls while ingest runs: the row reaches `processed` without a reload.
    await waitForFileStatus(page, 'pnl-sample.csv', 'processed', 30_000);
    await expect.poll(() => fileRow(page, 'pnl-sample.csv').textContent()).toMatch(/pnl.*processed.*33.*2\.2 KB/);

    // 2. Drop a file on the drop zone (a synthetic DataTransfer, as a drag from the desktop delivers it).
    const performance = await fs.readFile(sample('performance-sample.csv'), 'utf8');
    const dataTransfer = await page.evaluateHandle(
      ({ name, content }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([content], name, { type: 'text/csv' }));
        return transfer;
      },
      { name: 'performance-sample.csv', content: performance },
    );
    const zone = page.getByTestId('drop-zone');
    await zone.dispatchEvent('dragenter', { dataTransfer });
    await expect.poll(() => zone.getAttribute('class')).toContain('dragging');
    await zone.dispatchEvent('drop', { dataTransfer });
    await page.getByText('Uploaded as performance').waitFor();
    await waitForFileStatus(page, 'performance-sample.csv', 'processed', 30_000);

    // 3. A file whose rows fail validation: `failed`, and its row errors open beneath it.
    await input.setInputFiles(sample('pnl-with-errors.csv'));
    const failedRow = fileRow(page, 'pnl-with-errors.csv');
    await waitForFileStatus(page, 'pnl-with-errors.csv', 'failed', 30_000);
    const toggle = failedRow.getByRole('button', { name: /Show \d+ row errors of pnl-with-errors\.csv/ });
    await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    const hide = failedRow.getByRole('button', { name: /Hide \d+ row errors of pnl-with-errors\.csv/ });
    await expect.poll(() => hide.getAttribute('aria-expanded')).toBe('true');
    const errors = page.getByRole('table', { name: /Row errors of pnl-with-errors\.csv/ });
    await errors.waitFor();
    const stored = await api<{ file: { rowErrors: { line: number; column: string | null; message: string }[] } }>(
      'query($id: UUID!) { file(id: $id) { rowErrors(first: 200) { line column message } } }',
      { id: await failedRow.getAttribute('data-file-id') },
    );
    expect(stored.file.rowErrors.length).toBeGreaterThan(0);
    await expectCount(errors.getByRole('row'), stored.file.rowErrors.length + 1);
    const firstError = stored.file.rowErrors[0];
    await expect.poll(() => errors.getByRole('row').nth(1).textContent()).toContain(firstError.message);
    await expect.poll(() => errors.getByRole('row').nth(1).textContent()).toContain(String(firstError.line));

    // 4. Over the limit: refused in the browser with the limit in words; nothing reaches the service.
    const before = await filesOf(user.orgId);
    const big = `account_code,entity_name,date,market_value,cash_flow\n${'BIG-1,Big Fund,2025-03-03,100.00,\n'.repeat(300)}`;
    expect(big.length).toBeGreaterThan(LIMIT);
    await input.setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(big) });
    await page.locator('.upload-item', { hasText: 'big.csv' }).getByText('is over the upload limit of 8.0 KB. It was not sent.').waitFor();
    await expectCount(page.getByRole('status').filter({ hasText: 'big.csv was not sent' }), 1);
    expect(await filesOf(user.orgId)).toBe(before);

    // 5. A file the service refuses: its reason in words.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await input.setInputFiles({ name: 'picture.csv', mimeType: 'text/csv', buffer: png });
    await page.getByText(/Upload failed: Not a file the service can read\. Unsupported file content: .*PNG/).waitFor();
    expect(await filesOf(user.orgId)).toBe(before);

    // The status filter.
    const listed = page.getByRole('table', { name: 'Uploaded files' }).locator('tbody > tr[data-file-id]');
    await expectCount(listed, 3);
    await page.getByLabel(/^Status/).selectOption('failed');
    await waitUntil(async () => (await listed.count()) === 1);
    await expect.poll(() => listed.textContent()).toContain('pnl-with-errors.csv');
    await page.getByLabel(/^Status/).selectOption('');
    await fileRow(page, 'pnl-sample.csv').waitFor();

    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'files');
    // The file list and the row errors open beneath a file: headers over their columns, nothing off a phone's screen.
    expect((await expectSoundLayout(page, { screenshot: 'files-layout' })).tablesChecked).toBe(2);
    await page.getByRole('button', { name: 'Clear finished' }).click();
    await page.getByRole('region', { name: 'Uploads' }).waitFor({ state: 'detached' });
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a processed file with a cash flow on its first valuation date shows the warning, with its line, beside the errors', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/files', 'Files');
    await page.getByLabel(/^Organization/).selectOption({ label: 'Zephyr Capital' });
    await page.getByRole('heading', { name: 'Upload to Zephyr Capital' }).waitFor();
    const csv = [
      'account_code,entity_name,date,market_value,cash_flow,flow_timing,description',
      'ACC-9001,First Day Fund,2024-06-03,1000.00,400.00,,Seed on the first day',
      'ACC-9001,First Day Fund,2024-06-04,1010.00,,,',
    ].join('\n');
    // The input is enabled once the upload limits have loaded: a file set on it while disabled is
    // ignored (a CI run on a loaded machine lost its upload that way: nothing stored, nothing queued).
    const input = page.getByLabel('Or choose files');
    await expect.poll(() => input.isEnabled(), { timeout: 30_000 }).toBe(true);
    await input.setInputFiles({ name: 'first-day-flow.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const row = fileRow(page, 'first-day-flow.csv');
    await waitForFileStatus(page, 'first-day-flow.csv', 'processed', 60_000);
    await expect.poll(() => row.textContent()).toContain('1 warning: a cash flow that counts in no return');
    const toggle = row.getByRole('button', { name: /Show 1 warning of first-day-flow\.csv/ });
    await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await expect.poll(() => row.getByRole('button', { name: /Hide 1 warning of first-day-flow\.csv/ }).getAttribute('aria-expanded')).toBe('true');
    const warnings = page.getByRole('table', { name: /Warnings of first-day-flow\.csv/ });
    await warnings.waitFor();
    await expectCount(warnings.getByRole('row'), 2);
    const cells = warnings.getByRole('row').nth(1).getByRole('cell');
    await expect.poll(() => cells.nth(0).textContent()).toBe('2');
    await expect.poll(() => cells.nth(1).textContent()).toBe('cash_flow');
    await expect.poll(() => cells.nth(2).textContent()).toMatch(/2024-06-03, the first valuation date of account ACC-9001, counts in no return/);
    expect((await expectSoundLayout(page)).tablesChecked).toBe(2);
    expect(session.problems).toEqual([]);
    await session.context.close();
    // The file's ingest alone may take up to a minute on a loaded machine: the test has room beyond it.
  }, 180_000);
});

describe.skipIf(!browserAvailable)('Returns page', () => {
  interface Dietz {
    dietzDailyReturns: { days: { date: string; netFlow: string }[]; timeWeightedReturn: { value: string }; modifiedDietzReturn: { value: string } };
  }
  const DIETZ =
    'query($e: String!, $s: Date!, $t: Date!) { dietzDailyReturns(entityName: $e, startDate: $s, endDate: $t) { days { date netFlow } timeWeightedReturn { value } modifiedDietzReturn { value } } }';
  const percent = (fraction: string) => `${Number(fraction) > 0 ? '+' : ''}${(Number(fraction) * 100).toFixed(4)} %`;

  it('filters the comparison table, charts an entity with its cash flows and labelled period returns, and explains errors', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/returns', 'Returns');

    const table = page.getByRole('table', { name: 'Custodian vs computed daily returns' });
    await table.waitFor();
    // 28 comparisons (14 days of 2 accounts): a full first page and a second one.
    await expectCount(table.locator('tbody tr'), 25);
    // Each row's reason is a sentence, not a formula.
    const reasons = await table.locator('td.reason').allTextContents();
    expect(reasons.length).toBe(25);
    for (const reason of reasons) {
      expect(reason).toMatch(
        /^(Within the match threshold: [\d.]+ bps apart \(threshold [\d.]+ bps\)|Over the match threshold, within the review threshold: .+|Over the review threshold: .+|Opposite signs: .+|The (custodian|computed) return is missing|Both returns are missing|computed return undefined: .+)$/,
      );
      expect(reason).not.toMatch(/\||<=|>/);
    }
    await page.getByRole('navigation', { name: 'Comparisons pages' }).getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2').waitFor();
    // The pager moves at once; the rows follow when the second page arrives.
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: 10_000 }).toBe(3);

    // Filter by status: the rows are exactly the API's rows of that status.
    const byStatus = await api<{ returnComparison: { edges: { node: { status: string } }[] } }>(
      '{ returnComparison(first: 500) { edges { node { status } } } }',
    );
    const counts = new Map<string, number>();
    for (const { node } of byStatus.returnComparison.edges) counts.set(node.status, (counts.get(node.status) ?? 0) + 1);
    const [status, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    await page.getByLabel(/^Status/).selectOption(status);
    await waitUntil(
      async () =>
        (await table.locator('tbody tr').count()) === Math.min(count, 25) && (await table.locator('.badge').allTextContents()).every((text) => text === status),
    );
    // ...and by account code.
    await page.getByLabel(/^Account code/).fill('ACC-2002');
    await page.getByRole('button', { name: 'Apply' }).click();
    await waitUntil(async () => (await table.locator('tbody tr').allTextContents()).every((text) => text.includes('ACC-2002') && text.includes(NORTHWIND)));
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await waitUntil(async () => (await table.locator('tbody tr').count()) === 25);

    // The chart opens on the first entity by name, over a range covering its data.
    const results = page.locator('.dietz-results');
    await results.getByText(HARBOR).first().waitFor();
    await expect.poll(() => page.getByLabel(/^Entity/).inputValue()).toBe(HARBOR);
    await expect.poll(() => page.getByLabel(/^From/).inputValue()).toBe('2025-02-25');
    await expect.poll(() => page.getByLabel(/^To/).inputValue()).toBe('2025-03-21');

    // Another entity, typed: its figures labelled, the canvas drawn, its cash flows listed.
    await page.getByLabel(/^Entity/).fill(NORTHWIND);
    await page.getByRole('button', { name: 'Show returns' }).click();
    await results.getByText(NORTHWIND).first().waitFor();
    const expected = await api<Dietz>(DIETZ, { e: NORTHWIND, s: '2025-02-25', t: '2025-03-21' });
    const twr = results.locator('.card', { hasText: 'Time-weighted return (linked daily Modified Dietz)' });
    const mwr = results.locator('.card', { hasText: 'Money-weighted return (Modified Dietz over the period)' });
    await expect.poll(() => twr.locator('.stat-value').textContent()).toBe(percent(expected.dietzDailyReturns.timeWeightedReturn.value));
    await expect.poll(() => mwr.locator('.stat-value').textContent()).toBe(percent(expected.dietzDailyReturns.modifiedDietzReturn.value));
    await expect.poll(() => twr.textContent()).toContain('not annualized');

    const canvas = page.getByRole('img', { name: /Chart of the daily Modified Dietz returns of Northwind Family Trust/ });
    await canvas.waitFor();
    const flowDays = expected.dietzDailyReturns.days.filter((day) => Number(day.netFlow) !== 0).length;
    await expect.poll(() => canvas.getAttribute('aria-label')).toContain(`${flowDays} days with cash flows marked`);
    // The cumulative line is the service's linking: it ends exactly at the time-weighted figure.
    const twrValue = Number(expected.dietzDailyReturns.timeWeightedReturn.value);
    await expect.poll(() => canvas.getAttribute('aria-label')).toContain(`line ending at ${twrValue > 0 ? '+' : ''}${(twrValue * 100).toFixed(2)} %`);
    await waitUntil(() =>
      canvas.evaluate((element) => {
        const c = element as HTMLCanvasElement;
        const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) painted += 1;
        return c.width > 300 && c.height > 200 && painted > 2000;
      }),
    );
    await results.getByRole('table', { name: 'Cash flows' }).getByText('Distribution to beneficiary').waitFor();

    // The daily figures, for readers who cannot see the canvas.
    await results.getByText(`Daily figures (${expected.dietzDailyReturns.days.length} days)`).click();
    const daily = results.getByRole('table', { name: 'Daily Modified Dietz returns' });
    await daily.waitFor();
    await expectCount(daily.locator('tbody tr'), expected.dietzDailyReturns.days.length);
    // The entity's period table and month-by-year heat map (test/dashboard/returns-analytics.test.ts reads them).
    await page
      .getByRole('table', { name: /time-weighted returns as of/ })
      .locator('tbody tr')
      .first()
      .waitFor();
    await page
      .getByRole('table', { name: /time-weighted return of each month and year/ })
      .locator('tbody tr')
      .first()
      .waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'returns');
    // The comparison, the cash flows, the daily figures, the periods and the heat map: headers over their columns, nothing off a phone's screen.
    expect((await expectSoundLayout(page, { screenshot: 'returns-layout' })).tablesChecked).toBe(5);

    // From a row of the comparison table to that entity's chart.
    await table
      .getByRole('button', { name: `Chart the daily returns of ${HARBOR}` })
      .first()
      .click();
    await page.getByRole('img', { name: new RegExp(`returns of ${HARBOR}`) }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('entity-returns-title');

    // Errors in words: a range that ends before it starts (checked here), an unknown entity (by the service).
    await page.getByLabel(/^From/).fill('2025-03-21');
    await page.getByLabel(/^To/).fill('2025-03-01');
    await page.getByRole('button', { name: 'Show returns' }).click();
    await page.getByRole('alert').filter({ hasText: 'The end date is before the start date.' }).waitFor();
    await page.getByLabel(/^To/).fill('2025-03-21');
    await page.getByLabel(/^From/).fill('2025-03-01');
    await page.getByLabel(/^Entity/).fill('No Such Fund');
    await page.getByRole('button', { name: 'Show returns' }).click();
    await page.getByRole('alert').filter({ hasText: 'No entity named “No Such Fund” in your organizations' }).waitFor();
    // An empty range: no daily returns, said so.
    await page.getByLabel(/^Entity/).fill(HARBOR);
    await page.getByLabel(/^From/).fill('2024-01-01');
    await page.getByLabel(/^To/).fill('2024-01-31');
    await page.getByRole('button', { name: 'Show returns' }).click();
    await page.getByText(/has no daily returns from/).waitFor();

    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('fits a 390 px wide phone', async () => {
    const session = await signInToDashboard(browser, server.url, user, PHONE);
    const { page } = session;
    await openPage(page, '/files', 'Files');
    await page.getByLabel(/^Organization/).selectOption({ label: 'Zephyr Capital' });
    await fileRow(page, 'pnl-sample.csv').waitFor();
    await expectNoHorizontalScroll(page);
    // Each file is a card: its name, and its status badge whole, on one line, on the screen.
    for (const name of ['pnl-sample.csv', 'pnl-with-errors.csv']) {
      const row = fileRow(page, name);
      await expectWithinWidth(page, row.getByRole('rowheader'));
      const badge = row.locator('.badge');
      await expectWithinWidth(page, badge);
      await expectOneLine(badge);
    }
    await expectWithinWidth(page, fileRow(page, 'pnl-with-errors.csv').getByRole('button', { name: /Show \d+ row errors/ }));
    await screenshot(page, 'files-390');
    await expectSoundLayout(page);
    await openPage(page, '/returns', 'Returns');
    await page.getByRole('img', { name: /Chart of the daily Modified Dietz returns/ }).waitFor();
    await expectNoHorizontalScroll(page);
    // The comparison's main columns are on the screen: the entity, the difference, the status and the reason in words.
    const comparison = page.getByRole('table', { name: 'Custodian vs computed daily returns' }).locator('tbody > tr').first();
    await expectWithinWidth(page, comparison.getByRole('button', { name: /Chart the daily returns of/ }));
    await expectWithinWidth(page, comparison.locator('td[data-label="Diff. (bps)"]'));
    await expectWithinWidth(page, comparison.locator('.badge'));
    await expectOneLine(comparison.locator('.badge'));
    await expectWithinWidth(page, comparison.locator('td.reason'));
    await expect.poll(() => comparison.locator('td.reason').textContent()).toMatch(/bps apart|missing|Opposite signs/);
    await screenshot(page, 'returns-390');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
