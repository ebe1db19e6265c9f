/**
 * Fleet throughput (issue 17): aggregate requests per second through haproxy (deploy/haproxy.cfg)
 * in front of 1, 2 and 3 service processes sharing PostgreSQL, Redis and an S3-compatible bucket
 * (test/helpers/fleet.ts, the fleet the test in test/fleet runs), on two read endpoints:
 * `GET /api/returns/comparison?limit=50` and `GET /api/stickies?limit=20`, with the demo data
 * (`seed:demo`) plus 50 stickies for the demo admin.
 *
 *   DATABASE_URL=postgresql://... REDIS_URL=redis://... npx tsx bench/fleet.ts [--seconds 10] [--connections 24]
 *
 * All three instances run throughout; for N instances a haproxy listing N of them takes the load
 * (the others stay idle). autocannon runs in this process. Budgets are raised so that no rate
 * limit throttles a run. For each run it prints rps, p50 and p99, the ratio to one instance, and
 * where the CPU went over the run (from /proc/<pid>/stat and /proc/stat): the instances, every
 * PostgreSQL backend of the server (other users of a shared server included), Redis, haproxy and
 * this process (autocannon), and the rest of the machine ("other": whatever else runs on it);
 * 100% = one core. Also the instances' CPU time per request, and how busy the machine was.
 *
 * Fan-out (issue 29): `--fan-out N` measures instead how the progress of one summary generation
 * reaches N followers spread evenly over the 3 instances (each connected straight to its instance,
 * `GET /api/generate?run_id=`), the run executing on one of them and its events crossing Redis
 * pub/sub to the others:
 *
 *   DATABASE_URL=postgresql://... REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/fleet.ts --fan-out 10000 [--step-delay 200ms] [--heap MB] [--json]
 *
 * The method is bench/generation-sse.ts's (bench/fan-out-client.ts): a model that holds its
 * requests keeps one "blocker" run in the writer of each instance (GENERATION_CONCURRENCY=1) while
 * the measured run waits in the queue and the followers connect; the held requests are released
 * once the followers have been idle 15 s, and the run executes on whichever instance claims it
 * first (told by its gateway_generation_runs_total). Delay = parsed by the follower minus the
 * event's stored createdAt; every follower must get every event once, in order. Per instance:
 * followers, delay p50/p99, idle RSS per follower, and CPU per delivery (its CPU time during the
 * delivery phase over the deliveries to its followers; the executing instance's includes the run).
 * The instances run with `--max-old-space-size=<--heap>` (NODE_OPTIONS; npm start's cap by
 * default) and share Redis under a key prefix of their own (RATE_LIMIT_KEY_PREFIX, as every
 * fleet of test/helpers/fleet.ts; the run's pub/sub channel is named by its id); REDIS_URL must be
 * on 127.0.0.1 or localhost. The followers' owner may hold N streams (STREAMS_PER_USER).
 */
import { npmStartHeapMb } from './npm-start-heap.ts';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startFleet } from '../test/helpers/fleet.ts';
import { startHaproxy, type LoadBalancer } from '../test/helpers/load-balancer.ts';
import { openCliSession } from './cli-session.ts';
import {
  checkDeliveries,
  connectAll,
  cpuSeconds,
  describeExit,
  follower,
  microsPerDelivery,
  ownCpuSeconds,
  percentile,
  readRun,
  rssBytes,
  seedWorkspace,
  startHeldModel,
  startRun,
  waitFor,
  type Follower,
} from './fan-out-client.ts';
import { cpuTicks, machineTicks, pidsNamed, TICKS } from './proc-cpu.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '24' },
    'fan-out': { type: 'string' },
    'step-delay': { type: 'string', default: '200ms' },
    heap: { type: 'string', default: String(npmStartHeapMb()) },
    json: { type: 'boolean', default: false },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
type Groups = Record<string, number[]>;

function snapshot(groups: Groups): Record<string, number> {
  return Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuTicks(pid), 0)]));
}

