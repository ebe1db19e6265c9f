/**
 * Each client's turn (server/http/client-queue.ts): a client has REQUESTS_IN_FLIGHT_PER_CLIENT
 * requests served at once, the next ones wait in its own queue, and past REQUESTS_QUEUED_PER_CLIENT
 * waiting ones it gets 429 at once; another client is served as soon as it asks. The requests held
 * "in flight" here are real ones whose bodies the test sends slowly, over raw sockets.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientQueues } from '../../src/ratelimit/client-queues.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';

describe('ClientQueues', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('serves a client a few at a time in arrival order, refuses past its queue, and never holds another client back', async () => {
    const queues = new ClientQueues({ inFlightPerClient: 2, queuedPerClient: 2 });
    const started: string[] = [];
    const done = new Map<string, () => void>();
    const admit = (client: string, name: string) =>
      queues.admit(client, (finish) => {
        started.push(name);
        done.set(name, finish);
      });
    expect([admit('a', 'a1'), admit('a', 'a2'), admit('a', 'a3'), admit('a', 'a4')]).toEqual([true, true, true, true]);
    expect(admit('a', 'a5')).toBe(false);
    expect(admit('b', 'b1')).toBe(true);
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect(queues.size).toEqual({ inFlight: 3, waiting: 2 });
    done.get('a2')!();
    done.get('a2')!(); // giving a place back twice frees one place
    // The next waiting request starts in a task of its own, its place held meanwhile: no newcomer overtakes it.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect(admit('a', 'a6')).toBe(true);
    expect(started).toEqual(['a1', 'a2', 'b1']);
    await nextTurn();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    done.get('a1')!();
    await nextTurn();
    expect(started.at(-1)).toBe('a4');
    done.get('a3')!();
    await nextTurn();
    expect(started.at(-1)).toBe('a6');
    for (const name of ['a4', 'a6', 'b1']) done.get(name)!();
    expect(queues.size).toEqual({ inFlight: 0, waiting: 0 });
  });

  it('a queue of synchronous answers drains one request per turn of the event loop, so others interleave', async () => {
    const queues = new ClientQueues({ inFlightPerClient: 1, queuedPerClient: 100 });
    const order: string[] = [];
    // Each of the flooding client's requests is answered at once, inside its start.
    for (let i = 0; i < 50; i++)
      queues.admit('flood', (finish) => {
        order.push('flood');
        finish();
      });
    setImmediate(() => order.push('other'));
    while (queues.size.inFlight + queues.size.waiting > 0) await nextTurn();
    expect(order.indexOf('other')).toBeLessThan(5);
  });
});

describe('a client past its turn, over HTTP (REQUESTS_IN_FLIGHT_PER_CLIENT=2, REQUESTS_QUEUED_PER_CLIENT=3)', () => {
  let server: TestServer;
  let busy: TestUser;
  let other: TestUser;
  const sockets: net.Socket[] = [];

  beforeAll(async () => {
    server = await startTestServer({ REQUESTS_IN_FLIGHT_PER_CLIENT: '2', REQUESTS_QUEUED_PER_CLIENT: '3' });
    busy = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
    other = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
  }, 120_000);
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.close();
  });

  /** A sticky created over a socket of its own; the body's last byte is sent by `finish()`. */
  function slowCreate(key: string, content: string): { finish: () => void; answer: Promise<string> } {
    const url = new URL(server.url);
    const body = JSON.stringify({ content, tags: [] });
    const socket = net.connect(Number(url.port), url.hostname);
    sockets.push(socket);
    socket.write(
      `POST /api/stickies HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nx-api-key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, -1)}`,
    );
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
    return { finish: () => socket.write(body.slice(-1)), answer };
  }

  it('holds the third to fifth request until the first two are answered, refuses the sixth at once, and serves another client meanwhile', async () => {
    const inFlight = [slowCreate(busy.key, 'first'), slowCreate(busy.key, 'second')];
    // The two are admitted (they wait for their last byte) before the others are sent.
    await expect.poll(() => server.services.clientQueues.size).toEqual({ inFlight: 2, waiting: 0 });
    const queued = [3, 4, 5].map((n) => slowCreate(busy.key, `queued ${n}`));
    for (const request of queued) request.finish(); // complete requests: they wait only for their turn
    await expect.poll(() => server.services.clientQueues.size).toEqual({ inFlight: 2, waiting: 3 });

    const refused = await fetch(`${server.url}/api/stickies?limit=1`, { headers: { 'x-api-key': busy.key } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      error: expect.stringMatching(/Too many requests at once from this client: 2 are served at a time and 3 may wait \(REQUESTS_QUEUED_PER_CLIENT\)/),
    });

    const served = await fetch(`${server.url}/api/stickies?limit=1`, { headers: { 'x-api-key': other.key } });
    expect(served.status).toBe(200);
    expect(await server.services.prisma.sticky.count({ where: { userId: busy.userId } })).toBe(0);

    for (const request of inFlight) request.finish();
    const answers = await Promise.all([...inFlight, ...queued].map((request) => request.answer));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    const contents = (await server.services.prisma.sticky.findMany({ where: { userId: busy.userId } })).map((sticky) => sticky.content);
    expect(contents.sort()).toEqual(['first', 'queued 3', 'queued 4', 'queued 5', 'second']);

    // Everything answered: the client's turn is whole again.
    expect((await fetch(`${server.url}/api/stickies?limit=1`, { headers: { 'x-api-key': busy.key } })).status).toBe(200);
  });
});
