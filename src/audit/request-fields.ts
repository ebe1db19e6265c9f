/**
 * What an audit event says about the request it came from: the front, the actor and credential,
 * the client's address and user agent, the request and trace ids. Read from the request context,
 * which every front builds (src/context.ts); the transport and the user agent are remembered beside
 * it (rememberOrigin) by whoever built it from an HTTP request or a WebSocket.
 */
import { trace } from '@opentelemetry/api';
import type { RequestContext, Viewer } from '../context.ts';
import type { AuditCredential, AuditEventInput, AuditFront } from './types.ts';

export interface RequestOrigin {
  /** http: a request of its own; websocket: an operation on a graphql-ws socket. */
  transport: 'http' | 'websocket';
  userAgent: string | null;
}

const origins = new WeakMap<object, RequestOrigin>();

/** Called where a request context is made (server/http/request-context.ts, server/http/graphql-ws.ts). */
export function rememberOrigin(ctx: object, origin: RequestOrigin): void {
  origins.set(ctx, origin);
}

export function userAgentOf(headers: { 'user-agent'?: string | string[] }): string | null {
  const value = headers['user-agent'];
  const text = Array.isArray(value) ? value[0] : value;
  return text ? text.slice(0, 300) : null;
}

type ContextFields = Pick<RequestContext, 'front' | 'viewer' | 'clientAddress' | 'requestId'>;

/**
 * The audit front: rest and mcp as the context says; GraphQL over a WebSocket is graphql-ws, and
 * GraphQL with a browser session is the dashboard (the service's own web front).
 */
export function auditFront(ctx: ContextFields, origin = origins.get(ctx)): AuditFront {
  if (ctx.front !== 'graphql') return ctx.front;
  if (origin?.transport === 'websocket') return 'graphql-ws';
  return ctx.viewer?.credential.kind === 'session' ? 'dashboard' : 'graphql';
}

export function auditCredential(viewer: Viewer | null): AuditCredential | null {
  if (!viewer) return null;
  const { kind, id } = viewer.credential;
  return { kind: kind === 'oauth_token' ? 'oauth_app' : kind, id };
}

/**
 * graphql-yoga runs /graphql operations with a context of its own that carries our fields and the
 * node request (`req`), so the origin remembered for our context object is not found there.
 */
function serverRequestUserAgent(ctx: object): string | null {
  const req = (ctx as { req?: { headers?: Record<string, string | string[] | undefined> } }).req;
  return req?.headers ? userAgentOf(req.headers) : null;
}

/** The active span's trace id, when tracing is on. */
export function currentTraceId(): string | null {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? span.traceId : null;
}

/** Every field of an event that the request context gives. */
export function requestFields(
  ctx: ContextFields,
): Pick<AuditEventInput, 'front' | 'actorId' | 'credential' | 'clientAddress' | 'userAgent' | 'requestId' | 'traceId'> {
  const origin = origins.get(ctx);
  return {
    front: auditFront(ctx, origin),
    actorId: ctx.viewer?.user.id ?? null,
    credential: auditCredential(ctx.viewer),
    clientAddress: ctx.clientAddress,
    userAgent: origin?.userAgent ?? serverRequestUserAgent(ctx),
    requestId: ctx.requestId,
    traceId: currentTraceId(),
  };
}
