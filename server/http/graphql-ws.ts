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
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GetEnvelopedFn } from '@envelop/core';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createContext } from '../../src/context.ts';
import type { Services } from '../../src/services.ts';

export const GRAPHQL_WS_PATH = '/graphql';

type Enveloped = ReturnType<GetEnvelopedFn<object>>;

/** Serves graphql-ws on the server's upgrades to /graphql; returns the function that closes every socket. */
export function attachGraphqlWs(server: http.Server, services: Services, getEnveloped: GetEnvelopedFn<object>): () => Promise<void> {
  const wss = new WebSocketServer({ noServer: true });
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://service').pathname !== GRAPHQL_WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);
  const trustedOrigins = new Set(services.config.cors.origins);
  // gateway_open_streams{transport="graphql-ws"}: one per open WebSocket.
  wss.on('connection', (socket) => socket.once('close', services.metrics.streamOpened('graphql-ws')));
  const disposable = useServer(
    {
      onSubscribe: async (ctx, _id, payload) => {
        const request = ctx.extra.request;
        const requestId = randomUUID();
        const contextValue = await createContext(services, {
          requestId,
          headers: credentialHeaders(request, ctx.connectionParams, trustedOrigins),
          clientAddress: request.socket.remoteAddress ?? 'unknown',
          log: () => services.log.child({ requestId, transport: 'graphql-ws' }),
        });
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
  return async () => {
    server.off('upgrade', onUpgrade);
    await disposable.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}

/** The headers a context reads credentials from: the upgrade's, then those the client put in connection_init. */
function credentialHeaders(request: http.IncomingMessage, params: Readonly<Record<string, unknown>> | undefined, trustedOrigins: Set<string>): IncomingHttpHeaders {
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
