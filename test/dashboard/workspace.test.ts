/**
 * The dashboard's workspace pages in a real browser against a real service: transcripts (read one
 * with speakers and timestamps, import errors in words, import and delete), tasks (filter, create,
 * move, a workflow CONFLICT, comments), news (add, duplicate url, the weekly digest) and chat
 * (the offline assistant's reply; a provider failure on a second service whose CHAT_API_URL is a
 * local fake answering 500). The user's workspace is filled by the demo seeders.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocally } from '../helpers/listen-locally.ts';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, openPage, screenshot, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { expectCompactRows, expectNoHorizontalScroll, expectOneLine, expectWithinWidth, PHONE } from './phone.ts';
import { seedTranscripts } from '../../src/seed/workspace-transcripts.ts';
import { seedTasks } from '../../src/seed/workspace-tasks.ts';
import { seedNews } from '../../src/seed/workspace-news.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** A chat provider that fails: every completion is a 500, after a pause long enough to see "thinking". */
const failingProvider = http.createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }));
    }, 600),
  );
});

describe.skipIf(!browserAvailable)('dashboard workspace pages', () => {
  let browser: Browser;
  let server: TestServer;
  let failing: TestServer;
  let user: TestUser;
  let failingUser: TestUser;

  beforeAll(async () => {
    const providerUrl = `${await listenLocally(failingProvider)}/v1`;
    [server, failing, browser] = await Promise.all([startTestServer(), startTestServer({ CHAT_API_URL: providerUrl, CHAT_TIMEOUT: '5s' }), launchBrowser()]);
    user = await createUser(server.services, { role: 'member', scopes: ['read:workspace', 'write:workspace'] });
    failingUser = await createUser(failing.services, { role: 'member', scopes: ['read:workspace', 'write:workspace'] });
    await seedTranscripts(server.services, user.userId);
    await seedTasks(server.services, user.userId);
    await seedNews(server.services, user.userId);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), failing?.close()]);
    await new Promise((resolve) => failingProvider.close(resolve));
  });

  it('transcripts: reads one with speakers and timestamps, shows a parse error in words, imports and deletes', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/transcripts', 'Transcripts');
    const list = page.getByRole('table', { name: 'Transcripts' });
    await expect.poll(() => list.getByRole('row').count()).toBe(4);
    await expect.poll(() => list.getByRole('row').nth(1).textContent()).toContain('Margaret Okonkwo');
    expect((await expectSoundLayout(page, { screenshot: 'transcripts-layout' })).tablesChecked).toBe(1);

    await list.getByRole('link', { name: 'Weekly Investment Committee' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekly Investment Committee' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`#/transcripts/${UUID.source}$`));
    const first = page.locator('.sentences > li').first();
    await expect.poll(() => first.textContent()).toMatch(/^00:04Margaret Okonkwo: Good afternoon, everyone/);
    await expect.poll(() => first.locator('time').getAttribute('datetime')).toBe('PT0M4S');

    // Only one speaker's sentences, then words found and marked.
    await page.getByRole('button', { name: /^Priya Raman/ }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Priya Raman/ }).getAttribute('aria-pressed')).toBe('true');
    await page.getByText(/^Showing \d+ of \d+ sentences\.$/).waitFor();
    const shown = await page.locator('.sentences > li').allTextContents();
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.every((text) => /^\d\d:\d\dPriya Raman: /.test(text))).toBe(true);
    await page.getByRole('button', { name: /^Everyone/ }).click();
    await page.getByLabel('Find words').fill('Keystone');
    await expect.poll(() => page.locator('.sentences mark').count()).toBeGreaterThan(0);
    await page.getByLabel('Find words').fill('');
    await expect.poll(() => page.locator('.sentences > li').count()).toBe(36);
    await screenshot(page, 'transcripts');
    await expectSoundLayout(page);

    // Import: bad content is refused with the parser's line and reason.
    await page.getByRole('link', { name: '← All transcripts' }).click();
    await page.getByRole('button', { name: 'Import a transcript' }).click();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Choose a file or paste' }).waitFor();
    await page.getByLabel('Or paste its text').fill('WEBVTT - Broken\n\n00:00:01.000 --> banana\nAna: hi\n');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const parseError = page.getByRole('alert').filter({ hasText: 'Could not import the transcript' });
    await expect.poll(() => parseError.textContent()).toBe('Could not import the transcript: Invalid content: line 3: invalid timestamp "banana"');

    // An SRT file has no title: the form asks for one before sending.
    await page
      .getByLabel('Or paste its text')
      .fill('1\n00:00:01,000 --> 00:00:03,500\nAna Silva: Shall we start?\n\n2\n00:01:05,000 --> 00:01:09,000\nBen Okafor: Yes, the fee review first.\n');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'SRT files carry no title' }).waitFor();
    await page.getByLabel(/^Title/).fill('Fee review call');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Fee review call' }).waitFor();
    await page.getByText('Imported “Fee review call”: 2 sentences.').waitFor();
    await expect.poll(() => page.locator('.sentences > li').nth(1).textContent()).toBe('01:05Ben Okafor: Yes, the fee review first.');

    // Delete asks first, then lists what is left.
    await page.getByRole('button', { name: 'Delete the transcript Fee review call' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('“Fee review call” was deleted.').waitFor();
    await expect.poll(() => list.getByRole('row').count()).toBe(4);
    await expectCount(list.getByRole('link', { name: 'Fee review call' }), 0);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('tasks: filters, creates, moves status (a CONFLICT in words) and comments', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/tasks', 'Tasks');
    const table = page.getByRole('table', { name: 'Tasks' });
    await table.getByRole('link', { name: 'Reconcile DC-1003 custodian returns for month-end' }).waitFor();
    // The default shows open tasks only: the done one is not there until "All statuses".
    await expectCount(table.getByRole('link', { name: 'Review comparison thresholds for Demo Capital' }), 0);
    await page.getByLabel('Label', { exact: true }).fill('northwind');
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await expect.poll(() => table.getByRole('row').nth(1).textContent()).toContain('Get the Northwind custodian feed switched to daily files');
    await page.getByRole('button', { name: 'Show all tasks' }).click();
    await table.getByRole('link', { name: 'Review comparison thresholds for Demo Capital' }).waitFor();
    await page.getByRole('search', { name: 'Filter tasks' }).getByLabel('Status').selectOption('open');

    // Create: the title is required before anything is sent.
    await page.getByRole('button', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: 'New task' });
    await form.getByRole('button', { name: 'Create task' }).click();
    await form.getByRole('alert').filter({ hasText: 'Give the task a title.' }).waitFor();
    await form.getByLabel('Title').fill('Draft the Q4 fee letter');
    await form.getByLabel('Priority').selectOption('high');
    await form.getByLabel(/^Assignee/).fill('Ana Silva');
    await form.getByLabel(/^Labels/).fill('Fees, clients, fees');
    await form.getByRole('button', { name: 'Create task' }).click();
    await page.getByText('Task “Draft the Q4 fee letter” created.').waitFor();
    const row = table.getByRole('row').filter({ hasText: 'Draft the Q4 fee letter' });
    // Labels as the API stores them: lower-cased, once each.
    await expect
      .poll(() => row.getByRole('button', { name: /with this label/ }).allTextContents())
      .toEqual(['fees (show only tasks with this label)', 'clients (show only tasks with this label)']);

    // Move from the list: To do -> In progress.
    await row.getByLabel('Status of Draft the Q4 fee letter').selectOption('in_progress');
    await page.getByText('“Draft the Q4 fee letter” moved to In progress.').waitFor();
    await screenshot(page, 'tasks');
    expect((await expectSoundLayout(page, { screenshot: 'tasks-layout' })).tablesChecked).toBe(1);

    await row.getByRole('link', { name: 'Draft the Q4 fee letter' }).click();
    await page.getByRole('heading', { level: 1, name: 'Draft the Q4 fee letter' }).waitFor();
    const id = UUID.exec(page.url())![0];
    const status = page.getByRole('region', { name: 'Status' });
    await status.getByText('In progress', { exact: true }).waitFor();

    // Someone else marks it done; this page still offers "Mark blocked", which the workflow refuses.
    const done = await graphql(server.url, { 'x-api-key': user.key }, 'mutation($id: UUID!) { updateTask(input: { id: $id, status: done }) { status } }', {
      id,
    });
    expect(done.body.data.updateTask.status).toBe('done');
    await status.getByRole('button', { name: 'Mark blocked' }).click();
    await expect
      .poll(() => status.getByRole('alert').textContent())
      .toBe(
        '“Draft the Q4 fee letter” cannot move to Blocked from where it is now (the service said: Cannot move a task from done to blocked). It was probably changed elsewhere; its current status is shown again.',
      );
    await status.getByText('Done', { exact: true }).waitFor();
    await status.getByRole('button', { name: 'Reopen' }).click();
    await status.getByText('Moved to In progress.').waitFor();

    // Edit the details.
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByRole('button', { name: 'Edit' }).click();
    await details.getByLabel('Priority').selectOption('urgent');
    await details.getByLabel(/^Due date/).fill('2030-01-15');
    await details.getByRole('button', { name: 'Save' }).click();
    await details.getByText('Saved.').waitFor();
    await expect.poll(() => details.locator('dd').allTextContents()).toEqual(['urgent', 'Ana Silva', 'Jan 15, 2030', 'feesclients']);

    // Comments.
    await page.getByRole('heading', { name: 'Comments (0)' }).waitFor();
    await page.getByLabel('Add a comment').fill('Sent the draft to Ana.\nShe replies Friday.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByRole('heading', { name: 'Comments (1)' }).waitFor();
    await expect.poll(() => page.locator('.comment').first().textContent()).toContain('Sent the draft to Ana.\nShe replies Friday.');
    await expect.poll(() => page.getByLabel('Add a comment').inputValue()).toBe('');
    await screenshot(page, 'task');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('news: adds an article (a duplicate url in words) and shows the weekly digest', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/news', 'News');
    const digest = page.getByRole('region', { name: 'Weekly digest' });
    await digest.getByText(/^The last seven days: .* · 8 articles$/).waitFor();
    await digest
      .getByRole('link', { name: /^Central bank holds rates, signals patience on cuts/ })
      .first()
      .waitFor();

    await page.getByRole('button', { name: 'Add an article' }).click();
    const form = page.getByRole('form', { name: 'Add an article' });
    await form.getByLabel('Address (URL)').fill('ftp://example.com/file');
    await form.getByRole('button', { name: 'Add article' }).click();
    await form.getByRole('alert').filter({ hasText: 'The address must start with http:// or https://.' }).waitFor();
    await form.getByLabel('Address (URL)').fill('https://example.com/news/fee-compression');
    await form.getByLabel('Source').fill('Example Wire');
    await form.getByLabel('Title').fill('Fee compression continues across active funds');
    await form.getByLabel(/^Tags/).fill('fees, industry');
    await form.getByLabel(/^Summary/).fill('Average fees fell again this quarter.');
    await form.getByRole('button', { name: 'Add article' }).click();
    await form.getByText('Added “Fee compression continues across active funds”.').waitFor();
    await digest.getByText(/ · 9 articles$/).waitFor();
    const articles = page.getByRole('list', { name: 'Articles' });
    await articles.getByRole('link', { name: /^Fee compression continues across active funds/ }).waitFor();

    // The same address again (after normalisation) is refused, in words.
    await form.getByLabel('Address (URL)').fill('https://example.com/news/fee-compression#top');
    await form.getByLabel('Source').fill('Example Wire');
    await form.getByLabel('Title').fill('Same article');
    await form.getByRole('button', { name: 'Add article' }).click();
    await expect
      .poll(() => form.getByRole('alert').textContent())
      .toBe(
        'Could not add the article: You already saved an article with this address (https://example.com/news/fee-compression#top). Each address is kept once; find it in the list below.',
      );

    // The digest by ISO week, and back to the last seven days; a tag in the digest filters the list.
    await digest.getByLabel('Week').fill('2020-W10');
    await digest.getByText('Week 2020-W10: Mon, Mar 2, 2020 to Sun, Mar 8, 2020 (UTC) · 0 articles').waitFor();
    await digest.getByText('No article was published in this period.').waitFor();
    await digest.getByRole('button', { name: 'Next week →' }).click();
    await digest.getByText(/^Week 2020-W11: /).waitFor();
    await digest.getByRole('button', { name: 'Last seven days' }).click();
    await digest.getByText(/ · 9 articles$/).waitFor();
    await digest.locator('summary').filter({ hasText: 'macro' }).click();
    await digest.getByRole('button', { name: 'List every article tagged macro' }).click();
    await expect.poll(() => page.getByLabel('Tag', { exact: true }).inputValue()).toBe('macro');
    await expect.poll(async () => (await articles.locator('.article-tags').allTextContents()).every((tags) => tags.includes('macro'))).toBe(true);
    await page.getByRole('button', { name: 'Show all articles' }).click();
    await articles.getByRole('link', { name: /^Fee compression/ }).waitFor();
    await form.getByRole('button', { name: 'Close' }).click();
    await screenshot(page, 'news');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('chat: the offline assistant replies; Enter sends and Shift+Enter makes a new line', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/chat', 'Chat');
    await page.getByText('No conversations yet.').waitFor();
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('What do I have on Keystone?');
    await box.press('Enter');
    await page.waitForURL(new RegExp(`#/chat/${UUID.source}$`));
    const log = page.getByRole('log', { name: 'Messages' });
    await expect
      .poll(() => log.locator('.message-assistant .message-text').first().textContent())
      .toMatch(/^I'm the offline assistant: no language model is configured/);
    await expect.poll(() => log.locator('.message-assistant .message-text').first().textContent()).toContain('Keystone');
    await page.getByRole('heading', { name: 'What do I have on Keystone?' }).waitFor();
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('link', { name: /What do I have on Keystone\?/ })
      .waitFor();

    await box.click();
    await box.pressSequentially('show my open tasks');
    await box.press('Shift+Enter');
    await box.pressSequentially('and my notes');
    await expect.poll(() => box.inputValue()).toBe('show my open tasks\nand my notes');
    await box.press('Enter');
    await expect.poll(() => log.locator('.message-assistant').count()).toBe(2);
    await expect.poll(() => log.locator('.message-user .message-text').nth(1).textContent()).toBe('show my open tasks\nand my notes');
    await expect.poll(() => box.inputValue()).toBe('');
    await screenshot(page, 'chat');
    await expectSoundLayout(page);
    const url = page.url();
    expect(session.problems).toEqual([]);
    await session.context.close();

    // A phone: the open conversation takes the screen, with a way back to the list.
    const phone = await signInToDashboard(browser, server.url, user, { width: 390, height: 844 });
    await phone.page.goto(url);
    await phone.page.getByRole('log', { name: 'Messages' }).locator('.message-assistant').nth(1).waitFor();
    await expect.poll(() => phone.page.getByRole('navigation', { name: 'Conversations' }).isVisible()).toBe(false);
    await expect.poll(() => phone.page.getByRole('link', { name: '← Conversations' }).isVisible()).toBe(true);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(phone.page, 'chat-390');
    expect(phone.problems).toEqual([]);
    await phone.context.close();
  });

  it('transcripts, tasks and news fit a phone', async () => {
    const session = await signInToDashboard(browser, server.url, user, PHONE);
    const { page } = session;
    for (const [route, heading, name, table] of [
      ['/transcripts', 'Transcripts', 'transcripts-390', 'Transcripts'],
      ['/tasks', 'Tasks', 'tasks-390', 'Tasks'],
      ['/news', 'News', 'news-390', null],
    ] as const) {
      await openPage(page, route, heading);
      await page.locator('.panel').last().getByRole('link').first().waitFor();
      // The page never scrolls sideways.
      await expectNoHorizontalScroll(page);
      if (table) {
        // Each row is a compact card: its title on the screen, no column hidden off the side, no large gaps.
        const rows = page.getByRole('table', { name: table, exact: true });
        await expectCompactRows(rows);
        await expectWithinWidth(page, rows.locator('tbody > tr').first().getByRole('link').first());
      }
      await screenshot(page, name);
      await expectSoundLayout(page);
    }
    // A task's status and priority are whole, on the screen.
    await openPage(page, '/tasks', 'Tasks');
    const task = page.getByRole('table', { name: 'Tasks', exact: true }).locator('tbody > tr').first();
    await expectWithinWidth(page, task.getByRole('combobox'));
    await expectWithinWidth(page, task.locator('.badge'));
    await expectOneLine(task.locator('.badge'));
    await openPage(page, '/transcripts', 'Transcripts');
    await page.getByRole('link', { name: 'Weekly Investment Committee' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekly Investment Committee' }).waitFor();
    await expectNoHorizontalScroll(page);
    await screenshot(page, 'transcript-390');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('chat: a provider failure is shown in words, the message stays in the box and nothing is stored', async () => {
    const session = await signInToDashboard(browser, failing.url, failingUser);
    const { page } = session;
    await openPage(page, '/chat', 'Chat');
    const box = page.getByLabel('Message', { exact: true });
    await box.fill('Summarise my week');
    await box.press('Enter');
    await page.getByRole('status').filter({ hasText: 'The assistant is thinking…' }).waitFor();
    await expect.poll(() => box.isDisabled()).toBe(true);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        'The assistant could not answer: its provider failed (Chat provider error: 500). Your message was not sent and is still in the box: send it again when you are ready.',
      );
    await expect.poll(() => box.inputValue()).toBe('Summarise my week');
    await expect.poll(() => box.isDisabled()).toBe(false);
    expect(page.url()).toMatch(/#\/chat$/);
    await page.getByText('No conversations yet.').waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  });
});
