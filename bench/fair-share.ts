/**
 * Fair share between clients (issue 23): one client, with one ordinary API key, opens as many
 * event streams and subscriptions as it can while another organization reads; what does the
 * reader feel?
 *
 *   npx tsx bench/fair-share.ts [--seconds 10] [--rounds 2] [--rate 100] [--attack subscriptions,rest,sockets] [--retry-ms 5000] [--uncapped] [--set NAME=VALUE ...]
 *   DATABASE_URL=postgresql://... npx tsx bench/fair-share.ts      (on PostgreSQL)
 *
 * - The service runs as its own process with `npm start`'s heap cap and its default limits
 *   (`--uncapped` lifts the per-client queue and the stream and socket caps, to show what they prevent). It is a child of
 *   this process; the flood runs in another child (this file with --flood), so neither the
 *   attacker's sockets nor the reader's loop share an event loop with what they measure.
 * - The attacker (organization A) starts a summary generation that keeps producing events, then
 *   tries to open 2,000 `generationProgress` subscriptions on one graphql-ws socket, 200 more
 *   graphql-ws sockets with its key, 2,000 REST event streams (`GET /api/generate?run_id=`) and
 *   3,000 graphql-ws sockets without a credential; it holds whatever was accepted and tries again
 *   whatever was refused every --retry-ms (default 5000: the Retry-After it was given; a smaller
 *   value turns the test into a flood of refused requests, see docs/benchmarks.md).
 * - The reader (organization B) sends `GET /api/stickies?limit=1` at --rate requests a second for
 *   --seconds, each at its scheduled time (an open loop: a stall shows in the latencies); its
 *   p50/p99/max latency is measured in phases that alternate quiet and flood (quiet, flood, quiet,
 *   flood, ... --rounds times), so both see the same machine. Printed: each phase, the medians over phases, and the flood/quiet ratios.
 *   Goal: the ratio stays under 2 (p50 and p99).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { createUserWithCli, startChildService, type ChildService } from '../test/helpers/child-service.ts';
import { cpuTicks } from './proc-cpu.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    rate: { type: 'string', default: '100' },
    uncapped: { type: 'boolean', default: false },
    flood: { type: 'boolean', default: false },
    'retry-ms': { type: 'string', default: '5000' },
    attack: { type: 'string', default: 'subscriptions,rest,sockets' },
    concurrency: { type: 'string', default: '100' },
    'cpu-prof-dir': { type: 'string' },
    set: { type: 'string', multiple: true, default: [] },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const GOAL_RATIO = 2;
/** How long the attacker waits before trying again what was refused (the refusals' Retry-After is 5 s). */
const RETRY_MS = Number(values['retry-ms']);
/** Connection attempts the attacker has in flight at once, per kind (a burst of thousands of new connections is a connection flood, for the balancer: docs/limits.md). */
const CONCURRENCY = Number(values.concurrency);
const ATTACKS = values
  .attack!.split(',')
  .map((name) => name.trim())
  .filter(Boolean);

interface FloodOrder {
  url: string;
  key: string;
  runId: string;
}

interface FloodCounts {
  subscriptionsAccepted: number;
  subscriptionsRefused: number;
  keySocketsAccepted: number;
  keySocketsRefused: number;
  restStreamsAccepted: number;
  restStreamsRefused: number;
  anonymousSocketsAccepted: number;
  anonymousSocketsRefused: number;
}

const PROGRESS = 'subscription ($runId: UUID!) { generationProgress(runId: $runId) { __typename ... on GenerationEvent { sequence agent status message } } }';

if (values.flood) {
  process.on('message', (order: FloodOrder) => void flood(order));
} else {
  await main();
}

// ---------------------------------------------------------------- the attacker (a child process)

