/**
 * The ceiling of SSE fan-out on this machine: a bare `node:http` server (its own process, no
 * framework, no database, no authentication) that writes one shared frame to each of N open
 * event streams per event, on the schedule of a generation run, read by the same kind of clients
 * as bench/generation-sse.ts (plain HTTP, a minimal SSE parser, in this process). What it
 * measures is what any Node process pays per follower: one socket write per follower per flush,
 * and the clients' reading; the gateway's fan-out is compared with it.
 *
 *   npx tsx bench/sse-ceiling.ts [--subscribers 10000] [--events 40] [--step 200ms-like: --step-ms 200] [--burst 4] [--idle-memory]
 *
 * Events come `--burst` at a time every `--burst` x `--step-ms` ms (a run's analysts report
 * together); frames of one burst are written to a socket in one write, as the gateway's
 * FrameWriter does. Delay = client parse time - the server's time when it wrote the event (same
 * clock). Printed: p50/p99/max delay, every event to every subscriber once and in order, the
 * server's CPU per delivery (from /proc), and the clients' CPU.
 *
 * --idle-memory: also the floor of bench/generation-sse.ts's idle memory per follower, measured the
 * same way: the server's RSS before the streams open and once they have been idle for 15 s (each
 * the last of six samples 2.5 s apart), divided by the streams, before any event is sent.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile, rssBytes } from './fan-out-client.ts';
import { cpuTicks, TICKS } from './proc-cpu.ts';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000' },
    events: { type: 'string', default: '40' },
    'step-ms': { type: 'string', default: '200' },
    burst: { type: 'string', default: '4' },
    'idle-memory': { type: 'boolean', default: false },
    serve: { type: 'boolean', default: false },
  },
});

export interface CeilingResult {
  subscribers: number;
  events: number;
  complete: number;
  p50: number;
  p99: number;
  max: number;
  serverCpuSeconds: number;
  clientCpuSeconds: number;
  cpuPerDeliveryUs: number;
  /** With --idle-memory: (RSS idle - RSS before) / subscribers, in KB. */
  idleKbPerStream?: number;
}

if (values.serve) serve();
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runCeiling({
    subscribers: Number(values.subscribers),
    events: Number(values.events),
    stepMs: Number(values['step-ms']),
    burst: Number(values.burst),
    idleMemory: values['idle-memory'],
  });
  print(result);
}

export function print(result: CeilingResult): void {
  console.log(`SSE fan-out ceiling (bare node:http, one shared frame per event): ${result.subscribers} subscribers, ${result.events} events`);
  console.log(`  every event to every subscriber, in order, once: ${result.complete}/${result.subscribers}`);
  console.log(`  delay written -> received: p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms`);
  console.log(
    `  CPU: server ${result.serverCpuSeconds.toFixed(2)} s (${result.cpuPerDeliveryUs.toFixed(1)} us a delivery), clients ${result.clientCpuSeconds.toFixed(2)} s`,
  );
  if (result.idleKbPerStream !== undefined)
    console.log(`  idle memory per stream: ${result.idleKbPerStream.toFixed(1)} KB (the server's RSS, as bench/generation-sse.ts measures it)`);
}

/** The server's RSS after 15 s of settling: the last of six samples 2.5 s apart (as bench/generation-sse.ts). */
async function settledRss(pid: number): Promise<number> {
  let rss = 0;
  for (let i = 0; i < 6; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2500));
    rss = rssBytes(pid);
  }
  return rss;
}

/** The server process: streams open until told to emit; then the events, then every stream ends. */
function serve(): void {
  const streams: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.socket?.setNoDelay(true);
    res.write('retry: 3000\n\n');
    streams.push(res);
    process.send!({ connected: streams.length });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', (job: { events: number; stepMs: number; burst: number }) => {
    let sequence = 0;
    const emitBurst = () => {
      const frames: Buffer[] = [];
      for (let i = 0; i < job.burst && sequence < job.events; i++) {
        sequence++;
        const at = performance.timeOrigin + performance.now();
        const data = JSON.stringify({ agent: 'notes', status: 'active', progress: sequence, message: `Step ${sequence} of the run`, data: { at } });
        frames.push(Buffer.from(`id: ${sequence}\nevent: progress\ndata: ${data}\n\n`));
      }
      const chunk = Buffer.concat(frames);
      for (const res of streams) res.write(chunk);
      if (sequence < job.events) setTimeout(emitBurst, job.stepMs * job.burst);
      else setTimeout(() => streams.forEach((res) => res.end()), 200);
    };
    emitBurst();
  });
}

function cpuSeconds(pid: number): number {
  return cpuTicks(pid) / TICKS;
}

export async function runCeiling(options: {
  subscribers: number;
  events: number;
  stepMs: number;
  burst: number;
  idleMemory?: boolean;
}): Promise<CeilingResult> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'] });
  try {
    const port = await new Promise<number>((resolve) => {
      const onMessage = (message: { port?: number }) => {
        if (message.port) {
          child.off('message', onMessage);
          resolve(message.port);
        }
      };
      child.on('message', onMessage);
    });
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const received = Array.from({ length: options.subscribers }, () => ({ ids: [] as number[], delays: [] as number[], ended: false }));
    const open = (index: number) =>
      new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
            let buffer = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              const now = performance.timeOrigin + performance.now();
              buffer += chunk;
              let start = 0;
              let end: number;
              while ((end = buffer.indexOf('\n\n', start)) >= 0) {
                if (buffer.startsWith('id: ', start)) {
                  const idEnd = buffer.indexOf('\n', start);
                  received[index].ids.push(Number(buffer.slice(start + 4, idEnd)));
                  const atStart = buffer.indexOf('"at":', idEnd) + 5;
                  received[index].delays.push(now - Number(buffer.slice(atStart, buffer.indexOf('}', atStart))));
                }
                start = end + 2;
              }
              buffer = buffer.slice(start);
            });
            response.on('end', () => (received[index].ended = true));
            resolve();
          })
          .on('error', reject);
      });
    const rssBefore = options.idleMemory ? await settledRss(child.pid!) : 0;
    for (let i = 0; i < options.subscribers; i += 200) await Promise.all(received.slice(i, i + 200).map((_, j) => open(i + j)));
    const idleKbPerStream = options.idleMemory ? ((await settledRss(child.pid!)) - rssBefore) / 1024 / options.subscribers : undefined;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const serverBefore = cpuSeconds(child.pid!);
    const clientBefore = process.cpuUsage();
    child.send({ events: options.events, stepMs: options.stepMs, burst: options.burst });
    const deadline = Date.now() + 300_000;
    while (received.some((r) => !r.ended) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const serverCpuSeconds = cpuSeconds(child.pid!) - serverBefore;
    const clientUsage = process.cpuUsage(clientBefore);
    agent.destroy();
    const delays = received.flatMap((r) => r.delays).sort((a, b) => a - b);
    const complete = received.filter((r) => r.ids.length === options.events && r.ids.every((id, i) => id === i + 1)).length;
    return {
      subscribers: options.subscribers,
      events: options.events,
      complete,
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
      max: delays.at(-1) ?? Number.NaN,
      serverCpuSeconds,
      clientCpuSeconds: (clientUsage.user + clientUsage.system) / 1e6,
      cpuPerDeliveryUs: (serverCpuSeconds * 1e6) / (options.subscribers * options.events),
      idleKbPerStream,
    };
  } finally {
    child.kill();
  }
}
