/**
 * The Summaries page end to end: a real service (GENERATION_STEP_DELAY makes a run last a few
 * seconds) with the writer's model at a local fake (CHAT_API_URL, switchable between answering
 * and failing with 500), and Chromium driving the dashboard. Covers starting a run from the form,
 * following it live, reloading mid-run (the view resumes after its last event: no row twice,
 * no event missed), the rendered summary with its references, a writer that fails (the run
 * completes degraded with the offline summary), a feed that closes early or errors (shown, then
 * resumed), cancelling, and the form's refusals (validation, CONFLICT, rate limit).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  browserAvailable,
  launchBrowser,
  openPage,
  screenshot,
  signInToDashboard,
  type DashboardSession,
  expectCount,
  expectSoundLayout,
} from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const RW = ['read:workspace', 'write:workspace'];
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Generate budget per credential: the refusal test spends it through the browser session. */
const GENERATE_BUDGET = 4;

// The writer's model: answers with the findings of its prompt (citing their [n]), or fails with 500.
// While `held`, it keeps each request waiting until release(): a run stays Running at its writer for
// as long as a test needs, however slow the machine, instead of racing a step delay.
const upstream = {
  mode: 'ok' as 'ok' | 'status500',
  requests: 0,
  held: false,
  waiting: [] as (() => void)[],
  hold() {
    this.held = true;
  },
  release() {
    this.held = false;
    for (const answer of this.waiting.splice(0)) answer();
  },
};

function writerReply(prompt: string): string {
  const findings = prompt.split('Findings, most important first:')[1] ?? '';
  const lines = findings.split('\n').filter((line) => line.startsWith('## ') || line.startsWith('- '));
  const body = lines.flatMap((line) => (line.startsWith('## ') ? ['', line, ''] : [line]));
  return ['# Workspace summary', '', 'Month-end close and the committee pack dominate the fortnight [1].', ...body].join('\n');
}

