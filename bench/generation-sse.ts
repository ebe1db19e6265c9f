/**
 * Progress fan-out benchmark: N concurrent SSE subscribers (default 2,000) on one service process
 * follow one summary generation through GET /api/generate?run_id=...
 *
 *   npx tsx bench/generation-sse.ts [--subscribers 2000] [--step-delay 200ms] [--verbose] [--cpu-prof-dir DIR]
 *
 * - The service runs as its own process (`node --import tsx server/main.ts`, embedded database
 *   unless DATABASE_URL is set) with GENERATION_CONCURRENCY=1 and its writer model
 *   (CHAT_API_URL) pointed at a fake OpenAI-compatible server in this process that holds its
 *   first request: a "blocker" run waits in its writer, so the measured run waits in the queue
 *   while the subscribers connect. Once every subscriber has its stream open and has been idle
 *   for a few seconds, the service's RSS is sampled (idle memory per subscriber = (RSS idle -
 *   RSS before) / N); then the model answers, the blocker completes and the measured run
 *   executes (GENERATION_STEP_DELAY paces its events; its own model call is answered at once).
 * - Delay of an event = the time a subscriber parsed it minus the event's `createdAt` (stored
 *   with clock_timestamp() by the statement that inserts it; the same machine's clock), for the
 *   events stored after every subscriber was connected. p50/p99 over all (subscriber, event) pairs.
 * - Every subscriber must receive every event of the run exactly once, in order (ids 1..last).
 * - The subscribers are plain HTTP clients with a minimal SSE parser on this process's event
 *   loop, on the same machine: their own CPU time (reading 2,000 sockets per event) is included
 *   in the delay, an upper bound. --verbose prints each event's first/median/last delay.
 * - --step-delay paces the run (GENERATION_STEP_DELAY): 200ms gives about 10 events a second
 *   with bursts of 4 (the analysts run in parallel), a busy but realistic progress stream.
 * - RSS before and with the idle subscribers is each the last of six samples 2.5 s apart (V8
 *   shrinks the heap once allocation stops); the service runs with npm start's heap cap.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createUserWithCli, startChildService, type ChildService } from '../test/helpers/child-service.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '2000' },
    'step-delay': { type: 'string', default: '200ms' },
    'cpu-prof-dir': { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const GOAL_P99_MS = 100;
const GOAL_KB_PER_SUBSCRIBER = 50;

interface Received {
  ids: number[];
  at: Map<number, number>;
  done: boolean;
  status: number;
  error?: string;
}

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

async function graphql<T>(service: ChildService, key: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data!;
}

async function rest(service: ChildService, key: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

/** Opens one SSE stream and records when each event id arrives. Resolves once the headers are in. */
function subscribe(agent: http.Agent, url: string, key: string, received: Received): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { 'x-api-key': key, accept: 'text/event-stream' } }, (response) => {
      received.status = response.statusCode ?? 0;
      if (response.statusCode !== 200) {
        received.error = `status ${response.statusCode}`;
        response.resume();
        return resolve();
      }
      // A minimal SSE parser: frames end with a blank line; `id:` and `event:` lead each frame
      // (so only its head is examined, not the summary it may carry).
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        const now = performance.timeOrigin + performance.now();
        buffer = buffer ? buffer + chunk : chunk;
        let start = 0;
        let end: number;
        while ((end = buffer.indexOf('\n\n', start)) >= 0) {
          if (buffer.startsWith('id: ', start)) {
            const idEnd = buffer.indexOf('\n', start);
            const sequence = Number(buffer.slice(start + 4, idEnd));
            received.ids.push(sequence);
            received.at.set(sequence, now);
            if (buffer.startsWith('event: done\n', idEnd + 1)) received.done = true;
          }
          start = end + 2;
        }
        buffer = start < buffer.length ? buffer.slice(start) : '';
      });
      response.on('end', () => undefined);
      response.on('error', (error) => (received.error = error.message));
      resolve();
    });
    request.on('error', (error) => {
      received.error = error.message;
      reject(error);
    });
  });
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** An OpenAI-compatible chat endpoint that holds every request until release() (then answers at once). */
async function startHeldModel(): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  let released = false;
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const answer = () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '# Workspace summary\n\nNotes on custodian files [1].' } }] }));
    if (released) answer();
    else waiting.push(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    release: () => {
      released = true;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const model = await startHeldModel();
  const service = await startChildService({
    env: {
      CHAT_API_URL: model.url,
      GENERATION_AGENT_TIMEOUT: '10m',
      CHAT_TIMEOUT: '10m',
      GENERATION_CONCURRENCY: '1',
      GENERATION_STEP_DELAY: values['step-delay']!,
      RATE_LIMIT_GENERATE_PER_MINUTE: '1000',
      // Every subscriber is the same user here: the per-user cap of open streams (default 20) is lifted.
      STREAMS_PER_USER: String(SUBSCRIBERS + 10),
    },
    // --cpu-prof-dir <dir>: a V8 CPU profile of the service, written when it stops.
    // The heap cap `npm start` runs with (package.json), plus a CPU profile when asked.
    nodeArgs: ['--max-old-space-size=384', ...(values['cpu-prof-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof-dir']}`] : [])],
    startTimeoutMs: 120_000,
  });
  try {
    const { key } = await createUserWithCli(service, ['read:workspace', 'write:workspace']);
    // Some workspace so every agent has work and reports progress.
    for (let i = 0; i < 20; i++) {
      await rest(service, key, '/api/stickies', {
        content: `Benchmark note ${i}: reconcile the custodian file for account ${1000 + i} before month end and follow up with the client.`,
        tags: ['bench', i % 2 ? 'ops' : 'clients'],
      });
      await rest(service, key, '/api/links', { url: `https://example.com/article-${i}`, title: `Reading list item ${i}`, tags: ['bench'] });
    }
    for (let i = 0; i < 10; i++) await rest(service, key, '/api/pm/tasks', { title: `Benchmark task ${i}`, priority: i % 3 === 0 ? 'high' : 'medium' });

    const start = `mutation { startGeneration { id } }`;
    await graphql(service, key, start); // the blocker: it waits in its writer until the model is released
    const runId = (await graphql<{ startGeneration: { id: string } }>(service, key, start)).startGeneration.id;
    // The same settling before and after the subscribers connect: the idle RSS after 15 s.
    const settle = async (label: string) => {
      const samples: number[] = [];
      for (let i = 0; i < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        samples.push(rssBytes(service.pid));
      }
      if (values.verbose) console.log(`  ${label} RSS every 2.5 s: ${samples.map((b) => (b / 1048576).toFixed(1)).join(', ')} MB`);
      return samples.at(-1)!;
    };
    const rssBefore = await settle('before');

    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const url = `${service.url}/api/generate?run_id=${runId}`;
    const subscribers: Received[] = Array.from({ length: SUBSCRIBERS }, () => ({ ids: [], at: new Map(), done: false, status: 0 }));
    const connectStarted = Date.now();
    // Connect in waves so the accept queue is not flooded (as a fleet of browsers would arrive over a few seconds).
    const WAVE = 100;
    for (let i = 0; i < SUBSCRIBERS; i += WAVE) {
      await Promise.all(subscribers.slice(i, i + WAVE).map((received) => subscribe(agent, url, key, received)));
    }
    const connectSeconds = (Date.now() - connectStarted) / 1000;
    const refused = subscribers.filter((s) => s.status !== 200).length;
    if (refused > 0) throw new Error(`${refused} subscribers were refused: ${subscribers.find((s) => s.error)?.error}`);
    const runState = await graphql<{ generationRun: { state: string } }>(service, key, `query($id: UUID!) { generationRun(id: $id) { state } }`, { id: runId });
    // Idle: V8's memory reducer collects the connection burst's garbage once allocation stops.
    const rssIdle = await settle('idle');
    const liveFrom = Date.now();

    const serverCpuBefore = cpuSeconds(service.pid);
    const clientCpuBefore = process.cpuUsage();
    model.release();
    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(service.pid))), 50);
    const deadline = Date.now() + 300_000;
    while (subscribers.some((s) => !s.done) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    clearInterval(sampler);
    const deliverSeconds = (Date.now() - liveFrom) / 1000;
    const serverCpu = cpuSeconds(service.pid) - serverCpuBefore;
    const clientUsage = process.cpuUsage(clientCpuBefore);
    const clientCpu = (clientUsage.user + clientUsage.system) / 1e6;
    agent.destroy();

    const { generationRun } = await graphql<{ generationRun: { state: string; lastSequence: number; events: { sequence: number; createdAt: string }[] } }>(
      service,
      key,
      `query($id: UUID!) { generationRun(id: $id) { state lastSequence events(first: 1000) { sequence createdAt } } }`,
      { id: runId },
    );
    const expected = generationRun.events.map((e) => e.sequence);
    const complete = subscribers.filter((s) => s.done && s.ids.length === expected.length && s.ids.every((id, i) => id === expected[i])).length;
    const storedAt = new Map(generationRun.events.map((e) => [e.sequence, Date.parse(e.createdAt)]));
    const live = generationRun.events.filter((e) => Date.parse(e.createdAt) >= liveFrom).map((e) => e.sequence);
    const delays: number[] = [];
    for (const s of subscribers)
      for (const sequence of live) {
        const at = s.at.get(sequence);
        if (at !== undefined) delays.push(at - storedAt.get(sequence)!);
      }
    delays.sort((a, b) => a - b);
    if (values.verbose) {
      for (const sequence of live) {
        const perEvent = subscribers.map((sub) => sub.at.get(sequence)! - storedAt.get(sequence)!).sort((a, b) => a - b);
        const event = generationRun.events.find((e) => e.sequence === sequence)!;
        console.log(
          `  event ${sequence} stored +${storedAt.get(sequence)! - liveFrom} ms: first ${perEvent[0].toFixed(1)} p50 ${percentile(perEvent, 50).toFixed(1)} last ${perEvent.at(-1)!.toFixed(1)} ms (${event.createdAt})`,
        );
      }
    }
    const kbPerSubscriber = (rssIdle - rssBefore) / 1024 / SUBSCRIBERS;
    const p50 = percentile(delays, 50);
    const p99 = percentile(delays, 99);
    const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (embedded)';
    console.log(`generation SSE fan-out: ${SUBSCRIBERS} subscribers, one run, ${database}, step delay ${values['step-delay']}`);
    console.log(`  connect: ${connectSeconds.toFixed(1)} s for all streams (run state while connecting: ${runState.generationRun.state})`);
    console.log(`  run: ${generationRun.state}, ${expected.length} events, ${live.length} stored after all subscribers were connected`);
    console.log(`  every event to every subscriber, in order, once: ${complete}/${SUBSCRIBERS}`);
    console.log(
      `  delay stored -> received (${delays.length} deliveries): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${delays.at(-1)?.toFixed(1)} ms (goal p99 < ${GOAL_P99_MS} ms)`,
    );
    console.log(`  delivery phase: ${deliverSeconds.toFixed(1)} s; CPU used: service ${serverCpu.toFixed(2)} s, subscribers' client ${clientCpu.toFixed(2)} s`);
    console.log(
      `  RSS: before ${(rssBefore / 1048576).toFixed(1)} MB, ${SUBSCRIBERS} idle subscribers ${(rssIdle / 1048576).toFixed(1)} MB, peak while delivering ${(rssPeak / 1048576).toFixed(1)} MB`,
    );
    console.log(`  idle memory per subscriber: ${kbPerSubscriber.toFixed(1)} KB (goal < ${GOAL_KB_PER_SUBSCRIBER} KB)`);
    if (complete !== SUBSCRIBERS) process.exitCode = 1;
  } finally {
    if (values['cpu-prof-dir']) {
      service.process.kill('SIGTERM');
      await service.exited;
    }
    await service.cleanup();
    await model.close();
  }
}

await main();
