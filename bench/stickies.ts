/**
 * Stickies through REST and GraphQL with 10,000 stickies stored for one user: sticky create
 * (`POST /api/stickies` vs the `createSticky` mutation) and list (`GET /api/stickies?limit=50` vs
 * `stickies(first: 50)`), one in-process service, autocannon from this process. Each pair runs
 * alternately (GraphQL, REST, GraphQL, REST) so that neither side gets the warmer half.
 *
 *   npx tsx bench/stickies.ts [--seconds 10] [--connections 10] [--stickies 10000]
 *
 * With DATABASE_URL set it runs on PostgreSQL, in a schema of its own that it drops at the end;
 * otherwise on the embedded database (PGlite) in a temporary DATA_DIR.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { Services } from '../src/services.ts';
import { mergeResults, startBenchService } from './bench-service.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    stickies: { type: 'string', default: '10000' },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
const stored = Number(values.stickies);

const service = await startBenchService();
try {
  const { userId, key } = await benchUser(service.services);
  const started = performance.now();
  await insertStickies(service.services, userId, stored);
  console.log(`stored ${stored} stickies (and their versions) for one user in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const FIELDS = 'id content tags version createdAt updatedAt deletedAt';
  const createBody = { content: 'Benchmark sticky: follow up with the custodian about the March valuation', tags: ['bench', 'follow-up'] };
  const createMutation = `mutation CreateSticky($content: String!, $tags: [String!]) { createSticky(input: { content: $content, tags: $tags }) { ${FIELDS} } }`;
  const listQuery = `query Stickies($first: Int) { stickies(first: $first) { edges { node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;

  const scenarios = [
    {
      name: 'list',
      rest: { title: 'REST    GET /api/stickies?limit=50', url: `${service.url}/api/stickies?limit=50`, method: 'GET' as const, headers: { 'x-api-key': key } },
      graphql: {
        title: 'GraphQL stickies(first: 50)',
        url: `${service.url}/graphql`,
        method: 'POST' as const,
        headers,
        body: JSON.stringify({ query: listQuery, variables: { first: 50 } }),
      },
    },
    {
      name: 'create',
      rest: { title: 'REST    POST /api/stickies', url: `${service.url}/api/stickies`, method: 'POST' as const, headers, body: JSON.stringify(createBody) },
      graphql: {
        title: 'GraphQL createSticky',
        url: `${service.url}/graphql`,
        method: 'POST' as const,
        headers,
        body: JSON.stringify({ query: createMutation, variables: createBody }),
      },
    },
  ];

  // Same answers through both fronts, or the comparison means nothing.
  const restRows = ((await (await fetch(scenarios[0]!.rest.url, { headers: { 'x-api-key': key } })).json()) as { data: unknown[] }).data.length;
  const gqlRows = (
    (await (await fetch(scenarios[0]!.graphql.url, { method: 'POST', headers, body: scenarios[0]!.graphql.body })).json()) as {
      data: { stickies: { edges: unknown[] } };
    }
  ).data.stickies.edges.length;
  console.log(`rows per list response: REST ${restRows}, GraphQL ${gqlRows}`);

  const summary: string[] = [];
  for (const scenario of scenarios) {
    const results: Record<'rest' | 'graphql', autocannon.Result | undefined> = { rest: undefined, graphql: undefined };
    for (const side of ['graphql', 'rest', 'graphql', 'rest'] as const) {
      const result = await autocannon({ ...scenario[side], connections, duration: duration / 2 });
      results[side] = results[side] ? mergeResults(results[side]!, result) : result;
    }
    const rest = results.rest!;
    const gql = results.graphql!;
    for (const [title, result] of [
      [scenario.rest.title, rest],
      [scenario.graphql.title, gql],
    ] as const) {
      console.log(
        `${title.padEnd(36)} ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(5)} ms   p99 ${String(result.latency.p99).padStart(5)} ms   errors ${result.errors + result.non2xx}`,
      );
    }
    const ratio = rest.requests.average / gql.requests.average;
    console.log(
      `${scenario.name}: ratio REST/GraphQL requests per second ${ratio.toFixed(3)}; p99 REST ${rest.latency.p99} ms vs GraphQL ${gql.latency.p99} ms`,
    );
    summary.push(
      `${scenario.name}: REST ${rest.requests.average.toFixed(0)} req/s (p99 ${rest.latency.p99} ms), GraphQL ${gql.requests.average.toFixed(0)} req/s (p99 ${gql.latency.p99} ms), ratio ${ratio.toFixed(3)}`,
    );
  }
  // autocannon drops its connections at the end of a run; let the requests they left behind finish.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const total = await service.services.prisma.sticky.count({ where: { userId } });
  console.log(`\n${summary.join('\n')}`);
  console.log(`stickies stored for the user at the end (the create runs add theirs): ${total}`);
  console.log(
    `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}, database ${service.services.db.kind}, ${connections} connections, ${duration} s per side`,
  );
} finally {
  await service.close();
}

async function benchUser(services: Services): Promise<{ userId: string; key: string }> {
  const { user } = await services.organizations.ensureUser({ email: `bench-${Date.now()}@bench.local`, orgName: 'Bench', role: 'member' });
  const { secret } = await services.apiKeys.create({ userId: user.id, name: 'bench', scopes: ['read:workspace', 'write:workspace'] });
  return { userId: user.id, key: secret };
}

/** Bulk insert (createMany, 1,000 a batch): each sticky with its version 1, spread over a year. */
async function insertStickies(services: Services, userId: string, count: number): Promise<void> {
  const TAGS = ['ops', 'returns', 'meetings', 'ideas', 'follow-up', 'urgent', 'close', 'admin'];
  const now = Date.now();
  for (let start = 0; start < count; start += 1000) {
    const stickies = [];
    const versions = [];
    for (let i = start; i < Math.min(start + 1000, count); i += 1) {
      const id = randomUUID();
      const at = new Date(now - (count - i) * 3_000);
      const content = `Note ${i}: check the ${TAGS[i % TAGS.length]} items for account DC-${1000 + (i % 97)} before the close`;
      const tags = [TAGS[i % TAGS.length]!, TAGS[(i * 7 + 3) % TAGS.length]!].filter((tag, index, all) => all.indexOf(tag) === index);
      stickies.push({ id, userId, content, tags, version: 1, createdAt: at, updatedAt: at });
      versions.push({ stickyId: id, version: 1, action: 'create' as const, content, tags, createdAt: at });
    }
    await services.prisma.$transaction([services.prisma.sticky.createMany({ data: stickies }), services.prisma.stickyVersion.createMany({ data: versions })]);
  }
  await services.db.pool.query('ANALYZE "Sticky"; ANALYZE "StickyVersion"');
}
