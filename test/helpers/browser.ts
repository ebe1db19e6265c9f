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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
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

/**
 * Saves a screenshot under test/artifacts/ (ignored by git): the full page, or only the viewport
 * for a page too long to capture whole on a loaded machine (the API reference renders every
 * operation: a full-page capture of it exceeded 30 s in CI).
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: options.fullPage ?? true });
}

/**
 * The locator matches `count` elements, within `timeout`: a page updates after the action a test
 * took (a refetch, a re-render), so counting once right after it races the page.
 */
export async function expectCount(locator: Locator, count: number, timeout = 10_000): Promise<void> {
  await expect.poll(() => locator.count(), { timeout }).toBe(count);
}

/** The two widths every page is laid out for: a desktop and a phone (390 x 844). */
export const LAYOUT_WIDTHS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;

export interface LayoutReport {
  /** Tables on the page (laid out at 1280 px) whose every header cell was compared with body cells of its column. */
  tablesChecked: number;
}

/**
 * The page's layout at both widths, whatever the viewport it was opened at (restored afterwards):
 * - at 1280 px, in every table shown, each header cell stands over its own column: its left and
 *   right edges match those of each body cell spanning the same columns (within 2 px). A table
 *   laid out as anything but a table (its head and body sized apart) fails here;
 * - at 390 px, nothing scrolls sideways and no element's box reaches past the screen's right
 *   edge (or is cut by its left one), except inside a frame that scrolls or clips it (a wide
 *   table's frame scrolls; the frame itself is checked).
 * Each check measures again for up to 10 s while it finds something (the page may still be laying
 * out), and a failure lists what it found at both widths. With `screenshot`, the page is saved at
 * both widths as test/artifacts/<name>-1280.png and <name>-390.png. With `tables`, the desktop check
 * also waits (up to 30 s: a loaded machine answers the page's requests slowly) until that many
 * tables have rows under every header, and reports the tables it could check.
 */
export async function expectSoundLayout(page: Page, options: { screenshot?: string; tables?: number } = {}): Promise<LayoutReport> {
  const original = page.viewportSize();
  const tables = options.tables ?? 0;
  try {
    await page.setViewportSize(LAYOUT_WIDTHS.desktop);
    const desktop = await settle(
      async () => {
        const found = await page.evaluate(misplacedHeaders);
        return found.tablesChecked < tables ? { ...found, waiting: true } : found;
      },
      tables > 0 ? 30_000 : 10_000,
    );
    if (options.screenshot) await screenshot(page, `${options.screenshot}-1280`);
    await page.setViewportSize(LAYOUT_WIDTHS.phone);
    const phone = await settle(async () => ({ problems: await page.evaluate(overflowingElements) }));
    if (options.screenshot) await screenshot(page, `${options.screenshot}-390`);
    const failures = [
      ...(desktop.problems.length > 0 ? [`table headers not over their columns at 1280 px:\n    ${desktop.problems.join('\n    ')}`] : []),
      ...(phone.problems.length > 0 ? [`wider than the screen at 390 px:\n    ${phone.problems.join('\n    ')}`] : []),
    ];
    if (failures.length > 0) throw new Error(`Layout of ${page.url()}:\n  ${failures.join('\n  ')}`);
    return { tablesChecked: desktop.tablesChecked };
  } finally {
    if (original) await page.setViewportSize(original);
  }
}

/**
 * Measures until nothing is found (and nothing is still awaited) or the timeout has passed (the
 * page may still be laying out or loading); the last measure.
 */
async function settle<T extends { problems: string[]; waiting?: boolean }>(measure: () => Promise<T>, timeout = 10_000): Promise<T> {
  const until = Date.now() + timeout;
  for (;;) {
    const found = await measure();
    if ((found.problems.length === 0 && !found.waiting) || Date.now() > until) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs in the page: header cells whose box is not over their column's body cells. */
function misplacedHeaders(): { problems: string[]; tablesChecked: number } {
  /** Each cell of the rows with the columns it covers, as the table's grid places it (colspan, rowspan). */
  const place = (rows: HTMLTableRowElement[]) => {
    const busy: number[] = [];
    const placed: { cell: HTMLTableCellElement; start: number; end: number }[] = [];
    for (const row of rows) {
      let column = 0;
      for (const cell of row.cells) {
        while ((busy[column] ?? 0) > 0) column++;
        const start = column;
        column += Math.max(1, cell.colSpan);
        for (let c = start; c < column; c++) busy[c] = cell.rowSpan === 0 ? Infinity : Math.max(1, cell.rowSpan);
        placed.push({ cell, start, end: column });
      }
      for (let c = 0; c < busy.length; c++) if ((busy[c] ?? 0) > 0) busy[c]!--;
    }
    return placed;
  };
  const shown = (element: Element) => element.getClientRects().length > 0;
  const text = (element: Element) => (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
  const problems: string[] = [];
  let tablesChecked = 0;
  for (const table of document.querySelectorAll('table')) {
    if (!shown(table) || !table.tHead) continue;
    const name = table.getAttribute('aria-label') ?? table.caption?.textContent ?? table.className ?? 'table';
    const head = place([...table.tHead.rows]).filter(({ cell }) => shown(cell));
    const body = [...table.tBodies, ...(table.tFoot ? [table.tFoot] : [])].flatMap((group) => place([...group.rows])).filter(({ cell }) => shown(cell));
    let compared = 0;
    for (const header of head) {
      const box = header.cell.getBoundingClientRect();
      const column = body.filter(({ start, end }) => start === header.start && end === header.end);
      if (column.length > 0) compared++;
      const off = column.find(({ cell }) => {
        const other = cell.getBoundingClientRect();
        return Math.abs(other.left - box.left) > 2 || Math.abs(other.right - box.right) > 2;
      });
      if (off) {
        const other = off.cell.getBoundingClientRect();
        problems.push(
          `table "${name}": header "${text(header.cell)}" (column ${header.start + 1}) spans ${Math.round(box.left)}-${Math.round(box.right)} px, its cell "${text(off.cell)}" ${Math.round(other.left)}-${Math.round(other.right)} px`,
        );
      }
    }
    if (head.length > 0 && compared === head.length) tablesChecked++;
  }
  return { problems, tablesChecked };
}

/** Runs in the page: what is wider than the screen, or reaches past its edges. */
function overflowingElements(): string[] {
  const root = document.documentElement;
  const width = root.clientWidth;
  const problems: string[] = [];
  if (root.scrollWidth > width) problems.push(`the page is ${root.scrollWidth} px wide on a ${width} px screen`);
  /** Inside a frame that scrolls or clips sideways (the frame itself is checked), or hidden by `clip`. */
  const framed = (element: Element) => {
    for (let at: Element | null = element; at && at !== document.body && at !== root; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.clip !== 'auto' && style.position === 'absolute') return true;
      if (at !== element && style.overflowX !== 'visible') return true;
    }
    return false;
  };
  const describe = (element: Element) => {
    const label = element.getAttribute('aria-label') ?? (element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${element.classList.length ? `.${[...element.classList].join('.')}` : ''}> "${label}"`;
  };
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const left = box.left + window.scrollX;
    const right = box.right + window.scrollX;
    // Wholly off the left edge on purpose (a skip link until focused) is not cut off.
    if (right <= 0) continue;
    if ((right > width + 1 || left < -1) && !framed(element))
      problems.push(`${describe(element)} spans ${Math.round(left)}-${Math.round(right)} px on a ${width} px screen`);
  }
  return problems.slice(0, 10);
}
