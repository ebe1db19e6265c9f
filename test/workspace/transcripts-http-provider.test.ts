/**
 * HttpTranscriptProvider on its own, against local servers, for the failures a service-level
 * test cannot stage with one configuration: an address nobody listens on, a redirect (never
 * followed: it could carry the key elsewhere), an oversized body, and base URLs with or without
 * a trailing slash.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpTranscriptProvider } from '../../src/workspace/transcripts/http-provider.ts';
import { AppError } from '../../src/errors.ts';

const KEY = 'tk_unit_5b0e2c7d9a';
const USER = '11111111-1111-4111-8111-111111111111';

interface Hit {
  url: string;
  authorization: string | undefined;
}

function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    hits.push({ url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits })),
  );
}

const close = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

let elsewhere: Awaited<ReturnType<typeof listen>>;
let upstream: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  elsewhere = await listen((_req, res) => res.end('{"data": [], "next_cursor": null}'));
  upstream = await listen((req, res) => {
    if (req.url?.startsWith('/redirect/')) {
      res.writeHead(302, { location: `${elsewhere.url}/transcripts` }).end();
    } else if (req.url?.startsWith('/huge/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [], next_cursor: null, padding: 'x'.repeat(5000) }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [], "next_cursor": null}');
    }
  });
});
afterAll(async () => {
  await close(upstream.server);
  await close(elsewhere.server);
});

function provider(baseUrl: string, options: { maxResponseBytes?: number } = {}) {
  return new HttpTranscriptProvider({ baseUrl, apiKey: KEY, timeoutMs: 2000, emailOf: async () => 'ana@example.com', ...options });
}

async function failure(run: Promise<unknown>): Promise<AppError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('HttpTranscriptProvider', () => {
  it('joins the base path with or without a trailing slash', async () => {
    await provider(`${upstream.url}/api/v2`).list(USER, { limit: 5, cursor: null });
    await provider(`${upstream.url}/api/v2/`).list(USER, { limit: 5, cursor: null });
    expect(upstream.hits.slice(-2).map((h) => h.url)).toEqual(['/api/v2/transcripts?limit=5', '/api/v2/transcripts?limit=5']);
    expect(upstream.hits.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
  });

  it('does not follow a redirect: 502, and the key never reaches the other host', async () => {
    const error = await failure(provider(`${upstream.url}/redirect`).list(USER, { limit: 5, cursor: null }));
    expect(error.code).toBe('BAD_GATEWAY');
    expect(error.message).toMatch(/^Transcript service error: the request failed/);
    expect(error.message).not.toContain(KEY);
    expect(elsewhere.hits).toEqual([]);
  });

  it('answers 502 naming the cause when nobody listens', async () => {
    const spare = await listen(() => undefined);
    await close(spare.server);
    const error = await failure(provider(spare.url).get(USER, USER));
    expect(error.code).toBe('BAD_GATEWAY');
    expect(error.message).toBe('Transcript service error: the request failed (ECONNREFUSED)');
  });

  it('stops reading an oversized body: 502', async () => {
    const error = await failure(provider(`${upstream.url}/huge`, { maxResponseBytes: 1000 }).list(USER, { limit: 5, cursor: null }));
    expect(error.code).toBe('BAD_GATEWAY');
    expect(error.message).toBe('Transcript service error: the response exceeds 1000 bytes');
  });
});
