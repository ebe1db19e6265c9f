/**
 * The REST API reference at /api-docs (server/http/api-reference.ts): Redoc's standalone bundle,
 * served by the service itself, renders /openapi.json with the network cut to anything but the
 * service (no CDN, no web fonts), under the page's strict Content-Security-Policy without a
 * console error; the dashboard's navigation opens it; over plain HTTP the page and its bundle
 * answer with their headers. Chromium through playwright-core, like the other browser tests.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchBrowser, screenshot, signInToDashboard, watchForProblems } from '../helpers/browser.ts';
import { createUser } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let browser: Browser | undefined;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), browserAvailable ? launchBrowser() : Promise.resolve(undefined)]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The summary of GET /api/stickies in openapi.json: an operation Redoc must have rendered. */
const STICKIES_LIST = "The caller's stickies, most recently updated first";

/** Refuses every request not to the service (or the page's own data:/blob: URLs), as offline; returns the URLs that were attempted. */
async function cutOffEverythingElse(context: BrowserContext): Promise<string[]> {
  const elsewhere: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${server.url}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.fallback();
    elsewhere.push(url);
    return route.abort();
  });
  return elsewhere;
}

describe('GET /api-docs over HTTP', () => {
  it('is a public HTML page under a strict Content-Security-Policy, never cached stale, not framable', async () => {
    const response = await fetch(`${server.url}/api-docs`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    // Scripts come from this origin only: no inline script, no eval, no other host.
    expect(csp).not.toMatch(/script-src[^;]*(unsafe|https?:|\*)/);
    expect(csp).not.toMatch(/https?:|\*/);
    const html = await response.text();
    expect(html).toContain('<title>API reference</title>');
    expect(html).toContain('spec-url="/openapi.json"');
    for (const href of ['"/"', '"/openapi.json"', '"/openapi.yaml"']) expect(html).toContain(`href=${href}`);
    // Every src and href on the page is a path on this service (or the empty data: icon, which spares a /favicon.ico 404).
    const urls = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url, url).toMatch(/^(\/(?!\/)|data:)/);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it('serves the Redoc bundle and the stylesheet from the service, with long caching and no remote resource', async () => {
    const html = await (await fetch(`${server.url}/api-docs`)).text();
    const script = /<script src="([^"]+)"><\/script>/.exec(html)?.[1];
    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
    expect(script).toMatch(/^\/api-docs\/assets\/.+\.js$/);
    expect(stylesheet).toMatch(/^\/api-docs\/assets\/.+\.css$/);

    const bundle = await fetch(`${server.url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(bundle.headers.get('cache-control')).toMatch(/max-age=31536000/);
    const code = await bundle.text();
    expect(code.length).toBeGreaterThan(500_000);
    expect(code).toContain('Redoc');
    // The one remote resource the stock bundle loads (the Redocly footer logo) is gone.
    expect(code).not.toContain('cdn.redoc.ly');
    expect(code).not.toMatch(/fonts\.(googleapis|gstatic)\.com/);

    const css = await fetch(`${server.url}${stylesheet}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).not.toMatch(/@import|url\(/);
  });

  it('is named in the public index at / next to the OpenAPI document', async () => {
    const index = (await (await fetch(`${server.url}/`)).json()) as { api_reference: string; openapi: string };
    expect(index.api_reference).toBe('/api-docs');
    expect(index.openapi).toBe('/openapi.json');
    expect((await fetch(`${server.url}${index.api_reference}`)).status).toBe(200);
  });
});

describe.skipIf(!browserAvailable)('the API reference in a browser, offline but for the service', () => {
  it('renders the operations from /openapi.json with no request to another host and no console error', async () => {
    const context = await browser!.newContext({ baseURL: server.url, viewport: { width: 1280, height: 860 } });
    const elsewhere = await cutOffEverythingElse(context);
    const page = await context.newPage();
    const problems = watchForProblems(page);
    const spec = page.waitForResponse((response) => response.url() === `${server.url}/openapi.json`, { timeout: 60_000 });
    // Public: no sign-in.
    await page.goto('/api-docs', { waitUntil: 'domcontentloaded' });
    expect((await spec).status()).toBe(200);
    expect(await page.title()).toBe('API reference');
    await page.getByRole('heading', { name: STICKIES_LIST }).first().waitFor({ timeout: 60_000 });
    // The tag's section (its heading also holds an anchor link named tag/JSON-RPC).
    await page
      .locator('h2')
      .filter({ hasText: /^JSON-RPC$/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByRole('heading', { name: 'JSON-RPC 2.0 tool endpoint (an MCP server)' }).first().waitFor({ timeout: 30_000 });
    // Redoc's search runs in a worker it builds from a blob: URL, which the policy allows.
    await page.getByPlaceholder('Search...').fill('sticky');
    await page.locator('[data-role="search:results"]').getByText(STICKIES_LIST).first().waitFor({ timeout: 30_000 });
    const bar = page.getByRole('navigation', { name: 'API reference' });
    expect(await bar.getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe('/');
    expect(await bar.getByRole('link', { name: 'openapi.json' }).getAttribute('href')).toBe('/openapi.json');
    expect(await bar.getByRole('link', { name: 'openapi.yaml' }).getAttribute('href')).toBe('/openapi.yaml');
    await screenshot(page, 'api-reference', { fullPage: false });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("the dashboard's navigation opens it", async () => {
    const user = await createUser(server.services, { scopes: ['read:workspace'], role: 'member' });
    const { context, page, problems } = await signInToDashboard(browser!, server.url, user);
    const elsewhere = await cutOffEverythingElse(context);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference', exact: true }).click();
    await page.waitForURL(`${server.url}/api-docs`, { timeout: 30_000 });
    await page.getByRole('heading', { name: STICKIES_LIST }).first().waitFor({ timeout: 60_000 });
    // ... and its bar leads back to the dashboard.
    await page.getByRole('navigation', { name: 'API reference' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 30_000 });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
