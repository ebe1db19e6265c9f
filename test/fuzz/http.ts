/**
 * HTTP for the fuzz test: fetch with a deadline (a server-sent event stream is looked at, then
 * dropped), raw requests over node:net for what fetch cannot send (a Content-Length that is a lie,
 * a body cut off mid-file, a socket closed early), and the checks of each front's documented
 * error answers.
 */
import net from 'node:net';

export type Front = 'rest' | 'graphql' | 'mcp' | 'login';

export interface Answer {
  /** 0: no answer (see `problem`) */
  status: number;
  contentType: string;
  text: string;
  /** Why there is no status: `timeout` (the server kept the connection open), `closed` (it hung up without answering). */
  problem?: 'timeout' | 'closed' | 'client-error';
  detail?: string;
}

/** Longer than any answer takes on a loaded CI machine; a request still unanswered then is a hang. */
export const REQUEST_TIMEOUT_MS = 45_000;

export interface SendInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
}

/** fetch with a deadline. An event stream is read for a moment (headers and a first event), then cancelled. */
export async function send(url: string, init: SendInit = {}): Promise<Answer> {
  const controller = new AbortController();
  const timeoutMs = init.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const body = typeof init.body === 'string' || init.body === undefined ? init.body : new Uint8Array(init.body);
    const response = await fetch(url, { method: init.method, headers: init.headers, body, signal: controller.signal, redirect: 'manual' });
    const contentType = response.headers.get('content-type') ?? '';
    let text: string;
    if (contentType.startsWith('text/event-stream') && !url.includes('/api/service')) {
      text = await peek(response, 300);
      controller.abort();
    } else {
      text = await response.text();
    }
    return { status: response.status, contentType, text };
  } catch (error) {
    if (controller.signal.aborted) return { status: 0, contentType: '', text: '', problem: 'timeout', detail: `no answer within ${timeoutMs / 1000} s` };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET')
      return { status: 0, contentType: '', text: '', problem: 'closed', detail: cause.message };
    return { status: 0, contentType: '', text: '', problem: 'client-error', detail: String(cause?.message ?? error) };
  } finally {
    clearTimeout(timer);
  }
}

async function peek(response: Response, ms: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(1, deadline - Date.now())))]);
      if (!chunk || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** written in order */
  body: (Buffer | string)[];
  /** half-close the socket after the body (the client sends no more; the answer can still arrive) */
  end: boolean;
  timeoutMs: number;
}

/**
 * One request written by hand on a fresh connection. Resolves with the answer once its headers
 * and body are complete, `closed` when the server hangs up without one, `timeout` when it neither
 * answers nor hangs up in time.
 */
export function rawHttp(baseUrl: string, request: RawRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      const parsed = parseResponse(received, true);
      finish(
        parsed ?? {
          status: 0,
          contentType: '',
          text: '',
          problem: 'timeout',
          detail: `no answer within ${request.timeoutMs / 1000} s (connection still open)`,
        },
      );
    }, request.timeoutMs);
    socket.on('error', () => {
      /* the server may reset the connection while we still write: judged by what was received */
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const parsed = parseResponse(received, false);
      if (parsed) finish(parsed);
    });
    socket.on('close', () =>
      finish(parseResponse(received, true) ?? { status: 0, contentType: '', text: '', problem: 'closed', detail: 'connection closed without an answer' }),
    );
    socket.on('connect', () => {
      const head = [
        `${request.method} ${request.path} HTTP/1.1`,
        `Host: ${url.host}`,
        ...Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      for (const part of request.body) socket.write(part);
      if (request.end) socket.end();
    });
  });
}

/** The answer in `bytes`, or undefined while it is incomplete (`atEnd`: take what there is). */
function parseResponse(bytes: Buffer, atEnd: boolean): Answer | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  if (status === 100) return parseResponse(bytes.subarray(headEnd + 4), atEnd);
  const rest = bytes.subarray(headEnd + 4);
  const contentType = headers.get('content-type') ?? '';
  const length = headers.get('content-length');
  if (length !== undefined) {
    if (rest.length < Number(length) && !atEnd) return undefined;
    return { status, contentType, text: rest.subarray(0, Number(length)).toString('utf8') };
  }
  if (headers.get('transfer-encoding')?.includes('chunked')) {
    const text = rest.toString('latin1');
    if (!text.includes('\r\n0\r\n\r\n') && !text.startsWith('0\r\n\r\n') && !atEnd) return undefined;
    return { status, contentType, text: dechunk(rest) };
  }
  if (!atEnd && status !== 204 && status !== 304) return undefined;
  return { status, contentType, text: rest.toString('utf8') };
}

function dechunk(bytes: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}

// ---------------------------------------------------------------------------------------------
// Checks: what a front must never answer. Each returns the problem, or undefined when the answer is fine.

