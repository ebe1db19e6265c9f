/**
 * Progress fan-out benchmark: N concurrent SSE followers (default 2,000) on one service process
 * follow summary generations through GET /api/generate?run_id=..., spread evenly over R runs
 * (default 1: everyone follows the same run).
 *
 *   npx tsx bench/generation-sse.ts [--subscribers 2000] [--runs 1] [--concurrency C] [--step-delay 200ms]
 *                                   [--heap MB] [--json] [--verbose] [--cpu-prof-dir DIR]
 *
 * - The service runs as its own process (`node --max-old-space-size=<--heap> --import tsx
 *   server/main.ts`: npm start's heap cap by default; embedded database unless DATABASE_URL is
 *   set) with GENERATION_CONCURRENCY=C (default 1 for one run, 32, the most it allows, for
 *   several) and its writer model (CHAT_API_URL) pointed at a fake OpenAI-compatible server in
 *   this process that holds every request until released: C "blocker" runs wait in their writers,
 *   so the R measured runs all wait in the queue while the followers connect. Once every follower
 *   has its stream open and has been idle for 15 s, the service's RSS is sampled (idle memory per
 *   follower = (RSS idle - RSS before) / N); then the model answers, the blockers complete and the
 *   measured runs execute, C at a time (GENERATION_STEP_DELAY paces their events; their model
 *   calls are answered at once).
 * - Every run belongs to the user who follows it (ownership is checked on every stream). A user
 *   may have 3 runs queued or running, so the runs belong to ceil(R/3) users, 3 each; the users
 *   and their API keys are made with the operator CLI's commands, run in this process on one open
 *   database (bench/cli-session.ts: the same parsing, code and audit events as `npm run cli`,
 *   without a process per command). Each owner gets some workspace (one run: 20 notes, 20 links,
 *   10 tasks; several: 3, 2 and 1 per owner) so that every agent reports progress. The per-user
 *   cap of open streams (STREAMS_PER_USER, 20) is raised only when a user has more followers than
 *   that (one run); everything else is the service's default.
 * - Delay of an event = the time a follower parsed it minus the event's `createdAt` (stored with
 *   clock_timestamp() by the statement that inserts it; the same machine's clock), for the events
 *   stored after every follower was connected. p50/p99 over all (follower, event) pairs.
 * - Every follower must receive every event of its own run (read back from the service)
 *   exactly once, in order, through the final one.
 * - CPU per delivery: the service's CPU time (from /proc) during the delivery phase (release to
 *   the last follower's final event), divided by the deliveries measured; it includes executing
 *   the runs (agents, storing the events; with DATABASE_URL the PostgreSQL server's CPU is printed
 *   beside it, every process of the server). The followers' client (this process) likewise. Also
 *   the service's CPU while the followers are idle (heartbeats, the queued runs' log re-reads).
 * - The followers are plain HTTP clients with a minimal SSE parser on this process's event loop,
 *   on the same machine: their own CPU time is included in the delay, an upper bound. --verbose
 *   prints each event's first/median/last delay (one run) or the slowest events (several).
 * - --step-delay paces the runs (GENERATION_STEP_DELAY): 200ms gives about 10 events a second per
 *   run with bursts of 4 (the analysts run in parallel), a busy but realistic progress stream.
 * - RSS before and with the idle followers is each the last of six samples 2.5 s apart (V8
 *   shrinks the heap once allocation stops).
 * - If the service exits (e.g. out of heap) the benchmark says so, with its exit code or signal
 *   and the last lines of its stderr, and exits 2. --json prints one JSON line with every figure.
 */
import { npmStartHeapMb } from './npm-start-heap.ts';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startChildService } from '../test/helpers/child-service.ts';
import { openCliSession } from './cli-session.ts';
import { pidsNamed } from './proc-cpu.ts';
import {
  checkDeliveries,
  connectAll,
  cpuSeconds,
  describeExit,
  eachLimit,
  follower,
  graphql,
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
  type StoredRun,
} from './fan-out-client.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '1' },
    concurrency: { type: 'string' },
    'step-delay': { type: 'string', default: '200ms' },
    heap: { type: 'string', default: String(npmStartHeapMb()) },
    'cpu-prof-dir': { type: 'string' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency ?? (RUNS === 1 ? 1 : 32));
const HEAP_MB = Number(values.heap);
const GOAL_P99_MS = 100;
const GOAL_KB_PER_SUBSCRIBER = 20;
const RUNS_PER_USER = 3; // GENERATION_LIMITS.activeRunsPerUser
const STREAMS_PER_USER_DEFAULT = 20;
if (!(RUNS >= 1 && SUBSCRIBERS >= RUNS)) throw new Error('--runs must be at least 1 and at most --subscribers');
if (!(CONCURRENCY >= 1 && CONCURRENCY <= 32)) throw new Error('--concurrency must be 1 to 32 (GENERATION_CONCURRENCY)');
// Progress lines go to stderr with --json, so stdout holds the JSON line alone.
const say = (line: string) => (values.json ? process.stderr.write(`${line}\n`) : console.log(line));

