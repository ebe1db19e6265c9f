/**
 * The dashboard in a real browser: sign-in and sign-out, the navigation (also at a phone's
 * width), API keys and access tokens created, used against the REST API and revoked, and the
 * system page with a self-test run triggered from it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { Browser } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { callApi, getJson, type TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, openPage, screenshot, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import { expectCompactRows, expectNoHorizontalScroll, expectOneLine, expectWithinWidth, PHONE } from './phone.ts';

describe.skipIf(!browserAvailable)('dashboard: shell, API keys and tokens, system', () => {
  let server: TestServer, browser: Browser, admin: TestUser, member: TestUser;
  beforeAll(
    async () =>
      ({ server, browser, admin, member } = await startServerAndBrowser({ admin: { role: 'admin' }, member: { role: 'member', scopes: ['read:returns'] } })),
  );

  afterAll(() => closeBrowserAndServer(browser, server));

  it('signs in through /login, shows the overview and every section in the navigation, and signs out', async () => {
    const session = await signInToDashboard(browser, server.url, admin);
    const { page } = session;
    await page.getByRole('heading', { level: 1, name: /Welcome/ }).waitFor();
    await expect(page.getByText(`Signed in as ${admin.email} (admin).`)).toBeTruthy();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const label of [
      'Overview',
      'Files',
      'Returns',
      'Stickies',
      'Links',
      'Transcripts',
      'Tasks',
      'News',
      'Chat',
      'Summaries',
      'System',
      'API keys & tokens',
    ]) {
      expect(await nav.getByRole('link', { name: label, exact: true }).count(), label).toBe(1);
    }
    await expect.poll(() => page.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current')).toBe('page');
    await screenshot(page, 'overview');
    await expectSoundLayout(page);
    const captured = (await session.context.cookies()).find((cookie) => cookie.name === 'sso_token')!;
    expect((await getJson(`${server.url}/status`, { headers: { cookie: `sso_token=${captured.value}` } })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectSoundLayout(page);
    // The session is gone: the dashboard sends the browser back to sign in.
    await page.goto('/');
    await page.waitForURL(/\/login\?next=/);
    // ... on the server too: a copy of the cookie taken before signing out no longer works.
    const replayed = await getJson(`${server.url}/status`, { headers: { cookie: `sso_token=${captured.value}` } });
    expect(replayed.status).toBe(401);
    expect(replayed.body).toEqual({ error: 'Invalid or expired session' });
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a wrong password stays on the sign-in page with the reason in words', async () => {
    const session = await signInToDashboard(browser, server.url, admin);
    await session.context.clearCookies();
    const page = await session.context.newPage();
    await page.goto('/');
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    await expectSoundLayout(page);
    await session.context.close();
  });

  it('creates an API key shown once with a copy button, which then works on the REST API until it is revoked', async () => {
    const session = await signInToDashboard(browser, server.url, member);
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const panel = page.getByRole('region', { name: 'API keys', exact: true });
    await panel.getByLabel('Name').fill('Reporting job');
    await panel.getByLabel('Expires').selectOption({ label: '30 days' });
    // A member cannot ask for admin: the choice is not offered.
    await expectCount(panel.getByRole('checkbox', { name: 'admin' }), 0);
    // Each scope says what it allows, next to its name.
    for (const [scope, allows] of [
      ['read:pnl', 'List uploaded files and read cash transactions'],
      ['read:returns', 'Read return comparisons, daily returns and the benchmark'],
      ['write:upload', "Upload CSV files and set entities' benchmarks: both change how the organization's returns are reported"],
      ['read:workspace', 'Read your stickies, links, transcripts, tasks, news and summaries'],
      ['write:workspace', 'Change your workspace, chat, and start or cancel summaries'],
      ['write:webhooks', 'Manage your webhook endpoints, and those of the organizations you manage'],
    ]) {
      await expect
        .poll(() =>
          panel
            .locator('label', { has: page.getByRole('checkbox') })
            .filter({ hasText: scope })
            .textContent(),
        )
        .toBe(`${scope} ${allows}`);
    }
    // Creating a key asks for the password again: first forgotten, then wrong, then right.
    await panel.getByRole('button', { name: 'Create API key' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Enter your current password to create an API key.' }).waitFor();
    await panel.getByLabel('Current password').fill('not the password');
    await panel.getByRole('button', { name: 'Create API key' }).click();
    await panel.getByRole('alert').filter({ hasText: 'The current password is wrong' }).waitFor();
    // The password field is emptied after each attempt.
    await expect.poll(() => panel.getByLabel('Current password').inputValue()).toBe('');
    await panel.getByLabel('Current password').fill(member.password);
    await panel.getByRole('button', { name: 'Create API key' }).click();
    const secret = (await panel.getByTestId('new-secret').textContent())!;
    expect(secret).toMatch(/^sk_[0-9a-f]{32}$/);
    await panel.getByText('it is shown only this once').waitFor();
    await panel.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await panel.getByRole('button', { name: 'Copied' }).waitFor();

    const row = panel.getByRole('row').filter({ hasText: 'Reporting job' });
    await row.getByText(secret.slice(0, 11)).waitFor();
    await row.getByText('read:returns').waitFor();
    await row.getByText('Never').waitFor(); // last used
    await screenshot(page, 'settings');
    // The headers stand over their columns: "Expires" over the expiry date, not over "Last used".
    expect((await expectSoundLayout(page, { screenshot: 'settings-layout' })).tablesChecked).toBe(1);

    // The key works where a REST client uses it, and the listing then shows it was used.
    const used = await getJson(`${server.url}/api/returns/comparison`, { headers: { 'x-api-key': secret } });
    expect(used.status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys & tokens' }).waitFor();
    const reloadedRow = page.getByRole('region', { name: 'API keys', exact: true }).getByRole('row').filter({ hasText: 'Reporting job' });
    await expect.poll(async () => (await reloadedRow.getByRole('cell').nth(4).textContent()) ?? '').not.toBe('Never');
    // The secret is not shown again after a reload.
    await expectCount(page.getByTestId('new-secret'), 0);

    // Revoking asks first; cancelling keeps the key.
    await reloadedRow.getByRole('button', { name: 'Revoke Reporting job' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await getJson(`${server.url}/api/returns/comparison`, { headers: { 'x-api-key': secret } })).status).toBe(200);
    await reloadedRow.getByRole('button', { name: 'Revoke Reporting job' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('“Reporting job” was revoked').waitFor();
    await reloadedRow.getByText('Revoked').waitFor();
    const refused = await getJson(`${server.url}/api/returns/comparison`, { headers: { 'x-api-key': secret } });
    expect(refused.status).toBe(401);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('creates an access token for the JSON-RPC endpoint; form mistakes are explained before anything is sent', async () => {
    const session = await signInToDashboard(browser, server.url, admin);
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const panel = page.getByRole('region', { name: 'Access tokens' });
    await panel.getByRole('button', { name: 'Create access token' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Give it a name' }).waitFor();
    await panel.getByLabel('Name').fill('Assistant');
    await panel.getByRole('checkbox', { name: 'read:returns' }).uncheck();
    await panel.getByRole('button', { name: 'Create access token' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Choose at least one scope.' }).waitFor();
    await panel.getByRole('checkbox', { name: 'read:workspace' }).check();
    await panel.getByLabel('Current password').fill(admin.password);
    await panel.getByRole('button', { name: 'Create access token' }).click();
    const token = (await panel.getByTestId('new-secret').textContent())!;
    expect(token).toMatch(/^pat_[0-9a-f]{32}$/);
    const stickies = await getJson(`${server.url}/api/stickies`, { headers: { authorization: `Bearer ${token}` } });
    expect(stickies.status).toBe(200);
    // Its scopes are the ones chosen.
    const denied = await getJson(`${server.url}/api/returns/comparison`, { headers: { authorization: `Bearer ${token}` } });
    expect(denied.status).toBe(403);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('an API error reaches the user in words: the session ended in another tab, and the page offers to sign in again', async () => {
    const session = await signInToDashboard(browser, server.url, admin);
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const panel = page.getByRole('region', { name: 'API keys', exact: true });
    await panel.getByLabel('Name').fill('After sign-out');
    await panel.getByLabel('Current password').fill(admin.password);
    await session.context.clearCookies();
    await panel.getByRole('button', { name: 'Create API key' }).click();
    const alert = panel.getByRole('alert').filter({ hasText: 'Could not create the API key:' });
    await alert.waitFor();
    await expect.poll(() => alert.textContent()).toMatch(/Could not create the API key: .*(sign|auth|credential|key)/i);
    await alert.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL(/\/login\?next=%2F%23%2Fsettings$/);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on the page the user was on.
    await page.getByRole('heading', { level: 1, name: 'API keys & tokens' }).waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('system page: health, worker and scheduler state, and a self-test run triggered by an admin appears in the history', async () => {
    const session = await signInToDashboard(browser, server.url, admin);
    const { page } = session;
    await openPage(page, '/system', 'System');
    await page.getByText('Database', { exact: true }).waitFor();
    await page.getByText('Worker', { exact: true }).waitFor();
    await page.getByText('Self-test scheduler').waitFor();
    await page.getByRole('button', { name: 'Run self-test now' }).click();
    const history = page.getByRole('table', { name: 'Self-test history' });
    await history
      .getByRole('row')
      .filter({ hasText: 'manual' })
      .filter({ hasText: /passed|failed/ })
      .waitFor({ timeout: 30_000 });
    const runs = await callApi(server.url, admin, 'GET', '/test-scheduler/history');
    expect(runs.status).toBe(200);
    await screenshot(page, 'system');
    expect((await expectSoundLayout(page, { screenshot: 'system-layout' })).tablesChecked).toBe(1);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a member sees the system page without the trigger', async () => {
    const session = await signInToDashboard(browser, server.url, member);
    const { page } = session;
    await openPage(page, '/system', 'System');
    await expect.poll(() => page.getByRole('button', { name: 'Run self-test now' }).isDisabled()).toBe(true);
    await page.getByText('needs an administrator').waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it("at a phone's width the navigation folds behind the Menu button and is keyboard usable", async () => {
    const session = await signInToDashboard(browser, server.url, admin, PHONE);
    const { page } = session;
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => nav.isVisible()).toBe(false);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => menu.getAttribute('aria-expanded')).toBe('true');
    // A self-test run for the history (409 when one is already running: that one will do).
    expect([202, 409]).toContain((await callApi(server.url, admin, 'POST', '/test-scheduler/trigger')).status);
    await nav.getByRole('link', { name: 'System' }).click();
    await page.getByRole('heading', { level: 1, name: 'System' }).waitFor();
    await expect.poll(() => nav.isVisible()).toBe(false);
    // Nothing is wider than the screen; each self-test run is a compact card with its status whole.
    await expectNoHorizontalScroll(page);
    const history = page.getByRole('table', { name: 'Self-test history' });
    const run = history
      .locator('tbody > tr')
      .filter({ hasText: /passed|failed/ })
      .first();
    await run.waitFor({ timeout: 30_000 });
    await expectCompactRows(history);
    await expectWithinWidth(page, run.locator('.badge'));
    await expectOneLine(run.locator('.badge'));
    await screenshot(page, 'system-phone');
    await openPage(page, '/settings', 'API keys & tokens');
    const keys = page.getByRole('table', { name: 'Your API keys' });
    await keys.waitFor();
    // The page does not scroll sideways; each key is a card with its status and Revoke on the screen.
    await expectNoHorizontalScroll(page);
    const row = keys.locator('tbody > tr').first();
    await expectWithinWidth(page, row.getByRole('cell').first());
    const status = row.locator('.badge', { hasText: 'Active' });
    await expectWithinWidth(page, status);
    await expectOneLine(status);
    await expectWithinWidth(page, row.getByRole('button', { name: /^Revoke / }));
    // What each scope allows, in words beside its name.
    const panel = page.getByRole('region', { name: 'API keys', exact: true });
    await expectWithinWidth(page, panel.getByText('Read return comparisons, daily returns and the benchmark'));
    await screenshot(page, 'settings-phone');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });
});
