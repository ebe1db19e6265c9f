/**
 * With LOGIN_URL set, an external login host issues the `sso_token` cookie: the dashboard sends
 * the browser there and the browser comes back signed in. The login host here is a tiny HTTP
 * server on another port of 127.0.0.1 (cookies are per host, not per port) that signs the token
 * with the shared SSO_JWT_SECRET, as a real identity backend would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { browserAvailable, launchBrowser, watchForProblems } from '../helpers/browser.ts';

const SECRET = 'external-login-host-shared-secret-0123456789';

describe.skipIf(!browserAvailable)('dashboard: sign-in through an external login host (LOGIN_URL)', () => {
  let loginHost: http.Server;
  let server: TestServer;
  let browser: Browser;
  let user: TestUser;
  const returnTos: string[] = [];

  beforeAll(async () => {
    loginHost = http.createServer((req, res) => void answerLogin(req, res));
    loginHost.listen(0, '127.0.0.1');
    await new Promise((resolve) => loginHost.once('listening', resolve));
    const loginPort = (loginHost.address() as AddressInfo).port;
    [server, browser] = await Promise.all([startTestServer({ LOGIN_URL: `http://127.0.0.1:${loginPort}/sso/start`, SSO_JWT_SECRET: SECRET }), launchBrowser()]);
    user = await createUser(server.services);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    loginHost?.close();
  });

  /** The login host: a one-button page; "Continue" sets the cookie and returns to return_to. */
  async function answerLogin(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://login.host');
    const returnTo = url.searchParams.get('return_to') ?? '';
    if (url.pathname === '/sso/start') {
      returnTos.push(returnTo);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><html lang="en"><title>Company login</title><link rel="icon" href="data:,"><h1>Company login</h1><a href="/sso/continue?return_to=${encodeURIComponent(returnTo)}">Continue as ${user.email}</a></html>`,
      );
      return;
    }
    const token = await new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.userId)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    res.writeHead(302, { location: returnTo, 'set-cookie': `sso_token=${token}; Path=/; HttpOnly; SameSite=Lax` });
    res.end();
  }

  it('a browser without a session goes to the login host and comes back to the dashboard page it asked for', async () => {
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    const problems = watchForProblems(page);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Company login' }).waitFor();
    expect(returnTos.at(-1)).toBe(`${server.url}/`);
    await page.getByRole('link', { name: `Continue as ${user.email}` }).click();
    await page.getByRole('heading', { level: 1, name: /Welcome/ }).waitFor();
    await page.getByText(`Signed in as ${user.email}`).waitFor();
    // /login itself also sends the browser to the login host.
    await page.goto('/login?next=/');
    await page.getByRole('heading', { name: 'Company login' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
