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
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startFleet } from '../test/helpers/fleet.ts';
import { startHaproxy, type LoadBalancer } from '../test/helpers/load-balancer.ts';
import { cpuTicks, machineTicks, pidsNamed, TICKS } from './proc-cpu.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '24' },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
type Groups = Record<string, number[]>;

function snapshot(groups: Groups): Record<string, number> {
  return Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids.reduce((sum, pid) => sum + cpuTicks(pid), 0)]));
}

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