async function throughput(): Promise<void> {
  const fleet = await startFleet({
    size: 3,
    env: {
      LOG_LEVEL: 'warn',
      SELF_TEST_ENABLED: 'false',
      WORKER_POLL_INTERVAL: '1s',
      RATE_LIMIT_RETURNS_PER_MINUTE: '100000000',
      SHUTDOWN_DRAIN: '0',
    },
  });
  const balancers: LoadBalancer[] = [];
  try {
    const seeded = await fleet.cli(['seed:demo', '--json']);
    if (seeded.code !== 0) throw new Error(`seed:demo failed: ${seeded.stderr}`);
    const key = await fleet.cli(['key:create', '--email', 'admin@demo.local', '--scopes', 'read:returns,read:workspace,write:workspace', '--json']);
    if (key.code !== 0) throw new Error(`key:create failed: ${key.stderr}`);
    const apiKey = (JSON.parse(key.stdout) as { key: string }).key;
    const headers = { 'x-api-key': apiKey };
    for (let i = 0; i < 50; i++) {
      const created = await fetch(`${fleet.balancer.url}/api/stickies`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `Bench sticky ${i}: follow up with the custodian about the March valuation`, tags: ['bench', `t${i % 5}`] }),
      });
      if (created.status !== 201) throw new Error(`creating a sticky answered ${created.status}: ${await created.text()}`);
    }
    const endpoints = [
      { name: 'comparison', path: '/api/returns/comparison?limit=50' },
      { name: 'stickies', path: '/api/stickies?limit=20' },
    ];
    for (const endpoint of endpoints) {
      const response = await fetch(`${fleet.balancer.url}${endpoint.path}`, { headers });
      const body = (await response.json()) as { data?: unknown[] };
      if (response.status !== 200) throw new Error(`${endpoint.path} answered ${response.status}`);
      console.log(`${endpoint.path}: ${body.data?.length ?? 0} rows per response`);
    }

    const postgres = pidsNamed(['postgres']);
    const redis = pidsNamed(['redis-server']);
    console.log(
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    );
    console.log(`autocannon: ${connections} connections, ${duration} s per run, through haproxy; CPU columns in % of one core over the run\n`);

    for (let n = 1; n <= 3; n++)
      balancers.push(await startHaproxy(fleet.instances.slice(0, n).map((instance) => ({ name: instance.name, port: instance.port }))));
    for (const [index, balancer] of balancers.entries()) await balancer.waitForUp(fleet.instances.slice(0, index + 1).map((instance) => instance.name));

    // warm-up: every instance's code paths compiled, pools filled
    for (const endpoint of endpoints) await autocannon({ url: `${balancers[2].url}${endpoint.path}`, headers, connections, duration: 3 });

    const header = `${'endpoint'.padEnd(11)} ${'N'.padStart(2)} ${'req/s'.padStart(7)} ${'x N=1'.padStart(6)} ${'p50'.padStart(5)} ${'p99'.padStart(5)} ${'errors'.padStart(6)} | ${'inst'.padStart(5)} ${'pg'.padStart(5)} ${'redis'.padStart(5)} ${'hapx'.padStart(5)} ${'bench'.padStart(5)} ${'other'.padStart(5)} | ${'inst CPU/req'.padStart(12)} | machine busy`;
    const lines: string[] = [header];
    console.log(header);
    for (const endpoint of endpoints) {
      let single = 0;
      for (let n = 1; n <= 3; n++) {
        const balancer = balancers[n - 1];
        const groups: Groups = {
          inst: fleet.instances.slice(0, n).map((instance) => instance.service.pid),
          pg: postgres,
          redis,
          hapx: [balancer.pid],
          bench: [process.pid],
        };
        const before = snapshot(groups);
        const machineBefore = machineTicks();
        const started = performance.now();
        const result = await autocannon({ url: `${balancer.url}${endpoint.path}`, headers, connections, duration });
        const seconds = (performance.now() - started) / 1000;
        const after = snapshot(groups);
        const machineAfter = machineTicks();
        const cores = (name: string) => (after[name] - before[name]) / TICKS / seconds;
        const share = (name: string) => (cores(name) * 100).toFixed(0).padStart(4) + '%';
        const busy = ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100;
        // everything else the machine ran meanwhile (other users of a shared machine, the kernel)
        const busyCores = (machineAfter.busy - machineBefore.busy) / TICKS / seconds;
        const other = busyCores - Object.keys(groups).reduce((sum, name) => sum + cores(name), 0);
        // CPU time of the instances per request served: what one more request costs the gateway
        const perRequest = ((cores('inst') * seconds) / Math.max(1, result.requests.total)) * 1000;
        if (n === 1) single = result.requests.average;
        const line =
          `${endpoint.name.padEnd(11)} ${String(n).padStart(2)} ${result.requests.average.toFixed(0).padStart(7)} ${(result.requests.average / single).toFixed(2).padStart(6)} ` +
          `${String(result.latency.p50).padStart(5)} ${String(result.latency.p99).padStart(5)} ${String(result.errors + result.non2xx).padStart(6)} | ` +
          `${share('inst')} ${share('pg')} ${share('redis')} ${share('hapx')} ${share('bench')} ${(Math.max(0, other) * 100).toFixed(0).padStart(4)}% | ${perRequest.toFixed(2).padStart(9)} ms | ${busy.toFixed(0)}% of ${os.cpus().length} cores`;
        lines.push(line);
        console.log(line);
      }
    }
    console.log(`\n${lines.join('\n')}`);
  } finally {
    for (const balancer of balancers) await balancer.stop();
    await fleet.stop();
  }
}

