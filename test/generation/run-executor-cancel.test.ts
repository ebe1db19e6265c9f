/**
 * A cancel while several analysts run: every one of them reports its own `failed` before the
 * run's last event closes the log, however slowly its report is written. (A CI run on PostgreSQL
 * once lost the slower analyst's report: the run ended as soon as the first analyst stopped.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { RunExecutor } from '../../src/generation/run-executor.ts';
import { RunStore } from '../../src/generation/run-store.ts';
import { ServiceCollector } from '../../src/generation/collector.ts';

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  // No worker: this test runs the run itself, with a store that writes one report slowly.
  server = await startTestServer({ WORKER_ENABLED: 'false' });
  user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
}, 60_000);
afterAll(async () => server?.close());

/** A store whose `failed` report of one agent takes `delayMs` longer to write than the others. */
class SlowFailureStore extends RunStore {
  constructor(
    pool: ConstructorParameters<typeof RunStore>[0],
    private readonly slowAgent: string,
    private readonly delayMs: number,
  ) {
    super(pool);
  }

  override async append(...args: Parameters<RunStore['append']>): ReturnType<RunStore['append']> {
    const [, event] = args;
    if (event.agent === this.slowAgent && event.status === 'failed') await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return super.append(...args);
  }
}

it('every running analyst reports "Cancelled" before the run ends cancelled, even when one report is slow to write', async () => {
  const { services } = server;
  const run = await services.generation.start(user.userId, { sources: ['stickies', 'tasks'] });
  const store = new SlowFailureStore(services.db.pool, 'notes', 300);
  const executor = new RunExecutor({
    store,
    hub: services.progress,
    pubsub: services.pubsub,
    collector: new ServiceCollector(services),
    model: null,
    agentTimeoutMs: 10_000,
    // Each agent waits this long before its work: long enough to cancel while both analysts run.
    stepDelayMs: 400,
    log: services.log,
  });
  const execution = executor.execute(run.id, new AbortController().signal);
  const deadline = Date.now() + 10_000;
  const startedAnalysts = async () => (await store.events(run.id)).filter((e) => ['notes', 'tasks'].includes(e.agent) && e.status === 'started').length;
  while ((await startedAnalysts()) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await startedAnalysts()).toBe(2);

  await services.generation.cancel(user.userId, run.id);
  await execution;

  const events = await store.events(run.id);
  const last = events.at(-1)!;
  expect(last).toMatchObject({ agent: 'run', status: 'failed', data: { state: 'cancelled', reason: 'cancelled' } });
  for (const agent of ['notes', 'tasks']) {
    const own = events.filter((e) => e.agent === agent);
    expect(
      own.map((e) => e.status),
      agent,
    ).toEqual(['queued', 'started', 'failed']);
    expect(own.at(-1)).toMatchObject({ message: 'Cancelled', data: { reason: 'cancelled' } });
  }
  expect([...(last.data.failed_agents as string[])].sort()).toEqual(['notes', 'tasks']);
  expect(await store.get(run.id)).toMatchObject({ state: 'cancelled' });
});
