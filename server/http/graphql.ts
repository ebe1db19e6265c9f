import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { GetEnvelopedFn } from '@envelop/core';
import { createYoga, type Plugin } from 'graphql-yoga';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { graphqlSseSingleConnection } from './graphql-sse.ts';
import { useGetParamsCheck } from './yoga-plugins/use-get-params-check.ts';
import { useNoProxyBuffering } from './yoga-plugins/use-no-proxy-buffering.ts';
import { useConditionalGet } from './yoga-plugins/use-conditional-get.ts';
import { useRateLimitHeaders } from './yoga-plugins/use-rate-limit-headers.ts';
import { useAutomaticPersistedQueries } from './yoga-plugins/use-automatic-persisted-queries.ts';
import { useTrustedDocuments } from './yoga-plugins/use-trusted-documents.ts';
import { useMultipartSubscriptions } from './yoga-plugins/use-multipart-subscriptions.ts';
import { useBodySizeLimit } from './yoga-plugins/use-body-size-limit.ts';
import { processRequest, type GraphQLOperation } from 'graphql-upload-ts';
import { getSchema } from '../../schema/index.ts';
import { createOperationRunner, operationPlugins, type OperationRunner } from '../../schema/pipeline/index.ts';
import type { Services } from '../../src/services.ts';
import { contextFor, requestLog } from './request-context.ts';
import { HTTP_STATUS_BY_CODE } from '../../src/errors.ts';
import { rateLimitHeaders } from '../../src/ratelimit/rate-limiter.ts';
import { refusalFor } from '../../src/refusal.ts';

/** Files one GraphQL multipart request may carry. */
export const GRAPHQL_UPLOAD_MAX_FILES = 5;

/** Where graphql-sse clients in single-connection mode connect (distinct connections: /graphql itself). */
export const GRAPHQL_SSE_ENDPOINT = '/graphql/stream';

export interface GraphqlEndpoint {
  handler: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /**
   * What the handler does with a POST of a GraphQL body type (GRAPHQL_POST_TYPES): straight to
   * yoga, needing nothing of express (the GraphQL lane, graphql-lane.ts, serves those).
   */
  serveBody: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** The same pipeline for the other fronts (REST, MCP): yoga's getEnveloped. */
  operations: OperationRunner;
  /** yoga's getEnveloped itself, for the WebSocket transport (graphql-ws.ts). */
  getEnveloped: GetEnvelopedFn<object>;
}

/**
 * GraphQL over HTTP at /graphql: graphql-yoga for queries and mutations (GraphiQL in
 * development), subscriptions over server-sent events with the graphql-sse protocol (distinct
 * connections mode at /graphql, single connection mode at /graphql/stream), and the GraphQL
 * multipart request spec (graphql-upload-ts) for uploads. Every operation, uploads included, runs
 * through the pipeline's plugins (schema/pipeline); this file adds only what is HTTP.
 */
