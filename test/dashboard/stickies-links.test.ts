/**
 * The Stickies and Links pages in a real browser: stickies created, edited, filtered by tag and
 * search, trashed (with undo), restored from the trash and their history read; limits checked
 * before sending and the service's CONFLICT shown in words. Links: folders created, renamed and
 * deleted (the links stay), links added into a folder, starred and filtered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, openPage, screenshot, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';

describe.skipIf(!browserAvailable)('dashboard: stickies and links', () => {
  let server: TestServer, browser: Browser, user: TestUser;
  beforeAll(async () => ({ server, browser, user } = await startServerAndBrowser({ user: { role: 'member', scopes: ['read:workspace', 'write:workspace'] } })));

  afterAll(() => closeBrowserAndServer(browser, server));

  async function addSticky(page: Page, content: string, tags: string) {
    const form = page.getByRole('form', { name: 'New sticky' });
    await form.getByLabel('Content').fill(content);
    await form.getByLabel('Tags', { exact: true }).fill(tags);
    await form.getByRole('button', { name: 'Add sticky' }).click();
    await page.getByRole('article', { name: `Sticky: ${content}` }).waitFor();
  }

  async function stickyCount(): Promise<number> {
    const { body } = await callApi(server.url, user, 'GET', '/api/stickies?includeDeleted=true');
    return (body.data as unknown[]).length;
  }

  it('creates, edits, filters, trashes, restores stickies and shows their history', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/stickies', 'Stickies');
    await page.getByText('No stickies yet').waitFor();

    await addSticky(page, 'Reconcile DC-1003 before Thursday', 'Close, Urgent, close');
    const first = page.getByRole('article', { name: /^Sticky: Reconcile DC-1003/ });
    // Tags are shown as the service stores them: lower-cased, de-duplicated.
    const chips = first.getByRole('list', { name: 'Tags' }).getByRole('button');
    await expectCount(chips, 2);
    await chips.filter({ hasText: /^Filter by tag\s*close$/ }).waitFor();
    await chips.filter({ hasText: /^Filter by tag\s*urgent$/ }).waitFor();
    await first.getByText('v1').waitFor();
    await addSticky(page, 'Call the custodian about fees', 'calls');
    await addSticky(page, 'Scratch note', '');

    // The limits are checked before anything is sent.
    const form = page.getByRole('form', { name: 'New sticky' });
    await form.getByLabel('Content').fill('x'.repeat(10_001));
    await form.getByText('A sticky may be at most 10,000 characters; this one has 10,001.').waitFor();
    await form.getByLabel('Content').fill('Too many tags');
    await form.getByLabel('Tags', { exact: true }).fill(Array.from({ length: 21 }, (_, i) => `t${i}`).join(', '));
    await form.getByText('At most 20 tags are allowed; you have 21.').waitFor();
    await expect.poll(() => form.getByLabel('Tags', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByRole('button', { name: 'Add sticky' }).click();
    expect(await stickyCount()).toBe(3);
    await form.getByLabel('Tags', { exact: true }).fill('');
    await form.getByLabel('Content').fill('');

    // Edit in place.
    await first.getByRole('button', { name: /^Edit sticky/ }).click();
    const editor = first.getByRole('form', { name: /^Edit sticky/ });
    await editor.getByLabel('Content').fill('Reconcile DC-1003 before Wednesday');
    await editor.getByLabel('Tags', { exact: true }).fill('close, urgent, q4');
    await editor.getByRole('button', { name: 'Save' }).click();
    const edited = page.getByRole('article', { name: 'Sticky: Reconcile DC-1003 before Wednesday' });
    await edited.getByText('v2').waitFor();

    // Filter by a tag on a card, then by one picked from the tags present, then by search.
    const calls = page.getByRole('article', { name: /^Sticky: Call the custodian/ });
    await calls.getByRole('button', { name: 'Filter by tag calls' }).click();
    await edited.waitFor({ state: 'detached' });
    await expectCount(page.getByRole('article'), 1);
    await page.getByRole('group', { name: 'Tag filters' }).getByRole('button', { name: /calls/ }).click();
    await edited.waitFor();
    await page.getByLabel('Filter by tag').selectOption('q4');
    await calls.waitFor({ state: 'detached' });
    await expectCount(page.getByRole('article'), 1);
    await page.getByRole('button', { name: 'Clear tags' }).click();
    await page.getByRole('searchbox', { name: 'Search' }).fill('custodian');
    await edited.waitFor({ state: 'detached' });
    await expectCount(page.getByRole('article'), 1);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await edited.waitFor();

    // Move to trash, then undo from the status line.
    const scratch = page.getByRole('article', { name: 'Sticky: Scratch note' });
    await scratch.getByRole('button', { name: /^Move to trash/ }).click();
    await page.getByRole('status').filter({ hasText: 'Moved “Scratch note” to the trash.' }).waitFor();
    await scratch.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored “Scratch note”.' }).waitFor();
    await scratch.waitFor();

    // Editing a sticky trashed meanwhile (here from a script) is a CONFLICT, shown in words.
    await calls.getByRole('button', { name: /^Edit sticky/ }).click();
    const { body } = await callApi(server.url, user, 'GET', '/api/stickies?search=custodian');
    const callsId = (body.data as { id: string }[])[0]!.id;
    expect((await callApi(server.url, user, 'DELETE', `/api/stickies/${callsId}`)).status).toBe(200);
    await calls.getByLabel('Content').fill('Call the custodian about fees today');
    await calls.getByRole('button', { name: 'Save' }).click();
    await calls.getByRole('alert').filter({ hasText: 'Could not save: Sticky is in the trash; restore it first' }).waitFor();
    await screenshot(page, 'stickies-conflict');
    await calls.getByRole('button', { name: 'Cancel' }).click();

    // Trash the edited sticky from the page, find it in the trash and restore it.
    await edited.getByRole('button', { name: /^Move to trash/ }).click();
    await edited.waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Trash' }).click();
    await page.getByRole('heading', { name: 'Trash' }).waitFor();
    await edited.getByText('In the trash since').waitFor();
    await calls.waitFor();
    await expectCount(page.getByRole('article', { name: 'Sticky: Scratch note' }), 0);
    await screenshot(page, 'stickies-trash');
    await edited.getByRole('button', { name: /^Restore sticky/ }).click();
    await page.getByRole('status').filter({ hasText: 'Restored “Reconcile DC-1003 before Wednesday”.' }).waitFor();
    await edited.waitFor({ state: 'detached' });
    await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Notes' }).click();
    await edited.waitFor();

    // Its history: newest first, every action.
    await edited.getByText('History').click();
    const versions = edited.getByRole('list', { name: 'Versions, newest first' });
    await versions.waitFor();
    const entries = await versions.getByRole('listitem').allInnerTexts();
    expect(entries.map((text) => text.split('\n')[0])).toEqual(['Restored', 'Moved to trash', 'Edited', 'Created']);
    expect(entries[3]).toContain('Reconcile DC-1003 before Thursday');
    expect(entries[0]).toContain('q4');
    await edited.getByText('v4').first().waitFor();

    await screenshot(page, 'stickies');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('manages link folders, adds, stars and filters links', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/links', 'Links');
    await page.getByText('No links yet').waitFor();

    const folders = page.getByRole('region', { name: 'Folders' });
    await folders.getByRole('textbox', { name: 'New folder' }).fill('Reading list');
    await folders.getByRole('button', { name: 'Create' }).click();
    await folders.getByRole('button', { name: 'Reading list 0 links' }).click();
    await page.getByRole('heading', { level: 2, name: 'Reading list' }).waitFor();

    // A duplicate folder name is the service's CONFLICT, in words.
    await folders.getByRole('textbox', { name: 'New folder' }).fill('reading LIST');
    await folders.getByRole('button', { name: 'Create' }).click();
    await folders
      .getByRole('alert')
      .filter({ hasText: /Could not create the folder: A folder .*already exists/ })
      .waitFor();

    // Invalid URLs are refused before sending, in words.
    const add = page.getByRole('form', { name: 'Add a link' });
    await add.getByLabel('URL').fill('not a url');
    await add.getByRole('button', { name: 'Add link' }).click();
    await add.getByText('Enter a full address starting with http:// or https://').waitFor();
    await add.getByLabel('URL').fill('ftp://files.example.com/report.pdf');
    await add.getByText('Only http and https links can be saved, not ftp.').waitFor();

    // Added into the folder being shown; the scheme is added when left out.
    await expect.poll(() => add.getByLabel('Folder').inputValue()).not.toBe('');
    await add.getByLabel('URL').fill('example.com/graphql-guide');
    await add.getByLabel(/^Title/).fill('GraphQL guide');
    await add.getByLabel('Tags', { exact: true }).fill('GraphQL, api');
    await add.getByRole('button', { name: 'Add link' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved “GraphQL guide” in Reading list.' }).waitFor();
    const list = page.getByRole('list', { name: 'Links' });
    await list.getByRole('link', { name: /GraphQL guide/ }).waitFor();
    await expect.poll(() => list.getByRole('link', { name: /GraphQL guide/ }).getAttribute('href')).toBe('https://example.com/graphql-guide');
    await folders.getByRole('button', { name: 'Reading list 1 link' }).waitFor();

    // A second link in no folder.
    await folders.getByRole('button', { name: 'All links' }).click();
    await page.getByRole('heading', { level: 2, name: 'All links' }).waitFor();
    await add.getByLabel('URL').fill('https://news.example.org/');
    await add.getByLabel(/^Title/).fill('Morning news');
    await add.getByRole('button', { name: 'Add link' }).click();
    await list.getByRole('link', { name: /Morning news/ }).waitFor();

    // Star toggle, then starred only.
    await list.getByRole('button', { name: 'Star GraphQL guide', pressed: false }).click();
    await list.getByRole('button', { name: 'Star GraphQL guide', pressed: true }).waitFor();
    await page.getByLabel('Starred only').check();
    await list.getByRole('link', { name: /Morning news/ }).waitFor({ state: 'detached' });
    await expectCount(list.getByRole('listitem').filter({ has: page.getByRole('link') }), 1);
    await page.getByLabel('Starred only').uncheck();
    await list.getByRole('link', { name: /Morning news/ }).waitFor();

    // Filter by folder.
    await folders.getByRole('button', { name: /^Reading list/ }).click();
    await list.getByRole('link', { name: /Morning news/ }).waitFor({ state: 'detached' });
    await list.getByRole('link', { name: /GraphQL guide/ }).waitFor();

    // Links in no folder, with the counts beside the choices.
    await folders.getByRole('button', { name: 'All links 2 links' }).waitFor();
    await folders.getByRole('button', { name: 'No folder 1 link' }).click();
    await page.getByRole('heading', { level: 2, name: 'Links in no folder' }).waitFor();
    await list.getByRole('link', { name: /GraphQL guide/ }).waitFor({ state: 'detached' });
    await list.getByRole('link', { name: /Morning news/ }).waitFor();
    await folders.getByRole('button', { name: /^Reading list/ }).click();
    await list.getByRole('link', { name: /GraphQL guide/ }).waitFor();

    // Rename, then delete the folder: its link is kept.
    await page.getByRole('button', { name: 'Rename folder' }).click();
    await page.getByLabel('Folder name').fill('Must read');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 2, name: 'Must read' }).waitFor();
    await folders.getByRole('button', { name: 'Must read 1 link' }).waitFor();
    await list.getByText('In Must read').waitFor();
    await screenshot(page, 'links');
    await expectSoundLayout(page);

    await page.getByRole('button', { name: 'Delete folder' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete folder' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted the folder “Must read”. Its link was kept, now in no folder.' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'All links' }).waitFor();
    await list.getByRole('link', { name: /GraphQL guide/ }).waitFor();
    await expectCount(folders.getByRole('button', { name: /^Must read/ }), 0);

    // Edit in place, then delete (after a confirmation: links have no trash).
    await list.getByRole('button', { name: 'Edit Morning news' }).click();
    const editor = list.getByRole('form', { name: 'Edit link: Morning news' });
    await editor.getByLabel(/^Title/).fill('Evening news');
    await editor.getByLabel('Tags', { exact: true }).fill('news');
    await editor.getByRole('button', { name: 'Save' }).click();
    await list.getByRole('link', { name: /Evening news/ }).waitFor();
    const { body } = await callApi(server.url, user, 'GET', '/api/links');
    expect((body.data as { title: string; folder_id: string | null; tags: string[] }[]).map((l) => [l.title, l.folder_id, l.tags])).toEqual([
      ['Evening news', null, ['news']],
      ['GraphQL guide', null, ['graphql', 'api']],
    ]);
    await list.getByRole('button', { name: 'Delete Evening news' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete link' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted “Evening news”.' }).waitFor();
    await list.getByRole('link', { name: /Evening news/ }).waitFor({ state: 'detached' });

    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('stickies and links fit a phone', async () => {
    const session = await signInToDashboard(browser, server.url, user, { width: 390, height: 844 });
    const { page } = session;
    await openPage(page, '/stickies', 'Stickies');
    await page.getByRole('article').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'stickies-phone');
    await expectSoundLayout(page);
    await openPage(page, '/links', 'Links');
    await page.getByRole('heading', { name: 'All links' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'links-phone');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });
});
