/**
 * REST overhead: the same returns comparison query through `GET /api/returns/comparison` and
 * through `POST /graphql`, one service process, autocannon from this process.
 * Goal (issue 2): REST requests per second >= 90% of GraphQL's.
 *
 *   npx tsx bench/rest-vs-graphql.ts [--seconds 10] [--connections 10]
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/app.ts';
import { createLogger } from '../src/log.ts';
import { seedDemoData } from '../src/seed/demo-seed.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-rest-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  SEED_DEMO_DATA: 'false',
  SELF_TEST_ENABLED: 'false',
  RATE_LIMIT_RETURNS_PER_MINUTE: '100000000',
});
const service = await startService(config, { log: createLogger('warn') });
try {
  const seeded = await seedDemoData(service.services, { print: () => {} });
  const key = seeded.apiKey!;
  const headers = { 'x-api-key': key };
  const query = `query Comparison($first: Int) { returnComparison(first: $first) { edges { node { accountCode entityName date custodianReturn computedReturn differenceBps status reason matchThresholdBps reviewThresholdBps } } pageInfo { hasNextPage endCursor } } }`;

  const rest = { title: 'REST    GET /api/returns/comparison?limit=50', url: `${service.url}/api/returns/comparison?limit=50`, headers };
  const graphql = {
    title: 'GraphQL POST /graphql returnComparison(first: 50)',
    url: `${service.url}/graphql`,
    method: 'POST' as const,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables: { first: 50 } }),
  };
  // Same rows through both fronts, or the comparison means nothing.
  const restRows = ((await (await fetch(rest.url, { headers })).json()) as { data: unknown[] }).data.length;
  const gqlRows = ((await (await fetch(graphql.url, { method: 'POST', headers: graphql.headers, body: graphql.body })).json()) as { data: { returnComparison: { edges: unknown[] } } }).data.returnComparison.edges.length;
  console.log(`rows per response: REST ${restRows}, GraphQL ${gqlRows}`);

  const results: Record<string, autocannon.Result> = {};
  for (const target of [graphql, rest, graphql, rest]) {
    const result = await autocannon({ ...target, connections, duration: duration / 2 });
    const previous = results[target.title];
    results[target.title] = previous ? merge(previous, result) : result;
  }
  const restResult = results[rest.title];
  const gqlResult = results[graphql.title];
  for (const [title, result] of Object.entries(results)) {
    console.log(`${title}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx}`);
  }
  console.log(`ratio REST/GraphQL requests per second: ${(restResult.requests.average / gqlResult.requests.average).toFixed(3)} (goal >= 0.90)`);
  console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}, database ${service.services.db.kind}`);
} finally {
  await service.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}

function merge(a: autocannon.Result, b: autocannon.Result): autocannon.Result {
  return {
    ...b,
    requests: { ...b.requests, average: (a.requests.average + b.requests.average) / 2 },
    latency: { ...b.latency, p50: (a.latency.p50 + b.latency.p50) / 2, p99: Math.max(a.latency.p99, b.latency.p99) },
    errors: a.errors + b.errors,
    non2xx: a.non2xx + b.non2xx,
  };
}
