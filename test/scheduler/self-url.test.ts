/**
 * Each service's self-test probes its own address (issue 25, item 8): with several services in one
 * process (the tests; any embedding), the address was a module-level variable that the last service
 * to listen overwrote, so one service's self-test could probe another, or one that had stopped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe("a service's self-test, with another service in the same process", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => undefined);
  });

  it('probes its own address, not the address of the service started after it (which has stopped)', async () => {
    const first = await startTestServer();
    servers.push(first);
    const second = await startTestServer();
    servers.push(second);
    expect(first.services.listening.url).toBe(first.url);
    expect(second.services.listening.url).toBe(second.url);
    await second.close();

    const run = await first.services.scheduler.runNow('manual');
    const http = run.checks.filter((check) => check.name.includes('http') || /GET \//.test(check.detail ?? ''));
    expect(http.length).toBeGreaterThan(0);
    expect(run.checks.filter((check) => !check.passed)).toEqual([]);
  });
});
