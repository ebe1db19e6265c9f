/**
 * With TRANSCRIPT_PROVIDER=http transcripts are read-only here: the dashboard offers no import,
 * and when the transcription service cannot be reached it says so in words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { Browser } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import type { TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, openPage, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import { expectNoHorizontalScroll, expectWithinWidth, PHONE } from './phone.ts';

describe.skipIf(!browserAvailable)('dashboard: transcripts from an external provider', () => {
  let server: TestServer, browser: Browser, user: TestUser;
  beforeAll(async () => {
    ({ server, browser, user } = await startServerAndBrowser(
      { user: { role: 'member', scopes: ['read:workspace', 'write:workspace'] } },
      // Port 9 (discard) refuses connections: the provider is down.
      { TRANSCRIPT_PROVIDER: 'http', TRANSCRIPT_API_URL: 'http://127.0.0.1:9/api', TRANSCRIPT_API_KEY: 'unused', TRANSCRIPT_API_TIMEOUT: '2s' },
    ));
  });

  afterAll(() => closeBrowserAndServer(browser, server));

  it('offers no import, says the list is read-only, and shows the provider failure in words', async () => {
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, '/transcripts', 'Transcripts');
    await page.getByText('read-only here').waitFor();
    await expectCount(page.getByRole('button', { name: 'Import a transcript' }), 0);
    const alert = page.getByRole('alert').filter({ hasText: 'Could not load your transcripts' });
    await alert.waitFor();
    expect((await alert.textContent())!.length).toBeGreaterThan('Could not load your transcripts: '.length);
    // A 502 from /graphql is logged by the browser as a failed resource; nothing else may be.
    expect(session.problems.filter((p) => !/status of 50[234]/.test(p))).toEqual([]);
    await session.context.close();
  });

  it("at a phone's width the read-only note and the failure fit the screen", async () => {
    const session = await signInToDashboard(browser, server.url, user, PHONE);
    const { page } = session;
    await openPage(page, '/transcripts', 'Transcripts');
    const alert = page.getByRole('alert').filter({ hasText: 'Could not load your transcripts' });
    await alert.waitFor();
    await expectNoHorizontalScroll(page);
    await expectWithinWidth(page, page.getByText('read-only here'));
    await expectWithinWidth(page, alert);
    await expectSoundLayout(page);
    expect(session.problems.filter((p) => !/status of 50[234]/.test(p))).toEqual([]);
    await session.context.close();
  });
});
