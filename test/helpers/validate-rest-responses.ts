/**
 * Vitest setup file: every REST response any test receives through `fetch` from a service on this
 * machine is checked against the OpenAPI document (openapi.json) by responseProblems. A response
 * the document does not describe fails the test that caused it (at its end, with the problems).
 * Counts are appended to this run's file in .tmp/ (openapi-report.ts); the global teardown prints the total.
 *
 * Not checked: answers of other servers a test starts on this machine (fakes of a provider: only
 * the service sets X-Request-Id), paths the document does not name (unknown routes, the
 * dashboard, /graphql), CORS preflights and a 405 for a method a path does not have (answered the
 * same way on every path, as the document's description says).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { describedPath, responseProblems } from './openapi-responses.ts';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const COUNTS_FILE = process.env.OPENAPI_COUNTS_FILE ?? fileURLToPath(new URL('../../.tmp/openapi-responses.jsonl', import.meta.url));
const problems: string[] = [];
let validated = 0;
let streams = 0;

const original = globalThis.fetch;
globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await original(input, init);
  // The request's method and URL, read without building a Request (its body may be a used stream).
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOCAL_HOSTS.has(url.hostname) || !describedPath(url.pathname) || !response.headers.has('x-request-id')) return response;
  if (method === 'OPTIONS') return response;
  const contentType = response.headers.get('content-type') ?? '';
  let body: unknown;
  if (contentType.includes('json')) {
    const text = await response.clone().text();
    try {
      body = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      problems.push(`${method} ${url.pathname} -> ${response.status}: a JSON content type with a body that is not JSON`);
      return response;
    }
  } else if (contentType.startsWith('text/event-stream')) {
    streams += 1;
  }
  const found = responseProblems({ method: method, path: url.pathname, status: response.status, headers: response.headers, body });
  if (found.length === 1 && response.status === 405 && found[0]!.includes('describes no')) return response;
  validated += 1;
  problems.push(...found);
  return response;
} as typeof fetch;

afterEach(() => {
  if (problems.length === 0) return;
  const found = problems.splice(0);
  throw new Error(`REST responses the OpenAPI document does not describe (openapi.json; fix the route or rest-compat/openapi/):\n${found.join('\n')}`);
});

afterAll(() => {
  fs.mkdirSync(path.dirname(COUNTS_FILE), { recursive: true });
  fs.appendFileSync(COUNTS_FILE, `${JSON.stringify({ file: process.env.VITEST_POOL_ID ?? '', validated, streams })}\n`);
});
