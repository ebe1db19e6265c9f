/**
 * GraphQL over WebSocket (the graphql-ws protocol, `graphql-transport-ws`) at /graphql: the
 * transport most GraphQL clients use by default for subscriptions (Apollo's GraphQLWsLink, urql,
 * Relay, graphql-ws's client). Every operation runs through the same pipeline as every other front
 * (yoga's getEnveloped: depth limit, input guards, masking), with a request context of its own, so
 * authentication, scopes, rate budgets and the `after` resumption cursor are those of the SSE
 * transports.
 *
 * Credentials: `x-api-key` or `Authorization` in the connection_init payload (browsers cannot set
 * WebSocket headers) or on the upgrade request; the session cookie only when the page's Origin is
 * this service or one of CORS_ORIGINS (a foreign page's cookie is ignored: no cross-site
 * WebSocket hijacking).
 *
 * Fair share (docs/limits.md): a message is at most GRAPHQL_MAX_BODY_BYTES, as an HTTP body
 * (larger: close 1009); sockets are capped per credential and, without a valid one, per client
 * address (socket-shares.ts; past it: the upgrade answers 429, or connection_init's credential
 * closes the socket with 4429); the operations in flight on one socket are capped too (an `error`
 * message for the one past it); and every progress subscription holds one of its user's
 * STREAMS_PER_USER slots, as on every transport.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { GetEnvelopedFn } from '@envelop/core';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { createContext } from '../../src/context.ts';
import { rememberOrigin, userAgentOf } from '../../src/audit/request-fields.ts';
import { MESSAGES } from '../../src/errors.ts';
import { appErrorForDatabaseFailure, DATABASE_RETRY_AFTER_SECONDS } from '../../src/db/db-errors.ts';
import { refusalFor } from '../../src/refusal.ts';
import { SocketShares, type Share } from './socket-shares.ts';
import { STREAM_RETRY_AFTER_SECONDS } from '../../src/ratelimit/stream-slots.ts';
import type { Services } from '../../src/services.ts';

export const GRAPHQL_WS_PATH = '/graphql';

/** A socket must send connection_init within this (graphql-ws's close 4408 otherwise): an idle socket holds nothing for long. */
export const CONNECTION_INIT_TIMEOUT_MS = 3_000;

/** Close code for a client past its share of connections (graphql-ws reserves 4400-4499 for such refusals). */
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;
/** Close code while the service cannot authenticate (its database is unavailable): try again later (RFC 6455 registry). */
const CLOSE_TRY_AGAIN_LATER = 1013;

type Enveloped = ReturnType<GetEnvelopedFn<object>>;

