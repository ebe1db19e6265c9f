/**
 * The floor under bench/sse-ceiling.ts and bench/generation-sse.ts (issue 29): how long this
 * machine takes to put one event on N open loopback TCP connections from one Node process, with
 * nothing else in the way: raw `net` sockets (no HTTP, no chunk framing, no SSE), one prepared
 * frame written to every socket in one synchronous loop, and a client (a forked process) that
 * reads and discards, noting only when each socket last received bytes.
 *
 *   npx tsx bench/socket-write-floor.ts [--subscribers 10000] [--events 8] [--gap-ms 600]
 *
 * Per event: the write loop's wall time and CPU per socket (each write is a send(2) on loopback:
 * the kernel runs the receiving side's TCP work in the sender's system call), and the delay from
 * the loop's start to each socket's receipt (p50, p99, max). If the loop alone takes longer than a
 * delivery goal, no Node process that writes to each follower's socket meets that goal here,
 * whatever it does around the writes (docs/benchmarks.md, "The floor of fan-out").
 */
import { fork } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { percentile } from './fan-out-client.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    subscribers: { type: 'string', default: '10000' },
    events: { type: 'string', default: '8' },
    'gap-ms': { type: 'string', default: '600' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
if (!(Number.isInteger(SUBSCRIBERS) && SUBSCRIBERS > 0)) throw new Error('--subscribers must be a positive integer');

/** A frame the size of a generation progress event (bench/generation-sse.ts's are 150-300 bytes). */
const FRAME = Buffer.from(
  `id: 12\nevent: progress\ndata: ${JSON.stringify({ sequence: 12, agent: 'risk-analyst', kind: 'progress', message: 'Reading 20 notes, 20 links and 10 tasks for risks worth a summary line' })}\n\n`,
);

type ToClient = { report: number };
type FromClient = { open: true } | { delays: number[] };

if (positionals[0] === 'client') await client(Number(positionals[1]));
else await server();

/** Opens the connections (200 at a time), records each socket's last receipt, reports delays from `report`'s time. */
async function client(port: number): Promise<void> {
  const last = new Float64Array(SUBSCRIBERS);
  let open = 0;
  const sockets: net.Socket[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const socket = net.connect(port, '127.0.0.1', () => {
      if (++open === SUBSCRIBERS) process.send!({ open: true } satisfies FromClient);
    });
    socket.on('data', () => (last[i] = performance.timeOrigin + performance.now()));
    sockets.push(socket);
    if (i % 200 === 199) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.on('message', (message: ToClient) => {
    process.send!({ delays: Array.from(last, (at) => at - message.report) } satisfies FromClient);
    last.fill(0);
  });
}

async function server(): Promise<void> {
  const sockets: net.Socket[] = [];
  const listener = net.createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as net.AddressInfo).port;
  const child = fork(fileURLToPath(import.meta.url), ['client', String(port), `--subscribers=${SUBSCRIBERS}`], { execArgv: process.execArgv });
  const next = () => new Promise<FromClient>((resolve) => child.once('message', (message: FromClient) => resolve(message)));
  await next();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  console.log(
    `socket write floor: ${SUBSCRIBERS} loopback TCP connections, a ${FRAME.length}-byte frame per event; ${os.cpus().length} cores, ${os.cpus()[0]?.model}, load ${os.loadavg()[0]!.toFixed(2)}, node ${process.version}`,
  );
  const all: number[] = [];
  const loops: number[] = [];
  for (let event = 0; event < Number(values.events); event++) {
    const started = performance.timeOrigin + performance.now();
    const cpuBefore = process.cpuUsage();
    for (const socket of sockets) socket.write(FRAME);
    const loopMs = performance.timeOrigin + performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    // The client reports once everything has arrived (the gap is several times the loop).
    await new Promise((resolve) => setTimeout(resolve, Number(values['gap-ms'])));
    child.send({ report: started } satisfies ToClient);
    const answer = await next();
    if (!('delays' in answer)) throw new Error('the client answered out of turn');
    const delays = answer.delays.sort((a, b) => a - b);
    if (delays[0]! < 0) throw new Error(`event ${event}: a socket received nothing`);
    all.push(...delays);
    loops.push(loopMs);
    console.log(
      `  event ${event}: write loop ${loopMs.toFixed(1)} ms (${((1000 * loopMs) / SUBSCRIBERS).toFixed(2)} µs a socket, CPU ${((cpu.user + cpu.system) / SUBSCRIBERS).toFixed(2)} µs); received p50 ${percentile(delays, 50).toFixed(1)}, p99 ${percentile(delays, 99).toFixed(1)}, max ${delays.at(-1)!.toFixed(1)} ms`,
    );
  }
  all.sort((a, b) => a - b);
  loops.sort((a, b) => a - b);
  console.log(
    `all events: write loop median ${percentile(loops, 50).toFixed(1)} ms (min ${loops[0]!.toFixed(1)}, max ${loops.at(-1)!.toFixed(1)}); received p50 ${percentile(all, 50).toFixed(1)}, p99 ${percentile(all, 99).toFixed(1)} ms; load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  child.kill();
  for (const socket of sockets) socket.destroy();
  listener.close();
}
