import { AppError } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import { injectTraceHeaders } from '../../tracing/state.ts';

/**
 * One JSON request to an external system (project-management tool, chat completions endpoint)
 * with plain fetch and an AbortSignal timeout that covers the whole exchange, body included.
 *
 * - timeout -> 504 `<label> timed out after 30s`
 * - connection refused, DNS, reset, redirect -> 502 `<label> error: unreachable`
 * - a 2xx body that is not JSON -> 502 `<label> error: malformed response`
 * Other statuses are returned for the caller to map. Messages never contain the URL, the headers
 * or the upstream body, so a key can never leak through an error.
 */
export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  apiKey?: string;
  body?: unknown;
  timeoutMs: number;
}

export interface UpstreamResponse {
  status: number;
  /** The parsed JSON body of a 2xx response; undefined for other statuses (the body is discarded). */
  json: unknown;
}

export async function upstreamJson(label: string, request: UpstreamRequest, log?: Logger): Promise<UpstreamResponse> {
  // W3C traceparent of the active trace (while tracing is on), so the upstream's spans join it.
  const headers: Record<string, string> = injectTraceHeaders({ accept: 'application/json' });
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
      // A redirect could carry the key elsewhere: the configured URL must answer itself.
      redirect: 'error',
    });
  } catch (error) {
    throw transportError(label, error, request.timeoutMs, log);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => {});
    log?.warn({ upstream: label, status: response.status }, 'upstream error status');
    return { status: response.status, json: undefined };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw transportError(label, error, request.timeoutMs, log);
  }
  try {
    return { status: response.status, json: JSON.parse(text) as unknown };
  } catch {
    throw malformed(label, log);
  }
}

export function malformed(label: string, log?: Logger, detail?: string): AppError {
  log?.warn({ upstream: label, detail }, 'malformed upstream response');
  return new AppError('BAD_GATEWAY', `${label} error: malformed response`);
}

export function upstreamStatusError(label: string, status: number): AppError {
  return new AppError('BAD_GATEWAY', `${label} error: ${status}`);
}

function transportError(label: string, error: unknown, timeoutMs: number, log?: Logger): AppError {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    log?.warn({ upstream: label, timeoutMs }, 'upstream timeout');
    return new AppError('GATEWAY_TIMEOUT', `${label} timed out after ${formatDuration(timeoutMs)}`);
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  log?.warn({ upstream: label, cause: typeof cause === 'string' ? cause : undefined }, 'upstream unreachable');
  return new AppError('BAD_GATEWAY', `${label} error: unreachable`);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

/** `base` + `/path`, whatever trailing slashes the configured base has. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
