/**
 * The service's own small pages (htmlPage(): the sign-in page, the OAuth consent page and its
 * refusal) laid out in a real browser at 1280 px and at 390 px (expectSoundLayout): nothing wider
 * than a phone's screen, even with an error shown or a long application name and website.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, expectSoundLayout, LAYOUT_WIDTHS, signInToDashboard, watchForProblems } from '../helpers/browser.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

describe.skipIf(!browserAvailable)('the sign-in and consent pages fit a phone', () => {
  let server: TestServer, browser: Browser, member: TestUser;
  beforeAll(
    async () => ({ server, browser, member } = await startServerAndBrowser({ member: { role: 'member', scopes: ['read:returns', 'read:workspace'] } })),
    180_000,
  );
  afterAll(() => closeBrowserAndServer(browser, server));

  const authorizeUrl = (clientId: string) =>
    `/oauth/authorize?${new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'read:returns read:workspace write:workspace',
      state: 'layout',
    })}`;

  it('/login, empty and with a wrong password refused', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: LAYOUT_WIDTHS.phone });
    const page = await context.newPage();
    const problems = watchForProblems(page);
    await page.goto('/login');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectSoundLayout(page, { screenshot: 'login' });
    expect(problems).toEqual([]);
    // A refusal (401: Chromium logs the status, so no console check past here) adds the reason.
    await page.getByLabel('Email').fill(member.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
    await expectSoundLayout(page, { screenshot: 'login-refused' });
    await context.close();
  });

  it('the consent page, with a long application name and website, and the refusal of an unknown application', async () => {
    const client = await server.services.oauth.register({
      client_name: 'Northwind Family Trust quarterly reporting assistant (desktop edition)',
      // No hyphen to break at: only the page's own rule can wrap it.
      client_uri: `https://reporting.example.com/products/desktop_host/${'release_notes_and_downloads_'.repeat(3)}current`,
      redirect_uris: [REDIRECT_URI],
    });
    const session = await signInToDashboard(browser, server.url, member, LAYOUT_WIDTHS.phone);
    const { page } = session;
    await page.goto(authorizeUrl(client.client_id));
    await page.getByRole('heading', { level: 1, name: /^Allow Northwind Family Trust .* to use the gateway\?$/ }).waitFor();
    await page.getByRole('checkbox', { name: /read:workspace/ }).waitFor();
    await expectSoundLayout(page, { screenshot: 'consent' });
    expect(session.problems).toEqual([]);
    // An unknown client is refused on a page of the same look (400: no console check).
    await page.goto(authorizeUrl('mcp_00000000000000000000000000000000'));
    await page.getByRole('heading', { level: 1, name: 'This authorization request cannot be completed' }).waitFor();
    await expectSoundLayout(page, { screenshot: 'consent-refused' });
    await session.context.close();
  });
});
