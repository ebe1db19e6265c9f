/**
 * Issue 11's reproductions, each through real HTTP against a real service: inputs that used to
 * answer 500 (or an internal error inside a 200) answer a clear 4xx with the documented body,
 * an out-of-range date is refused before anything is written, CORS is off unless configured,
 * REST keeps non-ASCII file names, and the benchmark field is charged like a comparison.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { callApi, createUser, getJson, type TestUser } from '../helpers/fixtures.ts';
import { restUpload, sample } from '../helpers/upload.ts';

let server: TestServer;
let user: TestUser;
let token: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '5' });
  user = await createUser(server.services);
  token = (await server.services.apiKeys.create({ userId: user.userId, name: 'rpc', scopes: ['read:workspace', 'write:workspace'], kind: 'access_token' }))
    .secret;
}, 120_000);
afterAll(async () => server?.close());

function graphql(query: string, variables: Record<string, unknown> = {}, key = user.key) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
}

/** A JSON-RPC call; `body` is the (first) message, whether it came as JSON or as an SSE `data:` line. */
async function rpc(body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/api/service`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const data = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6)
    : text;
  return { status: response.status, body: data ? JSON.parse(data) : undefined };
}

/** Sends a raw HTTP request and gives up on the socket after `timeoutMs` (a hang is a failure, not a stall). */
function rawRequest(path: string, headers: Record<string, string>, body: string | Buffer, options: { end?: boolean; timeoutMs?: number } = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(new URL(path, server.url), { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
    req.write(body);
    if (options.end !== false) req.end();
    else setTimeout(() => req.end(), 50); // the declared length is never reached: the body is cut off
  });
}

describe('NUL characters', () => {
  it('are refused naming the field on REST, GraphQL (variables and literals) and JSON-RPC, and nothing is stored', async () => {
    const rest = await callApi(server.url, user, 'POST', '/api/stickies', '{"content":"a\\u0000b"}');
    expect(rest).toMatchObject({ status: 400, body: { error: 'Invalid content: must not contain NUL characters (U+0000)' } });
    const search = await callApi(server.url, user, 'GET', '/api/stickies?search=a%00b');
    expect(search.status).toBe(400);
    expect(search.body.error).toMatch(/^Invalid search: must not contain NUL/);

    const variable = await graphql('mutation($c: String!) { createSticky(input: { content: $c }) { id } }', { c: 'x\u0000' });
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'c' });
    const literal = await graphql('mutation { createSticky(input: { content: "x\\u0000" }) { id } }');
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'content' });

    const tool = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_sticky', arguments: { content: 'x\u0000' } } });
    const message = tool.body ?? {};
    expect(message.error).toBeUndefined();
    expect(message.result.isError).toBe(true);
    expect(message.result.content[0].text).toMatch(/must not contain NUL/);

    const stored = await callApi(server.url, user, 'GET', '/api/stickies');
    expect(stored.body.data).toEqual([]);
  });
});

describe('malformed requests answer 4xx', () => {
  it('a malformed percent-encoding in a path parameter is a 400 on every :id route', async () => {
    for (const path of ['/api/stickies/%E0%A4%A', '/api/links/%E0%A4%A', '/api/pm/tasks/%E0%A4%A', '/api/transcripts/%E0%A4%A']) {
      const answer = await callApi(server.url, user, 'GET', path);
      expect(answer, path).toMatchObject({ status: 400, body: { error: 'Malformed percent-encoding in the request path' } });
    }
  });

  it('a backslash (or a LIKE wildcard) in the assignee filter is matched literally', async () => {
    await callApi(server.url, user, 'POST', '/api/pm/tasks', { title: 'Literal', assignee: 'ops\\%team' });
    await callApi(server.url, user, 'POST', '/api/pm/tasks', { title: 'Other', assignee: 'opsXteam' });
    const backslash = await callApi(server.url, user, 'GET', '/api/pm/tasks?assignee=%5C');
    expect(backslash).toMatchObject({ status: 200, body: { data: [] } });
    const literal = await callApi(server.url, user, 'GET', `/api/pm/tasks?assignee=${encodeURIComponent('OPS\\%team')}`);
    expect(literal.status).toBe(200);
    expect(literal.body.data.map((task: { title: string }) => task.title)).toEqual(['Literal']);
  });

  it('GET /graphql with unparsable variables is a 400', async () => {
    const answer = await getJson(`${server.url}/graphql?query=${encodeURIComponent('{health{status}}')}&variables=%7B`, { headers: { 'x-api-key': user.key } });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0]).toMatchObject({ message: 'Invalid variables: not a JSON object', extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('JSON-RPC params nested thousands deep are an Invalid Request (400, -32600)', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const answer = await rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_stickies","arguments":${deep}}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32600);
  });

  it('a GraphQL multipart request declaring an impossible Content-Length is refused at once with 413', async () => {
    const answer = await rawRequest(
      '/graphql',
      { 'x-api-key': user.key, 'content-type': 'multipart/form-data; boundary=x', 'content-length': '99999999999' },
      '--x\r\n',
      { end: false },
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a multipart body that ends mid-file (no closing boundary) is a 400 on REST and BAD_USER_INPUT on GraphQL; nothing is stored', async () => {
    const boundary = 'cutoff';
    const head = (parts: string) =>
      `${parts}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.csv"\r\nContent-Type: text/csv\r\n\r\naccount_code,entity_name,date,market_value\r\nA-1,Cut Fund,2025-01-0`;
    const restBody = head(`--${boundary}\r\nContent-Disposition: form-data; name="org_id"\r\n\r\n${user.orgId}\r\n`);
    const rest = await rawRequest(
      '/api/storage/upload',
      { 'x-api-key': user.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(Buffer.byteLength(restBody)) },
      restBody,
    );
    expect(rest.status).toBe(400);
    expect(JSON.parse(rest.body).error).toMatch(/multipart|ended|aborted/i);

    const operations = JSON.stringify({
      query: 'mutation($file: Upload!, $orgId: UUID!) { uploadFile(file: $file, orgId: $orgId) { id } }',
      variables: { file: null, orgId: user.orgId },
    });
    const graphqlBody = head(
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n`,
    ).replace('name="file"', 'name="0"');
    const answer = await rawRequest(
      '/graphql',
      { 'x-api-key': user.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(Buffer.byteLength(graphqlBody)) },
      graphqlBody,
    );
    expect(answer.status).toBeLessThan(500);
    const codes = (JSON.parse(answer.body).errors ?? []).map((error: { extensions: { code: string } }) => error.extensions.code);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes).not.toContain('INTERNAL_SERVER_ERROR');

    const files = await callApi(server.url, user, 'GET', `/api/storage/files?org_id=${user.orgId}`);
    expect(files.body.data).toEqual([]);
  });

  it('a control character in a GraphQL upload part header is BAD_USER_INPUT, not an internal error', async () => {
    const boundary = 'ctrl';
    const csv = (await sample('pnl-sample.csv')).toString('utf8');
    const operations = JSON.stringify({
      query: 'mutation($file: Upload!, $orgId: UUID!) { uploadFile(file: $file, orgId: $orgId) { id fileName } }',
      variables: { file: null, orgId: user.orgId },
    });
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="bell\u0007name.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
    );
    const answer = await rawRequest(
      '/graphql',
      { 'x-api-key': user.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
      body,
    );
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body).errors[0], answer.body).toMatchObject({
      message: 'Malformed multipart request: Malformed part header',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Alice>Hello\n\n00:00:02.000 --> 00:00:03.000\n<v Bob>Hi\n';

describe('dates the service accepts are dates it can read back', () => {
  it('importTranscript with an instant beyond year 9999 is refused and writes nothing; the list still reads', async () => {
    const query = 'mutation($input: ImportTranscriptInput!) { importTranscript(input: $input) { id } }';
    for (const occurredAt of ['+275760-09-13T00:00:00Z', '10000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z']) {
      const answer = await graphql(query, { input: { title: 'Far future', occurredAt, format: 'VTT', content: VTT } });
      expect(answer.status, occurredAt).toBeLessThan(500);
      expect(answer.body.errors[0].extensions.code, occurredAt).toBe('BAD_USER_INPUT');
      expect(answer.body.errors[0].message).toMatch(/0001-01-01T00:00:00Z and 9999-12-31|ISO 8601/);
    }
    const list = await callApi(server.url, user, 'GET', '/api/transcripts');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const latest = await graphql(query, { input: { title: 'Last day', occurredAt: '9999-12-31T23:59:59.999Z', format: 'VTT', content: VTT } });
    expect(latest.body.errors).toBeUndefined();
    expect((await callApi(server.url, user, 'GET', '/api/transcripts')).body.data).toHaveLength(1);
  });
});

describe('REST uploads', () => {
  it('keep a non-ASCII file name as sent (UTF-8), like GraphQL', async () => {
    const answer = await restUpload(server.url, user.key, { orgId: user.orgId, file: { name: 'ünï😀cod.csv', bytes: await sample('pnl-sample.csv') } });
    expect(answer.status).toBe(201);
    expect(answer.body.data.file_name).toBe('ünï😀cod.csv');
  });
});

describe('the benchmark', () => {
  it('is charged to the returns budget per field, aliases included', async () => {
    const aliases = Array.from({ length: 8 }, (_, i) => `b${i}: benchmark { rating }`).join(' ');
    const answer = await graphql(`{ ${aliases} }`);
    // Five fields fit the budget of five; the sixth is refused (the others after it too, but
    // graphql-js reports the first error that nulls the non-null result).
    expect(answer.body.errors[0]).toMatchObject({ path: ['b5'], extensions: { code: 'RATE_LIMITED', budget: 'returns' } });
    const rest = await callApi(server.url, user, 'GET', '/api/benchmark');
    expect(rest.status).toBe(429);
  });
});

describe('CORS', () => {
  it('is off by default on every front: a foreign origin gets no Access-Control-Allow-Origin', async () => {
    for (const path of ['/graphql', '/api/stickies', '/api/service']) {
      const preflight = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(preflight.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
    const read = await fetch(`${server.url}/graphql?query=${encodeURIComponent('{ me { email } }')}`, {
      headers: { origin: 'http://evil.example', 'x-api-key': user.key },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows exactly the origins in CORS_ORIGINS, with credentials, on every front', async () => {
    const allowed = 'http://app.example:5173';
    const configured = await startTestServer({ CORS_ORIGINS: `${allowed}, https://other.example` });
    try {
      for (const path of ['/graphql', '/api/stickies', '/api/service']) {
        const preflight = await fetch(`${configured.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
        });
        expect(preflight.status, path).toBeLessThan(300);
        expect(preflight.headers.get('access-control-allow-origin'), path).toBe(allowed);
        expect(preflight.headers.get('access-control-allow-credentials'), path).toBe('true');
        const foreign = await fetch(`${configured.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
        });
        expect(foreign.headers.get('access-control-allow-origin'), path).toBeNull();
      }
      const health = await fetch(`${configured.url}/health`, { headers: { origin: allowed } });
      expect(health.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(health.headers.get('access-control-expose-headers')).toMatch(/RateLimit/);
    } finally {
      await configured.close();
    }
  });

  it('refuses an invalid CORS_ORIGINS at start', async () => {
    await expect(startTestServer({ CORS_ORIGINS: '*' })).rejects.toThrow(/CORS_ORIGINS/);
  });
});
