import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * GRAPHQL_MAX_BODY_BYTES on /graphql: yoga's own limit (`maxRequestBodySize`, its
 * use-limit-request-body-size plugin) with the same answers, without its cost on every request.
 * Yoga pipes every body through a TransformStream that counts the bytes (a stream pipeline, an
 * AbortController and a DOMException per request: about 0.1 ms of CPU, docs/benchmarks.md). A
 * body with a Content-Length needs no counting: the length is checked (400 when it is not a single
 * non-negative integer, 413 past the limit) and node's HTTP parser delivers exactly that many
 * bytes (it refuses a request that has Transfer-Encoding too). Only a body without one (chunked)
 * is counted as yoga counts it. Listed last, after every request parser, as yoga lists its own.
 */
export function useBodySizeLimit(limit: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const contentLength = request.headers.get('content-length');
      if (contentLength != null) {
        if (!CONTENT_LENGTH.test(contentLength)) throw invalidContentLength();
        if (Number(contentLength) > limit) throw tooLarge();
        return;
      }
      if (requestParser == null || request.body == null) return;
      const parse = requestParser;
      setRequestParser((req) => parse(counted(req, limit, fetchAPI)));
    },
  };
}

/** Only a single non-negative integer is a valid Content-Length (yoga's rule). */
const CONTENT_LENGTH = /^\d+$/;

/** The request with its body counted: an error past the limit (yoga's limitRequestBodySize). */
function counted(request: Request, limit: number, fetchAPI: { Request: typeof Request; TransformStream: typeof TransformStream }): Request {
  const body = request.body;
  if (!body) return request;
  // A native stream needs the native TransformStream, the ponyfill's the ponyfill's (graphql-yoga#4583).
  const Transform = body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  let bytesRead = 0;
  const limited = body.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytesRead += chunk.byteLength;
        if (bytesRead > limit) {
          // The error ends node's stream.pipeline under pipeThrough, which destroys the request and
          // cuts it from its socket (request.socket = null) so the 413 can still be written; the
          // rest of the body is not read, so the connection closes after the answer.
          controller.error(tooLarge({ Connection: 'close' }));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: limited,
    // @ts-expect-error: a streamed body needs duplex 'half' (not in the DOM types' RequestInit)
    duplex: 'half',
  });
}

function tooLarge(headers?: Record<string, string>): GraphQLError {
  return new GraphQLError('Request body too large', {
    extensions: { http: { status: 413, ...(headers ? { headers } : {}) }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
}

function invalidContentLength(): GraphQLError {
  return new GraphQLError('Content-Length header is invalid.', { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } });
}
