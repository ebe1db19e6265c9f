/**
 * POST /api/service: the spec's JSON-RPC 2.0 tool endpoint, served as a Model Context Protocol
 * server over Streamable HTTP by the official SDK (@modelcontextprotocol/server), which speaks
 * both protocol eras on one endpoint, chosen per request: the 2025-11-25 revision (initialize,
 * ping, MCP-Protocol-Version) and the stateless 2026-07-28 revision (per-request _meta,
 * server/discover, Mcp-Method / Mcp-Name headers). The SDK owns the protocol (framing, version
 * negotiation, JSON-RPC error codes); this module owns authentication, the tool table and
 * tools/list pagination.
 *
 * - Authentication: `Authorization: Bearer` with a personal access token or an OAuth access
 *   token issued for this endpoint by the built-in authorization server. Missing, malformed,
 *   unknown, revoked or expired: 401 with `WWW-Authenticate: Bearer ... resource_metadata="..."`
 *   (RFC 9728) and `{"error": ...}`, before the body is read.
 * - Origin: a browser page from another host is refused (DNS rebinding); clients that send no
 *   Origin (programs, agents) are not affected.
 * - Tools run their GraphQL operation with the token's identity (tools.ts). Failures are answered
 *   as the one table of error codes says (JSON_RPC_BY_CODE in src/errors.ts): an unknown tool or a
 *   bad cursor, JSON-RPC error -32602; a refusal (a scope the token lacks, an organization the user
 *   is not in), -32003; invalid arguments and the tool's other failures, a tool result with
 *   `isError: true` and the readable message. Results are checked against the tool's output schema
 *   (derived from its operation, tool-catalog.ts) before they are sent.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLError } from 'graphql';
import { createMcpHandler, McpServer, ProtocolError, ProtocolErrorCode, type AuthInfo, type ServerContext } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { originValidation } from '@modelcontextprotocol/express';
import type { OperationRunner } from '../schema/pipeline/index.ts';
import { bearerToken, type RequestContext } from '../src/context.ts';
import type { Services } from '../src/services.ts';
import { isFinalEvent } from '../src/generation/run-store.ts';
import { attachContext, contextOf, withPlainJsonResponses } from './sdk-transport.ts';
import { prepareTools, toolListing, toolVariables, type PreparedTool, type ToolCatalog, type ToolListing } from './tool-catalog.ts';
import { toolResult } from './tool-results.ts';
import { AppError, HTTP_STATUS_BY_CODE, JSON_RPC_BY_CODE, type ErrorCode } from '../src/errors.ts';
import { MAX_INPUT_DEPTH } from '../schema/input-guards.ts';
import { mcpResource, oauthIssuer, resourceMetadataUrl } from './oauth-issuer.ts';
import { recordRefusalCode } from '../src/audit/refusals.ts';
import { LOOPBACK_HOSTS } from '../src/auth/oauth/redirect-uris.ts';

interface EndpointOptions {
  services: Services;
  /** The operation pipeline every front shares. */
  operations: OperationRunner;
  /** The request's context; `resource`: this endpoint's URL, whose OAuth access tokens are accepted. */
  context: (req: Request, resource?: string) => Promise<RequestContext>;
  version: string;
}

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

export function mcpEndpoint(options: EndpointOptions): RequestHandler[] {
  const catalog = prepareTools(options.operations);
  const listing = toolListing(catalog);
  const handler = createMcpHandler(() => buildServer(options, catalog, listing), {
    onerror: (error: Error) => options.services.log.debug({ err: error }, 'mcp request rejected'),
  });
  // A client that does not ask for SSE (the spec's plain JSON-RPC request) gets plain JSON.
  const node = toNodeHandler(withPlainJsonResponses(handler));
  return [
    originValidation(allowedHosts(options.services)),
    bearerAuth(options),
    readJsonRpcBody,
    (req, res) => void node(req as never, res, (req as Request & { jsonRpcBody?: unknown }).jsonRpcBody),
  ];
}

export const MAX_BODY_BYTES = 1024 * 1024;
const rawBody = express.raw({ type: () => true, limit: MAX_BODY_BYTES });

/**
 * Reads a POST body (at most MAX_BODY_BYTES) and parses it, answering the JSON-RPC way when it
 * cannot: too large, PAYLOAD_TOO_LARGE's answer (413, -32600); otherwise the client's mistake
 * (BAD_USER_INPUT's 400) with JSON-RPC's own code for what the body is: not JSON, -32700 (parse
 * error); not a request JSON-RPC can take, -32600 (invalid request); a bad cursor, -32602.
 */
