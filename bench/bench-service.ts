/**
 * What the benchmarks share: a real service in this process with its own temporary DATA_DIR (or
 * its own PostgreSQL schema when DATABASE_URL is set, dropped at the end), budgets raised so no
 * rate limit throttles a run, and merging of the alternating autocannon halves.
 */
import type autocannon from 'autocannon';
import { startTestServer, type TestServer } from '../test/helpers/server.ts';

export function startBenchService(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({
    LOG_LEVEL: 'warn',
    WORKER_ENABLED: 'false',
    RATE_LIMIT_RETURNS_PER_MINUTE: '100000000',
    RATE_LIMIT_UPLOAD_PER_MINUTE: '100000000',
    ...env,
  });
}

/** Two runs of the same target as one: mean rate and p50, worst p99, summed errors. */
export function mergeResults(a: autocannon.Result, b: autocannon.Result): autocannon.Result {
  return {
    ...b,
    requests: { ...b.requests, average: (a.requests.average + b.requests.average) / 2 },
    latency: { ...b.latency, p50: (a.latency.p50 + b.latency.p50) / 2, p99: Math.max(a.latency.p99, b.latency.p99) },
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
  };
}
