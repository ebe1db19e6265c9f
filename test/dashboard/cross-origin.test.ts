/**
 * Cross-origin browser apps, in Chromium: a page served from an origin listed in CORS_ORIGINS
 * calls REST, /graphql and /api/service (preflighted requests with an API key or bearer token, and
 * cookie-session requests with credentials) and reads the answers; the same page from an origin
 * not listed can read nothing, and its cookie-session write is refused by the CSRF check, so
 * nothing is written. Every preflight is answered the same way on every front.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser, signInToDashboard } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, type TestUser } from '../helpers/fixtures.ts';

/** A static "app" on its own origin (another port of the same host: same-site, so the session cookie goes with credentials), an empty page whose script the test runs with page.evaluate. */
function appServer(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>App</title><h1>App</h1>');
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}

let api: TestServer;
let allowed: Awaited<ReturnType<typeof appServer>>;
let refused: Awaited<ReturnType<typeof appServer>>;
let browser: Browser;
let user: TestUser;
let token: string;

beforeAll(async () => {
  [allowed, refused, browser] = await Promise.all([appServer(), appServer(), launchBrowser()]);
  api = await startTestServer({ CORS_ORIGINS: allowed.origin });
  user = await createUser(api.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  token = await createAccessToken(api.services, user.userId);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([api?.close(), allowed?.close(), refused?.close()]);
});

type Outcome = { status: number; body: string } | { failed: string };

/** Runs fetch in the page; a CORS refusal is a TypeError there ("Failed to fetch"). */
function fetchFrom(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; credentials?: 'include' | 'omit' },
): Promise<Outcome> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init as RequestInit);
        return { status: response.status, body: await response.text() };
      } catch (error) {
        return { failed: String(error) };
      }
    },
    { url, init },
  );
}

async function stickyCount(): Promise<number> {
  const response = await fetch(`${api.url}/api/stickies`, { headers: { 'x-api-key': user.key } });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

describe.skipIf(!browserAvailable)('cross-origin browser apps', () => {
  it('a listed origin reads REST, /graphql and /api/service with a key or token, and writes with the session cookie', async () => {
    // Signed in to the service in this browser: its session cookie (host-only, 127.0.0.1) goes with credentials: 'include'.
    const session = await signInToDashboard(browser, api.url, user);
    const page = await session.context.newPage();
    await page.goto(allowed.origin);
    const rest = await fetchFrom(page, `${api.url}/api/stickies`, { headers: { 'x-api-key': user.key } });
    expect(rest).toMatchObject({ status: 200 });
    const graphql = await fetchFrom(page, `${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': user.key },
      body: JSON.stringify({ query: '{ me { user { email } } }' }),
    });
    expect(graphql).toMatchObject({ status: 200 });
    expect('body' in graphql && graphql.body).toContain(user.email);
    const rpc = await fetchFrom(page, `${api.url}/api/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(rpc).toMatchObject({ status: 200 });
    const before = await stickyCount();
    const written = await fetchFrom(page, `${api.url}/api/stickies`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Written from the listed app' }),
    });
    expect(written).toMatchObject({ status: 201 });
    expect(await stickyCount()).toBe(before + 1);
    await session.context.close();
  });

  it('an origin not listed reads nothing on any front, and its cookie-session write is refused and writes nothing', async () => {
    const session = await signInToDashboard(browser, api.url, user);
    const page = await session.context.newPage();
    await page.goto(refused.origin);
    for (const [url, init] of [
      [`${api.url}/api/stickies`, { headers: { 'x-api-key': user.key } }],
      [
        `${api.url}/graphql`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': user.key },
          body: JSON.stringify({ query: '{ me { user { email } } }' }),
        },
      ],
      [
        `${api.url}/api/service`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        },
      ],
    ] as const) {
      expect(await fetchFrom(page, url, init), url).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    }
    const before = await stickyCount();
    // A "simple" request needs no preflight: the browser sends it with the cookie, so the CSRF check must stop it.
    const simple = await fetchFrom(page, `${api.url}/api/stickies`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ content: 'Written from a foreign app' }),
    });
    expect(simple).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    const preflighted = await fetchFrom(page, `${api.url}/api/stickies`, {
      method: 'POST',
      credentials: 'include',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Written from a foreign app' }),
    });
    expect(preflighted).toMatchObject({ failed: expect.stringContaining('Failed to fetch') });
    expect(await stickyCount()).toBe(before);
    await session.context.close();
  });

  it('every front answers a preflight the same way: 204, granted to the listed origin only', async () => {
    for (const path of ['/api/stickies', '/graphql', '/api/service']) {
      const headers = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' };
      const granted = await fetch(`${api.url}${path}`, { method: 'OPTIONS', headers: { origin: allowed.origin, ...headers } });
      expect(granted.status, path).toBe(204);
      expect(granted.headers.get('access-control-allow-origin'), path).toBe(allowed.origin);
      expect(granted.headers.get('access-control-allow-credentials'), path).toBe('true');
      const denied = await fetch(`${api.url}${path}`, { method: 'OPTIONS', headers: { origin: refused.origin, ...headers } });
      expect(denied.status, path).toBe(204);
      expect(denied.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(denied.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
  });
});