export function graphqlEndpoint(services: Services): GraphqlEndpoint {
  const yoga = createYoga<{ req: IncomingMessage; res: ServerResponse }>({
    schema: getSchema(),
    graphqlEndpoint: '/graphql',
    graphiql: services.config.env === 'development' ? { title: 'Gateway GraphiQL', credentials: 'include' } : false,
    // GraphiQL's code and styles come with the page (an npm package), not from a CDN: it works
    // offline and behind a proxy that allows only this service.
    renderGraphiQL,
    landingPage: false,
    // CORS is one policy for every front (cors.ts, CORS_ORIGINS), applied before this handler.
    cors: false,
    multipart: false,
    // A JSON array of operations (Apollo's BatchHttpLink, graphql-request's batchRequests): each
    // one runs through the pipeline, charging its budgets and measured against the limits.
    batching: { limit: services.config.graphql.maxBatch },
    // One limit for a /graphql body and a graphql-ws message (GRAPHQL_MAX_BODY_BYTES): 413 past it,
    // by useBodySizeLimit (last in the plugins) instead of yoga's.
    maxRequestBodySize: false,
    logging: false,
    // The request context: by a plugin of its own rather than yoga's `context` option (see useRequestContext).
    // Masking is the pipeline's (it needs the request context for the log line and request id).
    maskedErrors: false,
    plugins: [
      useRequestContext(services),
      graphqlSseSingleConnection(GRAPHQL_SSE_ENDPOINT),
      useConditionalGet(),
      ...(operationPlugins(services.config.graphql) as Plugin[]),
      useGetParamsCheck(),
      useNoProxyBuffering(),
      useRateLimitHeaders(services),
      persistedDocuments(services),
      useMultipartSubscriptions(),
      useBodySizeLimit(services.config.graphql.maxBodyBytes),
    ],
  });
  const operations = createOperationRunner(yoga.getEnveloped);

  const handler = async (req: Request, res: Response, _next: NextFunction) => {
    try {
      if (req.method === 'POST' && /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
        if (declaredTooLarge(req, services.config.storage.maxUploadBytes)) {
          res.setHeader('Connection', 'close');
          res.status(413).json({
            errors: [
              {
                message: `Request body exceeds the upload limit of ${services.config.storage.maxUploadBytes} bytes`,
                extensions: { code: 'PAYLOAD_TOO_LARGE' },
              },
            ],
          });
          return;
        }
        await multipartOperation(services, operations, req, res);
        return;
      }
      if (req.method === 'POST' && !GRAPHQL_POST_TYPES.test(req.headers['content-type'] ?? 'application/json')) {
        // yoga answers an unknown body type with a bare 415; say what is accepted.
        res.status(415).json({
          errors: [
            {
              message: 'Content-Type must be application/json (or application/graphql, a form, or multipart/form-data for uploads)',
              extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
            },
          ],
        });
        return;
      }
      await serveBody(req, res);
    } catch (error) {
      sendGraphqlRefusal(res, graphqlRefusal(services, req, error));
    }
  };
  const serveBody = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      await yoga.handle(req, res);
    } catch (error) {
      sendGraphqlRefusal(res, graphqlRefusal(services, req, error));
    }
  };
  return { handler, serveBody, operations, getEnveloped: yoga.getEnveloped as unknown as GetEnvelopedFn<object> };
}

