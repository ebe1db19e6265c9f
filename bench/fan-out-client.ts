/**
 * What bench/generation-sse.ts and bench/fleet.ts (--fan-out) share to measure the delivery of
 * generation progress to many followers: a minimal SSE follower of `GET /api/generate?run_id=`,
 * an OpenAI-compatible model that holds its requests until released (so nothing executes before
 * every follower is connected), the check of what each follower received against its run's
 * stored events, and the figures (delay percentiles, CPU per delivery).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildService } from '../test/helpers/child-service.ts';
import { cpuTicks, TICKS } from './proc-cpu.ts';

export interface Follower {
  runId: string;
  /** the run owner's API key: a run is followed by its owner */
  key: string;
  /** the service this follower connects to */
  base: string;
  ids: number[];
  at: Map<number, number>;
  done: boolean;
  status: number;
  error?: string;
}

export function follower(runId: string, key: string, base: string): Follower {
  return { runId, key, base, ids: [], at: new Map(), done: false, status: 0 };
}

/** Opens one SSE stream and records when each event id arrives. Resolves once the headers are in. */
export function subscribe(agent: http.Agent, f: Follower): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${f.base}/api/generate?run_id=${f.runId}`,
      { agent, headers: { 'x-api-key': f.key, accept: 'text/event-stream' } },
      (response) => {
        f.status = response.statusCode ?? 0;
        if (response.statusCode !== 200) {
          f.error = `status ${response.statusCode}`;
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
              f.ids.push(sequence);
              f.at.set(sequence, now);
              if (buffer.startsWith('event: done\n', idEnd + 1)) f.done = true;
            }
            start = end + 2;
          }
          buffer = start < buffer.length ? buffer.slice(start) : '';
        });
        response.on('end', () => undefined);
        response.on('error', (error) => (f.error = error.message));
        resolve();
      },
    );
    request.on('error', (error) => {
      f.error = error.message;
      reject(error);
    });
  });
}

/** Connects the followers in waves of `wave` (as a crowd of browsers arrives over a few seconds, not all in one accept burst). */
export async function connectAll(agent: http.Agent, followers: Follower[], wave = 100): Promise<void> {
  for (let i = 0; i < followers.length; i += wave) await Promise.all(followers.slice(i, i + wave).map((f) => subscribe(agent, f)));
  const refused = followers.filter((f) => f.status !== 200);
  if (refused.length > 0) throw new Error(`${refused.length} followers were refused: ${refused[0].error}`);
}

export async function graphql<T>(base: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length) throw new Error(body.errors.map((e) => e.message).join('; '));
  return body.data!;
}

export async function rest(base: string, key: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

/** Some workspace so every agent has work and reports progress (the summary grows with it). */
export async function seedWorkspace(base: string, key: string, size: { stickies: number; links: number; tasks: number }): Promise<void> {
  for (let i = 0; i < size.stickies; i++)
    await rest(base, key, '/api/stickies', {
      content: `Benchmark note ${i}: reconcile the custodian file for account ${1000 + i} before month end and follow up with the client.`,
      tags: ['bench', i % 2 ? 'ops' : 'clients'],
    });
  for (let i = 0; i < size.links; i++)
    await rest(base, key, '/api/links', { url: `https://example.com/article-${i}`, title: `Reading list item ${i}`, tags: ['bench'] });
  for (let i = 0; i < size.tasks; i++) await rest(base, key, '/api/pm/tasks', { title: `Benchmark task ${i}`, priority: i % 3 === 0 ? 'high' : 'medium' });
}

export const START_RUN = `mutation { startGeneration { id } }`;

export async function startRun(base: string, key: string): Promise<string> {
  return (await graphql<{ startGeneration: { id: string } }>(base, key, START_RUN)).startGeneration.id;
}

export interface StoredRun {
  state: string;
  events: { sequence: number; createdAt: string }[];
}

export async function readRun(base: string, key: string, runId: string): Promise<StoredRun> {
  return (
    await graphql<{ generationRun: StoredRun }>(
      base,
      key,
      `query($id: UUID!) { generationRun(id: $id) { state events(first: 1000) { sequence createdAt } } }`,
      {
        id: runId,
      },
    )
  ).generationRun;
}

