/**
 * One client cannot take everyone's share (issue 23, items 1-3): a user's open event streams are
 * capped across every transport together (REST SSE, graphql-sse, graphql-ws, multipart, MCP
 * progress); graphql-ws caps the operations of one socket, the sockets of one credential and the
 * sockets without a credential per address, and its messages are as large as an HTTP body at
 * most; a body sent without a credential must arrive promptly. Each refusal is the transport's
 * own, with a message that names the limit, and never a stall. Real sockets, real clients.
 */
import net from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { record, sseClient, subscriptionErrors } from '../helpers/graphql-sse.ts';

const LIMITS = {
  STREAMS_PER_USER: '3',
  WS_OPERATIONS_PER_SOCKET: '2',
  WS_SOCKETS_PER_CREDENTIAL: '2',
  WS_ANONYMOUS_SOCKETS_PER_ADDRESS: '3',
  GRAPHQL_MAX_BODY_BYTES: '65536',
  ANONYMOUS_BODY_TIMEOUT: '1s',
  HEADERS_TIMEOUT: '2s',
};

const PROGRESS = `subscription ($runId: UUID!) { generationProgress(runId: $runId) { __typename ... on GenerationEvent { sequence } } }`;

let server: TestServer;
const disposers: (() => unknown)[] = [];

beforeAll(async () => {
  // Runs that outlast the file: each step waits 10 s, so streams stay open (a run that ended would give its followers' slots back).
  server = await startTestServer({ ...LIMITS, GENERATION_STEP_DELAY: '10s', RATE_LIMIT_GENERATE_PER_MINUTE: '100' });
}, 120_000);
afterAll(async () => {
  for (const dispose of disposers) await Promise.resolve(dispose()).catch(() => undefined);
  await server?.close();
});

async function workspaceUser(): Promise<TestUser> {
  return createUser(server.services, { scopes: ['read:workspace', 'write:workspace'], role: 'member' });
}

async function startRun(user: TestUser): Promise<string> {
  const started = await graphql(server.url, { 'x-api-key': user.key }, 'mutation { startGeneration(input: { days: 7, sources: [stickies] }) { id } }');
  return (started.body as { data: { startGeneration: { id: string } } }).data.startGeneration.id;
}

/**
 * A REST event stream held open, its events read as a client reads them: resolves with its status
 * once the headers arrived. The body must be read (or at least locked): undici cancels the body of
 * a Response that was garbage collected, so a stream held only by its status would close whenever
 * the collector ran (under load, in the middle of this file's refusals) and give its slot back.
 */
