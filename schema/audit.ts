// GraphQL surface of the audit log (docs/audit.md): the auditEvents connection.
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { PAGE_SIZES } from '../src/pagination.ts';
import { unauthenticatedError, type RequestContext } from '../src/context.ts';
import { grants } from '../src/auth/scopes.ts';
import { auditCursor, type AuditAudience } from '../src/audit/queries.ts';
import type { AuditEvent } from '../src/audit/types.ts';

const AuditCredentialRef = builder.objectRef<{ kind: string; id: string | null; prefix: string | null }>('AuditCredential').implement({
  description: 'The credential an audit event was made with: never its secret.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key, access_token, oauth_app (an OAuth grant), session (a browser) or cli.' }),
    id: t.exposeString('id', { nullable: true, description: "The credential's id (an API key's, an OAuth grant's; a session's user)." }),
    prefix: t.exposeString('prefix', { nullable: true, description: "Its public prefix (an API key's sk_..., an OAuth app's client id)." }),
  }),
});

const AuditTargetRef = builder.objectRef<{ type: string; id: string }>('AuditTarget').implement({
  description: 'What a mutation changed: its GraphQL type and id.',
  fields: (t) => ({
    type: t.exposeString('type'),
    id: t.exposeString('id'),
  }),
});

const AuditEventRef = builder.objectRef<AuditEvent>('AuditEvent').implement({
  description: 'One event of the audit log (docs/audit.md): who did what, through which front, with which outcome.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    organizationId: t.expose('organizationId', { type: 'UUID', nullable: true }),
    actorId: t.expose('actorId', { type: 'UUID', nullable: true, description: 'The user who acted (null: not authenticated, or the service itself).' }),
    credential: t.field({
      type: AuditCredentialRef,
      nullable: true,
      resolve: (event) => (event.credentialKind ? { kind: event.credentialKind, id: event.credentialId, prefix: event.credentialPrefix } : null),
    }),
    front: t.exposeString('front', { description: 'rest, graphql, graphql-ws, dashboard, mcp, cli, web (sign-in and OAuth pages) or system.' }),
    operation: t.exposeString('operation', {
      description:
        'A REST route template (`POST /api/stickies`), an MCP tool (`tool create_sticky`), a GraphQL operation and field (`CreateSticky.createSticky`), or an event (`sign-in`).',
    }),
    target: t.field({
      type: AuditTargetRef,
      nullable: true,
      resolve: (event) => (event.targetType && event.targetId ? { type: event.targetType, id: event.targetId } : null),
    }),
    outcome: t.exposeString('outcome', { description: '`ok`, or the error code.' }),
    clientAddress: t.exposeString('clientAddress', { nullable: true }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    requestId: t.exposeString('requestId', { nullable: true }),
    traceId: t.exposeString('traceId', { nullable: true }),
    variables: t.expose('variables', { type: 'JSON', nullable: true, description: 'The variables, secrets and free text redacted (docs/audit.md#redaction).' }),
    chain: t.exposeString('chain', { description: "The hash chain the event is in: its organization's id, or `none`." }),
    seq: t.exposeInt('seq', { description: 'Its place in the chain.' }),
    hash: t.exposeString('hash', { description: "sha256 of the previous event's hash and this event's canonical JSON." }),
  }),
});

/**
 * Whose events the viewer sees: their own, and every event of the organizations they administer
 * (an admin user whose credential has the admin scope).
 */
export async function auditAudience(ctx: Pick<RequestContext, 'viewer' | 'credentialProblem' | 'organizationIds'>): Promise<AuditAudience> {
  const viewer = ctx.viewer;
  if (!viewer) throw unauthenticatedError(ctx);
  const administers = viewer.user.role === 'admin' && grants(viewer.scopes, 'admin');
  return { userId: viewer.user.id, organizationIds: administers ? [...(await ctx.organizationIds())] : [] };
}

builder.queryField('auditEvents', (t) =>
  t.withAuth({ authenticated: true }).connection({
    type: AuditEventRef,
    pageSize: PAGE_SIZES.auditEvents,
    description:
      "Audit events, newest first: the viewer's own, and every event of the organizations the viewer administers (an admin with the admin scope). Another organization's events are never listed.",
    args: {
      actor: t.arg({ type: 'UUID', required: false, description: 'Only events of this user.' }),
      credential: t.arg.string({ required: false, description: 'Only events made with this credential (its id or public prefix).' }),
      front: t.arg.string({ required: false, description: 'Only events of this front (rest, graphql, graphql-ws, dashboard, mcp, cli, web, system).' }),
      operation: t.arg.string({ required: false, description: 'Only events of this operation, exactly as recorded.' }),
      outcome: t.arg.string({ required: false, description: '`ok`, `error` (any error), or an error code.' }),
      since: t.arg({ type: 'DateTime', required: false, description: 'Only events at or after this time.' }),
      until: t.arg({ type: 'DateTime', required: false, description: 'Only events before this time.' }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const page = await ctx.services.auditEvents.list(await auditAudience(ctx), args, { limit, cursor });
      return toConnection(page, auditCursor);
    },
  }),
);