/** Serves graphql-ws on the server's upgrades to /graphql; returns the function that closes every socket. */
export function attachGraphqlWs(server: http.Server, services: Services, getEnveloped: GetEnvelopedFn<object>): () => Promise<void> {
  const { limits } = services.config;
  const wss = new WebSocketServer({ noServer: true, maxPayload: services.config.graphql.maxBodyBytes });
  const trustedOrigins = new Set(services.config.cors.origins);
  const shares = new SocketShares(services);
  const sharesOf = new WeakMap<WebSocket, Share>();
  const refusedOperations = new WeakMap<WebSocket, number>();
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until ws takes the socket, a client that resets it (while its credential is checked) must
    // not take the process down with an unhandled 'error'.
    socket.on('error', () => socket.destroy());
    if (new URL(req.url ?? '/', 'http://service').pathname !== GRAPHQL_WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    void shares.admit(credentialHeaders(req, undefined, trustedOrigins), addressOf(req)).then(
      (admission) => {
        if ('refused' in admission) return refuseUpgrade(socket, 429, admission.refused);
        if (socket.destroyed) return admission.share.release();
        let connected = false;
        wss.handleUpgrade(req, socket, head, (ws) => {
          connected = true;
          sharesOf.set(ws, admission.share);
          ws.once('close', () => sharesOf.get(ws)?.release());
          wss.emit('connection', ws, req);
        });
        // A handshake that failed never calls back: its share goes back with its socket.
        socket.once('close', () => {
          if (!connected) admission.share.release();
        });
      },
      (error: unknown) => {
        if (!isUnavailable(error)) {
          services.log.error({ err: error }, 'graphql-ws upgrade failed');
          return refuseUpgrade(socket, 500, MESSAGES.internal);
        }
        services.databaseOutage.failed(error);
        refuseUpgrade(socket, 503, 'The database is temporarily unavailable; retry shortly');
      },
    );
  };
  server.on('upgrade', onUpgrade);
  // gateway_open_streams{transport="graphql-ws"}: one per open WebSocket.
  wss.on('connection', (socket) => socket.once('close', services.metrics.streamOpened('graphql-ws')));
  const disposable = useServer(
    {
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      // A valid credential in connection_init moves the socket to that credential's share.
      onConnect: async (ctx) => {
        const { request, socket } = ctx.extra;
        const current = sharesOf.get(socket);
        if (!current || !ctx.connectionParams) return true;
        let moved;
        try {
          moved = await shares.reassign(current, credentialHeaders(request, ctx.connectionParams, trustedOrigins));
        } catch (error) {
          if (!isUnavailable(error)) throw error;
          services.databaseOutage.failed(error);
          socket.close(CLOSE_TRY_AGAIN_LATER, 'Service unavailable; retry shortly');
          return false;
        }
        if ('refused' in moved) {
          socket.close(CLOSE_TOO_MANY_CONNECTIONS, moved.refused.slice(0, 120));
          return false;
        }
        sharesOf.set(socket, moved.share);
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        // ctx.subscriptions already holds this operation.
        if (Object.keys(ctx.subscriptions).length > limits.wsOperationsPerSocket) {
          // A client that keeps sending past the cap (as many refusals as the cap allows
          // operations) is not listening: the socket closes instead of refusing one by one.
          const refusals = (refusedOperations.get(ctx.extra.socket) ?? 0) + 1;
          refusedOperations.set(ctx.extra.socket, refusals);
          if (refusals > limits.wsOperationsPerSocket)
            ctx.extra.socket.close(CLOSE_TOO_MANY_CONNECTIONS, 'Too many operations refused on this connection (WS_OPERATIONS_PER_SOCKET)');
          return [
            new GraphQLError(
              `Too many operations on this connection: at most ${limits.wsOperationsPerSocket} at once (WS_OPERATIONS_PER_SOCKET); complete one first`,
              {
                extensions: { code: 'RATE_LIMITED', retryAfterSeconds: STREAM_RETRY_AFTER_SECONDS },
              },
            ),
          ];
        }
        const request = ctx.extra.request;
        const requestId = randomUUID();
        let contextValue;
        try {
          contextValue = await createContext(services, {
            requestId,
            headers: credentialHeaders(request, ctx.connectionParams, trustedOrigins),
            clientAddress: addressOf(request),
            log: () => services.log.child({ requestId, transport: 'graphql-ws' }),
          });
          rememberOrigin(contextValue, { transport: 'websocket', userAgent: userAgentOf(request.headers) });
        } catch (error) {
          const refusal = refusalFor(error, { log: services.log.child({ requestId, transport: 'graphql-ws' }), databaseOutage: services.databaseOutage });
          return [new GraphQLError(refusal.message, { extensions: refusal.extensions })];
        }
        const enveloped = getEnveloped({});
        let document;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return [error as never];
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          document,
          variableValues: payload.variables,
          operationName: payload.operationName,
          contextValue,
          rootValue: { enveloped },
        };
        return args;
      },
      execute: (args) => (args.rootValue as { enveloped: Enveloped }).enveloped.execute({ ...args, rootValue: undefined }),
      subscribe: (args) => (args.rootValue as { enveloped: Enveloped }).enveloped.subscribe({ ...args, rootValue: undefined }),
    },
    wss,
  );
  // After graphql-ws's own listener (same event, so it runs next): a socket's errors are the
  // client's (a message over the limit, a malformed frame), which ws answers itself with its
  // close code (1009, 1002); graphql-ws would print each one's stack to the console.
  wss.on('connection', (socket) => {
    socket.removeAllListeners('error');
    socket.on('error', (error: Error & { code?: string }) =>
      services.log.info({ reason: error.message, code: error.code }, 'graphql-ws socket refused a message'),
    );
  });
  return async () => {
    server.off('upgrade', onUpgrade);
    await disposable.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}

function addressOf(request: http.IncomingMessage): string {
  return request.socket.remoteAddress ?? 'unknown';
}

function isUnavailable(error: unknown): boolean {
  return appErrorForDatabaseFailure(error)?.code === 'SERVICE_UNAVAILABLE';
}

/** An upgrade refused with a plain HTTP answer: the status, Retry-After and the REST error body. */
function refuseUpgrade(socket: Duplex, status: 429 | 500 | 503, message: string): void {
  const body = JSON.stringify({ error: message });
  const retryAfter = status === 429 ? STREAM_RETRY_AFTER_SECONDS : status === 503 ? DATABASE_RETRY_AFTER_SECONDS : undefined;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${retryAfter === undefined ? '' : `Retry-After: ${retryAfter}\r\n`}` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The headers a context reads credentials from: the upgrade's, then those the client put in connection_init. */
function credentialHeaders(
  request: http.IncomingMessage,
  params: Readonly<Record<string, unknown>> | undefined,
  trustedOrigins: Set<string>,
): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { ...request.headers };
  for (const [name, value] of Object.entries(params ?? {})) {
    const key = name.toLowerCase();
    if ((key === 'x-api-key' || key === 'authorization') && typeof value === 'string') headers[key] = value;
  }
  if (!sameOriginOrTrusted(request, trustedOrigins)) delete headers.cookie;
  return headers;
}

function sameOriginOrTrusted(request: http.IncomingMessage, trustedOrigins: Set<string>): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true; // not a browser page
  if (trustedOrigins.has(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
