/**
 * The Usage page in a real browser: after a known sequence of calls with an API key, the page shows
 * the key among the viewer's credentials, its chart of requests and errors (a canvas described by
 * its label) and its operations with exact counts; laid out soundly at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, expectSoundLayout, openPage, signInToDashboard } from '../helpers/browser.ts';

describe.skipIf(!browserAvailable)('dashboard: usage page', () => {
  let server: TestServer, browser: Browser, owner: TestUser;

  beforeAll(async () => {
    ({ server, browser, owner } = await startServerAndBrowser({ owner: { role: 'member', scopes: ['read:workspace', 'write:workspace'] } }));
    for (let i = 0; i < 5; i++) expect((await callApi(server.url, owner, 'GET', '/api/stickies')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await callApi(server.url, owner, 'GET', '/api/stickies?limit=0')).status).toBe(400);
    expect((await callApi(server.url, owner, 'POST', '/api/stickies', { content: 'counted' })).status).toBe(201);
    await server.services.usage.flush();
  }, 180_000);

  afterAll(() => closeBrowserAndServer(browser, server));

  it('charts the requests and errors of a credential and lists its operations', async () => {
    const { page, problems } = await signInToDashboard(browser, server.url, owner);
    await openPage(page, '/usage', 'Usage');
    // The browser session is a credential too: choose the key.
    const key = await server.services.prisma.apiKey.findFirstOrThrow({ where: { userId: owner.userId } });
    await page.getByRole('combobox', { name: /^Credential/ }).selectOption(`api_key:${key.id}`);
    const panel = page.getByRole('region', { name: 'API key “test”' });
    await panel.waitFor();
    await panel.getByText('8 requests, 2 errors (0 rate-limited)').waitFor();
    await panel.getByRole('img', { name: /API key “test”.*: 8 requests and 2 errors, last 48 hours, by hour/ }).waitFor();
    const operations = panel.getByRole('table', { name: 'Requests per operation' });
    const stickies = operations.getByRole('row').filter({ hasText: 'Stickies' });
    await expect.poll(() => stickies.locator('td').allInnerTexts()).toEqual(['Stickies', 'rest', '7', '2', '0', expect.stringMatching(/^≤ [\d.]+ ms$/)]);
    await operations.getByRole('row').filter({ hasText: 'CreateSticky' }).waitFor();

    // By day: the same counts.
    await page.getByRole('button', { name: 'Last 30 days, by day' }).click();
    await panel.getByRole('img', { name: /8 requests and 2 errors, last 30 days, by day/ }).waitFor();
    await expectSoundLayout(page, { screenshot: 'usage-page' });
    expect(problems).toEqual([]);
  });
});
