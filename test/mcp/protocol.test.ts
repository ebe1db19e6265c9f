/**
 * The JSON-RPC endpoint on the wire (raw HTTP, no SDK): JSON-RPC 2.0 error codes, notifications,
 * batches, content types, body size, the 2026-07-28 routing headers, Origin and bearer tokens.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser } from '../helpers/fixtures.ts';
import { TOOLS } from '../../mcp/tools.ts';

let server: TestServer;
let token: string;
let readOnly: string;

beforeAll(async () => {
  server = await startTestServer({});
  const user = await createUser(server.services);
  token = await createAccessToken(server.services, user.userId);
  readOnly = (await server.services.apiKeys.create({ userId: user.userId, name: 'ro', scopes: ['read:workspace'], kind: 'access_token' })).secret;
}, 60_000);
afterAll(async () => server?.close());

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

interface Answer {
  status: number;
  headers: Headers;
  /** The JSON-RPC message(s): the JSON body, or the `data:` lines of an SSE body. */
  messages: Array<{ jsonrpc?: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }>;
  text: string;
}

async function post(body: unknown, headers: Record<string, string> = {}, secret: string | null = token): Promise<Answer> {
  const response = await fetch(new URL('/api/service', server.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(secret ? { authorization: `Bearer ${secret}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let messages: Answer['messages'] = [];
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    messages = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Answer['messages'][number]);
  } else if (text) {
    const parsed = JSON.parse(text) as Answer['messages'][number] | Answer['messages'];
    messages = Array.isArray(parsed) ? parsed : [parsed];
  }
  return { status: response.status, headers: response.headers, messages, text };
}

const legacy = (id: unknown, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const modern = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: MODERN_META },
});
const modernHeaders = (method: string, name?: string) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name ? { 'mcp-name': name } : {}),
});

describe('JSON-RPC 2.0', () => {
  it('echoes ids, number or string, with jsonrpc "2.0"', async () => {
    for (const id of [7, 'req-7']) {
      const answer = await post(legacy(id, 'ping'));
      expect(answer.status).toBe(200);
      expect(answer.messages).toEqual([{ jsonrpc: '2.0', id, result: {} }]);
    }
  });

  it('a notification is answered 202 with no body', async () => {
    const answer = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
  });

  it('-32700 parse error for a body that is not JSON', async () => {
    const answer = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(answer.status).toBe(400);
    expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('-32600 invalid request for JSON that is not a JSON-RPC 2.0 message', async () => {
    for (const body of [{ foo: 1 }, { jsonrpc: '1.0', id: 1, method: 'ping' }, 42]) {
      const answer = await post(body);
      expect(answer.status).toBe(400);
      expect(answer.messages[0].error?.code).toBe(-32600);
    }
  });

  it('-32601 for an unknown method; -32602 for an unknown tool or a bad cursor', async () => {
    expect((await post(legacy(1, 'tools/dance'))).messages[0].error?.code).toBe(-32601);
    const unknownTool = await post(legacy(2, 'tools/call', { name: 'no_such_tool', arguments: {} }));
    expect(unknownTool.messages[0].error).toMatchObject({ code: -32602, message: 'Unknown tool: no_such_tool' });
    expect((await post(legacy(3, 'tools/list', { cursor: 'bm90LWEtbnVtYmVy' }))).messages[0].error?.code).toBe(-32602);
  });

  it('invalid tool arguments are a tool result with isError and a readable message', async () => {
    const answer = await post(legacy(4, 'tools/call', { name: 'list_stickies', arguments: { first: 'many' } }));
    expect(answer.messages[0].result).toMatchObject({ isError: true });
    expect(JSON.stringify(answer.messages[0].result)).toContain('Invalid arguments for list_stickies');
  });

  it('a tool the token has no scope for is a JSON-RPC error, and nothing is written', async () => {
    const answer = await post(legacy(5, 'tools/call', { name: 'create_sticky', arguments: { content: 'not with this token' } }), {}, readOnly);
    expect(answer.messages[0].error).toMatchObject({ code: -32003 });
    expect(answer.messages[0].error?.message).toMatch(/scope/);
    const listed = await post(legacy(6, 'tools/call', { name: 'search_stickies', arguments: { search: 'not with this token' } }), {}, readOnly);
    expect((listed.messages[0].result?.structuredContent as { items: unknown[] }).items).toEqual([]);
  });

  it('batches are accepted in the 2025-11-25 era (one answer per request) and refused in 2026-07-28', async () => {
    const batch = await post([legacy(1, 'ping'), legacy('two', 'tools/list')]);
    expect(batch.status).toBe(200);
    expect(batch.messages.map((message) => message.id)).toEqual([1, 'two']);
    const modernBatch = await post([modern(1, 'tools/list'), modern(2, 'tools/list')], { 'mcp-protocol-version': '2026-07-28' });
    expect(modernBatch.status).toBe(400);
    expect(modernBatch.messages[0].error?.code).toBe(-32600);
  });
});

describe('HTTP', () => {
  it('a body over 1 MB is 413 with a JSON-RPC error', async () => {
    const answer = await post(legacy(1, 'tools/list', { padding: 'x'.repeat(1_100_000) }));
    expect(answer.status).toBe(413);
    expect(answer.messages[0].error?.code).toBe(-32600);
  });

  it('a wrong content type is 415; an Accept without text/event-stream gets plain JSON (see plain-json.test.ts)', async () => {
    expect((await post(legacy(1, 'ping'), { 'content-type': 'text/plain' })).status).toBe(415);
    const plain = await post(legacy(1, 'ping'), { accept: 'application/json' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(plain.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('GET and DELETE are 405 (no standalone stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(new URL('/api/service', server.url), { method, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
    }
  });

  it('a page from another origin is refused (DNS rebinding); no Origin or a local one is fine', async () => {
    expect((await post(legacy(1, 'ping'), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(legacy(1, 'ping'), { origin: 'http://localhost:3000' })).status).toBe(200);
  });

  it('bearer tokens: missing, malformed, unknown, revoked, expired, an API key or a token in x-api-key are 401 with WWW-Authenticate', async () => {
    const user = await createUser(server.services);
    const revoked = await server.services.apiKeys.create({ userId: user.userId, name: 'r', scopes: ['read:workspace'], kind: 'access_token' });
    await server.services.apiKeys.revoke({ id: revoked.record.id, kind: 'access_token' });
    const expiring = await server.services.apiKeys.create({ userId: user.userId, name: 'e', scopes: ['read:workspace'], kind: 'access_token' });
    await server.services.prisma.apiKey.update({ where: { id: expiring.record.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const cases: Array<[string, Record<string, string>, string | null]> = [
      ['missing', {}, null],
      ['malformed', {}, 'pat_123'],
      ['unknown', {}, `pat_${'0'.repeat(32)}`],
      ['revoked', {}, revoked.secret],
      ['expired', {}, expiring.secret],
      ['an API key', {}, user.key],
      ['x-api-key instead of Authorization', { 'x-api-key': token }, null],
    ];
    for (const [label, headers, secret] of cases) {
      const answer = await post(legacy(1, 'ping'), headers, secret);
      expect(answer.status, label).toBe(401);
      expect(answer.headers.get('www-authenticate'), label).toMatch(/^Bearer realm="gateway"/);
      expect(JSON.parse(answer.text), label).toHaveProperty('error');
    }
  });
});

describe('MCP protocol eras', () => {
  it('2025-11-25: initialize negotiates the version; requests then carry MCP-Protocol-Version', async () => {
    const init = await post(legacy(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
    expect(init.messages[0].result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'gateway' }, capabilities: { tools: {} } });
    const older = await post(legacy(2, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
    expect(older.messages[0].result).toMatchObject({ protocolVersion: '2025-06-18' });
    const unknown = await post(legacy(3, 'initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
    expect(unknown.messages[0].result).toMatchObject({ protocolVersion: '2025-11-25' });
    const badHeader = await post(legacy(4, 'ping'), { 'mcp-protocol-version': '1999-01-01' });
    expect(badHeader.status).toBe(400);
  });

  it('2026-07-28: server/discover, per-request _meta, and the Mcp-Method / Mcp-Name headers', async () => {
    const discover = await post(modern(1, 'server/discover'), modernHeaders('server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.messages[0].result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete' });

    const listed = await post(modern(2, 'tools/list'), modernHeaders('tools/list'));
    expect((listed.messages[0].result?.tools as unknown[]).length).toBeGreaterThan(0);

    const called = await post(modern(3, 'tools/call', { name: 'list_stickies', arguments: {} }), modernHeaders('tools/call', 'list_stickies'));
    expect(called.messages[0].result).toMatchObject({ structuredContent: { items: [] } });

    const mismatch = await post(modern(4, 'tools/list'), modernHeaders('tools/call'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.messages[0].error?.code).toBe(-32020);
    const missingMethod = await post(modern(5, 'tools/list'), { 'mcp-protocol-version': '2026-07-28' });
    expect(missingMethod.status).toBe(400);
    const wrongName = await post(modern(6, 'tools/call', { name: 'list_stickies', arguments: {} }), modernHeaders('tools/call', 'list_links'));
    expect(wrongName.status).toBe(400);
    const futureVersion = await post(
      { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(futureVersion.status).toBe(400);
    expect(futureVersion.messages[0].error?.code).toBe(-32022);
  });

  it('tools/list gives every tool on one page by default (clients that read only the first page see them all)', async () => {
    const answer = await post(legacy(1, 'tools/list'));
    const result = answer.messages[0].result as { tools: { name: string }[]; nextCursor?: string };
    expect(result.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(result.nextCursor).toBeUndefined();
  });

  it('with MCP_TOOLS_PAGE_SIZE=10, tools/list pages in a stable order with an opaque cursor', async () => {
    const paged = await startTestServer({ MCP_TOOLS_PAGE_SIZE: '10' });
    onTestFinished(() => paged.close());
    const user = await createUser(paged.services);
    const secret = await createAccessToken(paged.services, user.userId, ['read:workspace']);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const response = await fetch(new URL('/api/service', paged.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${secret}` },
        body: JSON.stringify(legacy(pages, 'tools/list', cursor ? { cursor } : undefined)),
      });
      const text = await response.text();
      const line = response.headers.get('content-type')?.startsWith('text/event-stream')
        ? text
            .split('\n')
            .find((l) => l.startsWith('data: '))!
            .slice(6)
        : text;
      const result = (JSON.parse(line) as { result: { tools: { name: string }[]; nextCursor?: string } }).result;
      names.push(...result.tools.map((tool) => tool.name));
      cursor = result.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(Math.ceil(TOOLS.length / 10));
    expect(names).toEqual(TOOLS.map((tool) => tool.name));
  });
});

describe('internal errors', () => {
  it('an unexpected failure is -32603 "Internal error" without internals (the details are only logged)', async () => {
    // Break the news table of this test's own database: the tool's query fails inside the service.
    await server.services.db.pool.query('ALTER TABLE "NewsArticle" RENAME TO "NewsArticleGone"');
    try {
      const answer = await post(legacy(1, 'tools/call', { name: 'list_news', arguments: {} }));
      expect(answer.messages[0].error).toEqual({ code: -32603, message: 'Internal error' });
      expect(answer.text).not.toMatch(/NewsArticle|relation|prisma/i);
    } finally {
      await server.services.db.pool.query('ALTER TABLE "NewsArticleGone" RENAME TO "NewsArticle"');
    }
  });
});