async function multipartOperation(services: Services, operations: OperationRunner, req: Request, res: Response): Promise<void> {
  const ctx = await contextFor(services, req);
  /** Every answer carries the budgets' headers; settling gives back a reservation no field took. */
  const reply = async (status: number, body: unknown): Promise<void> => {
    res.set(rateLimitHeaders(await ctx.budgets.settled()));
    if (status === HTTP_STATUS_BY_CODE.PAYLOAD_TOO_LARGE) res.setHeader('Connection', 'close');
    res.status(status).json(body);
  };
  let operation: GraphQLOperation | GraphQLOperation[];
  try {
    // A signed-in client's spent upload budget is refused before the body is read (an anonymous
    // request is refused by the field's own check, for free).
    if (ctx.viewer) await ctx.budgets.reserve('upload');
    operation = await readMultipartOperation(req, res, services.config.storage.maxUploadBytes);
  } catch (error) {
    const refusal = refusalFor(error, { log: requestLog(req), databaseOutage: services.databaseOutage });
    res.setHeader('Connection', 'close'); // the body may be unread
    return reply(refusal.status, { errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
  }
  if (Array.isArray(operation)) {
    return reply(400, { errors: [{ message: 'Batched multipart operations are not supported', extensions: { code: 'BAD_USER_INPUT' } }] });
  }
  // The client's document: parsed and validated through the pipeline (depth limit included); a
  // mistake in it is a 400 like on any other /graphql request; it is not cached.
  const parsed = operations.parseClientDocument(operation.query);
  if ('errors' in parsed) {
    return reply(400, { errors: (parsed.errors ?? []).map((error) => ({ message: error.message, extensions: { code: 'BAD_USER_INPUT' } })) });
  }
  const result = await operations.execute(ctx, parsed.document, operation.variables ?? {}, operation.operationName ?? undefined);
  const refusedInput = result.errors?.find((error) => (error.extensions.http as { status?: number } | undefined)?.status === 400 && !result.data);
  if (refusedInput) return reply(400, { errors: [{ message: refusedInput.message, extensions: withoutHttp(refusedInput.extensions) }] });
  // Refusals of the request itself keep their HTTP status (429, 413), as on the REST route;
  // any other error is a GraphQL execution error (200), as on every other /graphql request.
  const refused = result.errors?.find((e) => e.extensions.code === 'RATE_LIMITED' || e.extensions.code === 'PAYLOAD_TOO_LARGE');
  await reply(refused ? HTTP_STATUS_BY_CODE[refused.extensions.code as 'RATE_LIMITED' | 'PAYLOAD_TOO_LARGE'] : 200, result);
  requestLog(req).debug({ operationName: operation.operationName }, 'multipart operation');
}

/**
 * The GraphQL multipart request's operation(s), files streaming. The reader's errors are about the
 * body (busboy's "Boundary not found" carries no status): a 400 unless they say otherwise (413).
 */
async function readMultipartOperation(req: Request, res: Response, maxUploadBytes: number): Promise<GraphQLOperation | GraphQLOperation[]> {
  try {
    return await processRequest<GraphQLOperation | GraphQLOperation[]>(req, res, {
      // busboy (inside) refuses a file that *reaches* maxFileSize; a file of exactly the limit is allowed.
      maxFileSize: maxUploadBytes + 1,
      maxFiles: GRAPHQL_UPLOAD_MAX_FILES,
    });
  } catch (error) {
    throw error instanceof Error && typeof (error as { status?: unknown }).status !== 'number' ? Object.assign(error, { status: 400 }) : error;
  }
}

/**
 * A failure before the operation ran (the request context: the credential is checked against the
 * database; a multipart body), answered by the one rule (src/refusal.ts) as a GraphQL error that
 * carries its HTTP status: 503 with Retry-After while the database is unavailable, logged once per
 * outage; a generic 500 with the request id, the details in the log.
 */
function graphqlRefusal(services: Services, req: IncomingMessage, error: unknown): GraphQLError {
  const refusal = refusalFor(error, { log: requestLog(req), databaseOutage: services.databaseOutage });
  const retryAfter = refusal.extensions.retryAfterSeconds;
  const headers = typeof retryAfter === 'number' ? { 'Retry-After': String(retryAfter) } : undefined;
  const requestId = refusal.code === 'INTERNAL_SERVER_ERROR' ? { requestId: requestLog(req).bindings().requestId } : {};
  return new GraphQLError(refusal.message, {
    extensions: { ...refusal.extensions, ...requestId, http: { status: refusal.status, ...(headers ? { headers } : {}) } },
  });
}

/**
 * A refusal written by this handler itself (outside yoga), in the GraphQL-over-HTTP shape: what
 * express's res.json writes (the GraphQL lane has no express response).
 */
function sendGraphqlRefusal(res: ServerResponse, refusal: GraphQLError): void {
  if (res.headersSent) return;
  const http = refusal.extensions.http as { status: number; headers?: Record<string, string> };
  for (const [name, value] of Object.entries(http.headers ?? {})) res.setHeader(name, value);
  const body = JSON.stringify({ errors: [{ message: refusal.message, extensions: withoutHttp(refusal.extensions) }] });
  res.statusCode = http.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * The request's context (request-context.ts contextFor: the credential checked once per request,
 * shared with every front) as yoga's context. Its properties are copied as they are defined:
 * yoga's `context` option merges with Object.assign, which reads the getters, so the context's
 * logger (a pino child per request, made on first use: most requests log nothing) was made for
 * every request. A failure is the GraphQL refusal with its HTTP status (graphqlRefusal).
 */
function useRequestContext(services: Services): Plugin<{ req: IncomingMessage }> {
  return {
    onContextBuilding({ context }) {
      return contextFor(services, context.req).then(
        (ctx) => {
          Object.defineProperties(context, Object.getOwnPropertyDescriptors(ctx));
        },
        (error: unknown) => {
          throw graphqlRefusal(services, context.req, error);
        },
      );
    },
  };
}

/** Trusted documents when an allow-list is configured; otherwise automatic persisted queries. */
function persistedDocuments(services: Services): Plugin {
  const file = services.config.graphql.trustedDocumentsFile;
  return file ? useTrustedDocuments(file) : useAutomaticPersistedQueries();
}

/** Body types yoga reads on POST (multipart is handled before it). */
export const GRAPHQL_POST_TYPES = /^\s*application\/(json|graphql|graphql\+json|graphql-response\+json|x-www-form-urlencoded)\s*(;|$)/i;

/** The extensions as sent to a client: the `http` hint is for the server only. */
function withoutHttp(extensions: Record<string, unknown>): Record<string, unknown> {
  const { http: _http, ...rest } = extensions;
  return rest;
}

/**
 * A multipart request whose declared Content-Length already exceeds what could be accepted
 * (the upload limit plus room for the operation and map fields): refused before reading a byte,
 * as the REST upload route does, instead of reading until the limit is reached.
 */
function declaredTooLarge(req: Request, maxUploadBytes: number): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > maxUploadBytes + MULTIPART_OVERHEAD_BYTES;
}

/** Room for the operations/map fields and part headers beside the file. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;
