/**
 * The Chat page with the offline assistant answering from returns data, in a real browser against
 * a real service: the answer shows the figure GET /api/returns/dietz-daily computes, and its
 * Markdown links are clickable and go to the right dashboard page. Plus the parser behind the
 * rendering: only http(s) and the dashboard's hash routes become links, never raw HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { Browser } from 'playwright-core';
import { browserAvailable, openPage, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import type { TestServer } from '../helpers/server.ts';
import { getJson, type TestUser } from '../helpers/fixtures.ts';
import { loadFiles } from '../helpers/returns-data.ts';
import { parseMarkdown, safeHref } from '../../dashboard/src/pages/chat/markdown.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('the Chat page renders the Markdown links of an answer safely', () => {
  it('links to http(s) and #/ routes; any other target stays text; no HTML', () => {
    expect(parseMarkdown('See [Returns](#/returns) or [the article](https://news.example.com/a?b=1), `GET /api`.')).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'link', text: 'Returns', href: '#/returns', external: false },
      { kind: 'text', text: ' or ' },
      { kind: 'link', text: 'the article', href: 'https://news.example.com/a?b=1', external: true },
      { kind: 'text', text: ', ' },
      { kind: 'code', text: 'GET /api' },
      { kind: 'text', text: '.' },
    ]);
    expect(parseMarkdown('[task "A \\[b\\]"](#/tasks/1)')).toEqual([{ kind: 'link', text: 'task "A [b]"', href: '#/tasks/1', external: false }]);
    for (const target of ['javascript:alert(1)', 'data:text/html,x', '//evil.example', '/graphql', 'mailto:a@b.c', '#top']) {
      expect(safeHref(target), target).toBeNull();
      expect(parseMarkdown(`[x](${target})`), target).toEqual([{ kind: 'text', text: `[x](${target})` }]);
    }
    expect(parseMarkdown('<img src=x onerror=alert(1)>')).toEqual([{ kind: 'text', text: '<img src=x onerror=alert(1)>' }]);
  });
});

describe.skipIf(!browserAvailable)('Chat page: the offline assistant answers a returns question', () => {
  let server: TestServer, browser: Browser, user: TestUser;
  beforeAll(async () => {
    ({ server, browser, user } = await startServerAndBrowser({ user: { role: 'member', scopes: ['read:returns', 'read:pnl', 'write:upload'] } }));
    const lines = ['account_code,entity_name,date,market_value,cash_flow,flow_timing,description'];
    let value = 5_000_000;
    for (let offset = -60; offset <= 0; offset += 1) {
      value *= 1 + 0.003 * Math.cos(offset / 4);
      lines.push(`CA-3001,Cedar Arch Fund,${new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)},${value.toFixed(2)},,,`);
    }
    await loadFiles(server.url, user.key, user.orgId, [{ name: 'cedar-pnl.csv', content: `${lines.join('\n')}\n` }], 120_000);
  });

  afterAll(() => closeBrowserAndServer(browser, server));

  it('shows the time-weighted return with a clickable link that opens the Returns page', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/chat', 'Chat');
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('What is the time-weighted return of Cedar Arch Fund this year?');
    await box.press('Enter');
    await page.waitForURL(new RegExp(`#/chat/${UUID.source}$`));

    const reply = page.getByRole('log', { name: 'Messages' }).locator('.message-assistant .message-text').first();
    await expect.poll(() => reply.textContent()).toContain('Cedar Arch Fund (CA-3001)');
    const text = (await reply.textContent())!;
    const period = /from the close of (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})/.exec(text);
    expect(period, text).not.toBeNull();
    const dietz = await getJson(`${server.url}/api/returns/dietz-daily?entity_name=Cedar%20Arch%20Fund&start_date=${period![1]}&end_date=${period![2]}`, {
      headers: { 'x-api-key': user.key },
    });
    expect(dietz.status).toBe(200);
    expect(text).toContain(`Time-weighted return: ${(Number(dietz.body.data.time_weighted_return.value) * 100).toFixed(2)}%`);
    // The Markdown is rendered: a link, not the raw [Returns](#/returns).
    expect(text).not.toContain('](#/');
    const link = reply.getByRole('link', { name: 'Returns', exact: true });
    await expectCount(link, 1);
    expect(await link.getAttribute('href')).toBe('#/returns');
    await expectSoundLayout(page);

    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Returns' }).waitFor();
    expect(page.url()).toMatch(/#\/returns$/);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });
});
