/**
 * The JSON-RPC tool endpoint through the official MCP SDK clients, one per protocol era: the
 * 1.x client (2025-11-25: initialize, then requests with MCP-Protocol-Version) and the v2 client
 * pinned to the stateless 2026-07-28 revision (per-request _meta, Mcp-Method / Mcp-Name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/fixtures.ts';
import { seedStickies } from '../../src/seed/workspace-stickies.ts';
import { TOOLS } from '../../mcp/tools.ts';
import { listedOutputCheck } from './listed-output-schemas.ts';

let server: TestServer;
let token: string;
let readOnlyToken: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_GENERATE_PER_MINUTE: '1000' });
  const user = await createUser(server.services);
  await seedStickies(server.services, user.userId);
  token = (
    await server.services.apiKeys.create({
      userId: user.userId,
      name: 'mcp',
      scopes: ['read:workspace', 'write:workspace', 'read:returns', 'read:pnl'],
      kind: 'access_token',
    })
  ).secret;
  readOnlyToken = (await server.services.apiKeys.create({ userId: user.userId, name: 'ro', scopes: ['read:workspace'], kind: 'access_token' })).secret;
}, 60_000);
afterAll(async () => server?.close());

interface ToolClient {
  listTools(params?: {
    cursor?: string;
  }): Promise<{ tools: { name: string; outputSchema?: unknown; annotations?: Record<string, unknown> }[]; nextCursor?: string }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, ...rest: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

const url = () => new URL('/api/service', server.url);
const headers = (secret: string) => ({ Authorization: `Bearer ${secret}` });

async function connectLegacy(
  secret = token,
): Promise<{ client: ToolClient; call: (name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void) => Promise<CallResult> }> {
  const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
  await client.connect(new LegacyTransport(url(), { requestInit: { headers: headers(secret) } }));
  return {
    client: client as unknown as ToolClient,
    call: (name, args, onprogress) =>
      client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined) as Promise<CallResult>,
  };
}

async function connectModern(
  secret = token,
): Promise<{ client: ToolClient; call: (name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void) => Promise<CallResult> }> {
  const client = new ModernClient({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(url(), { requestInit: { headers: headers(secret) } }));
  return {
    client: client as unknown as ToolClient,
    call: (name, args, onprogress) => client.callTool({ name, arguments: args }, onprogress ? { onprogress } : undefined) as Promise<CallResult>,
  };
}

interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

/** Every tool, page by page with explicit cursors (both clients), in the table's order. */
async function listAll(client: ToolClient) {
  const tools: Awaited<ReturnType<ToolClient['listTools']>>['tools'] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  return { tools, pages };
}

describe.each([
  ['2025-11-25 (1.x SDK client)', connectLegacy],
  ['2026-07-28 (v2 SDK client)', connectModern],
] as const)('MCP over Streamable HTTP, %s', (_era, connect) => {
  it('lists every tool with input and output schemas and annotations, in a stable order', async () => {
    const { client } = await connect();
    try {
      const { tools } = await listAll(client);
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
      for (const tool of tools) {
        expect(tool.outputSchema).toMatchObject({ type: 'object' });
        expect(tool.annotations).toHaveProperty('readOnlyHint');
      }
    } finally {
      await client.close();
    }
  });

  it('calls tools with the token identity: structuredContent matches each listed output schema', async () => {
    const { client, call } = await connect();
    try {
      const check = listedOutputCheck((await listAll(client)).tools);
      const created = await call('create_sticky', { content: 'Ask the custodian about the DC-1003 break', tags: ['mcp'] });
      expect(created.isError).toBeFalsy();
      expect(check('create_sticky', created.structuredContent)).toBeNull();
      expect(created.structuredContent).toMatchObject({ content: 'Ask the custodian about the DC-1003 break', tags: ['mcp'] });
      const listed = await call('list_stickies', { tags: ['mcp'] });
      expect(check('list_stickies', listed.structuredContent)).toBeNull();
      const page = listed.structuredContent as { items: { id: string }[] };
      expect(page.items.map((item) => item.id)).toContain((created.structuredContent as { id: string }).id);
      const updated = await call('update_sticky', { id: (created.structuredContent as { id: string }).id, content: 'Custodian answered' });
      expect(check('update_sticky', updated.structuredContent)).toBeNull();
      expect(updated.structuredContent).toMatchObject({ content: 'Custodian answered', version: 2 });
    } finally {
      await client.close();
    }
  });

  it("the summary tool streams the agents' progress as notifications and returns the finished summary", async () => {
    const { client, call } = await connect();
    try {
      const check = listedOutputCheck((await listAll(client)).tools);
      const progress: unknown[] = [];
      const result = await call('start_summary_generation', { days: 30, sources: ['stickies'], length: 'short' }, (p) => progress.push(p));
      expect(result.isError).toBeFalsy();
      expect(check('start_summary_generation', result.structuredContent)).toBeNull();
      const run = result.structuredContent as { state: string; summary: string };
      expect(run.state).toBe('completed');
      expect(run.summary).toContain('# Workspace summary');
      expect(progress.length).toBeGreaterThan(5);
      expect(JSON.stringify(progress.at(-1))).toContain('run complete');
    } finally {
      await client.close();
    }
  });

  it('tool errors come back as isError results with a readable message; a missing scope is a JSON-RPC error', async () => {
    const { client, call } = await connect();
    try {
      const missing = await call('get_transcript', { id: '00000000-0000-4000-8000-000000000000' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0].text).toMatch(/not found/i);
    } finally {
      await client.close();
    }
    const readOnly = await connect(readOnlyToken);
    try {
      await expect(readOnly.call('create_sticky', { content: 'nope' })).rejects.toThrow(/scope/);
    } finally {
      await readOnly.client.close();
    }
  });
});

describe('authentication', () => {
  it('a missing, malformed or unknown token is 401 with WWW-Authenticate: Bearer and an error body', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const post = (authorization?: string) =>
      fetch(url(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body,
      });
    // A well-formed token that was never issued: its last character changed (to one it is not).
    const unknown = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    for (const authorization of [undefined, 'Bearer pat_nothex', `Bearer ${unknown}`, 'Basic abc']) {
      const response = await post(authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.json()).toHaveProperty('error');
    }
    const ok = await post(`Bearer ${token}`);
    expect(ok.status).toBe(200);
  });
});
