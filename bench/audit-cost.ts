/**
 * What the audit log costs on the hot path (docs/audit.md#cost): REST comparison reads and sticky
 * creation, each measured with the log on and off, in interleaved rounds of one run (on, off,
 * off, on, ...) against one service, so both see the same machine, database and warmed-up code.
 *
 *   npx tsx bench/audit-cost.ts [--seconds 3] [--rounds 20] [--connections 10] [--only comparison|sticky] [--flush-interval 250ms] [--side on|off] [--set KEY=VALUE]
 *   DATABASE_URL=postgresql://... npx tsx bench/audit-cost.ts      (on PostgreSQL)
 *
 * "Off" takes the recorder out of the service (the pipeline's hook then records nothing); "on" is
 * the service as it runs. The load generator (autocannon) runs in a child process, so it does not
 * share the service's event loop. Printed: each round, then per workload the median requests a
 * second on and off, their spread (min-max over rounds) and the difference, and the verdict: the
 * median over rounds of on against off in the same round (each pair ran back to back, so the
 * neighbours' load and the tables' growth over the run cancel), for the rate and for the CPU a
 * request. Goal: within 5%. Many short rounds (the default) narrow that median's spread.
 *
 * Beside the rates, the CPU each request cost: the service's (this process: the service runs in
 * it) and, on a local PostgreSQL, the database's (every `postgres` process, from /proc). On a
 * shared machine the rates move with the neighbours' load; the CPU a request costs moves much less,
 * so it says what the log costs when the rates' spread is wider than the difference.
 */
import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import type { AuditRecorder } from '../src/audit/recorder.ts';
import { ticksOfNamedSince, TICKS } from './proc-cpu.ts';

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
  p99: number;
  errors: number;
  non2xx: number;
}

const GOAL = 0.05;
const here = fileURLToPath(import.meta.url);
const childExecArgv = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];

if (process.argv.includes('--loadgen')) await loadGenerator();
else await main();

