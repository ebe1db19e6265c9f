/**
 * How fast the dashboard is for a user: for each main page, the time from navigation until its
 * data is on screen (no request in flight for 300 ms: the "network idle" of Playwright) and the
 * bytes the browser received, on a cold cache (new browser context) and a warm one (the same
 * context again), in Debian's headless Chromium against an in-process service with the demo data.
 * Also the bundle's files, raw and gzip-compressed.
 *
 *   npx tsx bench/dashboard.ts [--runs 5]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { startBenchService } from './bench-service.ts';
import { buildDashboard, dashboardDist } from '../scripts/build-dashboard.ts';
import { signInCookie } from '../test/helpers/fixtures.ts';
import { DEMO_ADMIN_EMAIL, seedDemoData } from '../src/seed/demo-seed.ts';
import { launchBrowser } from '../test/helpers/browser.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);

const pages: { route: string; heading: RegExp }[] = [
  { route: '/', heading: /Welcome/ },
  { route: '/files', heading: /^Files$/ },
  { route: '/returns', heading: /^Returns$/ },
  { route: '/stickies', heading: /^Stickies$/ },
  { route: '/generation', heading: /Summar/ },
  { route: '/system', heading: /^System$/ },
  { route: '/settings', heading: /API keys/ },
];

await buildDashboard({ quiet: true });
printBundle();

const service = await startBenchService({ WORKER_ENABLED: 'true' });
const browser = await launchBrowser();
try {
  const seeded = await seedDemoData(service.services, { print: () => {} });
  const cookie = await signInCookie(service.url, { email: DEMO_ADMIN_EMAIL, password: seeded.adminPassword! });
  const [name, value] = cookie.split('=') as [string, string];
  console.log(`\n${runs} runs per page; median (min–max)`);
  console.log(
    ['page', 'cold: heading', 'cold: data on screen', 'cold: received', 'warm: heading', 'warm: data on screen', 'warm: received']
      .map((h, i) => h.padEnd(i === 0 ? 14 : 24))
      .join(''),
  );
  for (const target of pages) {
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ baseURL: service.url, viewport: { width: 1280, height: 860 } });
      await context.addCookies([{ name, value, url: service.url }]);
      const page = await context.newPage();
      cold.push(await load(page, target.route, target.heading));
      await page.goto('about:blank');
      warm.push(await load(page, target.route, target.heading));
      await context.close();
    }
    console.log(
      [
        target.route.padEnd(14),
        describe(cold, 'headingMs'),
        describe(cold, 'ms'),
        describe(cold, 'bytes'),
        describe(warm, 'headingMs'),
        describe(warm, 'ms'),
        describe(warm, 'bytes'),
      ].join(''),
    );
  }
} finally {
  await browser.close();
  await service.close();
}

interface Sample {
  /** Until the page's heading is on screen (the shell and the page's code have loaded). */
  headingMs: number;
  /** Until its data is on screen too (no request for 500 ms, minus those 500 ms). */
  ms: number;
  bytes: number;
}

async function load(page: Page, route: string, heading: RegExp): Promise<Sample> {
  let bytes = 0;
  const session = await page.context().newCDPSession(page);
  await session.send('Network.enable');
  session.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
    bytes += event.encodedDataLength;
  });
  const started = performance.now();
  await page.goto(`/#${route}`, { waitUntil: 'commit' });
  // Checked on every animation frame (a locator's waitFor polls at up to 500 ms intervals).
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('h1')?.textContent ?? ''), heading.source, { polling: 'raf' });
  const headingMs = performance.now() - started;
  await page.waitForLoadState('networkidle');
  // networkidle waits 500 ms of quiet before it resolves: that wait is not the page's time.
  const ms = performance.now() - started - 500;
  await session.detach();
  return { headingMs, ms, bytes };
}

function describe(samples: Sample[], key: keyof Sample): string {
  const sorted = samples.map((s) => s[key]).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const format = (v: number) => (key === 'bytes' ? `${(v / 1024).toFixed(0)} KB` : `${Math.max(0, v).toFixed(0)} ms`);
  return `${format(median)} (${format(sorted[0]!)}–${format(sorted[sorted.length - 1]!)})`.padEnd(24);
}

function printBundle(): void {
  const dir = path.join(dashboardDist, 'assets');
  const files = fs.readdirSync(dir).map((file) => {
    const content = fs.readFileSync(path.join(dir, file));
    return { file, raw: content.length, gzip: zlib.gzipSync(content).length };
  });
  files.sort((a, b) => b.raw - a.raw);
  console.log('bundle (dashboard/dist/assets): file, raw, gzip');
  for (const f of files) console.log(`  ${f.file.padEnd(36)} ${(f.raw / 1024).toFixed(1).padStart(7)} KB ${(f.gzip / 1024).toFixed(1).padStart(7)} KB`);
  const total = files.reduce((sum, f) => ({ raw: sum.raw + f.raw, gzip: sum.gzip + f.gzip }), { raw: 0, gzip: 0 });
  console.log(`  ${'total'.padEnd(36)} ${(total.raw / 1024).toFixed(1).padStart(7)} KB ${(total.gzip / 1024).toFixed(1).padStart(7)} KB`);
}