/** Followers of one run spread over the 3 instances (the header, Fan-out). */
async function fanOut(followerCount: number): Promise<void> {
  const redisUrl = process.env.REDIS_URL?.trim() ?? '';
  if (!/^rediss?:\/\/([^@/]*@)?(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/.test(redisUrl))
    throw new Error('--fan-out uses only a Redis on 127.0.0.1 (REDIS_URL=redis://127.0.0.1:6379)');
  if (!(followerCount >= 3)) throw new Error('--fan-out needs at least 3 followers');
  const heapMb = Number(values.heap);
  const say = (line: string) => (values.json ? process.stderr.write(`${line}\n`) : console.log(line));
  const model = await startHeldModel();
  const metricsToken = `bench-${process.pid}-${Date.now()}`;
  const fleet = await startFleet({
    size: 3,
    env: {
      SELF_TEST_ENABLED: 'false',
      CHAT_API_URL: model.url,
      GENERATION_AGENT_TIMEOUT: '10m',
      CHAT_TIMEOUT: '10m',
      GENERATION_CONCURRENCY: '1',
      GENERATION_STEP_DELAY: values['step-delay']!,
      // One user follows the run from every follower: its cap of open streams per instance is raised.
      STREAMS_PER_USER: String(Math.ceil(followerCount / 3) + 10),
      METRICS_TOKEN: metricsToken,
      NODE_OPTIONS: `--max-old-space-size=${heapMb}`,
    },
  });
  const exits = new Map<string, { code: number | null; signal: NodeJS.Signals | null }>();
  for (const instance of fleet.instances) void instance.service.exited.then((info) => exits.set(instance.name, info));
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const bases = fleet.instances.map((instance) => instance.service.url);
  const pids = fleet.instances.map((instance) => instance.service.pid);
  let phase = 'setting up';
  const dead = () => exits.size > 0;
  try {
    const session = await openCliSession(fleet.instances[0].service.env);
    const keys: string[] = [];
    try {
      for (const who of ['owner', 'blockers']) {
        const email = `bench-${who}-${process.pid}@bench.local`;
        await session.run(['user:create', '--email', email, '--org', `Bench ${who}`, '--json']);
        keys.push(
          (JSON.parse(await session.run(['key:create', '--email', email, '--scopes', 'read:workspace,write:workspace', '--json'])) as { key: string }).key,
        );
      }
    } finally {
      await session.close();
    }
    const [ownerKey, blockerKey] = keys;
    phase = 'seeding the workspace';
    await seedWorkspace(bases[0], ownerKey, { stickies: 20, links: 20, tasks: 10 });
    await seedWorkspace(bases[0], blockerKey, { stickies: 5, links: 5, tasks: 3 });
    // One blocker in each instance's only execution slot, held in its writer.
    phase = 'starting the blocker runs';
    for (let i = 0; i < 3; i++) await startRun(bases[i], blockerKey);
    await waitFor(
      () => model.held() >= 3 || dead(),
      120_000,
      () => `only ${model.held()} of 3 blocker runs reached their writer within 120 s`,
    );
    if (dead()) throw new Error('an instance exited');
    const runId = await startRun(bases[0], ownerKey);

    const settle = async () => {
      const samples: number[][] = [];
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        if (dead()) throw new Error('an instance exited');
        samples.push(pids.map(rssBytes));
      }
      return samples.at(-1)!;
    };
    phase = 'settling before the followers connect';
    const rssBefore = await settle();
    // Follower i connects to instance i % 3.
    const followers: Follower[] = Array.from({ length: followerCount }, (_, i) => follower(runId, ownerKey, bases[i % 3]));
    phase = 'connecting the followers';
    const connectStarted = Date.now();
    await connectAll(agent, followers);
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    const queued = (await readRun(bases[0], ownerKey, runId)).state;
    phase = 'idle followers';
    const rssIdle = await settle();

    const completedRuns = async () =>
      Promise.all(
        bases.map(async (base) => {
          const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
          return Number(/^gateway_generation_runs_total\{state="completed"\} (\d+)/m.exec(text)?.[1] ?? 0);
        }),
      );
    const completedBefore = await completedRuns();
    phase = 'delivering';
    const redis = pidsNamed(['redis-server']);
    const postgres = pidsNamed(['postgres']);
    const groupCpu = (group: number[]) => group.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const liveFrom = Date.now();
    const cpuBefore = pids.map(cpuSeconds);
    const sharedBefore = { redis: groupCpu(redis), postgres: groupCpu(postgres) };
    const clientBefore = ownCpuSeconds();
    model.release();
    const deadline = Date.now() + 300_000;
    while (followers.some((f) => !f.done) && Date.now() < deadline && !dead()) await new Promise((resolve) => setTimeout(resolve, 100));
    if (dead()) throw new Error('an instance exited');
    const deliverSeconds = (Date.now() - liveFrom) / 1000;
    const cpu = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
    const shared = { redis: groupCpu(redis) - sharedBefore.redis, postgres: groupCpu(postgres) - sharedBefore.postgres };
    const clientCpu = ownCpuSeconds() - clientBefore;
    agent.destroy();
    const completedAfter = await completedRuns();
    // Every instance completed its blocker; the one that completed two ran the measured run too.
    const executed = completedAfter.map((after, i) => after - completedBefore[i]);
    const executor = executed.indexOf(Math.max(...executed));

    phase = 'reading the run back';
    const run = await readRun(bases[0], ownerKey, runId);
    const checked = checkDeliveries(followers, new Map([[runId, run]]), liveFrom);
    const perInstance = fleet.instances.map((instance, i) => {
      const mine = followers.map((f, index) => ({ f, index })).filter(({ index }) => index % 3 === i);
      const storedAt = new Map(run.events.map((e) => [e.sequence, Date.parse(e.createdAt)]));
      const delays: number[] = [];
      for (const { f } of mine)
        for (const [sequence, at] of f.at) {
          const stored = storedAt.get(sequence);
          if (stored !== undefined && stored >= liveFrom) delays.push(at - stored);
        }
      delays.sort((a, b) => a - b);
      const deliveries = mine.reduce((sum, { index }) => sum + checked.deliveriesOf[index], 0);
      return {
        name: instance.name,
        executedRun: i === executor,
        followers: mine.length,
        deliveries,
        p50Ms: percentile(delays, 50),
        p99Ms: percentile(delays, 99),
        cpuSeconds: cpu[i],
        cpuUsPerDelivery: microsPerDelivery(cpu[i], deliveries),
        kbPerIdleFollower: (rssIdle[i] - rssBefore[i]) / 1024 / mine.length,
        rssIdleMb: rssIdle[i] / 1048576,
      };
    });
    const p50 = percentile(checked.delays, 50);
    const p99 = percentile(checked.delays, 99);
    const totalCpu = cpu.reduce((sum, value) => sum + value, 0);
    say(
      `generation progress fan-out across 3 instances through Redis: ${followerCount} followers of one run, PostgreSQL, step delay ${values['step-delay']}, ` +
        `GENERATION_CONCURRENCY 1, --max-old-space-size=${heapMb}, the run executed on ${fleet.instances[executor].name}`,
    );
    say(
      `  connect: ${connectSeconds.toFixed(1)} s for all streams (run while connecting: ${queued}); run: ${run.state}, ${run.events.length} events, ${checked.liveEvents} stored after all followers were connected`,
    );
    say(
      `  every event to every follower, in order, once: ${checked.complete}/${followerCount}${checked.firstIncomplete ? ` (first miss: ${checked.firstIncomplete})` : ''}`,
    );
    say(
      `  delay stored -> received (${checked.delays.length} deliveries): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${checked.delays.at(-1)?.toFixed(1)} ms (goal p99 < 100 ms)`,
    );
    say(
      `  delivery phase: ${deliverSeconds.toFixed(1)} s; CPU: instances ${totalCpu.toFixed(2)} s = ${microsPerDelivery(totalCpu, checked.delays.length).toFixed(1)} µs per delivery, ` +
        `followers' client ${clientCpu.toFixed(2)} s = ${microsPerDelivery(clientCpu, checked.delays.length).toFixed(1)} µs; Redis ${shared.redis.toFixed(2)} s, PostgreSQL ${shared.postgres.toFixed(2)} s (every process of the shared servers)`,
    );
    for (const row of perInstance)
      say(
        `  ${row.name}${row.executedRun ? ' (ran it)' : '         '}: ${row.followers} followers, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms, ` +
          `CPU ${row.cpuSeconds.toFixed(2)} s = ${row.cpuUsPerDelivery.toFixed(1)} µs per delivery, idle ${row.kbPerIdleFollower.toFixed(1)} KB per follower (RSS ${row.rssIdleMb.toFixed(0)} MB)`,
      );
    if (values.json)
      console.log(
        JSON.stringify({
          bench: 'fleet-fan-out',
          followers: followerCount,
          instances: 3,
          stepDelay: values['step-delay'],
          heapMb,
          executor: fleet.instances[executor].name,
          connectSeconds,
          storedEvents: checked.storedEvents,
          liveEvents: checked.liveEvents,
          complete: checked.complete,
          deliveries: checked.delays.length,
          p50Ms: p50,
          p99Ms: p99,
          maxMs: checked.delays.at(-1) ?? null,
          deliverSeconds,
          instancesCpuSeconds: totalCpu,
          instancesCpuUsPerDelivery: microsPerDelivery(totalCpu, checked.delays.length),
          clientCpuSeconds: clientCpu,
          clientCpuUsPerDelivery: microsPerDelivery(clientCpu, checked.delays.length),
          redisCpuSeconds: shared.redis,
          postgresCpuSeconds: shared.postgres,
          perInstance,
          met: { everyEvent: checked.complete === followerCount, p99: p99 < 100 },
        }),
      );
    if (checked.complete !== followerCount) process.exitCode = 1;
  } catch (error) {
    if (!dead())
      await Promise.race([Promise.race(fleet.instances.map((instance) => instance.service.exited)), new Promise((resolve) => setTimeout(resolve, 2000))]);
    await new Promise((resolve) => setImmediate(resolve));
    if (!dead()) throw error;
    for (const instance of fleet.instances) {
      const died = describeExit(instance.name, instance.service, exits.get(instance.name));
      if (died) process.stderr.write(`${died}\n`);
    }
    process.stderr.write(`  while: ${phase}\n  (what this process saw: ${error instanceof Error ? error.message : String(error)})\n`);
    if (values.json)
      console.log(JSON.stringify({ bench: 'fleet-fan-out', followers: followerCount, heapMb, instanceExited: Object.fromEntries(exits), phase }));
    process.exitCode = 2;
  } finally {
    agent.destroy();
    await fleet.stop();
    await model.close();
  }
}

if (values['fan-out'] !== undefined) await fanOut(Number(values['fan-out']));
else await throughput();
