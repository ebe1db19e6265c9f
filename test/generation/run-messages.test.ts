/**
 * The progress messages a user reads in the summaries view are plain English: "1 finding",
 * "3 findings", "Added 1 missing finding", never "finding(s)".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { RunExecutor } from '../../src/generation/run-executor.ts';
import { ServiceCollector } from '../../src/generation/collector.ts';
import { RunStore } from '../../src/generation/run-store.ts';

let server: TestServer;
let empty: TestUser;
let busy: TestUser;

beforeAll(async () => {
  // No worker: the test runs each run itself.
  server = await startTestServer({ WORKER_ENABLED: 'false' });
  empty = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
  busy = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
  for (const [content, tags] of [
    ['Call the custodian about the March cash breaks', ['cash', 'custodian']],
    ['Harbor Growth: review the March valuation with the custodian', ['custodian', 'valuation']],
    ['Month end: the cash breaks are closed', ['cash']],
  ] as const) {
    await server.services.stickies.create(busy.userId, { content, tags });
  }
}, 60_000);
afterAll(async () => server?.close());

async function runMessages(user: TestUser, days = 7) {
  const { services } = server;
  const run = await services.generation.start(user.userId, { sources: ['stickies', 'links', 'tasks'], days });
  const store = new RunStore(services.db.pool);
  const executor = new RunExecutor({
    store,
    hub: services.progress,
    pubsub: services.pubsub,
    collector: new ServiceCollector(services),
    model: null,
    agentTimeoutMs: 30_000,
    stepDelayMs: 0,
    log: services.log,
  });
  await executor.execute(run.id, new AbortController().signal);
  return store.events(run.id);
}

function plural(count: number, one: string): string {
  return `${count} ${count === 1 ? one : `${one}s`}`;
}

it.each([
  ['an empty workspace, last 7 days', () => empty, 7],
  ['a workspace with notes, last day', () => busy, 1],
])('%s: every agent reports its counts in correct English', async (_what, user, days) => {
  const events = await runMessages(user(), days);
  expect(events.find((event) => event.agent === 'collector' && event.status === 'started')!.message).toBe(
    `Collecting your records from the last ${plural(days, 'day')}`,
  );
  expect(events.map((event) => event.message).filter((message) => /\(s\)/.test(message))).toEqual([]);
  const analysts = events.filter((event) => event.status === 'complete' && typeof event.data.findings === 'number');
  expect(analysts.length).toBeGreaterThan(0);
  for (const event of analysts) expect(event.message, event.agent).toBe(plural(event.data.findings as number, 'finding'));
  const editor = events.find((event) => event.agent === 'editor' && event.status === 'complete')!;
  const added = (editor.data.added as unknown[]).length;
  const checked = editor.data.checked as number;
  if (added > 0) expect(editor.message).toBe(`Added ${plural(added, 'missing finding')} to the summary`);
  else if (checked === 0) expect(editor.message).toBe('There were no key findings to check');
  else if (checked === 1) expect(editor.message).toBe('The summary covers the 1 key finding');
  else expect(editor.message).toBe(`The summary covers all ${checked} key findings`);
});