function readJsonRpcBody(req: Request, res: Response, next: NextFunction): void {
  if (req.method !== 'POST') return next();
  rawBody(req, res, (error?: unknown) => {
    if (error) {
      res.setHeader('Connection', 'close');
      if ((error as { status?: number }).status === 413)
        return refuseRequest(res, 'PAYLOAD_TOO_LARGE', JSON_RPC_BY_CODE.PAYLOAD_TOO_LARGE.code, `Request body too large (at most ${MAX_BODY_BYTES} bytes)`);
      return refuseRequest(res, 'BAD_USER_INPUT', ProtocolErrorCode.ParseError, 'Parse error: unreadable body');
    }
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      return refuseRequest(res, 'BAD_USER_INPUT', ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON');
    }
    // Validators walk params recursively: a body nested thousands deep must not reach them.
    if (nestingDepth(parsed, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      return refuseRequest(
        res,
        'BAD_USER_INPUT',
        ProtocolErrorCode.InvalidRequest,
        `Invalid Request: the body is nested more than ${MAX_BODY_DEPTH} levels deep`,
      );
    }
    const badCursor = (Array.isArray(parsed) ? parsed : [parsed]).find(hasNonStringCursor);
    if (badCursor)
      return refuseRequest(
        res,
        'BAD_USER_INPUT',
        JSON_RPC_BY_CODE.BAD_USER_INPUT.code,
        'Invalid params: cursor must be a string',
        (badCursor as { id?: unknown }).id,
      );
    (req as Request & { jsonRpcBody?: unknown }).jsonRpcBody = parsed;
    next();
  });
}

/** Nesting of JSON-RPC bodies: a batch, a request, params, a tool's arguments and their inputs fit well within it. */
const MAX_BODY_DEPTH = MAX_INPUT_DEPTH + 4;

/** Depth of a parsed JSON value, counted without recursion and only up to `limit + 1`. */
function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const inner of Object.values(current)) stack.push({ value: inner, depth: depth + 1 });
  }
  return deepest;
}

/** A request refused before the SDK reads it: the HTTP status of `failure`, and a JSON-RPC error `code`. */
function refuseRequest(res: Response, failure: ErrorCode, code: number, message: string, id: unknown = null): void {
  res.status(HTTP_STATUS_BY_CODE[failure]).json({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message } });
}

/**
 * A list request whose cursor is not a string: the SDK's schema check would answer it with
 * -32603 and its own validation dump; it is the caller's mistake, -32602 Invalid params.
 */
function hasNonStringCursor(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { method, params } = message as { method?: unknown; params?: { cursor?: unknown } };
  return (
    typeof method === 'string' &&
    method.endsWith('/list') &&
    typeof params === 'object' &&
    params !== null &&
    params.cursor !== undefined &&
    typeof params.cursor !== 'string'
  );
}

/** Hostnames a browser page may call us from: this machine and PUBLIC_URL's host. */
function allowedHosts(services: Services): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  if (services.config.publicUrl) hosts.push(new URL(services.config.publicUrl).hostname);
  // Pages of the origins given CORS access (CORS_ORIGINS) may call every front, this one included.
  for (const origin of services.config.cors.origins) hosts.push(new URL(origin).hostname);
  return hosts;
}

/**
 * A personal access token, or an OAuth access token issued for this endpoint (the built-in
 * authorization server, server/http/oauth). A refusal's challenge names the protected-resource
 * metadata (RFC 9728 §5.1), where an OAuth client finds the authorization server.
 */
function bearerAuth({ context, services }: EndpointOptions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const issuer = oauthIssuer(services, req);
      const token = bearerToken(req.headers);
      if (!token) {
        recordRefusalCode(await context(req), `${req.method} /api/service`, 'UNAUTHENTICATED');
        return refuse(res, issuer, 'Missing bearer token: send Authorization: Bearer <access token>');
      }
      const ctx = await context(req, issuer === null ? undefined : mcpResource(issuer));
      const kind = ctx.viewer?.credential.kind;
      if (kind !== 'access_token' && kind !== 'oauth_token') {
        recordRefusalCode(ctx, `${req.method} /api/service`, 'UNAUTHENTICATED');
        return refuse(res, issuer, 'Invalid or expired access token');
      }
      const auth = attachContext({ token, clientId: ctx.viewer!.user.id, scopes: [...ctx.viewer!.scopes] }, ctx);
      (req as Request & { auth?: AuthInfo }).auth = auth;
      next();
    } catch (error) {
      next(error);
    }
  };
}

function refuse(res: Response, issuer: string | null, message: string): void {
  const metadata = issuer === null ? '' : `, resource_metadata="${resourceMetadataUrl(issuer)}"`;
  res.status(401).set('WWW-Authenticate', `Bearer realm="gateway", error="invalid_token"${metadata}`).json({ error: message });
}

function buildServer(options: EndpointOptions, catalog: ToolCatalog, listing: ToolListing): McpServer {
  const server = new McpServer({ name: 'gateway', version: options.version }, { capabilities: { tools: { listChanged: false } } });
  paginateToolList(server, listing, options.services.config.mcp.toolsPageSize);
  // Our own tools/call (the SDK's turns every error into a tool result): a refusal for want of a
  // scope must reach the client as a JSON-RPC error.
  server.server.setRequestHandler('tools/call', async (request: { params: { name: string; arguments?: Record<string, unknown> } }, extra: ServerContext) => {
    const tool = catalog.get(request.params.name);
    if (!tool) throw new ProtocolError(JSON_RPC_BY_CODE.BAD_USER_INPUT.code, `Unknown tool: ${request.params.name}`);
    let variables: Record<string, unknown>;
    try {
      variables = toolVariables(tool, request.params.arguments);
    } catch (error) {
      if (error instanceof AppError) return toolError(`Invalid arguments for ${tool.definition.name}: ${error.message}`);
      throw error;
    }
    try {
      return await runTool(options.operations, catalog, tool, variables, extra);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // -32603 without internals; the details go to the log.
      options.services.log.error({ err: error, tool: tool.definition.name }, 'tool failed');
      throw internalError();
    }
  });
  return server;
}

