/**
 * GraphiQL (served with NODE_ENV=development) works with the network cut to anything but the
 * service: its code and styles come with the page (@graphql-yoga/render-graphiql), it loads,
 * introspects the schema (which passes the depth limits) and no request leaves for a CDN.
 * Chromium, signed in through the sign-in page (GraphiQL sends the session cookie).
 */
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser, signInToDashboard } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/fixtures.ts';

let server: TestServer;
let production: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, production, browser] = await Promise.all([
    startTestServer({ NODE_ENV: 'development' }),
    startTestServer({ NODE_ENV: 'production' }),
    launchBrowser(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.close(), production?.close()]);
});

describe.skipIf(!browserAvailable)('GraphiQL without a CDN', () => {
  it('loads from the service alone, introspects the schema, and asks nothing of other hosts', async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace'], role: 'member' });
    const session = await signInToDashboard(browser, server.url, user);
    const { context, page } = session;
    const elsewhere: string[] = [];
    // Everything not from the service (or the page itself: data:, blob:) is refused, as offline.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(server.url) || url.startsWith('data:') || url.startsWith('blob:')) return route.fallback();
      elsewhere.push(url);
      return route.abort();
    });
    const introspections: Promise<number>[] = [];
    page.on('request', (request: Request) => {
      if (request.method() === 'POST' && request.url().startsWith(`${server.url}/graphql`) && request.postData()?.includes('__schema')) {
        introspections.push(request.response().then((response) => response?.status() ?? 0));
      }
    });
    await page.goto('/graphql', { waitUntil: 'domcontentloaded' });
    await page.locator('.graphiql-container').first().waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Gateway GraphiQL');
    await expect.poll(() => introspections.length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await Promise.all(introspections)).toEqual(introspections.map(() => 200));
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('is not served in production (the default of npm start): /graphql answers HTML requests as an API', async () => {
    const response = await fetch(`${production.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await response.text()).not.toContain('graphiql');
  });
});
