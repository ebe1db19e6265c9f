/**
 * The MCP tools as `tools/list` answers them: the real endpoint (mcp/mcp-endpoint.ts, built the
 * way server/http/http-app.ts mounts it, over the same operation pipeline) on a loopback port of
 * this process, asked by the official MCP client, every page. So the snapshot follows whatever
 * mcp/ does to derive a tool's schemas, with nothing copied from it.
 *
 * What it leaves out, and why that does not change the answer: the database and the credential
 * check. tools/list reads neither (the tool table and its schemas are prepared once, from the
 * GraphQL schema), so the endpoint gets a request context that stands for a verified access token,
 * and a Services object with only what the endpoint reads to answer (config, log, version).
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpEndpoint } from '../../mcp/mcp-endpoint.ts';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { RequestContext } from '../../src/context.ts';
import { createLogger } from '../../src/log.ts';
import type { Services } from '../../src/services.ts';
import type { ToolContract } from './mcp-diff.ts';

export async function listMcpTools(): Promise<ToolContract[]> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });
  const services = { config, log: createLogger('silent'), version: 'contract-check' } as Pick<Services, 'config' | 'log' | 'version'> as Services;
  const app = express();
  app.all(
    '/api/service',
    ...mcpEndpoint({ services, operations: standaloneRunner(config.graphql), context: async () => accessTokenContext(services), version: services.version }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = new Client({ name: 'contract-check', version: '1.0.0' });
  try {
    const { port } = server.address() as AddressInfo;
    const url = new URL(`http://127.0.0.1:${port}/api/service`);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: 'Bearer contract-check' } } }));
    // Without a cursor the client walks every page (MCP_TOOLS_PAGE_SIZE).
    const { tools } = await client.listTools();
    return tools.map(({ name, inputSchema, outputSchema }) => ({ name, inputSchema, ...(outputSchema ? { outputSchema } : {}) }));
  } finally {
    await client.close();
    server.closeAllConnections();
    server.close();
  }
}

/** What the endpoint's bearer check reads of a verified access token's context (the user, its scopes, the credential's kind). */
function accessTokenContext(services: Services): RequestContext {
  const viewer = { user: { id: 'contract-check' }, scopes: new Set(), credential: { kind: 'access_token', id: 'contract-check' } };
  return { viewer, services } as unknown as RequestContext;
}