async function openRestStream(user: TestUser, runId: string): Promise<{ status: number; headers: Headers; body: string; close: () => void }> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/api/generate?run_id=${runId}`, { headers: { 'x-api-key': user.key }, signal: controller.signal });
  const close = () => controller.abort();
  disposers.push(close);
  if (!response.ok) return { status: response.status, headers: response.headers, body: await response.text(), close };
  void readUntilClosed(response.body!.getReader());
  return { status: response.status, headers: response.headers, body: '', close };
}

async function readUntilClosed(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done);
  } catch {
    // Closed here (aborted): nothing more to read.
  }
}

function wsClient(params: Record<string, string>): Client {
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: params,
    retryAttempts: 0,
    lazy: true,
  });
  disposers.push(() => client.dispose());
  return client;
}

/** Subscribes over graphql-ws; resolves with the first result (a refusal comes as errors, or as the error callback). */
function firstWsResult(
  client: Client,
  runId: string,
): Promise<{ data?: unknown; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] }> {
  return new Promise((resolve) => {
    let settled = false;
    client.subscribe(
      { query: PROGRESS, variables: { runId } },
      {
        next: (result) => {
          if (!settled) resolve(result as never);
          settled = true;
        },
        error: (error) => {
          if (!settled) resolve({ errors: Array.isArray(error) ? error : [{ message: String((error as Error)?.message ?? error) }] });
          settled = true;
        },
        complete: () => undefined,
      },
    );
  });
}

/** A raw graphql-ws socket: resolves when it opened (or with the refused upgrade's status and body). */
function rawSocket(headers: Record<string, string> = {}): Promise<{ socket?: WebSocket; status?: number; body?: string; retryAfter?: string }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
    disposers.push(() => socket.terminate());
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    socket.once('error', () => undefined);
  });
}

function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

function ack(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => socket.once('message', (data) => resolve(String(data))));
}

describe('open event streams per user, every transport together (STREAMS_PER_USER=3)', () => {
  it('the fourth stream is refused on each transport with its own refusal, another user is not affected, and a closed stream frees its slot', async () => {
    const user = await workspaceUser();
    const runId = await startRun(user);

    const rest = await openRestStream(user, runId);
    expect(rest.status).toBe(200);
    const sse = record(sseClient(server.url, 'distinct', { 'x-api-key': user.key }), PROGRESS, { runId });
    disposers.push(() => sse.unsubscribe());
    await sse.until((results) => results.length > 0);
    const ws = await firstWsResult(wsClient({ 'x-api-key': user.key }), runId);
    expect(ws.errors).toBeUndefined();
    await expect.poll(() => server.services.streams.held(user.userId)).toBe(3);
    // The collector may run at any point of a loaded run: a stream its client still holds survives it
    // (vitest runs the tests with --expose-gc, vitest.config.ts).
    expect(gc, 'the suite runs with --expose-gc').toBeTypeOf('function');
    gc!();

    // REST: 429 with Retry-After and the documented error body.
    const refusedRest = await openRestStream(user, runId);
    expect(refusedRest.status).toBe(429);
    expect(refusedRest.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(refusedRest.body)).toEqual({ error: expect.stringMatching(/Too many open event streams: at most 3 per user.*STREAMS_PER_USER/) });

    // graphql-ws (a new socket) and graphql-sse (single connection mode): RATE_LIMITED in the errors.
    const refusedWs = await firstWsResult(wsClient({ 'x-api-key': user.key }), runId);
    expect(refusedWs.errors?.[0]).toMatchObject({ message: expect.stringMatching(/Too many open event streams/), extensions: { code: 'RATE_LIMITED' } });
    const refusedSse = record(sseClient(server.url, 'single', { 'x-api-key': user.key }), PROGRESS, { runId });
    expect(await subscriptionErrors(refusedSse)).toEqual([
      expect.objectContaining({ code: 'RATE_LIMITED', message: expect.stringMatching(/Too many open event streams/) }),
    ]);

    // Multipart subscriptions (Apollo Client's HttpLink): the refusal in the part.
    const multipart = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json', 'x-api-key': user.key },
      body: JSON.stringify({ query: PROGRESS, variables: { runId } }),
    });
    expect(await multipart.text()).toMatch(/RATE_LIMITED/);

    // REST's stream that starts a run (no run_id): refused before it starts one.
    const runsBefore = await server.services.prisma.generationRun.count({ where: { userId: user.userId } });
    const startRefused = await fetch(`${server.url}/api/generate?days=7&sources=stickies`, { headers: { 'x-api-key': user.key } });
    expect(startRefused.status).toBe(429);
    expect(startRefused.headers.get('retry-after')).toBe('5');

    // MCP: the summary tool, which follows its run, is refused before it starts one.
    const token = await createAccessToken(server.services, user.userId);
    const called = await fetch(`${server.url}/api/service`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_summary_generation', arguments: { days: 7, sources: ['stickies'] } },
      }),
    });
    const answer = (await called.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]!.text).toMatch(/Too many open event streams: at most 3 per user/);
    expect(await server.services.prisma.generationRun.count({ where: { userId: user.userId } })).toBe(runsBefore);

    // Nothing was held by the refusals; another user of the service is not affected.
    expect(server.services.streams.held(user.userId)).toBe(3);
    const other = await workspaceUser();
    const otherStream = await openRestStream(other, await startRun(other));
    expect(otherStream.status).toBe(200);
    otherStream.close();

    // Closing a stream gives its slot back.
    rest.close();
    await expect.poll(() => server.services.streams.held(user.userId)).toBe(2);
    const again = await openRestStream(user, runId);
    expect(again.status).toBe(200);
    again.close();
    sse.unsubscribe();
    await expect.poll(() => server.services.streams.held(user.userId)).toBe(1);
  });
});

describe('graphql-ws shares', () => {
  it('caps the operations in flight on one socket (WS_OPERATIONS_PER_SOCKET=2) with an error message for the one past it', async () => {
    const user = await workspaceUser();
    const runId = await startRun(user);
    const client = wsClient({ 'x-api-key': user.key });
    expect((await firstWsResult(client, runId)).errors).toBeUndefined();
    expect((await firstWsResult(client, runId)).errors).toBeUndefined();
    const third = await firstWsResult(client, runId);
    expect(third.errors?.[0]?.message).toMatch(/Too many operations on this connection: at most 2 at once \(WS_OPERATIONS_PER_SOCKET\)/);
    expect(server.services.streams.held(user.userId)).toBe(2);
  });

  it('caps the sockets of one credential (WS_SOCKETS_PER_CREDENTIAL=2): the third is closed with 4429 at connection_init', async () => {
    const user = await workspaceUser();
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 2; i++) {
      const { socket } = await rawSocket();
      const acknowledged = ack(socket!);
      socket!.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': user.key } }));
      expect(JSON.parse(await acknowledged)).toEqual({ type: 'connection_ack' });
      sockets.push(socket!);
    }
    const { socket: third } = await rawSocket();
    const ended = closed(third!);
    third!.send(JSON.stringify({ type: 'connection_init', payload: { 'x-api-key': user.key } }));
    expect(await ended).toEqual({ code: 4429, reason: expect.stringMatching(/Too many connections for this credential: at most 2/) });

    // The same credential on the upgrade's own headers is refused before the handshake: 429.
    const upgrade = await rawSocket({ 'x-api-key': user.key });
    expect(upgrade).toMatchObject({ status: 429, retryAfter: '5' });
    expect(JSON.parse(upgrade.body!)).toEqual({ error: expect.stringMatching(/WS_SOCKETS_PER_CREDENTIAL/) });

    // A socket that closes gives its share back.
    const gone = closed(sockets[0]!);
    sockets[0]!.close();
    await gone;
    await expect
      .poll(async () => {
        const { socket, status } = await rawSocket({ 'x-api-key': user.key });
        socket?.close();
        return status ?? 101;
      })
      .toBe(101);
  });

  it('caps the sockets without a credential per address (WS_ANONYMOUS_SOCKETS_PER_ADDRESS=3): the fourth upgrade answers 429; a credentialed one still connects', async () => {
    const anonymous: WebSocket[] = [];
    for (let i = 0; i < 3; i++) {
      const opened = await rawSocket();
      expect(opened.socket).toBeDefined();
      anonymous.push(opened.socket!);
    }
    const fourth = await rawSocket();
    expect(fourth.status).toBe(429);
    expect(JSON.parse(fourth.body!)).toEqual({
      error: expect.stringMatching(/without a credential from this address: at most 3 \(WS_ANONYMOUS_SOCKETS_PER_ADDRESS\)/),
    });
    // An invalid key is no way around it.
    expect((await rawSocket({ 'x-api-key': 'sk_not_a_real_key' })).status).toBe(429);
    const user = await workspaceUser();
    const credentialed = await rawSocket({ 'x-api-key': user.key });
    expect(credentialed.socket).toBeDefined();
    credentialed.socket!.close();
    // The anonymous sockets are closed by connection_init's deadline (3 s) and free the address's share.
    await Promise.all(anonymous.map(closed));
    const afterwards = await rawSocket();
    expect(afterwards.socket).toBeDefined();
    afterwards.socket!.close();
  });

  it('a client that resets its connection while its upgrade is being admitted does not take the service down', async () => {
    const user = await workspaceUser();
    const url = new URL(server.url);
    for (let i = 0; i < 20; i++) {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          `GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\nx-api-key: ${user.key}\r\n\r\n`,
        );
        socket.resetAndDestroy();
      });
      socket.on('error', () => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('a message larger than GRAPHQL_MAX_BODY_BYTES closes the socket with 1009, as /graphql over HTTP answers 413', async () => {
    const { socket } = await rawSocket();
    const ended = closed(socket!);
    socket!.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(70_000) } }));
    expect((await ended).code).toBe(1009);
    const http = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(70_000) } }),
    });
    expect(http.status).toBe(413);
  });
});

describe('slow clients without a credential', () => {
  /** Sends the head of a request and then nothing; resolves with what the server answered once the connection closed. */
  function trickle(head: string): Promise<{ answer: string }> {
    const url = new URL(server.url);
    return new Promise((resolve) => {
      let answer = '';
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(head));
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ answer }));
      disposers.push(() => socket.destroy());
    });
  }

  it('a body that does not arrive within ANONYMOUS_BODY_TIMEOUT gets 408 and the connection closes, on /graphql and /login', async () => {
    for (const path of ['/graphql', '/login']) {
      const type = path === '/login' ? 'application/x-www-form-urlencoded' : 'application/json';
      const { answer } = await trickle(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: 100\r\n\r\n{"query"`);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/connection: close/i);
      expect(answer).toContain('"error":"The request body did not arrive within 1 s');
    }
  });

  it('a request with a valid credential keeps REQUEST_TIMEOUT for its body: a slow body still succeeds', async () => {
    const user = await workspaceUser();
    const url = new URL(server.url);
    const body = JSON.stringify({ content: 'Sent slowly, but sent', tags: [] });
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /api/stickies HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nx-api-key: ${user.key}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        );
        // Past the 1 s anonymous deadline, then the rest.
        setTimeout(() => socket.write(body.slice(10)), 2_500);
      });
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('headers that do not arrive within HEADERS_TIMEOUT: the connection is answered 408 and closed', async () => {
    // The deadline Node enforces is the configured one (2 s here), not its own 60 s default: read
    // from the server rather than timed, so a loaded machine cannot fail it.
    expect(server.server.headersTimeout).toBe(2_000);
    const { answer } = await trickle('GET /api/stickies HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 120_000);
});