/** Runs `work` over `items`, `parallel` at a time. */
export async function eachLimit<T, R>(items: T[], parallel: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], index);
      }
    }),
  );
  return results;
}

/** An OpenAI-compatible chat endpoint that holds every request until release() (then answers at once). */
export async function startHeldModel(): Promise<{ url: string; held: () => number; release: () => void; close: () => Promise<void> }> {
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
    held: () => waiting.length,
    release: () => {
      released = true;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `check` is true, polling every 100 ms; throws `describe()` after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string | Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(await describe());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  return cpuTicks(pid) / TICKS;
}

/** CPU seconds (user + system) this process has used. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface DeliveryCheck {
  /** followers that received every event of their run, once, in order, and its final event */
  complete: number;
  /** delay (parsed minus stored createdAt) of every delivery of an event stored at or after liveFrom, sorted */
  delays: number[];
  /** those deliveries per follower index (for per-instance figures) */
  deliveriesOf: number[];
  /** events stored at or after liveFrom, all runs */
  liveEvents: number;
  /** events stored, all runs */
  storedEvents: number;
  /** the first follower that did not get its run's events, what it got */
  firstIncomplete?: string;
}

/** Every follower against its own run's stored events: once, in order, complete; and the delays of the live events. */
export function checkDeliveries(followers: Follower[], runs: Map<string, StoredRun>, liveFrom: number): DeliveryCheck {
  const stored = new Map<string, { expected: number[]; at: Map<number, number>; live: number[] }>();
  let liveEvents = 0;
  let storedEvents = 0;
  for (const [runId, run] of runs) {
    const at = new Map(run.events.map((e) => [e.sequence, Date.parse(e.createdAt)]));
    const live = run.events.filter((e) => at.get(e.sequence)! >= liveFrom).map((e) => e.sequence);
    stored.set(runId, { expected: run.events.map((e) => e.sequence), at, live });
    liveEvents += live.length;
    storedEvents += run.events.length;
  }
  let complete = 0;
  let firstIncomplete: string | undefined;
  const delays: number[] = [];
  const deliveriesOf: number[] = [];
  for (const f of followers) {
    const run = stored.get(f.runId)!;
    if (f.done && f.ids.length === run.expected.length && f.ids.every((id, i) => id === run.expected[i])) complete++;
    else
      firstIncomplete ??= `run ${f.runId}: stored ${run.expected.length} events, received ${f.ids.length} (${f.ids.slice(0, 5).join(',')}${f.ids.length > 5 ? ',…' : ''}), done ${f.done}${f.error ? `, error ${f.error}` : ''}`;
    let count = 0;
    for (const sequence of run.live) {
      const received = f.at.get(sequence);
      if (received !== undefined) {
        delays.push(received - run.at.get(sequence)!);
        count++;
      }
    }
    deliveriesOf.push(count);
  }
  delays.sort((a, b) => a - b);
  return { complete, delays, deliveriesOf, liveEvents, storedEvents, firstIncomplete };
}

/** µs of CPU per delivery, or NaN without deliveries. */
export function microsPerDelivery(cpuSecondsUsed: number, deliveries: number): number {
  return deliveries > 0 ? (cpuSecondsUsed / deliveries) * 1e6 : NaN;
}

/**
 * Whether the service process has exited, and if so how, with the last lines it wrote: what to
 * print instead of the "socket hang up" its followers see (a heap out of memory shows here).
 */
export function describeExit(
  name: string,
  service: ChildService,
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined,
  lines = 15,
): string | undefined {
  if (!exit) return undefined;
  const stderr = service.stderr.slice(-lines);
  const stdout = service.stdout.slice(-5);
  const outOfHeap = service.stderr.some((line) => /heap limit|heap out of memory/i.test(line));
  const hint = outOfHeap ? ' (V8 ran out of heap: --max-old-space-size)' : exit.signal === 'SIGKILL' ? ' (SIGKILL: the kernel OOM killer? see dmesg)' : '';
  return [
    `${name} (pid ${service.pid}) EXITED: code ${exit.code ?? '-'}, signal ${exit.signal ?? '-'}${hint}`,
    `  last ${stderr.length} lines of its stderr:`,
    ...stderr.map((line) => `    ${line}`),
    `  last ${stdout.length} lines of its stdout:`,
    ...stdout.map((line) => `    ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`),
  ].join('\n');
}