const fake = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    upstream.requests += 1;
    const answer = () => {
      res.setHeader('content-type', 'application/json');
      if (upstream.mode === 'status500') {
        res.statusCode = 500;
        return res.end(JSON.stringify({ error: { message: 'model overloaded' } }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content: string }[] };
      const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: 'fake',
          choices: [{ index: 0, message: { role: 'assistant', content: writerReply(prompt) }, finish_reason: 'stop' }],
        }),
      );
    };
    if (upstream.held) upstream.waiting.push(answer);
    else answer();
  });
});

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
  [server, browser] = await Promise.all([
    startTestServer({
      GENERATION_STEP_DELAY: '400ms',
      GENERATION_HEARTBEAT: '1s',
      RATE_LIMIT_GENERATE_PER_MINUTE: String(GENERATE_BUDGET),
      CHAT_API_URL: fakeUrl,
      CHAT_API_KEY: 'sk-fake-dashboard',
      // Long enough that a writer held by a test never times out on a loaded machine.
      CHAT_TIMEOUT: '5m',
      GENERATION_AGENT_TIMEOUT: '5m',
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  fake.closeAllConnections();
  await new Promise<void>((resolve) => fake.close(() => resolve()));
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** A member with a workspace of stickies, tasks and links, made through the REST API with their key. */
async function workspaceUser(on: TestServer = server): Promise<TestUser> {
  const user = await createUser(on.services, { scopes: RW, role: 'member' });
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  const stickies = [
    { content: 'Month-end close: reconcile DC-1003 custodian returns before sign-off; three days still marked investigate.', tags: ['close', 'returns'] },
    { content: 'Committee pack: use time-weighted returns for the performance table and add the fee review.', tags: ['committee'] },
    { content: 'Northwind still sends weekly performance files; daily Modified Dietz needs daily valuations.', tags: ['data', 'northwind'] },
    { content: 'Keystone funding update arrives Thursday; check the cash flow timing convention.', tags: ['committee', 'cash'] },
    { content: 'Rebalancing bands: review the equity band after the quarter-end drift.', tags: ['portfolio'] },
  ];
  for (const sticky of stickies) expect((await callApi(on.url, user, 'POST', '/api/stickies', sticky)).status).toBe(201);
  const tasks = [
    { title: 'Reconcile DC-1003 custodian returns for month-end', priority: 'urgent', assignee: 'Ana Silva', due_date: inDays(2), labels: ['close'] },
    { title: 'Prepare the investment committee pack', priority: 'high', assignee: 'Ben Okafor', due_date: inDays(5), labels: ['committee'] },
    { title: 'Get the Northwind custodian feed switched to daily files', priority: 'medium', due_date: inDays(14), labels: ['data'] },
    { title: 'Review the equity rebalancing band', priority: 'low', labels: ['portfolio'] },
  ];
  for (const task of tasks) expect((await callApi(on.url, user, 'POST', '/api/pm/tasks', task)).status).toBe(201);
  const links = [
    { url: 'https://example.com/dietz', title: 'Modified Dietz explained', tags: ['returns'], starred: true },
    { url: 'https://example.com/bands', title: 'Rebalancing bands in practice', tags: ['portfolio'] },
  ];
  for (const link of links) expect((await callApi(on.url, user, 'POST', '/api/links', link)).status).toBe(201);
  return user;
}

const visible = (locator: Locator, timeout = 10_000) => locator.first().waitFor({ state: 'visible', timeout });

/** The first match's text as read (whitespace collapsed), or null while nothing matches. */
async function textOf(locator: Locator): Promise<string | null> {
  return (await locator.count()) > 0 ? (await locator.first().innerText()).replace(/\s+/g, ' ').trim() : null;
}

async function expectText(locator: Locator, expected: string | RegExp, timeout = 10_000): Promise<void> {
  if (typeof expected === 'string') await expect.poll(() => textOf(locator), { timeout }).toBe(expected);
  else await expect.poll(async () => expected.test((await textOf(locator)) ?? ''), { timeout }).toBe(true);
}

/** Holds the writer's model until the test releases it (or ends): the run stays Running at its writer. */
function holdWriter(): void {
  upstream.hold();
  onTestFinished(() => upstream.release());
}

/** Resolves once the run's writer is waiting on the held model: no more events until release(). */
async function writerIsWaiting(): Promise<void> {
  await expect.poll(() => upstream.waiting.length, { timeout: 30_000 }).toBeGreaterThan(0);
}

function api(user: TestUser, query: string, variables: Record<string, unknown> = {}, on: TestServer = server) {
  return graphql(on.url, { 'x-api-key': user.key }, query, variables);
}

async function startByApi(user: TestUser, on: TestServer = server): Promise<string> {
  const response = await api(user, 'mutation { startGeneration(input: { days: 14, sources: [stickies, tasks, links] }) { id } }', {}, on);
  expect(response.body.errors).toBeUndefined();
  return response.body.data.startGeneration.id as string;
}

async function runOf(
  user: TestUser,
  id: string,
): Promise<{ state: string; lastSequence: number; references: { title: string }[]; degraded: boolean; summaryProvider: string | null }> {
  const response = await api(user, 'query ($id: UUID!) { generationRun(id: $id) { state lastSequence degraded summaryProvider references { title } } }', {
    id,
  });
  return response.body.data.generationRun;
}

interface AgentState {
  agent: string;
  status: string;
  progress: number;
  message: string;
}

/** The agent table as the user sees it: one entry per row. */
function agentStates(page: Page): Promise<AgentState[]> {
  return page.$$eval('table.gen-agent-table tbody tr', (rows) =>
    rows.map((row) => ({
      agent: row.getAttribute('data-agent') ?? '',
      status: row.querySelector('.badge')?.textContent ?? '',
      progress: Number(row.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow')),
      message: row.querySelector('.gen-agent-message')?.textContent ?? '',
    })),
  );
}

/** The run's state badge in the Progress panel. */
function runState(page: Page) {
  return page.locator('#run-status .gen-run-state .badge').first();
}

/** The `after` of every generationProgress subscription the page opens. */
function watchSubscriptions(page: Page): { after: number }[] {
  const seen: { after: number }[] = [];
  page.on('request', (request: Request) => {
    const body = request.method() === 'POST' ? request.postData() : null;
    if (body?.includes('generationProgress')) seen.push({ after: (JSON.parse(body) as { variables: { after: number } }).variables.after });
  });
  return seen;
}

function storedSequences(page: Page, runId: string): Promise<number[]> {
  return page.evaluate((key) => {
    const raw = window.sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as { events: { sequence: number }[] }).events.map((e) => e.sequence) : [];
  }, `gateway.generation.${runId}`);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

// ---------------------------------------------------------------------------------------------

describe.skipIf(!browserAvailable)('Summaries page', () => {
  it('starts a summary, follows it live, resumes after a reload mid-run and renders the summary with its references', async () => {
    upstream.mode = 'ok';
    holdWriter();
    const user = await workspaceUser();
    const session: DashboardSession = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    const subscriptions = watchSubscriptions(page);

    await openPage(page, '/generation', 'Summaries');
    await visible(page.getByText('You have not started a summary yet.'));
    await page.getByRole('checkbox', { name: 'Meeting transcripts' }).uncheck();
    await page.getByRole('checkbox', { name: 'News' }).uncheck();
    await page.getByLabel(/Look-back window/).fill('14');
    await page.getByLabel('Length').selectOption('short');
    await page.getByRole('button', { name: 'Start summary' }).click();

    await page.waitForURL(new RegExp(`#/generation/${UUID}$`));
    const runId = new URL(page.url()).hash.split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Summary run' }).waitFor();
    await visible(page.getByText(/last 14 days · Stickies, Links, Tasks · short/));
    await expect.poll(() => subscriptions[0]).toEqual({ after: 0 });

    // Rows appear as agents report; the connection line says the page hears from the server.
    await expect.poll(async () => (await agentStates(page)).find((a) => a.agent === 'collector')?.status, { timeout: 15_000 }).toBe('Done');
    await visible(page.getByText(/Live: last heard from the server at/));
    await expectText(runState(page), 'Running');
    await expect.poll(() => page.getByRole('button', { name: 'Cancel run' }).isEnabled()).toBe(true);
    await expect.poll(() => page.getByRole('progressbar', { name: 'Collector progress' }).getAttribute('aria-valuenow')).toBe('100');
    await screenshot(page, 'generation-live');
    expect((await expectSoundLayout(page)).tablesChecked).toBe(1);

    // Reload mid-run: the rows come back from this tab's log and the feed resumes after its last event.
    const before = await agentStates(page);
    const storedBefore = await storedSequences(page, runId);
    expect(storedBefore.length).toBeGreaterThan(3);
    expect(storedBefore).toEqual(storedBefore.map((_, i) => i + 1));
    const subscriptionsBefore = subscriptions.length;
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Summary run' }).waitFor();
    const after = await agentStates(page);
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    for (const row of before) {
      const now = after.find((a) => a.agent === row.agent);
      expect(now, row.agent).toBeDefined();
      expect(now!.progress, row.agent).toBeGreaterThanOrEqual(row.progress);
    }
    expect(after.find((a) => a.agent === 'collector')?.status).toBe('Done');
    await expect.poll(() => subscriptions.length).toBeGreaterThan(subscriptionsBefore);
    // Resumed after at least what was stored before the reload (events stored since then are later still).
    expect(subscriptions[subscriptionsBefore].after).toBeGreaterThanOrEqual(storedBefore.length);

    // Every agent completes, each in one row.
    upstream.release();
    await expectText(runState(page), 'Completed', 20_000);
    const final = await agentStates(page);
    expect(final.map((a) => a.agent)).toEqual(['collector', 'notes', 'tasks', 'writer', 'editor']);
    expect(final.every((a) => a.status === 'Done' && a.progress === 100)).toBe(true);
    await expectCount(page.getByRole('button', { name: 'Cancel run' }), 0);
    await visible(page.getByText('The run has ended; its whole log is shown.'));
    await expectCount(page.getByRole('status').filter({ hasText: 'Summary ready' }), 1);
    await expect.poll(() => page.getByRole('progressbar', { name: 'Whole run' }).getAttribute('aria-valuenow')).toBe('100');

    // Nothing missed, nothing twice: this tab's log is the run's log, 1..lastSequence.
    const run = await runOf(user, runId);
    expect(run).toMatchObject({ state: 'completed', summaryProvider: 'openai', degraded: false });
    expect(await storedSequences(page, runId)).toEqual(Array.from({ length: run.lastSequence }, (_, i) => i + 1));

    // The summary: markdown (headings under the panel's), [n] linking to the n-th reference.
    const summary = page.locator('#summary');
    await visible(summary.getByRole('heading', { level: 2, name: 'Summary' }));
    await visible(summary.getByRole('heading', { level: 3, name: 'Workspace summary' }));
    await visible(summary.getByText('Written by the configured language model (openai).'));
    const references = summary.getByRole('region', { name: 'References' }).getByRole('listitem');
    await expectCount(references, run.references.length);
    expect(run.references.length).toBeGreaterThan(1);
    await expect.poll(() => textOf(references.first())).toContain(run.references[0].title);
    await screenshot(page, 'generation-completed');
    expect((await expectSoundLayout(page, { screenshot: 'generation-completed-layout' })).tablesChecked).toBe(1);
    const citation = summary
      .getByRole('link', { name: `Reference 1: ${await references.first().locator('.badge').innerText()}, ${run.references[0].title}` })
      .first();
    await citation.click();
    await expect.poll(() => references.first().evaluate((element) => element === document.activeElement)).toBe(true);
    expect(new URL(page.url()).hash).toBe(`#/generation/${runId}`);
    // The summary's own References section gives way to the list above (one list, not two).
    await expectCount(summary.getByRole('heading', { name: 'References' }), 1);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await noHorizontalScroll(page);
    await screenshot(page, 'generation-completed-390');

    // The list of runs links back to it.
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole('link', { name: 'All summaries' }).click();
    await page.getByRole('heading', { level: 1, name: 'Summaries' }).waitFor();
    const runs = page.getByRole('table', { name: 'Your summaries, newest first' });
    await expectCount(runs.getByRole('row'), 2);
    await expect.poll(() => textOf(runs.getByRole('row').nth(1))).toContain('Completed');
    await expect.poll(() => textOf(runs.getByRole('row').nth(1))).toContain('Stickies, Links, Tasks');
    await screenshot(page, 'generation-list');
    expect((await expectSoundLayout(page, { screenshot: 'generation-list-layout' })).tablesChecked).toBe(1);
    await runs.getByRole('link').first().click();
    await page.waitForURL(new RegExp(`#/generation/${runId}$`));
    await expectText(runState(page), 'Completed');
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a writer model answering 500: the writer row fails with its message and the run completes degraded with the offline summary (390 px)', async () => {
    upstream.mode = 'status500';
    holdWriter();
    const user = await workspaceUser();
    const session = await signInToDashboard(browser, server.url, user, { width: 390, height: 844 });
    const { page } = session;
    await openPage(page, '/generation', 'Summaries');
    await noHorizontalScroll(page);
    await page.getByRole('button', { name: 'Start summary' }).click();
    await page.waitForURL(new RegExp(`#/generation/${UUID}$`));
    const runId = new URL(page.url()).hash.split('/').at(-1)!;

    await expect.poll(async () => (await agentStates(page)).length, { timeout: 15_000 }).toBeGreaterThan(3);
    await expectText(runState(page), 'Running');
    await noHorizontalScroll(page);
    await screenshot(page, 'generation-live-390');
    upstream.release();

    await expect.poll(async () => (await agentStates(page)).find((a) => a.agent === 'writer')?.status, { timeout: 20_000 }).toBe('Failed');
    const writer = (await agentStates(page)).find((a) => a.agent === 'writer')!;
    expect(writer.message).toBe('Chat provider error: 500');
    await expectCount(page.getByRole('status').filter({ hasText: 'Writer failed' }), 1);

    await expectText(runState(page), 'Completed', 20_000);
    await visible(page.locator('#run-status').getByText('Degraded', { exact: true }));
    await expectCount(page.getByRole('status').filter({ hasText: 'Summary ready (degraded: writer failed)' }), 1);
    const rows = await agentStates(page);
    expect(new Set(rows.map((r) => r.agent)).size).toBe(rows.length);
    expect(rows.filter((r) => r.status === 'Failed').map((r) => r.agent)).toEqual(['writer']);
    const summary = page.locator('#summary');
    await visible(summary.getByText('Written offline by the extractive summariser (offline).'));
    await visible(summary.getByText(/Degraded: Writer failed \(the language model failed, so this is the extractive summary\)/));
    await visible(summary.getByRole('heading', { level: 4, name: 'Highlights' }));
    expect(await runOf(user, runId)).toMatchObject({ state: 'completed', degraded: true, summaryProvider: 'offline' });
    await noHorizontalScroll(page);
    await screenshot(page, 'generation-degraded-390');
    await expectSoundLayout(page);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a feed that closes early or errors is shown in words and resumed after the last event received', async () => {
    upstream.mode = 'ok';
    const user = await workspaceUser();
    const runId = await startByApi(user);
    // The first feed delivers the run's first 3 events (as the server would) and then closes; the second errors.
    await expect.poll(async () => (await runOf(user, runId)).lastSequence, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const logged = await api(
      user,
      'query ($id: UUID!) { generationRun(id: $id) { events(first: 3) { sequence agent status progress message data createdAt } } }',
      { id: runId },
    );
    const firstEvents = (logged.body.data.generationRun.events as object[]).map((event) => ({
      data: { generationProgress: { __typename: 'GenerationEvent', ...event } },
    }));
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    const subscriptions = watchSubscriptions(page);
    let stubbed = 0;
    await page.route('**/graphql', async (route) => {
      if (!route.request().postData()?.includes('generationProgress') || stubbed >= 2) return route.fallback();
      stubbed += 1;
      const payloads = stubbed === 1 ? firstEvents : [{ errors: [{ message: 'The progress feed broke', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] }];
      const body = payloads.map((payload) => `event: next\ndata: ${JSON.stringify(payload)}\n\n`).join('') + 'event: complete\ndata:\n\n';
      await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
    });

    await openPage(page, `/generation/${runId}`, 'Summary run');
    // Shown in words, with the wait before the next try: 1 s after the first failure, 2 s after the second.
    await visible(page.getByText(/The live feed was interrupted: The server closed the live feed before the run ended\. Reconnecting( in 1 s|…)/));
    await visible(page.getByText(/The live feed was interrupted: The progress feed broke\. Reconnecting( in [12] s|…)/), 10_000);
    await screenshot(page, 'generation-feed-interrupted');
    await expectText(runState(page), 'Completed', 30_000);
    await expectCount(page.getByText(/The live feed was interrupted/), 0);
    // Each new try started after the last event received: nothing read twice, nothing missed.
    expect(subscriptions.map((s) => s.after)).toEqual([0, 3, 3]);
    const run = await runOf(user, runId);
    expect(await storedSequences(page, runId)).toEqual(Array.from({ length: run.lastSequence }, (_, i) => i + 1));
    expect((await agentStates(page)).every((a) => a.status === 'Done')).toBe(true);
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('a connection dropped mid-run (the server resets every connection) is shown, and the view resumes after the last event', async () => {
    upstream.mode = 'ok';
    holdWriter();
    const user = await workspaceUser();
    const runId = await startByApi(user);
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    const subscriptions = watchSubscriptions(page);
    await openPage(page, `/generation/${runId}`, 'Summary run');
    // The run is at its held writer and this tab has every event so far.
    await writerIsWaiting();
    const sofar = (await runOf(user, runId)).lastSequence;
    await expect.poll(async () => (await storedSequences(page, runId)).length, { timeout: 15_000 }).toBe(sofar);
    // A real drop: every TCP connection to the service is reset, the live stream's included.
    server.server.closeAllConnections();
    await visible(page.getByText(/The live feed was interrupted/), 15_000);
    const kept = (await storedSequences(page, runId)).length;
    await expect.poll(() => subscriptions.length, { timeout: 15_000 }).toBe(2);
    await expectCount(page.getByText(/The live feed was interrupted/), 0);
    await expectText(runState(page), 'Running');
    upstream.release();
    await expectText(runState(page), 'Completed', 60_000);
    await expectCount(page.getByText(/The live feed was interrupted/), 0);
    // The new subscription started after the last event this tab had: the log is whole, nothing twice.
    expect(subscriptions.map((s) => s.after)).toEqual([0, kept]);
    const run = await runOf(user, runId);
    expect(await storedSequences(page, runId)).toEqual(Array.from({ length: run.lastSequence }, (_, i) => i + 1));
    expect((await agentStates(page)).every((a) => a.status === 'Done')).toBe(true);
    // The browser logs the broken stream itself as a failed resource; nothing else may be logged.
    expect(session.problems.filter((p) => !p.includes('ERR_INCOMPLETE_CHUNKED_ENCODING'))).toEqual([]);
    await session.context.close();
  });

  it('cancels a running run: the agents at work fail "Cancelled" and the run says so', async () => {
    upstream.mode = 'ok';
    holdWriter();
    const user = await workspaceUser();
    const runId = await startByApi(user);
    await writerIsWaiting();
    const session = await signInToDashboard(browser, server.url, user);
    const { page } = session;
    await openPage(page, `/generation/${runId}`, 'Summary run');
    await expectText(runState(page), 'Running', 15_000);
    await expect.poll(async () => (await agentStates(page)).length, { timeout: 15_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Cancel run' }).click();

    await expectText(runState(page), 'Cancelled', 15_000);
    await visible(page.getByText('Cancelled: Generation cancelled by its owner'));
    await expectCount(page.getByRole('status').filter({ hasText: 'Generation cancelled by its owner' }), 1);
    const rows = await agentStates(page);
    expect(rows.some((r) => r.status === 'Failed' && r.message === 'Cancelled')).toBe(true);
    // The agents it never reached say so, rather than waiting forever.
    expect(rows.filter((r) => r.status === 'Waiting')).toEqual([]);
    expect(rows.some((r) => r.status === 'Not run')).toBe(true);
    await expectCount(page.getByRole('button', { name: /Cancel/ }), 0);
    await expectCount(page.locator('#summary'), 0);
    expect((await runOf(user, runId)).state).toBe('cancelled');
    await screenshot(page, 'generation-cancelled');
    expect(session.problems).toEqual([]);
    await session.context.close();
  });

  it('refuses in words: invalid options before sending, 3 runs in progress (CONFLICT), the rate limit, an unknown run', async () => {
    // A service whose worker is off: the three runs stay queued (in progress) however long the
    // test takes on a loaded machine, so the CONFLICT cannot turn into a start.
    const queuedOnly = await startTestServer({ WORKER_ENABLED: 'false', RATE_LIMIT_GENERATE_PER_MINUTE: String(GENERATE_BUDGET) });
    onTestFinished(() => queuedOnly.close());
    const user = await workspaceUser(queuedOnly);
    const inProgress = [await startByApi(user, queuedOnly), await startByApi(user, queuedOnly), await startByApi(user, queuedOnly)];
    const session = await signInToDashboard(browser, queuedOnly.url, user);
    const { page } = session;
    let starts = 0;
    page.on('request', (request) => {
      if (request.postData()?.includes('StartGeneration')) starts += 1;
    });
    await openPage(page, '/generation', 'Summaries');
    const runs = page.getByRole('table', { name: 'Your summaries, newest first' });
    await expectCount(runs.getByRole('row'), 4);

    await page.getByLabel(/Look-back window/).fill('0');
    await page.getByRole('button', { name: 'Start summary' }).click();
    await expectText(page.getByRole('alert'), 'The look-back window must be a whole number of days from 1 to 90.');
    await page.getByLabel(/Look-back window/).fill('91');
    await page.getByRole('button', { name: 'Start summary' }).click();
    await expectText(page.getByRole('alert'), 'The look-back window must be a whole number of days from 1 to 90.');
    await page.getByLabel(/Look-back window/).fill('30');
    for (const name of ['Stickies', 'Links', 'Meeting transcripts', 'Tasks', 'News']) await page.getByRole('checkbox', { name }).uncheck();
    await page.getByRole('button', { name: 'Start summary' }).click();
    await expectText(page.getByRole('alert'), 'Choose at least one source to summarise.');
    expect(starts).toBe(0);

    await page.getByRole('checkbox', { name: 'Tasks' }).check();
    for (let i = 0; i < GENERATE_BUDGET; i += 1) {
      await page.getByRole('button', { name: 'Start summary' }).click();
      await expectText(
        page.getByRole('alert'),
        'The summary was not started: You already have 3 summary generations in progress; wait for one to finish or cancel it. Follow or cancel one of them in the list below.',
      );
      await expect.poll(() => page.getByRole('button', { name: 'Start summary' }).isEnabled()).toBe(true);
    }
    await page.getByRole('button', { name: 'Start summary' }).click();
    await expectText(page.getByRole('alert'), /^The summary was not started: You have started too many summaries in the last minute\. Try again in \d+ s\.$/);
    await screenshot(page, 'generation-refused');

    // Cancelled by their owner elsewhere while the list shows only cancelled runs: the list follows.
    await page.getByLabel('State').selectOption('cancelled');
    await visible(page.getByText('No cancelled summaries.'));
    for (const id of inProgress) await api(user, 'mutation ($id: UUID!) { cancelGeneration(id: $id) { id } }', { id }, queuedOnly);
    await expectCount(runs.getByRole('row'), 4);
    await page.getByLabel('State').selectOption('completed');
    await visible(page.getByText('No completed summaries.'));

    await openPage(page, '/generation/00000000-0000-4000-8000-000000000000', 'Summary run');
    await expect.poll(() => textOf(page.getByRole('alert'))).toContain('This summary cannot be shown: Generation run not found');
    // The browser logs the 429 answers of the refused starts as failed resources; nothing else may appear.
    expect(session.problems.filter((p) => !p.includes('status of 429'))).toEqual([]);
    await session.context.close();
  });
});
