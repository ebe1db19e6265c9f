/**
 * The GraphQL lane (server/http/graphql-lane.ts) serves plain `POST /graphql` requests before
 * express. It takes exactly the requests it may (decided on a bare HTTP server, where anything it
 * declines is answered "express"), and what it answers is what express answers (the same requests
 * sent once through the lane and once with an unlisted `Origin`, which the lane leaves to express
 * and whose CORS policy adds nothing). Also here: /graphql's body limit (GRAPHQL_MAX_BODY_BYTES,
 * yoga-plugins/use-body-size-limit.ts) with and without a Content-Length, and the access log's path.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlLane } from '../../server/http/graphql-lane.ts';
import type { PolicyRequest, RequestPolicy } from '../../server/http/request-policies.ts';
import { createLogger } from '../../src/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';

describe('which requests the GraphQL lane takes', () => {
  let url: string;
  let bare: http.Server;
  const policyRuns: string[] = [];

  beforeAll(async () => {
    const policy: RequestPolicy = (req, _res, next) => {
      policyRuns.push(`${req.originalUrl} ${req.path} ${req.baseUrl}`);
      next();
    };
    const served = async (req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ served: 'lane', path: (req as PolicyRequest).path }));
    };
    const lane = graphqlLane(served, [policy, policy], { log: createLogger('silent'), databaseOutage: { failed: () => undefined } });
    bare = http.createServer((req, res) => {
      if (lane(req, res)) return;
      res.end(JSON.stringify({ served: 'express' }));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => bare.close(() => resolve())));

  const send = async (method: string, path: string, headers: Record<string, string> = {}) =>
    (await (await fetch(url + path, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : '{}' })).json()) as { served: string };

  it('takes a POST of a GraphQL body type to /graphql, after every policy', async () => {
    policyRuns.length = 0;
    expect(await send('POST', '/graphql', { 'x-api-key': 'k', 'content-type': 'application/json' })).toEqual({ served: 'lane', path: '/graphql' });
    expect(policyRuns).toEqual(['/graphql /graphql /graphql', '/graphql /graphql /graphql']);
    for (const type of ['application/json; charset=utf-8', 'application/graphql-response+json', 'application/graphql', 'application/x-www-form-urlencoded']) {
      expect(await send('POST', '/graphql', { 'content-type': type }), type).toMatchObject({ served: 'lane' });
    }
    // A cookie-authenticated POST with a JSON body passes the CSRF check; the lane only declines when the check has work.
    expect(await send('POST', '/graphql', { 'x-api-key': 'k', cookie: 'sso_token=abc', 'content-type': 'application/json' })).toMatchObject({
      served: 'lane',
    });
  });

  it('leaves to express what express must answer', async () => {
    const declined: [string, string, Record<string, string>?][] = [
      ['GET', '/graphql'], // GET: query parameters, GraphiQL, conditional requests
      ['POST', '/graphql?x=1', { 'content-type': 'application/json' }],
      ['POST', '/graphql/', { 'content-type': 'application/json' }],
      ['POST', '/graphql/stream', { 'content-type': 'application/json' }],
      ['POST', '/GraphQL', { 'content-type': 'application/json' }],
      ['OPTIONS', '/graphql'],
      ['POST', '/graphql', { 'content-type': 'application/json', origin: 'https://app.example' }], // CORS
      ['POST', '/graphql', { 'content-type': 'application/json', cookie: 'sso_token=abc' }], // the CSRF check
      ['POST', '/graphql', { 'content-type': 'multipart/form-data; boundary=x' }], // uploads
      ['POST', '/graphql', { 'content-type': 'text/plain' }], // 415
      ['POST', '/api/stickies', { 'content-type': 'application/json' }],
    ];
    for (const [method, path, headers] of declined)
      expect(await send(method, path, headers), `${method} ${path} ${JSON.stringify(headers)}`).toEqual({ served: 'express' });
  });
});

describe('what the GraphQL lane answers', () => {
  let server: TestServer;
  let user: TestUser;
  const lines: { msg: string; path?: string; method?: string }[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line) as { msg: string });
        done();
      },
    });
    server = await startTestServer({ CORS_ORIGINS: '', GRAPHQL_MAX_BODY_BYTES: '2000', LOG_LEVEL: 'info' }, { log: pino({ level: 'info' }, sink) });
    user = await createUser(server.services);
  }, 120_000);
  afterAll(async () => server?.close());

  /** Status, the headers that are not per-request, and the body. */
  async function answer(headers: Record<string, string>, body: string) {
    const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers, body });
    const kept = [...response.headers].filter(
      ([name]) => !['date', 'x-request-id', 'ratelimit', 'ratelimit-policy', 'keep-alive', 'connection'].includes(name),
    );
    return { status: response.status, headers: Object.fromEntries(kept), body: await response.text() };
  }

  it('is byte for byte what express answers, for successes and each kind of refusal', async () => {
    const json = { 'content-type': 'application/json' };
    const key = { ...json, 'x-api-key': user.key };
    const query = (text: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query: text, variables });
    const created = await answer(key, query('mutation { createSticky(input: { content: "lane parity" }) { id } }'));
    expect(created.status).toBe(200);
    const cases: [Record<string, string>, string][] = [
      [json, query('{ health { status } }')],
      [key, query('query S($first: Int) { stickies(first: $first) { edges { node { content version } } } }', { first: 5 })],
      [key, query('query Named { me { credential scopes } }')],
      [json, query('{ stickies(first: 1) { edges { node { id } } } }')], // unauthenticated
      [{ ...json, 'x-api-key': 'sk_live_nope' }, query('{ stickies(first: 1) { edges { node { id } } } }')], // invalid key
      [key, query('{ stickies(first: 1) { edges { node { nope } } } }')], // validation: 400
      [key, '{"query": '], // malformed JSON
      [key, query('{ a: health { status } b: health { status } }')],
      [key, JSON.stringify([{ query: '{ health { status } }' }, { query: '{ me { credential scopes } }' }])], // a batch
      [key, JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } })], // an unknown persisted query
      [{ ...key, 'content-type': 'application/graphql' }, '{ health { status } }'],
      [key, query(`{ health { status } } # ${'x'.repeat(2100)}`)], // past GRAPHQL_MAX_BODY_BYTES: 413
    ];
    for (const [headers, body] of cases) {
      const viaLane = await answer(headers, body);
      const viaExpress = await answer({ ...headers, origin: 'https://unlisted.example' }, body);
      expect(viaLane, body.slice(0, 80)).toEqual(viaExpress);
      expect(viaLane.status, body.slice(0, 80)).toBeLessThan(500);
    }
  });

  /** A POST to /graphql (`path`: a query string sends it through express), its body written in pieces of 500 bytes. */
  const post = (body: string, chunked: boolean, path = '/graphql', headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; connection?: string }>((resolve, reject) => {
      const request = http.request(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': Buffer.byteLength(body) }),
          ...headers,
        },
      });
      let answered = false;
      request.on('response', (response) => {
        answered = true;
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text, connection: response.headers.connection }));
      });
      // Once the server has answered and closed, the client's last writes may meet a closed socket.
      request.on('error', (error) => (answered ? undefined : reject(error)));
      // Written in pieces, so a chunked body really arrives in chunks.
      for (let at = 0; at < body.length; at += 500) request.write(body.slice(at, at + 500));
      request.end();
    });
  const small = JSON.stringify({ query: `{ health { status } } # ${'x'.repeat(1500)}` });
  const large = JSON.stringify({ query: `{ health { status } } # ${'x'.repeat(2500)}` });

  it('refuses a body past GRAPHQL_MAX_BODY_BYTES with or without a Content-Length, and takes one within it', async () => {
    for (const chunked of [false, true]) {
      expect(await post(small, chunked), `small, chunked: ${chunked}`).toMatchObject({ status: 200, body: '{"data":{"health":{"status":"healthy"}}}' });
    }
    const refused = await post(large, false);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
    // Without a Content-Length the body is counted as it arrives: the same 413 and body (it was a
    // 500: node's stream.pipeline cuts the request from its socket and the request context read
    // req.socket.remoteAddress), the operation not run, the connection closed after the answer.
    // On the lane and through express (a query string, a cross-origin call).
    for (const [path, headers] of [
      ['/graphql', {}],
      ['/graphql?x=1', {}],
      ['/graphql', { origin: 'https://unlisted.example' }],
    ] as const) {
      const counted = await post(large, true, path, headers);
      expect(counted, `${path} ${JSON.stringify(headers)}`).toEqual({ status: 413, body: refused.body, connection: 'close' });
    }
    // The server goes on serving, a chunked body within the limit too.
    expect(await post(small, true)).toMatchObject({ status: 200, body: '{"data":{"health":{"status":"healthy"}}}' });
  });

  it('answers a chunked body past the limit while the client is still sending (it never ends the body)', async () => {
    // No timing bound: the body is never ended, so any answer at all came without waiting for its end
    // (a server that waited would leave the test to its timeout).
    const status = await new Promise<number>((resolve) => {
      const request = http.request(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on('error', () => undefined);
      request.write(`{"query": "{ health { status } } # ${'x'.repeat(2500)}`);
    });
    expect(status).toBe(413);
  }, 60_000);

  it('does not answer 500 or log an error when the client aborts a chunked body', async () => {
    lines.length = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const path of ['/graphql', '/graphql?x=1']) {
        await new Promise<void>((resolve) => {
          const request = http.request(`${server.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
          });
          request.on('error', () => resolve());
          request.on('close', () => resolve());
          request.write(`{"query": "{ health { status } } # ${'x'.repeat(500)}`);
          setTimeout(() => request.destroy(), 100);
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    const logged = lines as { msg: string; level?: number; status?: number; statusCode?: number }[];
    expect(logged.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
    expect(logged.filter((line) => line.status === 500 || line.statusCode === 500)).toEqual([]);
    // And the server goes on serving.
    expect(await post(small, true)).toMatchObject({ status: 200 });
  });

  it('counts the request under /graphql and logs its path, on the lane and through express', async () => {
    lines.length = 0;
    for (const origin of [undefined, 'https://unlisted.example']) {
      await answer({ 'content-type': 'application/json', ...(origin ? { origin } : {}) }, JSON.stringify({ query: '{ health { status } }' }));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line.msg === 'request').map((line) => `${line.method} ${line.path}`)).toEqual(['POST /graphql', 'POST /graphql']);
    const page = await (await fetch(`${server.url}/metrics`)).text();
    expect(page).toMatch(/gateway_http_requests_total\{[^}]*route="\/graphql"[^}]*status="200"[^}]*\} \d+/);
  });
});
