/**
 * Every dashboard page, filled with the demo data, checked by axe-core (WCAG 2.1 A and AA rules:
 * labels, names, contrast, structure, ARIA) at a desktop and at a phone's width, with no console
 * errors and nothing wider than the screen; and laid out soundly (expectSoundLayout): every table's
 * headers over their columns at 1280 px, nothing past the screen's edge at 390 px.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBrowserAndServer, startServerAndBrowser } from '../helpers/browser-and-server.ts';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from '../helpers/server.ts';
import { browserAvailable, screenshot, signInToDashboard, expectCount, expectSoundLayout } from '../helpers/browser.ts';
import { DEMO_ADMIN_EMAIL, seedDemoData } from '../../src/seed/demo-seed.ts';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The pages, with a heading to wait for (detail pages are found from their list) and how many
 * tables the demo data fills on them (each one's headers are checked against its cells).
 */
const PAGES: { route: string; heading: RegExp; open?: (page: Page) => Promise<void>; tables?: number }[] = [
  { route: '/', heading: /Welcome/ },
  { route: '/files', heading: /^Files$/, tables: 1 },
  { route: '/returns', heading: /^Returns$/, tables: 5 },
  { route: '/stickies', heading: /^Stickies$/ },
  { route: '/links', heading: /^Links$/ },
  { route: '/transcripts', heading: /^Transcripts$/, tables: 1 },
  { route: '/transcripts', heading: /.+/, open: (page) => page.getByRole('table').getByRole('link').first().click() },
  { route: '/tasks', heading: /^Tasks$/, tables: 1 },
  { route: '/tasks', heading: /.+/, open: (page) => page.getByRole('table').getByRole('link').first().click() },
  { route: '/news', heading: /^News$/ },
  { route: '/chat', heading: /^Chat$/ },
  { route: '/generation', heading: /Summar/, tables: 1 },
  {
    route: '/generation',
    heading: /Summary run/,
    open: (page) =>
      page
        .getByRole('row')
        .filter({ hasText: /completed/i })
        .getByRole('link')
        .first()
        .click(),
    tables: 1,
  },
  { route: '/system', heading: /^System$/ },
  { route: '/settings', heading: /API keys/, tables: 1 },
];

describe.skipIf(!browserAvailable)('dashboard accessibility (axe-core, WCAG 2.1 AA)', () => {
  let server: TestServer;
  let browser: Browser;
  let password: string;
  let apiKey: string;

  beforeAll(async () => {
    ({ server, browser } = await startServerAndBrowser({}));
    const seeded = await seedDemoData(server.services, { print: () => {} });
    password = seeded.adminPassword!;
    apiKey = seeded.apiKey!;
    // The demo's first summary run completes in the background; the run page needs it done.
    const until = Date.now() + 60_000;
    while ((await server.services.prisma.generationRun.findFirst())?.state !== 'completed') {
      if (Date.now() > until) throw new Error('the demo summary run did not complete within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 180_000);

  afterAll(() => closeBrowserAndServer(browser, server));

  it('the overview lists what needs attention: returns to investigate and open tasks, as the API has them', async () => {
    const api = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({
        query:
          '{ returnComparison(status: investigate, first: 5) { edges { node { entityName } } } tasks(status: [blocked, in_progress, todo], first: 5) { edges { node { title } } } }',
      }),
    });
    const { data } = (await api.json()) as {
      data: { returnComparison: { edges: { node: { entityName: string } }[] }; tasks: { edges: { node: { title: string } }[] } };
    };
    expect(data.returnComparison.edges.length).toBeGreaterThan(0);
    expect(data.tasks.edges.length).toBeGreaterThan(0);
    const session = await signInToDashboard(browser, server.url, { email: DEMO_ADMIN_EMAIL, password });
    const { page } = session;
    const returns = page.getByRole('region', { name: 'Returns to investigate' });
    await returns.getByRole('listitem').first().waitFor();
    await expectCount(returns.getByRole('listitem'), data.returnComparison.edges.length);
    const tasks = page.getByRole('region', { name: 'Open tasks' });
    for (const { node } of data.tasks.edges) await tasks.getByRole('link', { name: node.title }).waitFor();
    await screenshot(page, 'overview-demo');
    await tasks.getByRole('link', { name: data.tasks.edges[0]!.node.title }).click();
    await page.getByRole('heading', { level: 1, name: data.tasks.edges[0]!.node.title }).waitFor();
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  for (const viewport of [
    { name: 'desktop', width: 1280, height: 860 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    it(`every page passes axe at ${viewport.name} width`, async () => {
      // The checker is injected as a script, which the page's content security policy would refuse.
      const session = await signInToDashboard(browser, server.url, { email: DEMO_ADMIN_EMAIL, password }, viewport, { bypassCSP: true });
      const { page } = session;
      const report: string[] = [];
      for (const target of PAGES) {
        await page.goto(`/#${target.route}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        if (target.open) await target.open(page);
        await page.getByRole('heading', { level: 1, name: target.heading }).waitFor();
        await page.waitForLoadState('networkidle');
        const where = `${target.route}${target.open ? ' (detail)' : ''}`;
        // A list being refreshed is dimmed for a moment (opacity): axe would measure that frame's contrast.
        await page
          .waitForFunction(() => !document.querySelector('[aria-busy="true"], .refreshing'), undefined, { timeout: 15_000 })
          .catch(() => report.push(`${where}: still refreshing (aria-busy or .refreshing) after 15 s`));
        for (const violation of await axeViolations(page)) {
          report.push(
            `${where}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(', ')}`,
          );
        }
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width > viewport.width) report.push(`${where}: the page is ${width}px wide on a ${viewport.width}px screen`);
        if (viewport.name === 'phone') await screenshot(page, `phone${where.replace(/[^a-z]+/gi, '-')}`);
        if (viewport.name === 'desktop') {
          // Both widths, once: the headers of every table over their columns, nothing past the edge.
          try {
            const name = where === '/' ? 'overview' : where.replace(/[^a-z]+/gi, '-').replace(/^-|-$/g, '');
            const { tablesChecked } = await expectSoundLayout(page, { screenshot: `layout-${name}`, tables: target.tables });
            if (tablesChecked < (target.tables ?? 0))
              report.push(`${where}: ${tablesChecked} of its ${target.tables} tables had rows to check the headers against`);
          } catch (error) {
            report.push(`${where}: ${(error as Error).message}`);
          }
        }
      }
      // The findings in the message's first line: CI's summary prints that line only.
      expect(report, report.join(' | ')).toEqual([]);
      expect(session.problems, session.problems.join(' | ')).toEqual([]);
      await session.context.close();
    }, 240_000);
  }
});

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}
