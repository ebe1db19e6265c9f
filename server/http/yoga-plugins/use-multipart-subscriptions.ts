import { isAsyncIterable } from '@envelop/core';
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** An empty part every this often keeps proxies and the client from timing a quiet stream out. */
export const MULTIPART_HEARTBEAT_MS = 5_000;

/**
 * Subscriptions over multipart HTTP, Apollo's protocol (`Accept: multipart/mixed;
 * subscriptionSpec=1.0`, what Apollo Client's HttpLink sends for a subscription): each result is
 * one part `{"payload": result}`, an empty `{}` part is a heartbeat, and the stream ends with the
 * closing boundary. graphql-yoga serves multipart only for incremental delivery, so without this a
 * subscription asked for this way is 406.
 */
export function useMultipartSubscriptions(): Plugin {
  return {
    onResultProcess({ request, result, resultProcessor, setResultProcessor }) {
      if (resultProcessor || !isAsyncIterable(result)) return;
      const accept = (request.headers.get('accept') ?? '').toLowerCase().replace(/\s/g, '');
      if (!/multipart\/mixed[^,]*subscriptionspec="?1\.0/.test(accept)) return;
      setResultProcessor((input, fetchAPI) => multipartResponse(input, fetchAPI), 'multipart/mixed');
    },
  };
}

function multipartResponse(
  input: unknown,
  fetchAPI: { ReadableStream: typeof ReadableStream; Response: typeof Response; TextEncoder: typeof TextEncoder },
): Response {
  const results = input as AsyncIterable<ExecutionResult>;
  const encoder = new fetchAPI.TextEncoder();
  // Each part is followed at once by the boundary, so a client can read it without waiting for the next one.
  const part = (json: unknown) => encoder.encode(`\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(json)}\r\n--graphql`);
  let iterator: AsyncIterator<ExecutionResult> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stream = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      iterator = results[Symbol.asyncIterator]();
      controller.enqueue(encoder.encode('\r\n--graphql'));
      heartbeat = setInterval(() => controller.enqueue(part({})), MULTIPART_HEARTBEAT_MS);
    },
    async pull(controller) {
      try {
        const { done, value } = await iterator!.next();
        if (done) {
          clearInterval(heartbeat);
          controller.enqueue(encoder.encode('--\r\n'));
          controller.close();
          return;
        }
        controller.enqueue(part({ payload: value }));
      } catch (error) {
        clearInterval(heartbeat);
        controller.error(error);
      }
    },
    async cancel() {
      clearInterval(heartbeat);
      await iterator?.return?.();
    },
  });
  return new fetchAPI.Response(stream, {
    status: 200,
    headers: {
      'content-type': 'multipart/mixed; boundary="graphql"; subscriptionSpec="1.0"',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
