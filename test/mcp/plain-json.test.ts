/**
 * The JSON-RPC endpoint as workspace-service.md writes the request: `POST /api/service` with
 * `Authorization: Bearer`, `Content-Type: application/json` and a JSON-RPC 2.0 body, no `Accept`
 * (or `*\/*`, as curl, fetch, axios and requests send): a plain `application/json` JSON-RPC
 * response, never 406. Plain fetch, as those clients use it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser } from '../helpers/fixtures.ts';
import { TOOLS } from '../../mcp/tools.ts';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({});
  const user = await createUser(server.services);
  token = await createAccessToken(server.services, user.userId);
}, 60_000);
afterAll(async () => server?.close());

async function rpc(body: unknown, accept?: string): Promise<{ status: number; type: string | null; text: string; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (accept !== undefined) headers.accept = accept;
  const response = await fetch(new URL('/api/service', server.url), { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  const type = response.headers.get('content-type');
  return { status: response.status, type, text, json: text && type?.startsWith('application/json') ? (JSON.parse(text) as unknown) : null };
}

describe('plain JSON-RPC 2.0 at POST /api/service', () => {
  it('tools/list as the spec writes it (no Accept, */*, application/json): 200 application/json with every tool', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const answer = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, accept);
      expect(answer.status, String(accept)).toBe(200);
      expect(answer.type).toMatch(/^application\/json/);
      const message = answer.json as { jsonrpc: string; id: number; result: { tools: { name: string }[] } };
      expect(message).toMatchObject({ jsonrpc: '2.0', id: 1 });
      expect(message.result.tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    }
  });

  it('tools/call writes and answers in plain JSON; the write is there', async () => {
    const created = await rpc({
      jsonrpc: '2.0',
      id: 'c1',
      method: 'tools/call',
      params: { name: 'create_sticky', arguments: { content: 'Plain JSON client note', tags: ['plain'] } },
    });
    expect(created.status).toBe(200);
    const result = created.json as { id: string; result: { structuredContent: { id: string; content: string } } };
    expect(result.id).toBe('c1');
    expect(result.result.structuredContent.content).toBe('Plain JSON client note');
    const listed = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_stickies', arguments: { tags: ['plain'] } } });
    expect((listed.json as { result: { structuredContent: { items: { id: string }[] } } }).result.structuredContent.items.map((item) => item.id)).toEqual([
      result.result.structuredContent.id,
    ]);
  });

  it('a batch gets an array of answers; a notification 202; errors are JSON-RPC errors in plain JSON', async () => {
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(batch.status).toBe(200);
    const answers = batch.json as { id: number }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
    const notification = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notification.status).toBe(202);
    expect(notification.text).toBe('');
    const unknownTool = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    expect(unknownTool.type).toMatch(/^application\/json/);
    expect(unknownTool.json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Unknown tool: no_such_tool' } });
    const invalid = await rpc({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'list_stickies', arguments: { first: 'many' } } });
    expect(invalid.json).toMatchObject({ id: 10, result: { isError: true } });
  });

  it('a client that accepts text/event-stream still gets SSE', async () => {
    const answer = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, 'application/json, text/event-stream');
    expect(answer.status).toBe(200);
    expect(answer.type).toMatch(/^text\/event-stream/);
    expect(answer.text).toContain('"result":{}');
  });

  it('without a token: 401 with WWW-Authenticate, as before', async () => {
    const response = await fetch(new URL('/api/service', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});