function toolError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** INTERNAL_SERVER_ERROR's JSON-RPC error, without internals (they go to the log). */
function internalError(): ProtocolError {
  return new ProtocolError(JSON_RPC_BY_CODE.INTERNAL_SERVER_ERROR.code, 'Internal error');
}

/**
 * A failure of the tool's operation, answered as the code table says: the tool's result with
 * `isError: true`, or a JSON-RPC error. A code outside the table is the tool's own failure.
 */
function operationFailure(tool: string, error: Pick<GraphQLError, 'message' | 'extensions'>): ToolResult {
  const code = error.extensions.code;
  const answer = typeof code === 'string' && code in JSON_RPC_BY_CODE ? JSON_RPC_BY_CODE[code as ErrorCode] : undefined;
  if (answer === undefined || answer.inTool === 'result') return toolError(error.message);
  if (code === 'INTERNAL_SERVER_ERROR') throw internalError();
  // A refusal (UNAUTHENTICATED, FORBIDDEN): a scope the token lacks or an organization the user is not in; say both.
  throw new ProtocolError(answer.code, `${tool}: ${error.message} (a scope the access token lacks, or an organization you do not belong to)`);
}

async function runTool(
  operations: OperationRunner,
  catalog: ToolCatalog,
  prepared: PreparedTool,
  args: Record<string, unknown>,
  extra: ServerContext,
): Promise<ToolResult> {
  const tool = prepared.definition;
  const ctx = contextOf(extra);
  // The summary tool follows its run: past the user's cap of open streams it starts nothing.
  if (tool.name === 'start_summary_generation' && ctx.viewer) {
    try {
      ctx.services.streams.ensureRoom(ctx.viewer.user.id);
    } catch (error) {
      if (error instanceof AppError) return toolError(error.message);
      throw error;
    }
  }
  const result = await operations.execute(ctx, prepared.operation, args);
  if (result.errors?.length) return operationFailure(tool.name, result.errors[0]);
  let structured = toolResult(tool.result, (result.data ?? {}) as Record<string, unknown>);
  if (tool.name === 'start_summary_generation') {
    try {
      structured = await waitForRun(operations, catalog, ctx, structured, extra);
    } catch (error) {
      // Refused while following (the user's STREAMS_PER_USER slots are all held): the run is started all the same.
      if (!(error instanceof AppError)) throw error;
      return toolError(`${error.message}. The run ${String(structured.id)} was started; read it with get_summary_generation.`);
    }
  }
  const problem = prepared.outputProblem(structured);
  if (problem !== null) {
    ctx.log.error({ tool: tool.name, problem }, 'tool result does not match its output schema');
    throw internalError();
  }
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * The summary tool waits for its run, relaying each agent's progress as an MCP progress
 * notification when the client sent a progressToken, and returns the finished run.
 */
async function waitForRun(
  operations: OperationRunner,
  catalog: ToolCatalog,
  ctx: RequestContext,
  started: Record<string, unknown>,
  extra: ServerContext,
): Promise<Record<string, unknown>> {
  const runId = String(started.id);
  const userId = ctx.viewer!.user.id;
  const token = extra.mcpReq._meta?.progressToken;
  const events = await ctx.services.generation.follow(userId, runId, 0, ctx.viewer!.credential);
  for await (const item of events) {
    if (item.kind !== 'event') continue;
    const { event } = item;
    if (token !== undefined) {
      await extra.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken: token, progress: event.sequence, message: `${event.agent} ${event.status}: ${event.message}` },
      });
    }
    if (isFinalEvent(event)) break;
  }
  const fetched = await operations.execute(ctx, catalog.get('get_summary_generation')!.operation, { id: runId });
  return (fetched.data as { generationRun: Record<string, unknown> }).generationRun;
}

/**
 * tools/list in pages of MCP_TOOLS_PAGE_SIZE (default: every tool on one page) in the table's (stable) order; the cursor is the offset
 * of the next page. The SDK lists every tool at once, so its handler is replaced.
 */
function paginateToolList(server: McpServer, listed: ToolListing, pageSize: number): void {
  server.server.setRequestHandler('tools/list', async (request: { params?: { cursor?: string } }) => {
    const cursor = request.params?.cursor;
    const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(start) || start < 0 || start >= listed.length) throw new ProtocolError(JSON_RPC_BY_CODE.BAD_USER_INPUT.code, 'Invalid cursor');
    const end = start + pageSize;
    return { tools: listed.slice(start, end), ...(end < listed.length ? { nextCursor: Buffer.from(String(end)).toString('base64url') } : {}) };
  });
}
