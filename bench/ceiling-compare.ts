/**
 * Project REST, project GraphQL, the ceiling (bench/ceiling.ts, bare node:http + pg) and a plain
 * yoga (issue 29) on the same three reads, interleaved in one run (issue 16):
 *
 *   GET /api/returns/comparison?limit=50   | returnComparison(first: 50)
 *   GET /api/stickies?limit=20             | stickies(first: 20)
 *   GET /health                            | health { status }
 *   GET /api/returns/dietz-daily?entity_name=Harbor Growth Fund LP&start_date=<90 days ago>&end_date=<yesterday>
 *                                          | dietzDailyReturns(...)   (asked for by name: --endpoints daily,...)
 *
 * Short slots (--seconds, default 3), many rounds (--rounds, default 12); each round runs every
 * endpoint x target once, the order of the endpoints and of the targets rotated every round.
 * Reported per endpoint and target: the median of the slots' requests per second with their
 * spread (min-max), the median p50 latency, and CPU ms per request (the process's CPU time during
 * the slot / requests answered: this process for the project and the plain yoga, which run in it,
 * the ceiling's own process for the ceiling). Then REST/GraphQL, REST/ceiling and GraphQL/plain
 * yoga, each computed within a round and reported as median and spread.
 *
 * `authed-yoga` (asked for by name) is the plain yoga with each request's API key verified by the
 * project's own authenticate (the key's one statement, the viewer built from it): what any server
 * that checks a credential on every request pays. GraphQL/authed yoga is what the project's other
 * policies cost; authed yoga/plain yoga what authentication alone costs.
 *
 * The plain yoga is what a team gets from `createYoga({ schema })` with no policies: the project's
 * own schema (schema/index.ts getSchema) and services, served by node:http on a port of its own,
 * with a context built from the viewer of the API key resolved once at start (no per-request
 * credential lookup), no envelop plugins, no express, no request log, and rate budgets that allow
 * everything (the schema's resolvers charge them; the policy is the project's). It runs in this
 * process, like the project: the same Node process model (one thread, one heap, the same
 * services, pool and embedded database), measured in its own slots, never beside the project's;
 * a child process would have needed a second set of services and pool, and a smaller heap.
 *
 * The load generator (autocannon) runs in a child process of its own, so neither server's CPU
 * figure includes it. Before measuring, the bodies are checked: the ceiling's must be
 * byte-identical to the project's REST bodies, and the GraphQL data, shaped as REST shapes it,
 * must be too; the plain yoga's data must equal the project's GraphQL data. Any difference stops the run.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npx tsx bench/ceiling-compare.ts [--seconds 3] [--rounds 12] [--connections 10] [--warmup 1]
 *     [--endpoints comparison,stickies,health] [--targets REST,GraphQL,ceiling,yoga] [--profile DIR] [--set NAME=VALUE]...
 *
 * Two more targets, asked for by name (issue 29, docs/caching.md): `rest-cached`, the REST read
 * with the response cache on (its slots swap an enabled cache in; the warm-up keeps the answer),
 * and `rest-304`, the REST read sent with the current answer's ETag in If-None-Match (304s,
 * decided before the read runs). Their ratios to the ceiling and to uncached REST are printed:
 *
 *   DATABASE_URL=... npx tsx bench/ceiling-compare.ts --endpoints comparison,stickies --targets REST,ceiling,rest-cached,rest-304
 *
 * And two for the floor (bench/ceiling.ts `/floor/...`, in the ceiling's process): `floor-cached`,
 * node:http answering the same body from memory with no credential read and no statement, and
 * `floor-304`, node:http answering 304 to each request. No HTTP server can do less per request,
 * so `floor .../ceiling` is the best ratio any cached answer or 304 can reach on this machine with
 * this load generator; `REST cached/floor cached` and `REST 304/floor 304` say how near the project is.
 * And two for the exact floor (`/exact/...`): `exact-cached` and `exact-304`, the floor's answers
 * after the one statement an exact answer must run first (the key still valid? the data
 * unchanged? VERIFY_SQL): `exact .../ceiling` is the best ratio an exact cache can reach here,
 * `REST cached/exact cached` and `REST 304/exact 304` how near the project's is.
 *
 * The project runs with its response cache off (RESPONSE_CACHE_MAX_BYTES=0: the ceiling and the
 * plain yoga run every read's statements; an answer from the cache would compare a cache with a
 * server) and REQUESTS_IN_FLIGHT_PER_CLIENT at the connection count (the load generator is one
 * client: at the default 4 the fair share serves four of its ten connections at a time, which
 * neither peer does; the policy still runs for every request). --set NAME=VALUE (repeated) sets
 * any service variable, these two included.
 *
 * --profile DIR: a CPU profile of this process (node:inspector) during each slot of the project's
 * and the plain yoga's, written to DIR as <endpoint>-<target>-<round>.cpuprofile (the warm-up
 * slots are not profiled; each carries the slot's request count as `requests`); aggregate them
 * with bench/profile-summary.ts.
 *
 * Without DATABASE_URL the project runs on its embedded database (PGlite, inside this process):
 * the ceiling needs PostgreSQL, so only REST and GraphQL are measured (and the project's CPU then
 * includes the database's).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';

type TargetName =
  | 'REST'
  | 'GraphQL'
  | 'ceiling'
  | 'plain yoga'
  | 'REST cached'
  | 'REST 304'
  | 'floor cached'
  | 'floor 304'
  | 'exact cached'
  | 'exact 304'
  | 'authed yoga';
/** The targets the ceiling's process serves (they need PostgreSQL). */
const CEILING_TARGETS: readonly TargetName[] = ['ceiling', 'floor cached', 'floor 304', 'exact cached', 'exact 304'];
const optionName = (target: TargetName) => (target === 'plain yoga' ? 'yoga' : target.toLowerCase().replace(' ', '-'));
type EndpointName = 'comparison' | 'stickies' | 'health' | 'daily';

