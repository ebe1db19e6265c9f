/**
 * The Webhooks page in a real browser (docs/webhooks.md#dashboard), against a receiver of the test's
 * own on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE=true) that answers its first request 500 and the rest 200:
 * an admin registers an organization's endpoint, sees the signing secret once (copied, gone after a
 * reload) and the service's own error for a bad URL; sends a test event, sees it fail once and
 * succeed on the retry, opens its attempts, redelivers it (same webhook-id); rotates the secret (both
 * signatures verify), edits, disables and enables, deletes behind a confirmation. A member's own
 * endpoint, disabled by the service after its failures, shows why. Every request received is
 * verified with the `standardwebhooks` package and the secret the page showed. Layout and axe at
 * 1280 and 390 px.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { LAYOUT_WIDTHS, browserAvailable, expectCount, expectSoundLayout, openPage, screenshot, signInToDashboard } from '../helpers/browser.ts';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ORG = 'Hooked Holdings';

interface Received {
  headers: Record<string, string>;
  body: string;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(!browserAvailable)('dashboard: webhooks page', () => {
  let server: TestServer, browser: Browser, admin: TestUser, member: TestUser;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
        const n = received.push({ headers, body: Buffer.concat(chunks).toString('utf8') }) - 1;
        const status = n === 0 ? 500 : 200;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(`receiver answer ${n}: ${status}`);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    ({ server, browser, admin, member } = await startServerAndBrowser(
      { admin: { org: ORG, role: 'admin', scopes: ['admin'] }, member: { role: 'member', scopes: ['write:webhooks'] } },
      { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms' },
    ));
  }, 180_000);

  afterAll(async () => {
    await closeBrowserAndServer(browser, server);
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** The deliveries table's rows (not the attempts rows beneath them). */
  const deliveryRows = (page: Page) => page.getByRole('table', { name: 'Deliveries', exact: true }).locator(':scope > tbody > tr[data-delivery-id]');
  const cellText = (row: Locator, label: string) => row.locator(`[data-label="${label}"]`).innerText();

  it('registers an endpoint with its secret shown once, tests it, shows the attempts, redelivers, rotates, edits and deletes it', async () => {
    const session = await signInToDashboard(browser, server.url, admin, undefined, { bypassCSP: true });
    const { page } = session;
    await openPage(page, '/webhooks', 'Webhooks');
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true }).getAttribute('aria-current'))
      .toBe('page');
    const list = page.getByRole('region', { name: 'Your endpoints' });
    await list.getByText('No webhook endpoints yet.').waitFor();

    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    // The organization's events are offered for an organization's endpoint (selftest.failed: the admin scope), a user's for their own.
    await expect.poll(() => form.getByRole('combobox', { name: 'Owner' }).inputValue()).toBe(admin.orgId);
    await expect
      .poll(() => form.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)))
      .toEqual(['file.processed', 'file.failed', 'reconciliation.investigate', 'selftest.failed', 'webhook.test']);
    await form.getByRole('combobox', { name: 'Owner' }).selectOption({ label: 'You (your own summaries)' });
    await expect
      .poll(() => form.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)))
      .toEqual(['generation.completed', 'generation.failed', 'webhook.test']);
    await form.getByRole('combobox', { name: 'Owner' }).selectOption(admin.orgId);

    // What is missing is said before sending; what the service refuses, in its own words.
    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await form.getByRole('alert').filter({ hasText: 'Choose at least one event.' }).waitFor();
    await form.getByRole('checkbox', { name: /^file\.processed/ }).check();
    await form.getByRole('checkbox', { name: /^file\.failed/ }).check();
    await form.getByLabel('URL').fill('ftp://hooks.example.com/x');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: 'Could not create the endpoint:' })
      .filter({ hasText: 'must be an https: (or, outside production, http:) URL' })
      .waitFor();

    await form.getByLabel('URL').fill(receiverUrl);
    await form.getByLabel('Description (optional)').fill('back office');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const shown = page.getByRole('status').filter({ hasText: 'it is shown only now and cannot be read again' });
    await shown.waitFor();
    const secret = (await shown.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    await shown.getByRole('button', { name: 'Copy the secret' }).click();
    await shown.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const table = list.getByRole('table', { name: 'Your webhook endpoints' });
    const row = table.getByRole('row').filter({ hasText: receiverUrl });
    await row.waitFor();
    await expect.poll(() => row.locator('.tag').allInnerTexts()).toEqual(['file.processed', 'file.failed']);
    await expect.poll(() => cellText(row, 'State')).toBe('Enabled');
    await expect.poll(() => cellText(row, 'Owner')).toBe(ORG);
    await row.getByText('back office').waitFor();
    await expectNoAxeViolations(page);
    expect((await expectSoundLayout(page, { screenshot: 'webhooks-created' })).tablesChecked).toBe(1);

    // The secret was shown once: a reload (or anyone reading the endpoint) never sees it again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await row.waitFor();
    await expectCount(page.getByText(secret), 0);
    await expectCount(page.getByText(/whsec_/), 0);

    await row.getByRole('link', { name: receiverUrl }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    await deliveries.getByText('Nothing has been sent to this endpoint yet.').waitFor();

    // A test event: the receiver's 500 fails the first attempt, the retry succeeds.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').filter({ hasText: 'A webhook.test event is on its way' }).waitFor();
    await expectCount(deliveryRows(page), 1);
    const first = deliveryRows(page).first();
    await expect.poll(() => cellText(first, 'Status'), { timeout: 30_000 }).toBe('succeeded');
    expect(await first.getByRole('rowheader').innerText()).toBe('webhook.test');
    await expect.poll(() => cellText(first, 'Attempts')).toBe('2');
    await expect.poll(() => cellText(first, 'Last status')).toBe('200');
    await expect.poll(() => cellText(first, 'Next attempt')).toBe('—');
    expect(received).toHaveLength(2);
    const event = new Webhook(secret).verify(received[1]!.body, received[1]!.headers) as { type: string; data: { endpoint_id: string } };
    expect(event.type).toBe('webhook.test');
    const endpointId = page.url().split('/webhooks/')[1]!;
    expect(event.data.endpoint_id).toBe(endpointId);

    // Its attempts: the 500 with the receiver's answer, then the 200.
    await first.getByRole('button', { name: /^Show attempts/ }).click();
    const attempts = page.getByRole('table', { name: 'Attempts of the webhook.test delivery' });
    await attempts.waitFor();
    const attemptRows = attempts.locator('tbody > tr');
    await expectCount(attemptRows, 2);
    expect(await cellText(attemptRows.nth(0), 'Status code')).toBe('500');
    expect(await cellText(attemptRows.nth(0), 'Response')).toBe('receiver answer 0: 500');
    expect(await cellText(attemptRows.nth(0), 'Duration')).toMatch(/^\d+ ms$/);
    expect(await cellText(attemptRows.nth(0), 'Error')).toBe('HTTP 500');
    expect(await cellText(attemptRows.nth(1), 'Status code')).toBe('200');
    expect(await cellText(attemptRows.nth(1), 'Response')).toBe('receiver answer 1: 200');
    expect(await cellText(attemptRows.nth(1), 'Error')).toBe('—');

    // Redelivered: a new delivery at the top, the same webhook-id to the receiver.
    await first.getByRole('button', { name: /^Redeliver/ }).click();
    await page.getByRole('status').filter({ hasText: 'The webhook.test event was sent again' }).waitFor();
    await expectCount(deliveryRows(page), 2);
    await expect.poll(() => cellText(deliveryRows(page).first(), 'Status'), { timeout: 30_000 }).toBe('succeeded');
    await expect.poll(() => received.length).toBe(3);
    expect(received[2]!.headers['webhook-id']).toBe(received[1]!.headers['webhook-id']);
    new Webhook(secret).verify(received[2]!.body, received[2]!.headers);
    await expectNoAxeViolations(page);
    // The deliveries' table and the attempts' beneath the one opened.
    expect((await expectSoundLayout(page, { screenshot: 'webhooks-deliveries' })).tablesChecked).toBe(2);

    // Rotation asks first, shows the new secret once and says the old one keeps signing for 24 hours.
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    const rotated = page.getByRole('status').filter({ hasText: 'The new signing secret' });
    await rotated.getByText('The previous secret keeps signing beside this one for 24 hours').waitFor();
    const newSecret = (await rotated.getByTestId('webhook-secret').textContent())!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await page.getByText(/^still signs beside the new one until /).waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(4);
    for (const key of [secret, newSecret])
      expect((new Webhook(key).verify(received[3]!.body, received[3]!.headers) as { type: string }).type).toBe('webhook.test');
    await screenshot(page, 'webhooks-rotated-1280');
    await page.setViewportSize(LAYOUT_WIDTHS.phone);
    await screenshot(page, 'webhooks-rotated-390');
    await page.setViewportSize(LAYOUT_WIDTHS.desktop);
    await rotated.getByRole('button', { name: 'I have stored it' }).click();
    await expectCount(page.getByText(/whsec_/), 0);

    // Edit: the events and the description.
    const settings = page.getByRole('form', { name: 'Endpoint settings' });
    await settings.getByRole('checkbox', { name: /^file\.processed/ }).uncheck();
    await settings.getByRole('checkbox', { name: /^reconciliation\.investigate/ }).check();
    await settings.getByLabel('Description (optional)').fill('reconciliation desk');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const facts = page.getByRole('region', { name: 'Endpoint', exact: true });
    await expect.poll(() => facts.locator('.tag').allInnerTexts()).toEqual(['file.failed', 'reconciliation.investigate']);
    await facts.getByText('reconciliation desk').waitFor();
    const stored = await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
    expect([stored.events, stored.description]).toEqual([['file.failed', 'reconciliation.investigate'], 'reconciliation desk']);
    // A URL the service refuses: its message, and nothing changed.
    await settings.getByLabel('URL').fill('http://user:pw@127.0.0.1/x');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await settings.getByRole('alert').filter({ hasText: 'must not carry a user name or password' }).waitFor();
    await settings.getByLabel('URL').fill(receiverUrl);

    // Disable, then enable.
    await facts.getByRole('button', { name: 'Disable' }).click();
    await facts.getByText('Turned off by its owner').waitFor();
    await facts.locator('.badge', { hasText: 'Disabled' }).waitFor();
    expect((await server.services.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } })).enabled).toBe(false);
    await facts.getByRole('button', { name: 'Enable' }).click();
    await facts.locator('.badge', { hasText: 'Enabled' }).waitFor();

    // Delete: cancelling keeps it; confirming deletes it.
    await facts.getByRole('button', { name: 'Delete the endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expectCount(page.getByRole('dialog'), 0);
    expect(await server.services.prisma.webhookEndpoint.count({ where: { id: endpointId } })).toBe(1);
    await facts.getByRole('button', { name: 'Delete the endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `The endpoint ${receiverUrl} was deleted with its deliveries` })
      .waitFor();
    expect(await server.services.prisma.webhookEndpoint.count({ where: { id: endpointId } })).toBe(0);
    await page.getByRole('link', { name: '← All endpoints' }).click();
    await list.getByText('No webhook endpoints yet.').waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  }, 180_000);

  it("a member's own endpoint, made on a phone, shows the service's reason once it is disabled after failing", async () => {
    const session = await signInToDashboard(browser, server.url, member, LAYOUT_WIDTHS.phone, { bypassCSP: true });
    const { page } = session;
    await openPage(page, '/webhooks', 'Webhooks');
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    // A member has no organization to choose: the endpoint is their own.
    await form.getByRole('checkbox', { name: /^generation\.completed/ }).waitFor();
    await expectCount(form.getByRole('combobox', { name: 'Owner' }), 0);
    await form.getByLabel('URL').fill(`${receiverUrl}/mine`);
    await form.getByRole('checkbox', { name: /^generation\.completed/ }).check();
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByTestId('webhook-secret').waitFor();
    const row = page
      .getByRole('table', { name: 'Your webhook endpoints' })
      .getByRole('row')
      .filter({ hasText: `${receiverUrl}/mine` });
    await row.waitFor();
    await expect.poll(() => cellText(row, 'Owner')).toBe('You');

    // What the delivery worker writes after 5 days of failures (src/webhooks/delivery-worker.ts).
    const failingSince = new Date('2026-03-02T09:00:00Z');
    const reason = 'Disabled 2026-03-07T09:00:00.000Z: every delivery has failed since 2026-03-02T09:00:00.000Z (5 days or more); the last error: HTTP 503.';
    await server.services.prisma.webhookEndpoint.updateMany({
      where: { url: `${receiverUrl}/mine` },
      data: { enabled: false, disabledReason: reason, failingSince },
    });
    await page.reload();
    await row.waitFor();
    const state = row.locator('[data-label="State"]');
    await state.locator('.badge', { hasText: 'Disabled' }).waitFor();
    await state.getByText(/^Failing since /).waitFor();
    await state.getByText(reason).waitFor();
    await expectNoAxeViolations(page);
    expect((await expectSoundLayout(page, { screenshot: 'webhooks-list' })).tablesChecked).toBe(1);

    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    const facts = page.getByRole('region', { name: 'Endpoint', exact: true });
    await facts.getByText(reason).waitFor();
    await facts.getByRole('button', { name: 'Enable' }).click();
    await facts.locator('.badge', { hasText: 'Enabled' }).waitFor();
    await expectCount(facts.getByText(reason), 0);
    await expectSoundLayout(page, { screenshot: 'webhooks-endpoint' });
    expect(session.problems).toEqual([]);
    await session.context.close();
  }, 120_000);
});

/** axe-core's WCAG 2.1 A and AA rules on the page as it is (as test/dashboard/accessibility.test.ts runs them). */
async function expectNoAxeViolations(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  expect(violations.map((v) => `${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}
