/**
 * The REST lane (server/http/rest-lane.ts) serves the route table's plain JSON requests before
 * express. Two things must hold: it takes exactly the requests it may (decided on a bare HTTP
 * server with the real route table, where anything it declines is answered "express"), and what
 * it answers is what express answers (the same requests sent once through the lane and once
 * with an unlisted `Origin`, which the lane leaves to express and whose CORS policy adds nothing).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRestRoutes, type RestRequest, type RestRoutes } from '../../rest-compat/router.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { restLane } from '../../server/http/rest-lane.ts';
import type { PolicyRequest, RequestPolicy } from '../../server/http/request-policies.ts';
import { createLogger } from '../../src/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';

describe('which requests the lane takes', () => {
  let url: string;
  let bare: http.Server;
  const policyRuns: string[] = [];

  beforeAll(async () => {
    const prepared = prepareRestRoutes({
      routes: restRoutes,
      operations: standaloneRunner({ maxDepth: 10 }),
      context: () => Promise.reject(new Error('not used: handle is replaced')),
      requestLog: () => createLogger('silent'),
      maxUploadBytes: 1024,
      databaseOutage: { failed: () => undefined },
    });
    // The real table and matching; the handler only says what it was given.
    const routes: RestRoutes = {
      ...prepared,
      handleStream(entry, req: RestRequest, res: ServerResponse) {
        routes.handle(entry, req, res);
      },
      handle(entry, req: RestRequest, res: ServerResponse) {
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-served', 'lane');
        res.end(
          JSON.stringify({
            served: 'lane',
            route: `${entry.route.method} ${entry.route.path}`,
            params: req.params,
            query: { ...req.query },
            path: (req as RestRequest & PolicyRequest).path,
            template: (req as RestRequest & PolicyRequest).route?.path,
          }),
        );
      },
    };
    const policy: RequestPolicy = (req, _res, next) => {
      policyRuns.push(req.originalUrl);
      next();
    };
    const lane = restLane(routes, [policy, policy], { log: createLogger('silent'), databaseOutage: { failed: () => undefined } });
    bare = http.createServer((req: IncomingMessage, res: ServerResponse) => {
      if (lane(req, res)) return;
      res.setHeader('x-served', 'express');
      res.end(JSON.stringify({ served: 'express' }));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => bare.close(() => resolve())));

  const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url + path, { method, headers });
    return (await response.json()) as {
      served: string;
      route?: string;
      params?: Record<string, string>;
      query?: Record<string, unknown>;
      path?: string;
      template?: string;
    };
  };

  it('takes a route method on a table path, with its parameters, query and template, after every policy', async () => {
    policyRuns.length = 0;
    expect(await send('GET', '/api/stickies?limit=20&tags=a&tags=b')).toEqual({
      served: 'lane',
      route: 'GET /api/stickies',
      params: {},
      query: { limit: '20', tags: ['a', 'b'] },
      path: '/api/stickies',
      template: '/api/stickies',
    });
    expect(policyRuns).toEqual(['/api/stickies?limit=20&tags=a&tags=b', '/api/stickies?limit=20&tags=a&tags=b']);
    expect(await send('DELETE', '/api/stickies/abc%20d')).toMatchObject({ served: 'lane', route: 'DELETE /api/stickies/:id', params: { id: 'abc d' } });
    expect(await send('POST', '/api/stickies', { 'x-api-key': 'k', 'content-type': 'application/json' })).toMatchObject({
      served: 'lane',
      route: 'POST /api/stickies',
    });
  });

  it('matches as express does: any case, an optional trailing slash, literal paths before parameters in table order', async () => {
    expect(await send('GET', '/API/Stickies/')).toMatchObject({ served: 'lane', route: 'GET /api/stickies' });
    expect(await send('GET', '/api/links/folders')).toMatchObject({ served: 'lane', route: 'GET /api/links/folders' });
    // Event streams too: a follower holds its request as long as it follows, without express's decorations.
    expect(await send('GET', '/api/generate?run_id=abc')).toMatchObject({ served: 'lane', route: 'GET /api/generate', query: { run_id: 'abc' } });
    expect(await send('GET', '/health?detailed=true')).toMatchObject({ served: 'lane', route: 'GET /health', query: { detailed: 'true' } });
  });

  it('leaves to express what express must answer', async () => {
    const declined: [string, string, Record<string, string>?][] = [
      ['HEAD', '/health'], // express answers HEAD from the GET route
      ['OPTIONS', '/api/stickies'], // preflights: the CORS policy
      ['PUT', '/api/stickies'], // a table path without that method: 405 + Allow
      ['GET', '/api/nowhere'], // 404
      ['GET', '/api/stickies/%E0%A4%A'], // a malformed parameter: express's 400
      ['GET', '/api/stickies', { origin: 'https://app.example' }], // CORS headers for listed origins
      ['POST', '/api/stickies', { cookie: 'sso_token=abc', 'content-type': 'application/json' }], // the CSRF check
      ['POST', '/api/storage/upload'], // multipart: express's request helpers
      ['GET', '/api/generate', { origin: 'https://app.example' }], // an event stream from a browser on another origin: CORS
      ['GET', '/graphql'],
      ['GET', '/'],
    ];
    for (const [method, path, headers] of declined) {
      const answer = method === 'HEAD' ? { served: (await fetch(url + path, { method })).headers.get('x-served') } : await send(method, path, headers);
      expect(answer, `${method} ${path}`).toEqual({ served: 'express' });
    }
    // A cookie-authenticated read has no CSRF check to pass: the lane takes it.
    expect(await send('GET', '/api/stickies', { cookie: 'sso_token=abc' })).toMatchObject({ served: 'lane' });
  });
});

describe('what the lane answers', () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ CORS_ORIGINS: '' });
    user = await createUser(server.services);
  }, 120_000);
  afterAll(async () => server?.close());

  /** Status, the headers that are not per-request, and the body. */
  async function answer(method: string, path: string, headers: Record<string, string>, body?: string) {
    const response = await fetch(server.url + path, { method, headers, body });
    const kept = [...response.headers].filter(
      ([name]) => !['date', 'x-request-id', 'ratelimit', 'ratelimit-policy', 'keep-alive', 'connection'].includes(name),
    );
    return { status: response.status, headers: Object.fromEntries(kept), body: await response.text() };
  }

  it('is byte for byte what express answers, for successes and each kind of refusal', async () => {
    const key = { 'x-api-key': user.key };
    const json = { ...key, 'content-type': 'application/json' };
    const created = await answer('POST', '/api/stickies', json, JSON.stringify({ content: 'lane parity' }));
    expect(created.status).toBe(201);
    const id = (JSON.parse(created.body) as { data: { id: string } }).data.id;
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET', '/health', {}],
      ['GET', '/health', key],
      ['GET', `/api/stickies?limit=5`, key],
      ['GET', `/API/STICKIES/?limit=5`, key],
      ['GET', `/api/stickies/${id}`, key],
      ['GET', `/api/stickies?limit=0`, key], // 400, the parameter named
      ['GET', `/api/stickies/00000000-0000-4000-8000-000000000000`, key], // 404
      ['GET', '/api/stickies', {}], // 401
      ['GET', '/api/stickies', { 'x-api-key': 'sk_live_nope' }], // 401, invalid key
      ['PATCH', `/api/stickies/${id}`, json, '{"content":'], // malformed JSON
      ['PATCH', `/api/stickies/${id}`, { ...key, 'content-type': 'text/plain' }, 'x'], // 415
      ['PATCH', `/api/stickies/${id}`, json, JSON.stringify({ content: 'edited through both' })],
      ['GET', '/api/returns/comparison?limit=3', key],
      ['GET', '/api/returns/comparison?status=nonsense', key],
      // The event stream's refusals before it starts (the lane serves streams too).
      ['GET', '/api/generate', {}], // 401
      ['GET', '/api/generate?run_id=nope', key], // 400, the parameter named
      ['GET', '/api/generate?run_id=00000000-0000-4000-8000-000000000000', key], // 404
    ];
    for (const [method, path, headers, body] of cases) {
      const viaLane = await answer(method, path, headers, body);
      const viaExpress = await answer(method, path, { ...headers, origin: 'https://unlisted.example' }, body);
      expect(viaLane, `${method} ${path}`).toEqual(viaExpress);
      expect(viaLane.status, `${method} ${path}`).toBeLessThan(500);
    }
  });

  it('counts, logs and names the request as express does', async () => {
    await answer('GET', '/api/stickies?limit=1', { 'x-api-key': user.key });
    const page = await (await fetch(`${server.url}/metrics`)).text();
    expect(page).toMatch(/gateway_http_requests_total\{[^}]*route="\/api\/stickies"[^}]*status="200"[^}]*\} \d+/);
  });
});
