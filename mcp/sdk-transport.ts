/**
 * Where this endpoint works around the MCP SDK's Streamable HTTP transport, in one place:
 *
 * 1. The request's context rides on the SDK's AuthInfo (the one value it carries from the HTTP
 *    request to a tool handler) under `extra`, which the SDK types as a bag of unknowns:
 *    attachContext puts it there and contextOf reads it back, checked, not cast.
 * 2. Plain JSON-RPC over HTTP for clients that do not ask for server-sent events
 *    (withPlainJsonResponses, below).
 */
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { RequestContext } from '../src/context.ts';

/** The holder of a request's context in AuthInfo.extra: its class is what contextOf recognises. */
class CarriedContext {
  constructor(readonly ctx: RequestContext) {}
}

const CONTEXT_KEY = 'gatewayRequestContext';

/** The AuthInfo handed to the SDK for a request, carrying its context to the tool handlers. */
export function attachContext(auth: AuthInfo, ctx: RequestContext): AuthInfo {
  return { ...auth, extra: { ...auth.extra, [CONTEXT_KEY]: new CarriedContext(ctx) } };
}

/** The context of the request a handler serves (attached by attachContext). */
export function contextOf(extra: Pick<ServerContext, 'http'>): RequestContext {
  const carried = extra.http?.authInfo?.extra?.[CONTEXT_KEY];
  if (!(carried instanceof CarriedContext)) throw new Error('MCP request without its request context: was AuthInfo made by attachContext?');
  return carried.ctx;
}

/**
 * Plain JSON-RPC over HTTP for clients that do not ask for server-sent events. The spec writes the
 * tool endpoint as a plain JSON-RPC 2.0 request (`Content-Type: application/json`, no `Accept`),
 * as curl, fetch, axios and requests send it; the MCP SDK's transport insists on
 * `Accept: application/json, text/event-stream` and answers such a request 406. MCP's Streamable
 * HTTP allows a JSON answer, so a request whose Accept does not name text/event-stream is passed to
 * the SDK as one that accepts both, and the SSE answer it gets is turned into the plain JSON-RPC
 * response(s): one object, or an array for a batch. Progress notifications need SSE, so a JSON
 * answer carries none.
 *
 * Why not the SDK's own JSON mode (tried with @modelcontextprotocol/server 2.4.0): a
 * WebStandardStreamableHTTPServerTransport with `enableJsonResponse: true`, posted a ping without
 * Accept, with `*\/*` and with `application/json`, answered 406 ("Client must accept both
 * application/json and text/event-stream") each time, and JSON only when Accept named both: its
 * POST handler checks Accept before it reads the option, so the Accept rewrite would stay. And
 * createMcpHandler builds its 2025-era (legacy) transport itself with only `sessionIdGenerator:
 * undefined`, so using the option means routing legacy requests (isLegacyRequest) to a
 * hand-built transport and its teardown, a larger copy of the SDK than this wrapper. Its
 * modern-era `responseMode: 'json'` drops progress notifications for every client, those that ask
 * for SSE included.
 */

/** The part of the SDK's handler that toNodeHandler calls. */
export interface FetchHandler {
  fetch(request: Request, options?: object): Promise<Response>;
}

export function withPlainJsonResponses<H extends FetchHandler>(handler: H): H {
  return Object.assign(Object.create(handler) as H, {
    async fetch(request: Request, options?: object): Promise<Response> {
      const accept = request.headers.get('accept') ?? '';
      if (request.method !== 'POST' || accept.includes('text/event-stream')) return handler.fetch(request, options);
      const headers = new Headers(request.headers);
      headers.set('accept', 'application/json, text/event-stream');
      const body = await request.text();
      const response = await handler.fetch(new Request(request.url, { method: 'POST', headers, body, signal: request.signal }), options);
      if (!response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
      const messages = sseMessages(await response.text()).filter((message) => 'id' in message && ('result' in message || 'error' in message));
      if (messages.length === 0) return new Response(null, { status: 202 });
      const batch = body.trimStart().startsWith('[');
      const answer = new Headers(response.headers);
      answer.set('content-type', 'application/json');
      answer.delete('content-length');
      return new Response(JSON.stringify(batch ? messages : messages[0]), { status: response.status, headers: answer });
    },
  });
}

/** The JSON messages of an SSE body (each event's `data:` lines joined). */
function sseMessages(text: string): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (!data) continue;
    try {
      const parsed: unknown = JSON.parse(data);
      for (const message of Array.isArray(parsed) ? parsed : [parsed])
        if (message && typeof message === 'object') messages.push(message as Record<string, unknown>);
    } catch {
      // not a JSON-RPC message (a comment or keep-alive): skipped
    }
  }
  return messages;
}
