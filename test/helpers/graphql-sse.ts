/**
 * GraphQL subscriptions over server-sent events as a real client makes them: the official
 * `graphql-sse` client in either of its modes (distinct connections at /graphql, single
 * connection at /graphql/stream), with a recorder of everything a subscription delivers.
 */
import { createClient, type Client, type ExecutionResult } from 'graphql-sse';

export type SseMode = 'distinct' | 'single';
export const SSE_MODES: readonly SseMode[] = ['distinct', 'single'];

/** A graphql-sse client of the service at `baseUrl`, without silent retries (a test wants to see every failure). */
export function sseClient(baseUrl: string, mode: SseMode, headers: Record<string, string> = {}): Client<boolean> {
  if (mode === 'single') {
    return createClient({
      url: `${baseUrl}/graphql/stream`,
      singleConnection: true,
      headers: { ...headers },
      retryAttempts: 0,
      lazy: true,
      lazyCloseTimeout: 0,
      fetchFn: keepingErrorBodies,
    });
  }
  return createClient({ url: `${baseUrl}/graphql`, singleConnection: false, headers, retryAttempts: 0, fetchFn: keepingErrorBodies });
}

/** Bodies of the refused requests (the client consumes a refusal's body before reporting it). */
const errorBodies = new WeakMap<Response, string>();

async function keepingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok) errorBodies.set(response, await response.clone().text());
  return response;
}

export type Ending = { kind: 'complete' } | { kind: 'error'; error: unknown } | { kind: 'unsubscribed' };

export interface Recording<T = any> {
  /** Every result received, in order (each `{ data }` or `{ errors }`). */
  readonly results: ExecutionResult<Record<string, T>, unknown>[];
  /** Resolves when the subscription ends: completed by the server, errored, or unsubscribed here. */
  readonly ended: Promise<Ending>;
  /** The ending once known. */
  readonly ending: Ending | undefined;
  /** Resolves once `predicate(results)` holds (checked at each result), rejects after `timeoutMs` or when the subscription ends first. */
  until(predicate: (results: ExecutionResult<Record<string, T>, unknown>[]) => boolean, timeoutMs?: number): Promise<void>;
  unsubscribe(): void;
}

/** Subscribes and records everything delivered. */
export function record<T = any>(client: Client<boolean>, query: string, variables: Record<string, unknown> = {}): Recording<T> {
  const results: ExecutionResult<Record<string, T>, unknown>[] = [];
  let ending: Ending | undefined;
  let finish!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (finish = resolve));
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const end = (value: Ending) => {
    if (ending) return;
    ending = value;
    finish(value);
    notify();
  };
  const dispose = client.subscribe<Record<string, T>, unknown>(
    { query, variables },
    {
      next: (result) => {
        results.push(result);
        notify();
      },
      error: (error) => end({ kind: 'error', error }),
      complete: () => end({ kind: 'complete' }),
    },
  );
  return {
    results,
    ended,
    get ending() {
      return ending;
    },
    until(predicate, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms with ${results.length} result(s): ${JSON.stringify(results.at(-1))}`));
        }, timeoutMs);
        function check() {
          if (predicate(results)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (ending) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(
              new Error(
                `subscription ended (${ending.kind}: ${describeError(ending)}) before the condition held; ${results.length} result(s), last ${JSON.stringify(results.at(-1))}`,
              ),
            );
          }
        }
        waiters.add(check);
        check();
      });
    },
    unsubscribe() {
      dispose();
      end({ kind: 'unsubscribed' });
    },
  };
}

function describeError(ending: Ending): string {
  if (ending.kind !== 'error') return '';
  const error = ending.error;
  if (error instanceof Error) return error.message;
  return JSON.stringify(error);
}

/**
 * The errors of a failed subscription, whichever way the protocol carried them: GraphQL errors
 * in a `next` result, or an error of the stream itself (the client's `error` callback, which
 * graphql-sse calls with the response's GraphQL errors or a NetworkError holding the response).
 */
export async function subscriptionErrors(recording: Recording): Promise<{ message: string; code?: string }[]> {
  const ending = await recording.ended;
  const fromResults = recording.results.flatMap((result) => (result.errors ?? []) as unknown as { message: string; extensions?: { code?: string } }[]);
  const fromEnding: { message: string; extensions?: { code?: string } }[] = [];
  if (ending.kind === 'error') {
    const error = ending.error as any;
    if (Array.isArray(error)) fromEnding.push(...error);
    else if (error && Array.isArray(error.errors)) fromEnding.push(...error.errors);
    else if (error?.response) {
      const text = errorBodies.get(error.response) ?? (await error.response.text().catch(() => ''));
      try {
        const body = JSON.parse(text);
        fromEnding.push(...(body.errors ?? []).map((e: { message: string }) => ({ ...e, message: `HTTP ${error.response.status}: ${e.message}` })));
      } catch {
        fromEnding.push({ message: `HTTP ${error.response.status}: ${text}` });
      }
    } else fromEnding.push({ message: String(error?.message ?? error) });
  }
  return [...fromResults, ...fromEnding].map((error) => ({ message: error.message, code: error.extensions?.code }));
}
