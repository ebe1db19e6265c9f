/**
 * End-to-end tests drive Debian's Chromium (/usr/bin/chromium, `apt-get install chromium`) with
 * playwright-core: no browser is downloaded. Without Chromium the browser suites are skipped
 * locally and fail under CI=true, where .ci/run installs it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const browserAvailable = fs.existsSync(CHROMIUM_PATH);
if (!browserAvailable && process.env.CI === 'true') {
  throw new Error(`Chromium is required for the dashboard tests under CI (${CHROMIUM_PATH}): apt-get install chromium`);
}

export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts', import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // This machine's network is closed: no background connections to Google's hosts.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export interface DashboardSession {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions seen so far; a test ends by expecting none. */
  problems: string[];
}

/** A fresh browser context signed in through the real /login form, on the dashboard's overview. */
export async function signInToDashboard(
  browser: Browser,
  baseUrl: string,
  user: { email: string; password: string },
  viewport = { width: 1280, height: 860 },
  options: BrowserContextOptions = {},
): Promise<DashboardSession> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport, ...options });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const problems = watchForProblems(page);
  await page.goto('/');
  await page.waitForURL(/\/login/);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page, problems };
}

/** Records console errors and page errors (e.g. a failed resource, an uncaught exception). */
export function watchForProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** Opens a dashboard page by its hash route and waits for its heading. */
export async function openPage(page: Page, route: string, heading: string | RegExp): Promise<void> {
  await page.goto(`/#${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Saves a full-page screenshot under test/artifacts/ (ignored by git). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

/**
 * The locator matches `count` elements, within `timeout`: a page updates after the action a test
 * took (a refetch, a re-render), so counting once right after it races the page.
 */
export async function expectCount(locator: Locator, count: number, timeout = 10_000): Promise<void> {
  await expect.poll(() => locator.count(), { timeout }).toBe(count);
}
