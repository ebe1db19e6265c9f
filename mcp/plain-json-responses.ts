/**
 * Plain JSON-RPC over HTTP for clients that do not ask for server-sent events. The spec writes the
 * tool endpoint as a plain JSON-RPC 2.0 request (`Content-Type: application/json`, no `Accept`),
 * as curl, fetch, axios and requests send it; the MCP SDK's transport insists on
 * `Accept: application/json, text/event-stream` and answers such a request 406. MCP's Streamable
 * HTTP allows a JSON answer, so a request whose Accept does not name text/event-stream is passed to
 * the SDK as one that accepts both, and the SSE answer it gets is turned into the plain JSON-RPC
 * response(s): one object, or an array for a batch. Progress notifications need SSE, so a JSON
 * answer carries none.
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