async function main(): Promise<void> {
  const model = await startHeldModel();
  // Followers per run (the first N % R runs get one more) and per owner (3 runs each).
  const followersOfRun = (run: number) => Math.floor(SUBSCRIBERS / RUNS) + (run < SUBSCRIBERS % RUNS ? 1 : 0);
  const owners = Math.ceil(RUNS / RUNS_PER_USER);
  let mostPerUser = 0;
  for (let owner = 0; owner < owners; owner++) {
    let count = 0;
    for (let run = owner * RUNS_PER_USER; run < Math.min(RUNS, (owner + 1) * RUNS_PER_USER); run++) count += followersOfRun(run);
    mostPerUser = Math.max(mostPerUser, count);
  }
  const streamsPerUser = mostPerUser > STREAMS_PER_USER_DEFAULT ? mostPerUser + 10 : undefined;
  const env: Record<string, string> = {
    CHAT_API_URL: model.url,
    GENERATION_AGENT_TIMEOUT: '10m',
    CHAT_TIMEOUT: '10m',
    GENERATION_CONCURRENCY: String(CONCURRENCY),
    GENERATION_STEP_DELAY: values['step-delay']!,
    ...(streamsPerUser ? { STREAMS_PER_USER: String(streamsPerUser) } : {}),
  };
  const service = await startChildService({
    env,
    // The heap cap (npm start's by default), plus a V8 CPU profile when asked (written when it stops).
    nodeArgs: [`--max-old-space-size=${HEAP_MB}`, ...(values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : [])],
    startTimeoutMs: 120_000,
  });
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void service.exited.then((info) => (exit = info));
  let phase = 'setting up';
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)';
  try {
    // Users and keys: ceil(R/3) owners, and ceil(C/3) users for the blockers.
    phase = 'creating users';
    const setupStarted = Date.now();
    const session = await openCliSession(service.env);
    const blockerUsers = Math.ceil(CONCURRENCY / RUNS_PER_USER);
    const keys: string[] = [];
    try {
      for (let i = 0; i < owners + blockerUsers; i++) {
        const email = `bench-${i}-${process.pid}@bench.local`;
        await session.run(['user:create', '--email', email, '--org', `Bench ${i}`, '--json']);
        keys.push(
          (JSON.parse(await session.run(['key:create', '--email', email, '--scopes', 'read:workspace,write:workspace', '--json'])) as { key: string }).key,
        );
      }
    } finally {
      await session.close();
    }
    const ownerKeys = keys.slice(0, owners);
    const blockerKeys = keys.slice(owners);
    const usersSeconds = (Date.now() - setupStarted) / 1000;
    phase = 'seeding workspaces';
    const size = RUNS === 1 ? { stickies: 20, links: 20, tasks: 10 } : { stickies: 3, links: 2, tasks: 1 };
    await eachLimit(keys, 8, (key) => seedWorkspace(service.url, key, size));
    const seedSeconds = (Date.now() - setupStarted) / 1000 - usersSeconds;

    // The blockers take every execution slot and wait in their writers (held by the model).
    phase = 'starting the blocker runs';
    for (let i = 0; i < CONCURRENCY; i++) await startRun(service.url, blockerKeys[Math.floor(i / RUNS_PER_USER)]);
    await waitFor(
      () => model.held() >= CONCURRENCY || exit !== undefined,
      120_000,
      () => `only ${model.held()} of ${CONCURRENCY} blocker runs reached their writer within 120 s`,
    );
    if (exit) throw new Error('the service exited');
    phase = 'starting the measured runs';
    const runIds = await eachLimit(
      Array.from({ length: RUNS }, (_, run) => run),
      8,
      (run) => startRun(service.url, ownerKeys[Math.floor(run / RUNS_PER_USER)]),
    );
    const keyOfRun = (run: number) => ownerKeys[Math.floor(run / RUNS_PER_USER)];
    const setupSeconds = (Date.now() - setupStarted) / 1000;

    // The same settling before and after the followers connect: the idle RSS after 15 s.
    const settle = async (label: string) => {
      const samples: number[] = [];
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        if (exit) throw new Error('the service exited');
        samples.push(rssBytes(service.pid));
      }
      if (values.verbose) say(`  ${label} RSS every 2.5 s: ${samples.map((b) => (b / 1048576).toFixed(1)).join(', ')} MB`);
      return samples.at(-1)!;
    };
    phase = 'settling before the followers connect';
    const rssBefore = await settle('before');

    // Follower i follows run i % R, with the run owner's key.
    const followers: Follower[] = Array.from({ length: SUBSCRIBERS }, (_, i) => follower(runIds[i % RUNS], keyOfRun(i % RUNS), service.url));
    phase = 'connecting the followers';
    const connectStarted = Date.now();
    await connectAll(agent, followers);
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    const states = new Map<string, number>();
    await eachLimit(runIds, 8, async (runId, run) => {
      const { state } = (
        await graphql<{ generationRun: { state: string } }>(service.url, keyOfRun(run), `query($id: UUID!) { generationRun(id: $id) { state } }`, { id: runId })
      ).generationRun;
      states.set(state, (states.get(state) ?? 0) + 1);
    });
    // Idle: V8's memory reducer collects the connection burst's garbage once allocation stops.
    phase = 'idle followers';
    const idleCpuBefore = cpuSeconds(service.pid);
    const idleStarted = performance.now();
    const rssIdle = await settle('idle');
    const idleCpuPerSecond = (cpuSeconds(service.pid) - idleCpuBefore) / ((performance.now() - idleStarted) / 1000);

    phase = 'delivering';
    const liveFrom = Date.now();
    const serverCpuBefore = cpuSeconds(service.pid);
    const clientCpuBefore = ownCpuSeconds();
    // PostgreSQL's CPU, outside the service (every process of the server: other users of a shared one too).
    const postgres = process.env.DATABASE_URL ? pidsNamed(['postgres']) : [];
    const postgresCpu = () => postgres.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
    const postgresCpuBefore = postgresCpu();
    model.release();
    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(service.pid))), 50);
    // A run takes ~5 s at 200ms a step; C execute at once.
    const deadline = Date.now() + 300_000 + Math.ceil(RUNS / CONCURRENCY) * 30_000;
    while (followers.some((f) => !f.done) && Date.now() < deadline && !exit) await new Promise((resolve) => setTimeout(resolve, 100));
    clearInterval(sampler);
    if (exit) throw new Error('the service exited');
    const deliverSeconds = (Date.now() - liveFrom) / 1000;
    const serverCpu = cpuSeconds(service.pid) - serverCpuBefore;
    const clientCpu = ownCpuSeconds() - clientCpuBefore;
    const postgresCpuUsed = postgresCpu() - postgresCpuBefore;
    agent.destroy();

    phase = 'reading the runs back';
    const runs = new Map<string, StoredRun>();
    await eachLimit(runIds, 8, async (runId, run) => runs.set(runId, await readRun(service.url, keyOfRun(run), runId)));
    const checked = checkDeliveries(followers, runs, liveFrom);
    const { delays } = checked;
    const runStates = new Map<string, number>();
    for (const run of runs.values()) runStates.set(run.state, (runStates.get(run.state) ?? 0) + 1);

    if (values.verbose) {
      // Per event of the first run, or the 10 slowest (run, event) pairs when there are several runs.
      const perEvent: { label: string; delays: number[] }[] = [];
      for (const [runId, run] of runs) {
        for (const event of run.events) {
          const storedAt = Date.parse(event.createdAt);
          if (storedAt < liveFrom) continue;
          const got = followers.filter((f) => f.runId === runId).map((f) => f.at.get(event.sequence)! - storedAt);
          perEvent.push({
            label: `${RUNS > 1 ? `run ${runId.slice(0, 8)} ` : ''}event ${event.sequence} stored +${storedAt - liveFrom} ms`,
            delays: got.sort((a, b) => a - b),
          });
        }
        if (RUNS === 1) break;
      }
      const shown = RUNS === 1 ? perEvent : [...perEvent].sort((a, b) => b.delays.at(-1)! - a.delays.at(-1)!).slice(0, 10);
      for (const e of shown)
        say(`  ${e.label}: first ${e.delays[0].toFixed(1)} p50 ${percentile(e.delays, 50).toFixed(1)} last ${e.delays.at(-1)!.toFixed(1)} ms`);
    }
    const kbPerSubscriber = (rssIdle - rssBefore) / 1024 / SUBSCRIBERS;
    const p50 = percentile(delays, 50);
    const p99 = percentile(delays, 99);
    const serverUsPerDelivery = microsPerDelivery(serverCpu, delays.length);
    const clientUsPerDelivery = microsPerDelivery(clientCpu, delays.length);
    const stateList = (m: Map<string, number>) => [...m].map(([state, count]) => `${count} ${state}`).join(', ');
    say(
      `generation SSE fan-out: ${SUBSCRIBERS} followers over ${RUNS} run${RUNS === 1 ? '' : 's'} (${owners} owner${owners === 1 ? '' : 's'}), ${database}, ` +
        `step delay ${values['step-delay']}, GENERATION_CONCURRENCY ${CONCURRENCY}, --max-old-space-size=${HEAP_MB}${streamsPerUser ? `, STREAMS_PER_USER ${streamsPerUser}` : ''}`,
    );
    say(`  setup: ${setupSeconds.toFixed(1)} s (users and keys ${usersSeconds.toFixed(1)} s, workspaces ${seedSeconds.toFixed(1)} s)`);
    say(`  connect: ${connectSeconds.toFixed(1)} s for all streams (runs while connecting: ${stateList(states)})`);
    say(`  runs: ${stateList(runStates)}; ${checked.storedEvents} events, ${checked.liveEvents} stored after all followers were connected`);
    say(
      `  every event to every follower, in order, once: ${checked.complete}/${SUBSCRIBERS}${checked.firstIncomplete ? ` (first miss: ${checked.firstIncomplete})` : ''}`,
    );
    say(
      `  delay stored -> received (${delays.length} deliveries): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms (goal p99 < ${GOAL_P99_MS} ms)`,
    );
    say(
      `  delivery phase: ${deliverSeconds.toFixed(1)} s; CPU: service ${serverCpu.toFixed(2)} s = ${serverUsPerDelivery.toFixed(1)} µs per delivery (run execution included), ` +
        `followers' client ${clientCpu.toFixed(2)} s = ${clientUsPerDelivery.toFixed(1)} µs per delivery` +
        (process.env.DATABASE_URL
          ? `; PostgreSQL (every process of the server) ${postgresCpuUsed.toFixed(2)} s`
          : ' (the embedded database runs inside the service)'),
    );
    say(`  service CPU with the followers idle: ${(idleCpuPerSecond * 100).toFixed(1)}% of a core`);
    say(
      `  RSS: before ${(rssBefore / 1048576).toFixed(1)} MB, ${SUBSCRIBERS} idle followers ${(rssIdle / 1048576).toFixed(1)} MB, peak while delivering ${(rssPeak / 1048576).toFixed(1)} MB`,
    );
    say(`  idle memory per follower: ${kbPerSubscriber.toFixed(1)} KB (goal < ${GOAL_KB_PER_SUBSCRIBER} KB)`);
    if (values.json)
      console.log(
        JSON.stringify({
          bench: 'generation-sse',
          database,
          subscribers: SUBSCRIBERS,
          runs: RUNS,
          owners,
          concurrency: CONCURRENCY,
          stepDelay: values['step-delay'],
          heapMb: HEAP_MB,
          streamsPerUser: streamsPerUser ?? STREAMS_PER_USER_DEFAULT,
          setupSeconds,
          connectSeconds,
          runStates: Object.fromEntries(runStates),
          storedEvents: checked.storedEvents,
          liveEvents: checked.liveEvents,
          complete: checked.complete,
          deliveries: delays.length,
          p50Ms: p50,
          p99Ms: p99,
          maxMs: delays.at(-1) ?? null,
          deliverSeconds,
          serverCpuSeconds: serverCpu,
          serverCpuUsPerDelivery: serverUsPerDelivery,
          clientCpuSeconds: clientCpu,
          clientCpuUsPerDelivery: clientUsPerDelivery,
          postgresCpuSeconds: process.env.DATABASE_URL ? postgresCpuUsed : null,
          idleServerCpuCores: idleCpuPerSecond,
          rssBeforeMb: rssBefore / 1048576,
          rssIdleMb: rssIdle / 1048576,
          rssPeakMb: rssPeak / 1048576,
          kbPerIdleSubscriber: kbPerSubscriber,
          goals: { p99Ms: GOAL_P99_MS, kbPerIdleSubscriber: GOAL_KB_PER_SUBSCRIBER },
          met: { everyEvent: checked.complete === SUBSCRIBERS, p99: p99 < GOAL_P99_MS, memory: kbPerSubscriber < GOAL_KB_PER_SUBSCRIBER },
        }),
      );
    if (checked.complete !== SUBSCRIBERS) process.exitCode = 1;
  } catch (error) {
    // A follower's "socket hang up" usually means the service died: wait a moment for its exit.
    if (!exit) await Promise.race([service.exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
    const died = describeExit('the service', service, exit);
    if (!died) throw error;
    process.stderr.write(`generation SSE fan-out: ${SUBSCRIBERS} followers over ${RUNS} runs, ${database}, --max-old-space-size=${HEAP_MB}\n`);
    process.stderr.write(`${died}\n  while: ${phase}\n  (what this process saw: ${error instanceof Error ? error.message : String(error)})\n`);
    if (values.json)
      console.log(
        JSON.stringify({ bench: 'generation-sse', database, subscribers: SUBSCRIBERS, runs: RUNS, heapMb: HEAP_MB, serviceExited: { ...exit, phase } }),
      );
    process.exitCode = 2;
  } finally {
    agent.destroy();
    if (values['cpu-prof-dir'] && !exit) {
      service.process.kill('SIGTERM');
      await service.exited;
    }
    await service.cleanup();
    await model.close();
  }
}

await main();
