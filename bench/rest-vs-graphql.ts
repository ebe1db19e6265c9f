/**
 * REST overhead: the same returns comparison query through `GET /api/returns/comparison` and
 * through `POST /graphql`, one service process, autocannon from this process.
 * Goal (issue 2): REST requests per second >= 90% of GraphQL's.
 *
 *   npx tsx bench/rest-vs-graphql.ts [--seconds 10] [--connections 10]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { seedDemoData } from '../src/seed/demo-seed.ts';
import { mergeResults, startBenchService } from './bench-service.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });
const duration = Number(values.seconds);
const connections = Number(values.connections);

const service = await startBenchService();
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
  const gqlRows = (
    (await (await fetch(graphql.url, { method: 'POST', headers: graphql.headers, body: graphql.body })).json()) as {
      data: { returnComparison: { edges: unknown[] } };
    }
  ).data.returnComparison.edges.length;
  console.log(`rows per response: REST ${restRows}, GraphQL ${gqlRows}`);

  const results: Record<string, autocannon.Result> = {};
  for (const target of [graphql, rest, graphql, rest]) {
    const result = await autocannon({ ...target, connections, duration: duration / 2 });
    const previous = results[target.title];
    results[target.title] = previous ? mergeResults(previous, result) : result;
  }
  const restResult = results[rest.title];
  const gqlResult = results[graphql.title];
  for (const [title, result] of Object.entries(results)) {
    console.log(
      `${title}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx}`,
    );
  }
  console.log(`ratio REST/GraphQL requests per second: ${(restResult.requests.average / gqlResult.requests.average).toFixed(3)} (goal >= 0.90)`);
  console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}, database ${service.services.db.kind}`);
} finally {
  await service.close();
}