async function flood(order: FloodOrder): Promise<void> {
  const counts: FloodCounts = {
    subscriptionsAccepted: 0,
    subscriptionsRefused: 0,
    keySocketsAccepted: 0,
    keySocketsRefused: 0,
    restStreamsAccepted: 0,
    restStreamsRefused: 0,
    anonymousSocketsAccepted: 0,
    anonymousSocketsRefused: 0,
  };
  const wsUrl = `${order.url.replace(/^http/, 'ws')}/graphql`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const held: { close(): void }[] = [];
  let stopping = false;
  process.on('message', (message) => {
    if (message !== 'stop') return;
    stopping = true;
    for (const item of held) item.close();
    agent.destroy();
    process.send!(counts, () => process.exit(0));
  });

  /** 2,000 subscriptions on one socket, asked again (on a new socket when it was closed) every --retry-ms. */
  const subscriptionSocket = async (): Promise<void> => {
    while (!stopping) {
      await subscribeOnOneSocket();
      if (!stopping) await sleep(RETRY_MS);
    }
  };
  const subscribeOnOneSocket = async () => {
    const socket = await openSocket(wsUrl, { 'x-api-key': order.key });
    if (!socket) return;
    held.push({ close: () => socket.terminate() });
    const open = new Set<string>();
    let next = 0;
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { errors?: unknown[] } | unknown[] };
      if (!message.id) return;
      if (message.type === 'next' && !(message.payload as { errors?: unknown[] }).errors && !open.has(message.id)) {
        open.add(message.id);
        counts.subscriptionsAccepted++;
      } else if (message.type === 'error' || (message.type === 'next' && (message.payload as { errors?: unknown[] }).errors)) {
        counts.subscriptionsRefused++;
      } else if (message.type === 'complete') open.delete(message.id);
    });
    while (!stopping && socket.readyState === WebSocket.OPEN) {
      for (let i = open.size; i < 2_000; i++)
        socket.send(JSON.stringify({ id: String(next++), type: 'subscribe', payload: { query: PROGRESS, variables: { runId: order.runId } } }));
      await sleep(RETRY_MS);
    }
  };

  /** Sockets: with the key (200), and without any credential (3,000); refused ones are tried again. */
  const sockets = async (target: number, headers: Record<string, string>, accepted: keyof FloodCounts, refused: keyof FloodCounts) => {
    let open = 0;
    while (!stopping) {
      await inPool(target - open, CONCURRENCY, async () => {
        const socket = await openSocket(wsUrl, headers);
        if (!socket) return void counts[refused]++;
        counts[accepted]++;
        open++;
        held.push({ close: () => socket.terminate() });
        socket.once('close', () => open--);
        // Held as long as the server lets it (connection_init is never sent by the anonymous ones).
      });
      await sleep(RETRY_MS);
    }
  };

  /** 2,000 REST event streams; refused ones are tried again every second. */
  const restStreams = async () => {
    let open = 0;
    while (!stopping) {
      await inPool(
        2_000 - open,
        CONCURRENCY,
        () =>
          new Promise<void>((resolve) => {
            const request = http.get(
              `${order.url}/api/generate?run_id=${order.runId}`,
              { agent, headers: { 'x-api-key': order.key, accept: 'text/event-stream' } },
              (response) => {
                if (response.statusCode === 200) {
                  counts.restStreamsAccepted++;
                  open++;
                  held.push({ close: () => request.destroy() });
                  response.on('data', () => undefined);
                  response.once('close', () => open--);
                } else {
                  counts.restStreamsRefused++;
                  response.resume();
                }
                resolve();
              },
            );
            request.on('error', () => resolve());
          }),
      );
      await sleep(RETRY_MS);
    }
  };

  const attacks: Record<string, () => Promise<void>> = {
    subscriptions: subscriptionSocket,
    sockets: () => sockets(200, { 'x-api-key': order.key }, 'keySocketsAccepted', 'keySocketsRefused'),
    anonymous: () => sockets(3_000, {}, 'anonymousSocketsAccepted', 'anonymousSocketsRefused'),
    rest: restStreams,
  };
  await Promise.all(ATTACKS.filter((name) => name in attacks).map((name) => attacks[name]!()));
}

/** Runs `attempt` `count` times with at most `concurrency` at once (how a client library spreads its connections). */
async function inPool(count: number, concurrency: number, attempt: () => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) {
        next++;
        await attempt();
      }
    }),
  );
}

function openSocket(url: string, headers: Record<string, string>): Promise<WebSocket | null> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { headers });
    socket.once('open', () => {
      if (!headers['x-api-key']) return resolve(socket);
      socket.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': headers['x-api-key'] } }));
      socket.once('message', (data) => resolve(JSON.parse(String(data)).type === 'connection_ack' ? socket : null));
      socket.once('close', () => resolve(null));
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      resolve(null);
    });
    socket.once('error', () => resolve(null));
  });
}

