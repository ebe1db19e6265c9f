/** How the service serves the dashboard over HTTP (the browser tests in test/dashboard/ use it). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, signInCookie, type TestUser } from '../helpers/fixtures.ts';
import { dashboardRoutes, DASHBOARD_DIST } from '../../server/http/dashboard.ts';
import { requestLogging } from '../../server/http/request-context.ts';

describe('the dashboard over HTTP', () => {
  let server: TestServer;
  let user: TestUser;
  let cookie: string;

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.services);
    cookie = await signInCookie(server.url, user);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('a signed-in browser gets the page: never cached, with a strict content security policy', async () => {
    const response = await fetch(`${server.url}/`, { headers: { cookie, accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
  });

  it('its hashed assets are served with long-lived caching; an unknown asset is a 404', async () => {
    const html = await (await fetch(`${server.url}/`, { headers: { cookie } })).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Compressed for clients that accept it (fetch asks for gzip and decodes it).
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    const missing = await fetch(`${server.url}/assets/nothing-here.js`);
    expect(missing.status).toBe(404);
  });

  it('without a session a browser is sent to sign in and an API client gets the public JSON index', async () => {
    const browser = await fetch(`${server.url}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toBe('/login?next=%2F');
    const api = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(200);
    expect(await api.json()).toMatchObject({ service: 'gateway', graphql: '/graphql', authentication: { header: 'X-API-Key' } });
  });

  it('a bundle that was never built is a 503 page that says how to build it', async () => {
    const emptyDist = fs.mkdtempSync(path.join(os.tmpdir(), 'no-dashboard-'));
    const app = express().use(requestLogging(server.services.log)).use(dashboardRoutes(server.services, emptyDist));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const { port } = listener.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { cookie, accept: 'text/html' } });
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('npm run build:dashboard');
    } finally {
      listener.close();
    }
    expect(fs.existsSync(path.join(DASHBOARD_DIST, 'index.html'))).toBe(true);
  });
});
