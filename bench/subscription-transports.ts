/**
 * The same generation run followed on every subscription transport at once, side by side:
 * graphql-sse distinct connections, graphql-sse single connection, multipart HTTP (Apollo's
 * protocol) and WebSocket (graphql-ws), N subscribers each, one service in this process.
 *
 *   npx tsx bench/subscription-transports.ts [--subscribers 25] [--step-delay 200ms]
 *
 * Delay of an event = the time a subscriber received it minus the event's `createdAt` (stored by
 * the statement that inserts it; same machine, same clock), for the events stored after every
 * subscriber was connected. p50/p99 over all (subscriber, event) pairs of a transport. Every
 * subscriber must receive every event of the run, in order. Subscribers run on this process's
 * event loop too: their own CPU time is included (an upper bound, the same for every transport).
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startBenchService } from './bench-service.ts';
import { createUser } from '../test/helpers/fixtures.ts';
import { graphql } from '../test/helpers/returns-data.ts';
import { seedStickies } from '../src/seed/workspace-stickies.ts';
import { seedTasks } from '../src/seed/workspace-tasks.ts';

const { values } = parseArgs({ options: { subscribers: { type: 'string', default: '25' }, 'step-delay': { type: 'string', default: '200ms' } } });
const perTransport = Number(values.subscribers);

const PROGRESS = `subscription ($runId: UUID!, $after: Int) { generationProgress(runId: $runId, after: $after) {
  __typename ... on GenerationEvent { sequence agent status createdAt } } }`;
type Item = { __typename: string; sequence?: number; agent?: string; status?: string; createdAt?: string };
type Received = { sequence: number; createdAt: number; at: number };

const service = await startBenchService({
  WORKER_ENABLED: 'true',
  GENERATION_STEP_DELAY: values['step-delay']!,
  RATE_LIMIT_GENERATE_PER_MINUTE: '1000',
  STREAMS_PER_USER: String(perTransport * 10),
  WS_OPERATIONS_PER_SOCKET: String(perTransport * 10),
  WS_SOCKETS_PER_CREDENTIAL: String(perTransport * 10),
});
try {
  const user = await createUser(service.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  await seedStickies(service.services, user.userId);
  await seedTasks(service.services, user.userId);
  const headers = { 'x-api-key': user.key };
  const started = await graphql(service.url, headers, 'mutation { startGeneration(input: { days: 30, sources: [stickies, tasks] }) { id } }');
  const runId = (started.body.data as { startGeneration: { id: string } }).startGeneration.id;
  const variables = { runId, after: 0 };
  const isFinal = (item: Item) => item.agent === 'run' && (item.status === 'complete' || item.status === 'failed');

  /** One subscriber: resolves with what it received once the final event arrived. */
  const followers: Record<string, () => Promise<Received[]>> = {
    'graphql-sse distinct': () => viaSse(false),
    'graphql-sse single': () => viaSse(true),
    'multipart HTTP': viaMultipart,
    'WebSocket (graphql-ws)': viaWebSocket,
  };

  function collector() {
    const received: Received[] = [];
    return {
      received,
      take(item: Item | undefined): boolean {
        if (item?.__typename !== 'GenerationEvent') return false;
        received.push({ sequence: item.sequence!, createdAt: Date.parse(item.createdAt!), at: Date.now() });
        return isFinal(item);
      },
    };
  }

  async function viaSse(singleConnection: boolean): Promise<Received[]> {
    // A copy per client: in single connection mode graphql-sse's client writes its stream token into
    // the headers object it is given, so clients sharing one object would share one stream.
    const client = createSseClient({
      url: `${service.url}/graphql${singleConnection ? '/stream' : ''}`,
      singleConnection,
      headers: { ...headers },
      retryAttempts: 0,
    });
    const { received, take } = collector();
    for await (const result of client.iterate({ query: PROGRESS, variables }))
      if (take((result.data as { generationProgress?: Item } | undefined)?.generationProgress)) break;
    client.dispose();
    return received;
  }

  async function viaWebSocket(): Promise<Received[]> {
    const client = createWsClient({
      url: `${service.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: headers,
      retryAttempts: 0,
    });
    const { received, take } = collector();
    for await (const result of client.iterate({ query: PROGRESS, variables }))
      if (take((result.data as { generationProgress?: Item } | undefined)?.generationProgress)) break;
    await client.dispose();
    return received;
  }

  async function viaMultipart(): Promise<Received[]> {
    const response = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json' },
      body: JSON.stringify({ query: PROGRESS, variables }),
    });
    const { received, take } = collector();
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      // A part ends where the next boundary starts (the service writes it right after the part).
      let cut: number;
      while ((cut = buffer.indexOf('\r\n--graphql', 1)) !== -1) {
        const part = buffer.slice(0, cut);
        buffer = buffer.slice(cut + '\r\n--graphql'.length);
        const start = part.indexOf('\r\n\r\n');
        const json = start === -1 ? '' : part.slice(start + 4);
        const parsed = json ? (JSON.parse(json) as { payload?: { data?: { generationProgress?: Item } } }) : {};
        if (take(parsed.payload?.data?.generationProgress)) return received;
      }
    }
    return received;
  }

  const names = Object.keys(followers);
  const runs = names.flatMap((name) => Array.from({ length: perTransport }, () => ({ name, done: followers[name]!() })));
  const connectedAt = Date.now() + 2_000; // events stored 2 s after all subscriptions were opened
  const results = await Promise.all(
    runs.map(async ({ name, done }) => {
      const received = await done;
      if (process.env.BENCH_VERBOSE) console.log(name, 'done', received.length);
      return { name, received };
    }),
  );
  const lastSequence = Math.max(...results.flatMap((result) => result.received.map((item) => item.sequence)));

  const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  console.log(`run ${runId}: ${lastSequence} events, ${perTransport} subscribers per transport, step delay ${values['step-delay']}`);
  console.log('transport                   subscribers  complete  delay p50   delay p99   (events stored after every subscriber connected)');
  for (const name of names) {
    const mine = results.filter((result) => result.name === name);
    const complete = mine.filter(
      (result) => result.received.map((item) => item.sequence).join() === Array.from({ length: lastSequence }, (_, i) => i + 1).join(),
    ).length;
    const delays = mine
      .flatMap((result) => result.received.filter((item) => item.createdAt >= connectedAt).map((item) => item.at - item.createdAt))
      .sort((a, b) => a - b);
    console.log(
      `${name.padEnd(28)}${String(mine.length).padEnd(13)}${String(complete).padEnd(10)}${`${percentile(delays, 50)} ms`.padEnd(12)}${percentile(delays, 99)} ms`,
    );
  }
  console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model}, node ${process.version}, database ${service.services.db.kind}`);
} finally {
  await service.close();
}