// ---------------------------------------------------------------- the measurement

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const rate = Number(values.rate);
  const lifted: Record<string, string> = values.uncapped
    ? {
        REQUESTS_IN_FLIGHT_PER_CLIENT: '10000',
        STREAMS_PER_USER: '100000',
        WS_OPERATIONS_PER_SOCKET: '10000',
        WS_SOCKETS_PER_CREDENTIAL: '100000',
        WS_ANONYMOUS_SOCKETS_PER_ADDRESS: '100000',
      }
    : {};
  const service = await startChildService({
    env: { GENERATION_STEP_DELAY: '1s', GENERATION_CONCURRENCY: '1', RATE_LIMIT_GENERATE_PER_MINUTE: '1000', ...lifted, ...settings() },
    // npm start's heap cap; --cpu-prof-dir: a V8 CPU profile of the service, written when it stops.
    nodeArgs: [
      '--max-old-space-size=384',
      ...(values['node-arg'] ?? []),
      ...(values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : []),
    ],
    startTimeoutMs: 120_000,
  });
  try {
    const attacker = await createUserWithCli(service, ['read:workspace', 'write:workspace']);
    const reader = await createUserWithCli(service, ['read:workspace', 'write:workspace']);
    for (let i = 0; i < 20; i++)
      await post(service, reader.key, '/api/stickies', { content: `Reader's note ${i}: reconcile the custodian returns`, tags: ['bench'] });
    for (let i = 0; i < 20; i++)
      await post(service, attacker.key, '/api/stickies', { content: `Attacker's note ${i}: something to summarise`, tags: ['bench'] });
    console.log(
      `database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded (PGlite)'}; caps: ${values.uncapped ? 'lifted (--uncapped)' : 'defaults'}${values.set?.length ? ` with ${values.set.join(' ')}` : ''}; attack: ${ATTACKS.join(', ')} (${CONCURRENCY} attempts in flight per kind), refused ones retried every ${RETRY_MS} ms; reader at ${rate} requests/s, ${seconds} s phases, ${rounds} rounds`,
    );

    const phases: { name: 'quiet' | 'flood'; p50: number; p99: number; max: number; requests: number; errors: number; rssMb: number; cpu: number }[] = [];
    for (let round = 1; round <= rounds; round++) {
      phases.push({ name: 'quiet', ...(await sampled(service, () => read(service, reader.key, rate, seconds))) });
      const runId = await startLongRun(service, attacker.key);
      const attackerProcess = fork(
        new URL(import.meta.url).pathname,
        ['--flood', '--retry-ms', String(RETRY_MS), '--attack', ATTACKS.join(','), '--concurrency', String(CONCURRENCY)],
        { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
      attackerProcess.send({ url: service.url, key: attacker.key, runId } satisfies FloodOrder);
      await sleep(3_000); // the flood's first wave
      const [attackerBefore, readerBefore, wallBefore] = [cpuTicks(attackerProcess.pid), cpuTicks(process.pid), performance.now()];
      phases.push({ name: 'flood', ...(await sampled(service, () => read(service, reader.key, rate, seconds))) });
      const wall = performance.now() - wallBefore;
      console.log(
        `  CPU during the flood phase (share of one core): attacker ${((((cpuTicks(attackerProcess.pid) - attackerBefore) * 10) / wall) * 100).toFixed(0)} %, reader ${((((cpuTicks(process.pid) - readerBefore) * 10) / wall) * 100).toFixed(0)} %`,
      );
      const counts = await stopFlood(attackerProcess);
      console.log(
        `  attacker (round ${round}): subscriptions ${counts.subscriptionsAccepted} accepted / ${counts.subscriptionsRefused} refused; sockets with its key ${counts.keySocketsAccepted} / ${counts.keySocketsRefused}; REST streams ${counts.restStreamsAccepted} / ${counts.restStreamsRefused}; sockets without a credential ${counts.anonymousSocketsAccepted} / ${counts.anonymousSocketsRefused}`,
      );
      await post(service, attacker.key, '/graphql', { query: `mutation { cancelGeneration(id: "${runId}") { id } }` }).catch(() => undefined);
      await sleep(2_000);
    }
    if (process.env.FAIR_SHARE_DEBUG) {
      const slow = service.stdout.filter((line) => line.includes('/api/stickies') && /"durationMs":(\d{3,})/.test(line));
      console.log(`service-side durations of reader requests over 100 ms: ${slow.length}`, slow.slice(0, 3));
      const collections = service.stdout.filter((line) => /Mark-Compact|Scavenge/.test(line));
      console.log(
        `garbage collections: ${collections.length}; the longest:`,
        collections
          .map((line) => [Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(line)?.[1] ?? 0), line] as const)
          .sort((a, b) => b[0] - a[0])
          .slice(0, 5)
          .map(([, line]) => line),
      );
    }
    console.log('phase   reader p50   reader p99   reader max   requests  errors  service RSS max  service CPU');
    for (const phase of phases)
      console.log(
        `${phase.name.padEnd(7)} ${ms(phase.p50)}   ${ms(phase.p99)}   ${ms(phase.max)}   ${String(phase.requests).padStart(8)}  ${String(phase.errors).padStart(6)}  ${String(phase.rssMb).padStart(11)} MB  ${(phase.cpu * 100).toFixed(0).padStart(8)} %`,
      );
    const median = (name: 'quiet' | 'flood', key: 'p50' | 'p99') => medianOf(phases.filter((phase) => phase.name === name).map((phase) => phase[key]));
    const ratio50 = median('flood', 'p50') / median('quiet', 'p50');
    const ratio99 = median('flood', 'p99') / median('quiet', 'p99');
    console.log(
      `median over phases: quiet p50 ${ms(median('quiet', 'p50'))} p99 ${ms(median('quiet', 'p99'))}; flood p50 ${ms(median('flood', 'p50'))} p99 ${ms(median('flood', 'p99'))}`,
    );
    console.log(
      `flood/quiet: p50 ${ratio50.toFixed(2)}, p99 ${ratio99.toFixed(2)} (goal: under ${GOAL_RATIO}) ${ratio50 < GOAL_RATIO && ratio99 < GOAL_RATIO ? 'met' : 'NOT met'}`,
    );
  } catch (error) {
    // The service's own last words, when it was the one that failed.
    console.error(
      `service exit: ${JSON.stringify(service.process.exitCode ?? service.process.signalCode)}\n${[...service.stdout.slice(-20), ...service.stderr.slice(-40)].join('\n')}`,
    );
    throw error;
  } finally {
    // A clean stop first, so that a --cpu-prof-dir profile is written.
    service.process.kill('SIGTERM');
    await Promise.race([service.exited, sleep(30_000)]);
    await service.cleanup();
  }
}