interface LoadJob {
  id: number;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
}

interface LoadSummary {
  id: number;
  requests: number;
  rps: number;
  p50: number;
  errors: number;
  non2xx: number;
  /** 3xx answers (a 304 slot's answers are all 304s). */
  notModified: number;
}

/** The demo entity whose last 90 days the daily-returns endpoint reads (the README's example). */
const DAILY_ENTITY = 'Harbor Growth Fund LP';

const here = fileURLToPath(import.meta.url);
const childExecArgv = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];

if (process.argv.includes('--loadgen')) {
  await loadGenerator();
} else {
  await main();
}

/** The child that runs autocannon: one job per message, a summary back. */
async function loadGenerator(): Promise<void> {
  const { default: run } = await import('autocannon');
  process.on('message', (job: LoadJob) => {
    void run({ url: job.url, method: job.method, headers: job.headers, body: job.body, connections: job.connections, duration: job.duration }).then(
      (result: autocannon.Result) => {
        const summary: LoadSummary = {
          id: job.id,
          requests: result.requests.total,
          rps: result.requests.average,
          p50: result.latency.p50,
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
          notModified: result['3xx'],
        };
        process.send?.(summary);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '12' },
      connections: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '1' },
      endpoints: { type: 'string', default: 'comparison,stickies,health' },
      targets: { type: 'string', default: 'REST,GraphQL,ceiling,yoga' },
      profile: { type: 'string' },
      set: { type: 'string', multiple: true },
    },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const warmup = Number(values.warmup);
  for (const [name, value] of Object.entries({ seconds, rounds, connections })) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  }

  // The project runs in this process: as `npm start` runs it (server/node-env.ts), before its libraries load.
  process.env.NODE_ENV ??= 'production';
  const [{ startBenchService }, { seedDemoData }, { snakeKeys }, { createYoga }, { getSchema }, { authenticate }, { RequestBudgets }, { createResponseCache }] =
    await Promise.all([
      import('./bench-service.ts'),
      import('../src/seed/demo-seed.ts'),
      import('../src/util/snake-case.ts'),
      import('graphql-yoga'),
      import('../schema/index.ts'),
      import('../src/context.ts'),
      import('../src/ratelimit/rate-limiter.ts'),
      import('../src/cache/response-cache.ts'),
    ]);
  const wanted = (list: string) => new Set(list.split(',').map((name) => name.trim().toLowerCase()));
  const wantedTargets = wanted(values.targets);
  const wantedEndpoints = wanted(values.endpoints);
  const children: ChildProcess[] = [];
  let plainServer: Server | undefined;
  const servers: Server[] = [];
  // What the peers do not have is off or lifted, so the figures compare the same work (see the
  // header): the response cache (the ceiling and the plain yoga run every read's statements) and
  // the fair share's cap on one client's requests at once (the load generator is one client;
  // the policy still runs for every request, admitting each at once). --set puts either back.
  const settings = {
    RESPONSE_CACHE_MAX_BYTES: '0',
    REQUESTS_IN_FLIGHT_PER_CLIENT: String(Math.max(connections, 4)),
    ...Object.fromEntries((values.set ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
  };
  const service = await startBenchService(settings);
  try {
    const seeded = await seedDemoData(service.services, { print: () => {} });
    const key = seeded.apiKey;
    if (!key) throw new Error('the demo seed made no API key');
    const onPostgres = service.services.db.kind === 'postgresql';
    const wantCeiling = onPostgres && CEILING_TARGETS.some((target) => wantedTargets.has(optionName(target)));

    let ceilingUrl: string | undefined;
    let ceiling: ChildProcess | undefined;
    if (wantCeiling) {
      ceiling = fork(path.join(path.dirname(here), 'ceiling.ts'), [], {
        execArgv: childExecArgv,
        env: { ...process.env, DATABASE_URL: service.services.db.url },
      });
      children.push(ceiling);
      ceilingUrl = await new Promise<string>((resolve, reject) => {
        ceiling!.once('message', (message: { type: string; url: string }) =>
          message.type === 'listening' ? resolve(message.url) : reject(new Error('ceiling: unexpected message')),
        );
        ceiling!.once('exit', (code) => reject(new Error(`ceiling exited (${code}) before listening`)));
      });
    } else if (!onPostgres) {
      console.log(
        'The ceiling needs PostgreSQL (set DATABASE_URL): the embedded database (PGlite) lives inside the project process. Measuring the others only.',
      );
    }

    // ---- the plain yoga: createYoga({ schema }), the viewer resolved once, no policies ----
    const { services } = service;
    const { viewer } = await authenticate(services, { 'x-api-key': key });
    if (!viewer) throw new Error('the demo key does not authenticate');
    const allowAll = {
      kind: 'memory' as const,
      async consume(budget: string) {
        return { budget, allowed: true, limit: 1e9, remaining: 1e9, resetSeconds: 60, windowSeconds: 60, resetsAt: Date.now() + 60_000 };
      },
      async refund(budget: string) {
        return this.consume(budget);
      },
    };
    // What the schema's resolvers read of a context, for one viewer (both yogas build theirs with it).
    let yogaRequests = 0;
    const yogaContext = async (requestViewer: NonNullable<typeof viewer>, organizationIds?: Promise<ReadonlySet<string> | string[]>) => {
      const orgs = organizationIds ?? Promise.resolve(requestViewer.organizationIds ?? (await services.organizations.membershipIds(requestViewer.user.id)));
      return {
        requestId: `yoga-${(yogaRequests += 1)}`,
        front: 'graphql',
        viewer: requestViewer,
        credentialProblem: null,
        clientAddress: '127.0.0.1',
        services,
        log: services.log,
        budgets: new RequestBudgets(allowAll as never, () => `${requestViewer.credential.kind}:${requestViewer.credential.id}`),
        organizationIds: () => orgs,
      };
    };
    const listen = async (server: Server): Promise<string> => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const organizationIds = Promise.resolve(viewer.organizationIds ?? (await services.organizations.membershipIds(viewer.user.id)));
    const plainYoga = createYoga({ schema: getSchema(), context: () => yogaContext(viewer, organizationIds) });
    plainServer = createServer(plainYoga);
    const plainUrl = await listen(plainServer);

    // ---- the authed yoga: the plain yoga, but each request's API key verified (the project's own
    // authenticate: the key's one statement), what any deployment that checks credentials pays ----
    const authedYoga = createYoga({
      schema: getSchema(),
      context: async ({ request }: { request: Request }) => {
        const { viewer: requestViewer } = await authenticate(services, { 'x-api-key': request.headers.get('x-api-key') ?? undefined });
        if (!requestViewer) throw new Error('authed yoga: the key did not authenticate');
        return yogaContext(requestViewer);
      },
    });
    const authedServer = createServer(authedYoga);
    servers.push(authedServer);
    const authedUrl = await listen(authedServer);

    const loadgen = fork(here, ['--loadgen'], { execArgv: childExecArgv });
    children.push(loadgen);

    // ---- the targets ----
    const headers = { 'x-api-key': key };
    const gql = (query: string, variables: Record<string, unknown>) => ({
      url: `${service.url}/graphql`,
      method: 'POST' as const,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    interface Endpoint {
      name: EndpointName;
      path: string;
      graphql: { url: string; method: 'POST'; headers: Record<string, string>; body: string };
      /** GraphQL data shaped as the REST layer shapes it (rest-compat/route.ts list / bare). */
      restShape: (data: Record<string, unknown>) => unknown;
    }
    const listShape = (field: string) => (data: Record<string, unknown>) => {
      const connection = data[field] as { edges: { node: unknown }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      const nextCursor = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
      return { data: connection.edges.map((edge) => snakeKeys(edge.node)), pagination: { has_more: nextCursor !== null, next_cursor: nextCursor } };
    };
    const allEndpoints: Endpoint[] = [
      {
        name: 'comparison',
        path: '/api/returns/comparison?limit=50',
        graphql: gql(
          `query Comparison($first: Int) { returnComparison(first: $first) { edges { node { accountCode entityName date currency localCurrency custodianReturn computedReturn localCustodianReturn localComputedReturn differenceBps status reason matchThresholdBps reviewThresholdBps } } pageInfo { hasNextPage endCursor } } }`,
          { first: 50 },
        ),
        restShape: listShape('returnComparison'),
      },
      {
        name: 'stickies',
        path: '/api/stickies?limit=20',
        graphql: gql(
          `query Stickies($first: Int) { stickies(first: $first) { edges { node { id content tags version createdAt updatedAt deletedAt } } pageInfo { hasNextPage endCursor } } }`,
          { first: 20 },
        ),
        restShape: listShape('stickies'),
      },
      {
        name: 'daily',
        path: `/api/returns/dietz-daily?entity_name=${encodeURIComponent(DAILY_ENTITY)}&start_date=${daysAgo(90)}&end_date=${daysAgo(1)}`,
        graphql: gql(
          `query DietzDaily($entityName: String!, $startDate: Date!, $endDate: Date!) { dietzDailyReturns(entityName: $entityName, startDate: $startDate, endDate: $endDate) { entityName accountCode currency localCurrency startDate endDate annualized timeWeightedReturn { value nullReason method weighting } modifiedDietzReturn { value nullReason method weighting } days { date startDate beginValue endValue netFlow weightedFlow returnValue nullReason cumulativeReturn localReturnValue currencyEffect fees grossReturnValue } } }`,
          { entityName: DAILY_ENTITY, startDate: daysAgo(90), endDate: daysAgo(1) },
        ),
        restShape: (data) => ({ data: snakeKeys(data.dietzDailyReturns) }),
      },
      {
        name: 'health',
        path: '/health',
        graphql: gql(`query Health { health { status } }`, {}),
        restShape: (data) => snakeKeys(data.health),
      },
    ];
    const endpoints = allEndpoints.filter((endpoint) => wantedEndpoints.has(endpoint.name));
    const targets = (
      ['REST', 'GraphQL', 'ceiling', 'plain yoga', 'authed yoga', 'REST cached', 'REST 304', 'floor cached', 'floor 304', 'exact cached', 'exact 304'] as const
    ).filter((target) => wantedTargets.has(optionName(target)) && (!CEILING_TARGETS.includes(target) || wantCeiling));
    if (endpoints.length === 0 || targets.length === 0) throw new Error('no endpoint or no target to measure (--endpoints, --targets)');
    const jobFor = (endpoint: Endpoint, target: TargetName): Omit<LoadJob, 'id' | 'duration'> => {
      if (target === 'GraphQL') return { ...endpoint.graphql, connections };
      if (target === 'plain yoga') return { ...endpoint.graphql, url: `${plainUrl}/graphql`, connections };
      if (target === 'authed yoga') return { ...endpoint.graphql, url: `${authedUrl}/graphql`, connections };
      if (target === 'REST cached') return { url: `${service.url}${endpoint.path}`, method: 'GET', headers, connections };
      if (target === 'REST 304')
        return {
          url: `${service.url}${endpoint.path}`,
          method: 'GET',
          headers: { ...headers, 'if-none-match': currentTags.get(endpoint.name) ?? '' },
          connections,
        };
      if (target === 'floor cached') return { url: `${ceilingUrl}/floor${endpoint.path}`, method: 'GET', headers, connections };
      if (target === 'floor 304')
        return { url: `${ceilingUrl}/floor${endpoint.path}`, method: 'GET', headers: { ...headers, 'if-none-match': '"floor"' }, connections };
      if (target === 'exact cached') return { url: `${ceilingUrl}/exact${endpoint.path}`, method: 'GET', headers, connections };
      if (target === 'exact 304')
        return { url: `${ceilingUrl}/exact${endpoint.path}`, method: 'GET', headers: { ...headers, 'if-none-match': '"floor"' }, connections };
      const base = target === 'REST' ? service.url : ceilingUrl!;
      return { url: `${base}${endpoint.path}`, method: 'GET', headers, connections };
    };

    // ---- identical bodies, or nothing to compare ----
    for (const endpoint of allEndpoints) {
      const restResponse = await fetch(`${service.url}${endpoint.path}`, { headers });
      const restBody = await restResponse.text();
      if (restResponse.status !== 200) throw new Error(`${endpoint.name}: project REST answered ${restResponse.status}: ${restBody}`);
      const gqlResponse = await fetch(endpoint.graphql.url, { method: 'POST', headers: endpoint.graphql.headers, body: endpoint.graphql.body });
      const gqlResult = (await gqlResponse.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (!gqlResult.data || gqlResult.errors) throw new Error(`${endpoint.name}: GraphQL answered ${JSON.stringify(gqlResult.errors)}`);
      assertSame(`${endpoint.name}: GraphQL data (in REST shape) vs REST body`, restBody, JSON.stringify(endpoint.restShape(gqlResult.data)));
      let note = 'GraphQL data matches';
      const plainResponse = await fetch(`${plainUrl}/graphql`, { method: 'POST', headers: endpoint.graphql.headers, body: endpoint.graphql.body });
      const plainResult = (await plainResponse.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (!plainResult.data || plainResult.errors) throw new Error(`${endpoint.name}: plain yoga answered ${JSON.stringify(plainResult.errors)}`);
      assertSame(`${endpoint.name}: plain yoga data vs GraphQL data`, JSON.stringify(gqlResult.data), JSON.stringify(plainResult.data));
      note += ', plain yoga data equal';
      const authedResponse = await fetch(`${authedUrl}/graphql`, { method: 'POST', headers: endpoint.graphql.headers, body: endpoint.graphql.body });
      const authedResult = (await authedResponse.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      if (!authedResult.data || authedResult.errors) throw new Error(`${endpoint.name}: authed yoga answered ${JSON.stringify(authedResult.errors)}`);
      assertSame(`${endpoint.name}: authed yoga data vs GraphQL data`, JSON.stringify(gqlResult.data), JSON.stringify(authedResult.data));
      note += ', authed yoga data equal';
      if (ceilingUrl) {
        const ceilingResponse = await fetch(`${ceilingUrl}${endpoint.path}`, { headers });
        const ceilingBody = await ceilingResponse.text();
        if (ceilingResponse.status !== 200) throw new Error(`${endpoint.name}: ceiling answered ${ceilingResponse.status}: ${ceilingBody}`);
        assertSame(`${endpoint.name}: ceiling body vs REST body`, restBody, ceilingBody);
        note += ', ceiling body byte-identical';
      }
      const rows = (JSON.parse(restBody) as { data?: unknown }).data;
      console.log(`${endpoint.name.padEnd(10)} ${restBody.length} bytes${Array.isArray(rows) ? `, ${rows.length} rows` : ''}: ${note}`);
    }

    // ---- measuring ----
    let nextId = 0;
    const pending = new Map<number, (summary: LoadSummary) => void>();
    loadgen.on('message', (summary: LoadSummary) => {
      pending.get(summary.id)?.(summary);
      pending.delete(summary.id);
    });
    const load = (job: Omit<LoadJob, 'id'>) =>
      new Promise<LoadSummary>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        loadgen.send({ ...job, id } satisfies LoadJob);
      });
    const ceilingCpu = () =>
      new Promise<NodeJS.CpuUsage>((resolve) => {
        ceiling!.once('message', (message: { type: string; usage: NodeJS.CpuUsage }) => resolve(message.usage));
        ceiling!.send({ type: 'cpu' });
      });
    const cpuNow = (target: TargetName) => (CEILING_TARGETS.includes(target) ? ceilingCpu() : Promise.resolve(process.cpuUsage()));

    interface Slot {
      round: number;
      endpoint: EndpointName;
      target: TargetName;
      rps: number;
      p50: number;
      cpuMsPerRequest: number;
      failures: number;
    }
    const slots: Slot[] = [];
    // The response cache (issue 29): off for every target (the settings above) but 'REST cached',
    // whose slots put an enabled one in place; 'REST 304' sends the tag of the current answer.
    const cacheOff = service.services.responseCache;
    const cacheOn = createResponseCache(64 * 1024 * 1024);
    const currentTags = new Map<string, string>();
    const rememberTag = async (endpoint: Endpoint) => {
      const response = await fetch(`${service.url}${endpoint.path}`, { headers });
      await response.arrayBuffer();
      const tag = response.headers.get('etag');
      if (!tag) throw new Error(`${endpoint.name}: no ETag on the REST answer`);
      currentTags.set(endpoint.name, tag);
    };
    const profileDir = values.profile;
    let profiler: Session | undefined;
    if (profileDir) {
      mkdirSync(profileDir, { recursive: true });
      profiler = new Session();
      profiler.connect();
      await profiler.post('Profiler.enable');
    }
    const runSlot = async (endpoint: Endpoint, target: TargetName, duration: number, round?: number): Promise<Omit<Slot, 'round'>> => {
      // The cache is on for the 'REST cached' slots only (its answers were kept by the warm-up).
      service.services.responseCache = target === 'REST cached' ? cacheOn : cacheOff;
      if (target === 'REST 304') await rememberTag(endpoint);
      const profiled = profiler && round !== undefined && !CEILING_TARGETS.includes(target);
      if (profiled) await profiler!.post('Profiler.start');
      const before = await cpuNow(target);
      const summary = await load({ ...jobFor(endpoint, target), duration });
      const after = await cpuNow(target);
      if (profiled) {
        const { profile } = await profiler!.post('Profiler.stop');
        writeFileSync(
          path.join(profileDir!, `${endpoint.name}-${target.replace(' ', '-')}-${round}.cpuprofile`),
          JSON.stringify({ ...profile, requests: summary.requests }),
        );
      }
      const cpuMs = (after.user - before.user + after.system - before.system) / 1000;
      return {
        endpoint: endpoint.name,
        target,
        rps: summary.rps,
        p50: summary.p50,
        cpuMsPerRequest: summary.requests > 0 ? cpuMs / summary.requests : NaN,
        failures: summary.errors + summary.non2xx - (target.endsWith(' 304') ? summary.notModified : 0),
      };
    };

    const slotCount = rounds * endpoints.length * targets.length;
    console.log(
      `\n${rounds} rounds x ${endpoints.length} endpoints x ${targets.length} targets = ${slotCount} slots of ${seconds} s, ${connections} connections` +
        ` (about ${Math.ceil((slotCount * seconds + (warmup > 0 ? endpoints.length * targets.length * warmup : 0)) / 60)} min)`,
    );
    if (warmup > 0) for (const endpoint of endpoints) for (const target of targets) await runSlot(endpoint, target, warmup);
    for (let round = 0; round < rounds; round += 1) {
      for (const endpoint of rotate(endpoints, round)) {
        for (const target of rotate(targets, round)) {
          slots.push({ round, ...(await runSlot(endpoint, target, seconds, round)) });
        }
      }
      process.stdout.write(`round ${round + 1}/${rounds} done${process.stdout.isTTY ? '\r' : '\n'}`);
    }
    process.stdout.write(process.stdout.isTTY ? '\n\n' : '\n');
    profiler?.disconnect();

    // ---- report ----
    const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
    const spread = (values: number[], digits = 0) => {
      const finite = values.filter((value) => Number.isFinite(value));
      return `${fmt(median(finite), digits)} (${fmt(Math.min(...finite), digits)}-${fmt(Math.max(...finite), digits)})`;
    };
    console.log(
      `${'endpoint'.padEnd(11)}${'target'.padEnd(12)}${'req/s median (min-max)'.padEnd(26)}${'p50 ms'.padEnd(8)}${'CPU ms/req median (min-max)'.padEnd(30)}failed`,
    );
    for (const endpoint of endpoints) {
      for (const target of targets) {
        const mine = slots.filter((slot) => slot.endpoint === endpoint.name && slot.target === target);
        const failures = mine.reduce((sum, slot) => sum + slot.failures, 0);
        console.log(
          `${endpoint.name.padEnd(11)}${target.padEnd(12)}${spread(mine.map((slot) => slot.rps)).padEnd(26)}${fmt(median(mine.map((slot) => slot.p50)), 1).padEnd(8)}` +
            `${spread(
              mine.map((slot) => slot.cpuMsPerRequest),
              3,
            ).padEnd(30)}${failures}`,
        );
      }
    }
    console.log('\nratios of requests per second, computed within each round: median (min-max)');
    for (const endpoint of endpoints) {
      const byRound = (target: TargetName) =>
        slots
          .filter((slot) => slot.endpoint === endpoint.name && slot.target === target)
          .sort((a, b) => a.round - b.round)
          .map((slot) => slot.rps);
      const rest = byRound('REST');
      const has = (target: TargetName) => (targets as readonly TargetName[]).includes(target);
      const parts: string[] = [];
      if (has('REST') && has('GraphQL')) parts.push(`REST/GraphQL ${spread(ratios(rest, byRound('GraphQL')), 3)}`);
      if (has('REST') && has('ceiling')) parts.push(`REST/ceiling ${spread(ratios(rest, byRound('ceiling')), 3)}`);
      if (has('REST cached') && has('ceiling')) parts.push(`REST cached/ceiling ${spread(ratios(byRound('REST cached'), byRound('ceiling')), 2)}`);
      if (has('REST 304') && has('ceiling')) parts.push(`REST 304/ceiling ${spread(ratios(byRound('REST 304'), byRound('ceiling')), 2)}`);
      if (has('REST cached') && has('REST')) parts.push(`REST cached/REST ${spread(ratios(byRound('REST cached'), rest), 2)}`);
      if (has('floor cached') && has('ceiling')) parts.push(`floor cached/ceiling ${spread(ratios(byRound('floor cached'), byRound('ceiling')), 2)}`);
      if (has('floor 304') && has('ceiling')) parts.push(`floor 304/ceiling ${spread(ratios(byRound('floor 304'), byRound('ceiling')), 2)}`);
      if (has('REST cached') && has('floor cached'))
        parts.push(`REST cached/floor cached ${spread(ratios(byRound('REST cached'), byRound('floor cached')), 2)}`);
      if (has('REST 304') && has('floor 304')) parts.push(`REST 304/floor 304 ${spread(ratios(byRound('REST 304'), byRound('floor 304')), 2)}`);
      for (const answer of ['cached', '304'] as const) {
        const exact = `exact ${answer}` as const;
        const project = `REST ${answer}` as const;
        if (has(exact) && has('ceiling')) parts.push(`${exact}/ceiling ${spread(ratios(byRound(exact), byRound('ceiling')), 2)}`);
        if (has(project) && has(exact)) parts.push(`${project}/${exact} ${spread(ratios(byRound(project), byRound(exact)), 2)}`);
      }
      if (has('GraphQL') && has('plain yoga')) {
        const perRound = ratios(byRound('GraphQL'), byRound('plain yoga'));
        parts.push(`GraphQL/plain yoga ${spread(perRound, 3)} [${perRound.map((ratio) => ratio.toFixed(2)).join(' ')}]`);
      }
      if (has('GraphQL') && has('authed yoga')) parts.push(`GraphQL/authed yoga ${spread(ratios(byRound('GraphQL'), byRound('authed yoga')), 3)}`);
      if (has('authed yoga') && has('plain yoga')) parts.push(`authed yoga/plain yoga ${spread(ratios(byRound('authed yoga'), byRound('plain yoga')), 3)}`);
      console.log(`${endpoint.name.padEnd(11)}${parts.join('   ')}`);
    }
    const failed = slots.reduce((sum, slot) => sum + slot.failures, 0);
    if (failed > 0) console.log(`\nWARNING: ${failed} requests failed or were not 2xx; the figures above count only what was answered`);
    console.log(
      `\nmachine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}, node ${process.version}, database ${service.services.db.kind}; ${Object.entries(settings)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')}`,
    );
  } finally {
    for (const child of children) if (child.exitCode === null && child.connected) child.disconnect();
    plainServer?.closeAllConnections();
    plainServer?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await service.close();
  }
}

function assertSame(what: string, expected: string, actual: string): void {
  if (expected === actual) return;
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at += 1;
  const excerpt = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 60), at + 60));
  throw new Error(
    `${what}: NOT identical (lengths ${expected.length} and ${actual.length}, first difference at byte ${at})\n  REST:  ${excerpt(expected)}\n  other: ${excerpt(actual)}`,
  );
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** The UTC date `days` days before today, YYYY-MM-DD. */
function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

function median(values: number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function ratios(numerators: number[], denominators: number[]): number[] {
  return numerators.map((value, index) => value / denominators[index]);
}