async function loadGenerator(): Promise<void> {
  const { default: run } = await import('autocannon');
  process.on('message', (job: LoadJob) => {
    void run({ url: job.url, method: job.method, headers: job.headers, body: job.body, connections: job.connections, duration: job.duration }).then(
      (result: autocannon.Result) => {
        const summary: LoadSummary = {
          id: job.id,
          rps: result.requests.average,
          requests: result.requests.total,
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
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
      rounds: { type: 'string', default: '20' },
      connections: { type: 'string', default: '10' },
      // one workload only: `comparison` or `sticky`
      only: { type: 'string' },
      // the service's AUDIT_FLUSH_INTERVAL for the run (default: the service's default)
      'flush-interval': { type: 'string' },
      // one side only, `on` or `off` (to profile it: node --cpu-prof --import tsx bench/audit-cost.ts --side on)
      side: { type: 'string' },
      // a setting of the service for the run, KEY=VALUE (repeatable), e.g. --set PGLITE_SHARED_BUFFERS=128MB
      set: { type: 'string', multiple: true },
    },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  process.env.NODE_ENV ??= 'production';
  const [{ startBenchService }, { seedDemoData }] = await Promise.all([import('./bench-service.ts'), import('../src/seed/demo-seed.ts')]);
  const service = await startBenchService({
    RATE_LIMIT_CHAT_PER_MINUTE: '100000000',
    REQUESTS_QUEUED_PER_CLIENT: '100000',
    REQUESTS_IN_FLIGHT_PER_CLIENT: '1000',
    ...(values['flush-interval'] ? { AUDIT_FLUSH_INTERVAL: values['flush-interval'] } : {}),
    ...Object.fromEntries((values.set ?? []).map((setting) => [setting.slice(0, setting.indexOf('=')), setting.slice(setting.indexOf('=') + 1)])),
  });
  const loadgen = fork(here, ['--loadgen'], { execArgv: childExecArgv, stdio: 'inherit' });
  const recorder = service.services.audit;
  const services = service.services as { audit?: AuditRecorder };
  try {
    const seeded = await seedDemoData(service.services, { print: () => {} });
    const key = seeded.apiKey;
    if (!key) throw new Error('the demo seed made no API key');
    const allWorkloads: { name: string; job: Omit<LoadJob, 'id' | 'connections' | 'duration'> }[] = [
      {
        name: 'REST comparison (GET /api/returns/comparison?limit=50)',
        job: { url: `${service.url}/api/returns/comparison?limit=50`, method: 'GET', headers: { 'x-api-key': key } },
      },
      {
        name: 'sticky creation (POST /api/stickies)',
        job: {
          url: `${service.url}/api/stickies`,
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'Benchmark note: reconcile the custodian returns', tags: ['bench'] }),
        },
      },
    ];
    const workloads = allWorkloads.filter((w) => !values.only || w.name.toLowerCase().includes(values.only));
    if (workloads.length === 0) throw new Error(`--only ${values.only}: no such workload (comparison, sticky)`);
    console.log(
      `audit cost: ${service.services.db.kind}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${rounds} rounds of ${seconds}s, ${connections} connections`,
    );
    let id = 0;
    const local = /@(localhost|127\.0\.0\.1)[:/]/.test(process.env.DATABASE_URL ?? '');
    // The garbage collector's pauses in the service's process (it runs in this one), summed per round.
    let gcMs = 0;
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcMs += entry.duration;
    });
    gc.observe({ entryTypes: ['gc'] });
    // Per request, in microseconds: the service's CPU and (on a local PostgreSQL) the database's,
    // the log's writes included (flushed inside the measurement).
    const measure = async (workload: (typeof workloads)[number], audit: boolean): Promise<LoadSummary & CpuPerRequest> => {
      services.audit = audit ? recorder : undefined;
      const [serviceBefore, databaseSince, gcBefore] = [process.cpuUsage(), local ? ticksOfNamedSince(['postgres']) : undefined, gcMs];
      const summary = await runJob(loadgen, { ...workload.job, id: ++id, connections, duration: seconds });
      services.audit = recorder;
      await recorder.flush();
      const serviceUsage = process.cpuUsage(serviceBefore);
      const perRequest = (micros: number) => micros / Math.max(summary.requests, 1);
      return {
        ...summary,
        serviceCpu: perRequest(serviceUsage.user + serviceUsage.system),
        databaseCpu: databaseSince ? perRequest((databaseSince() * 1e6) / TICKS) : null,
        gc: perRequest((gcMs - gcBefore) * 1000),
      };
    };
    // Warm-up: one short pass of each, both ways.
    if (values.side !== undefined && values.side !== 'on' && values.side !== 'off') throw new Error(`--side ${values.side}: on or off`);
    const sides = values.side === undefined ? [true, false] : [values.side === 'on'];
    // The key's first use is an audit event (recorded whatever the side): made with the log on.
    await fetch(`${service.url}/api/stickies?limit=1`, { headers: { 'x-api-key': key } });
    for (const workload of workloads) for (const audit of sides) await measure(workload, audit);
    const results = new Map(workloads.map((w) => [w.name, { on: [] as number[], off: [] as number[] }]));
    const cpu = new Map(workloads.map((w) => [w.name, { on: [] as number[], off: [] as number[] }]));
    // Each round's on and off ran back to back: their difference sees (nearly) the same neighbours.
    const paired = new Map(workloads.map((w) => [w.name, { rate: [] as number[], cpu: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      const order = sides.length === 1 ? sides : round % 2 === 0 ? [true, false] : [false, true];
      for (const workload of workloads) {
        const pair: Partial<Record<'on' | 'off', { rate: number; cpu: number }>> = {};
        for (const audit of order) {
          const summary = await measure(workload, audit);
          if (summary.errors + summary.non2xx > 0) throw new Error(`${workload.name}: ${summary.errors} errors, ${summary.non2xx} non-2xx answers`);
          results.get(workload.name)![audit ? 'on' : 'off'].push(summary.rps);
          cpu.get(workload.name)![audit ? 'on' : 'off'].push(summary.serviceCpu + (summary.databaseCpu ?? 0));
          pair[audit ? 'on' : 'off'] = { rate: summary.rps, cpu: summary.serviceCpu + (summary.databaseCpu ?? 0) };
          console.log(
            `round ${round + 1} ${workload.name} audit ${audit ? 'on ' : 'off'}: ${summary.rps.toFixed(0)} req/s, p50 ${summary.p50} ms, p99 ${summary.p99} ms, ` +
              `CPU a request: service ${summary.serviceCpu.toFixed(0)} us (of it GC pauses ${summary.gc.toFixed(0)} us)${summary.databaseCpu === null ? '' : `, database ${summary.databaseCpu.toFixed(0)} us`}`,
          );
        }
        if (pair.on && pair.off) {
          paired.get(workload.name)!.rate.push(pair.on.rate / pair.off.rate - 1);
          paired.get(workload.name)!.cpu.push(pair.on.cpu / pair.off.cpu - 1);
        }
      }
    }
    console.log('');
    for (const [name, { on, off }] of sides.length === 1 ? [] : results) {
      const difference = (median(on) - median(off)) / median(off);
      console.log(
        `${name}: on ${median(on).toFixed(0)} req/s (${Math.min(...on).toFixed(0)}-${Math.max(...on).toFixed(0)}), off ${median(off).toFixed(0)} req/s (${Math.min(...off).toFixed(0)}-${Math.max(...off).toFixed(0)}): ${(difference * 100).toFixed(1)}%`,
      );
    }
    for (const [name, { on, off }] of sides.length === 1 ? [] : cpu) {
      const difference = (median(on) - median(off)) / median(off);
      console.log(
        `${name}: CPU a request (service${local ? ' + database' : ''}): on ${median(on).toFixed(0)} us (${Math.min(...on).toFixed(0)}-${Math.max(...on).toFixed(0)}), off ${median(off).toFixed(0)} us (${Math.min(...off).toFixed(0)}-${Math.max(...off).toFixed(0)}): ${difference >= 0 ? '+' : ''}${(difference * 100).toFixed(1)}%`,
      );
    }
    const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
    for (const [name, { rate, cpu: cpuDifferences }] of sides.length === 1 ? [] : paired) {
      const verdict = median(rate) >= -GOAL && median(cpuDifferences) <= GOAL ? 'within the 5% goal' : 'over the 5% goal';
      console.log(
        `${name}: on against off in the same round, median [middle half] (min-max) over ${rate.length} rounds: ` +
          `rate ${percent(median(rate))} [${percent(quantile(rate, 0.25))} to ${percent(quantile(rate, 0.75))}] (${percent(Math.min(...rate))} to ${percent(Math.max(...rate))}), ` +
          `CPU a request ${percent(median(cpuDifferences))} [${percent(quantile(cpuDifferences, 0.25))} to ${percent(quantile(cpuDifferences, 0.75))}] (${percent(Math.min(...cpuDifferences))} to ${percent(Math.max(...cpuDifferences))}): ${verdict}`,
      );
    }
    console.log(`audit events written during the run: ${recorder.written}`);
  } finally {
    services.audit = recorder;
    loadgen.disconnect();
    await service.close();
  }
}

interface CpuPerRequest {
  /** microseconds of the service's CPU a request */
  serviceCpu: number;
  /** microseconds of PostgreSQL's CPU a request (null: not a local PostgreSQL, or PGlite, which is the service's own) */
  databaseCpu: number | null;
  /** microseconds of garbage-collection pauses a request, in the service's process */
  gc: number;
}

function runJob(child: ChildProcess, job: LoadJob): Promise<LoadSummary> {
  return new Promise((resolve) => {
    const onMessage = (summary: LoadSummary) => {
      if (summary.id !== job.id) return;
      child.off('message', onMessage);
      resolve(summary);
    };
    child.on('message', onMessage);
    child.send(job);
  });
}

/** The q-quantile of the values, linearly interpolated between the two nearest ranks. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  return sorted[below] + (sorted[Math.min(below + 1, sorted.length - 1)] - sorted[below]) * (position - below);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