/** `measure` with the service's largest RSS and its CPU (share of one core) over the phase, read from /proc. */
async function sampled<T>(service: ChildService, measure: () => Promise<T>): Promise<T & { rssMb: number; cpu: number }> {
  let rssMb = 0;
  const sample = () => {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${service.pid}/status`, 'utf8'));
    rssMb = Math.max(rssMb, Math.round(Number(match?.[1] ?? 0) / 1024));
  };
  const ticks = () => cpuTicks(service.pid);
  const timer = setInterval(sample, 250);
  const [cpuBefore, wallBefore] = [ticks(), performance.now()];
  try {
    const result = await measure();
    const cpu = ((ticks() - cpuBefore) * 10) / (performance.now() - wallBefore);
    return { ...result, rssMb, cpu };
  } finally {
    clearInterval(timer);
  }
}

/** --set NAME=VALUE (repeated): service variables for this run, e.g. --set REQUESTS_IN_FLIGHT_PER_CLIENT=4. */
function settings(): Record<string, string> {
  return Object.fromEntries((values.set ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/** A run that lasts: sources with work for every agent, paced by the step delay; restarted by the caller each round. */
async function startLongRun(service: ChildService, key: string): Promise<string> {
  const started = (await post(service, key, '/graphql', { query: 'mutation { startGeneration(input: { days: 90 }) { id } }' })) as {
    data: { startGeneration: { id: string } };
  };
  return started.data.startGeneration.id;
}

function stopFlood(child: ChildProcess): Promise<FloodCounts> {
  return new Promise((resolve) => {
    child.once('message', (counts: FloodCounts) => resolve(counts));
    child.send('stop');
  });
}

/**
 * The reader: `GET /api/stickies?limit=1` at a fixed rate for `seconds`, each request sent at its
 * scheduled time whether or not the earlier ones have answered (an open loop), and its latency
 * counted from that time: a stall of the service shows in the percentiles instead of silently
 * slowing the reader down (coordinated omission).
 */
async function read(
  service: ChildService,
  key: string,
  rate: number,
  seconds: number,
): Promise<{ p50: number; p99: number; max: number; requests: number; errors: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    pending.push(
      get(agent, `${service.url}/api/stickies?limit=1`, key).then((status) => {
        latencies.push(performance.now() - due);
        if (status !== 200) errors++;
      }),
    );
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? NaN, requests: latencies.length, errors };
}

function get(agent: http.Agent, url: string, key: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent, headers: { 'x-api-key': key } }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
  });
}

async function post(service: ChildService, key: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

function medianOf(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function ms(value: number): string {
  return `${value.toFixed(1).padStart(8)} ms`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