export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function noAnswer(answer: Answer, allowClosed: boolean): string | undefined {
  if (answer.status !== 0) return undefined;
  if (answer.problem === 'closed' && allowClosed) return undefined;
  return `no answer: ${answer.detail ?? answer.problem}`;
}

/** REST: below 500, and an error is `{"error": "<non-empty string>"}` as JSON. */
export function checkRest(answer: Answer): string | undefined {
  const missing = noAnswer(answer, false);
  if (missing) return missing;
  if (answer.status >= 500) return `${answer.status} ${excerpt(answer.text)}`;
  if (answer.status < 400) return undefined;
  const body = parseJson(answer.text);
  const documented =
    /^application\/json\b/.test(answer.contentType) &&
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    Object.keys(body).length === 1 &&
    typeof (body as { error?: unknown }).error === 'string' &&
    (body as { error: string }).error.trim() !== '';
  return documented
    ? undefined
    : `${answer.status} without the documented {"error": "..."} body (${answer.contentType || 'no content type'}): ${excerpt(answer.text) || '(empty)'}`;
}

const INTERNAL_MESSAGE = /internal server error|unexpected error/i;

interface GraphQLErrorLike {
  message?: unknown;
  extensions?: { code?: unknown };
}

/** GraphQL: below 500; no INTERNAL_SERVER_ERROR (or masked "Unexpected error") in any answer; every error carries extensions.code. */
export function checkGraphql(answer: Answer, knownCodes: ReadonlySet<string>): string | undefined {
  const missing = noAnswer(answer, false);
  if (missing) return missing;
  if (answer.status >= 500) return `${answer.status} ${excerpt(answer.text)}`;
  const bodies = answer.contentType.startsWith('text/event-stream') ? sseData(answer.text) : [parseJson(answer.text)];
  for (const body of bodies) {
    const errors = (body as { errors?: unknown } | undefined)?.errors;
    if (!Array.isArray(errors)) {
      if (answer.status >= 400) return `${answer.status} without a GraphQL errors list: ${excerpt(answer.text) || '(empty)'}`;
      continue;
    }
    for (const error of errors as GraphQLErrorLike[]) {
      const code = error?.extensions?.code;
      if (code === 'INTERNAL_SERVER_ERROR' || INTERNAL_MESSAGE.test(String(error?.message)))
        return `${answer.status} with an internal error: ${excerpt(JSON.stringify(error))}`;
      if (typeof code !== 'string' || !knownCodes.has(code))
        return `${answer.status} with an error outside the code table (extensions.code ${JSON.stringify(code)}): ${excerpt(JSON.stringify(error))}`;
    }
  }
  return undefined;
}

interface JsonRpcMessage {
  error?: { code?: unknown; message?: unknown };
  result?: { isError?: unknown; content?: { text?: unknown }[] };
}

/** JSON-RPC: below 500; no error -32603; no tool result saying Internal error. */
export function checkMcp(answer: Answer): string | undefined {
  const missing = noAnswer(answer, false);
  if (missing) return missing;
  if (answer.status >= 500) return `${answer.status} ${excerpt(answer.text)}`;
  const messages = jsonRpcMessages(answer) as (JsonRpcMessage | undefined)[];
  for (const message of messages) {
    if (message?.error?.code === -32603) return `${answer.status} JSON-RPC error -32603: ${excerpt(JSON.stringify(message.error))}`;
    if (message?.result?.isError && (message.result.content ?? []).some((c) => /internal (server )?error/i.test(String(c?.text)))) {
      return `${answer.status} tool result with an internal error: ${excerpt(JSON.stringify(message.result.content))}`;
    }
  }
  return undefined;
}

/** Anything else (the sign-in form, raw multipart): below 500 and no internal error text; `closed` allowed when the client cut the request off. */
export function checkPlain(answer: Answer, allowClosed: boolean): string | undefined {
  const missing = noAnswer(answer, allowClosed);
  if (missing) return missing;
  if (answer.status >= 500) return `${answer.status} ${excerpt(answer.text)}`;
  if (INTERNAL_MESSAGE.test(answer.text)) return `${answer.status} with an internal error: ${excerpt(answer.text)}`;
  return undefined;
}

/** The JSON-RPC messages of an answer: its JSON body, or the `data:` lines of an event stream. */
export function jsonRpcMessages(answer: Answer): unknown[] {
  const parsed = answer.contentType.startsWith('text/event-stream') ? sseData(answer.text) : [parseJson(answer.text)];
  return parsed.flatMap((m) => (Array.isArray(m) ? (m as unknown[]) : [m])).filter((m) => m !== undefined);
}

function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => parseJson(line.slice(5).trim()))
    .filter((value) => value !== undefined);
}
