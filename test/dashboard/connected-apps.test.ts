/**
 * The settings page's "Connected apps" panel in a real browser: an application the user authorized
 * through the MCP endpoint's OAuth server (set up through the services, as the consent page would)
 * is listed with its website, scopes and status; revoking it behind the confirmation ends its
 * access token at once. A user with none sees how to connect one. The page passes axe either way.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, expectCount, expectSoundLayout, openPage, screenshot, signInToDashboard } from '../helpers/browser.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { AuthorizationRequest } from '../../src/auth/oauth/authorization-request.ts';
import type { TokenResponse } from '../../src/auth/oauth/oauth-service.ts';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(!browserAvailable)('dashboard: connected apps (OAuth grants) on the settings page', () => {
  let server: TestServer, browser: Browser, member: TestUser, newcomer: TestUser, unnamed: TestUser;
  let resource: string;

  beforeAll(async () => {
    ({ server, browser, member, newcomer, unnamed } = await startServerAndBrowser({
      member: { role: 'member', scopes: ['read:returns'] },
      newcomer: { role: 'member', scopes: ['read:returns'] },
      unnamed: { role: 'member', scopes: ['read:returns'] },
    }));
    resource = `${server.url}/api/service`;
  }, 180_000);

  afterAll(() => closeBrowserAndServer(browser, server));

  /** What the consent page does when the user approves: a registered client, a code, and the tokens it is exchanged for. */
  async function connectApp(user: TestUser, metadata: { client_name?: string; client_uri?: string }, scopes: Scope[]): Promise<TokenResponse> {
    const { oauth } = server.services;
    const client = await oauth.register({ ...metadata, redirect_uris: [REDIRECT_URI] });
    const verifier = randomBytes(32).toString('base64url');
    const request: AuthorizationRequest = {
      client,
      redirectUri: REDIRECT_URI,
      scopes,
      resource,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    };
    const code = await oauth.approve(request, { id: user.userId, email: user.email, name: null, role: 'member' }, scopes);
    return (await oauth.exchangeCode({ clientId: client.client_id, code, codeVerifier: verifier, redirectUri: undefined, resource: undefined })).response;
  }

  it('lists an authorized app with its website, scopes and status; revoking it after the confirmation ends its access token', async () => {
    const tokens = await connectApp(member, { client_name: 'Test MCP host', client_uri: 'https://mcp-host.example/' }, ['read:workspace']);
    // The checker is injected as a script, which the page's content security policy would refuse.
    const session = await signInToDashboard(browser, server.url, member, undefined, { bypassCSP: true });
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const panel = page.getByRole('region', { name: 'Connected apps' });
    await panel.getByText('MCP hosts such as Claude, Cursor or VS Code').waitFor();
    const table = panel.getByRole('table', { name: 'Your connected apps' });
    const row = table.getByRole('row').filter({ hasText: 'Test MCP host' });
    await row.waitFor();
    await expectCount(table.locator('tbody > tr'), 1);
    // The website is the application's own claim: shown as text, not a link.
    await row.getByText('https://mcp-host.example/').waitFor();
    await expectCount(row.getByRole('link'), 0);
    // Its scope, with what it allows in words (as the credentials' tables show it).
    const scope = row.locator('.tag', { hasText: 'read:workspace' });
    await scope.waitFor();
    expect(await scope.getAttribute('title')).toBe('Read your stickies, links, transcripts, tasks, news and summaries');
    await expectCount(row.locator('.tag'), 1);
    await row.locator('.badge', { hasText: 'Active' }).waitFor();
    await expect.poll(async () => (await row.getByRole('cell').nth(4).textContent()) ?? '').toBe('Never');
    await expectNoAxeViolations(page);
    await screenshot(page, 'connected-apps');
    // The API keys' and the connected apps' tables: headers over their columns; nothing off a phone's screen.
    expect((await expectSoundLayout(page, { screenshot: 'connected-apps-layout' })).tablesChecked).toBe(2);

    // The token works for the MCP endpoint's resource; the listing then shows the app was used.
    expect(await server.services.oauth.verifyAccessToken(tokens.access_token, resource)).not.toBeNull();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys & tokens' }).waitFor();
    await row.waitFor();
    await expect.poll(async () => (await row.getByRole('cell').nth(4).textContent()) ?? '').not.toBe('Never');

    // Revoking asks first; cancelling keeps the app connected.
    await row.getByRole('button', { name: 'Revoke Test MCP host' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Revoke “Test MCP host”?').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    await row.locator('.badge', { hasText: 'Active' }).waitFor();
    expect(await server.services.oauth.verifyAccessToken(tokens.access_token, resource)).not.toBeNull();

    await row.getByRole('button', { name: 'Revoke Test MCP host' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await panel.getByRole('status').filter({ hasText: '“Test MCP host” was revoked' }).waitFor();
    await row.locator('.badge', { hasText: 'Revoked' }).waitFor();
    await expectCount(row.getByRole('button', { name: /^Revoke/ }), 0);
    expect(await server.services.oauth.verifyAccessToken(tokens.access_token, resource)).toBeNull();
    // It stays listed as revoked after a reload.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys & tokens' }).waitFor();
    await row.locator('.badge', { hasText: 'Revoked' }).waitFor();
    await expectNoAxeViolations(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  }, 120_000);

  it('an app that registered no name or website is listed as "Unnamed application"', async () => {
    await connectApp(unnamed, {}, ['read:workspace']);
    const session = await signInToDashboard(browser, server.url, unnamed);
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const row = page.getByRole('table', { name: 'Your connected apps' }).getByRole('row').filter({ hasText: 'Unnamed application' });
    await row.waitFor();
    await expect.poll(async () => (await row.getByRole('cell').nth(1).textContent()) ?? '').toBe('—');
    await row.getByRole('button', { name: 'Revoke Unnamed application' }).waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  }, 120_000);

  it('a user with no connected apps is told how to connect one', async () => {
    const session = await signInToDashboard(browser, server.url, newcomer, undefined, { bypassCSP: true });
    const { page } = session;
    await openPage(page, '/settings', 'API keys & tokens');
    const panel = page.getByRole('region', { name: 'Connected apps' });
    const empty = panel.getByText('No applications connected yet.');
    await empty.waitFor();
    await expect
      .poll(() => empty.textContent())
      .toBe(`No applications connected yet. To connect one, point your MCP host at ${server.url}/api/service; it opens a sign-in and consent page here.`);
    await expectCount(panel.getByRole('table'), 0);
    await expectNoAxeViolations(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  }, 120_000);
});

/** axe-core's WCAG 2.1 A and AA rules on the page as it is (as test/dashboard/accessibility.test.ts runs them). */
async function expectNoAxeViolations(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  expect(
    violations.map(
      (v) =>
        `${v.id} (${v.impact}) ${v.help}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    ),
  ).toEqual([]);
}
