// GraphQL surface of per-client usage and of the callers of deprecated things (docs/usage-and-deprecation.md).
import { builder } from './builder.ts';
import { forwardPage, toConnection } from './pagination.ts';
import { decodeCursor, encodeCursor, keysetPage, PAGE_SIZES } from '../src/pagination.ts';
import { unauthenticatedError, type RequestContext } from '../src/context.ts';
import { grants } from '../src/auth/scopes.ts';
import { percentileMs } from '../src/usage/latency-histogram.ts';
import type { StoredUsageRow, UsagePosition, UsageReader } from '../src/usage/usage-store.ts';
import type { CredentialCalls, DeprecatedSubjectCallers } from '../src/usage/deprecation-catalog.ts';
import { DEFAULT_DEPRECATION_LINK } from '../src/usage/deprecation.ts';

interface CredentialRef {
  kind: string;
  id: string;
  name: string | null;
  prefix: string | null;
}

const UsageCredentialRef = builder.objectRef<CredentialRef>('UsageCredential').implement({
  description: 'The credential requests were made with: never its secret.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'api_key, access_token, oauth_token (an OAuth app: its grant) or session (a browser).' }),
    id: t.exposeString('id', { description: "The API key's or access token's id, the OAuth grant's id, or for a session the user's id." }),
    name: t.exposeString('name', { nullable: true, description: "The key's or token's name, or the OAuth app's registered name." }),
    prefix: t.exposeString('prefix', { nullable: true, description: "The key's or token's public prefix." }),
  }),
});

const UsageGranularityEnum = builder.enumType('UsageGranularity', { values: ['hour', 'day'] as const });
const UsageFrontEnum = builder.enumType('UsageFront', { values: ['graphql', 'rest', 'mcp'] as const });

const UsageErrorCountRef = builder.objectRef<{ code: string; count: number }>('UsageErrorCount').implement({
  fields: (t) => ({ code: t.exposeString('code'), count: t.exposeInt('count') }),
});

const UsageRecordRef = builder.objectRef<StoredUsageRow>('UsageRecord').implement({
  description: 'The requests of one credential through one front and operation in one hour or day, every instance together.',
  fields: (t) => ({
    granularity: t.field({ type: UsageGranularityEnum, resolve: (row) => row.granularity }),
    bucketStart: t.expose('bucketStart', { type: 'DateTime', description: 'The hour or day (UTC) counted.' }),
    credential: t.field({ type: UsageCredentialRef, resolve: credentialOf }),
    userId: t.expose('userId', { type: 'UUID', description: "The credential's owner." }),
    front: t.exposeString('front', { description: 'graphql, rest or mcp.' }),
    operation: t.exposeString('operation', {
      description: "The GraphQL operation's name (a REST route's or MCP tool's operation: the OpenAPI operationId's root).",
    }),
    requests: t.exposeInt('requests'),
    errors: t.exposeInt('errors', { description: 'Requests answered with an error (rate-limit refusals included).' }),
    errorCodes: t.field({
      type: [UsageErrorCountRef],
      description: 'The errors by code, most frequent first.',
      resolve: (row) =>
        Object.entries(row.errorCodes)
          .map(([code, count]) => ({ code, count }))
          .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
    }),
    rateLimited: t.exposeInt('rateLimited', { description: 'Requests refused for a spent rate budget (RATE_LIMITED, HTTP 429).' }),
    p50Ms: t.float({
      nullable: true,
      description: 'Median latency in ms, as the upper bound of its histogram bucket (buckets √2 apart: at most 41 % over the true value).',
      resolve: (row) => percentileMs(row.latencyBuckets, 0.5),
    }),
    p95Ms: t.float({ nullable: true, description: '95th percentile latency in ms, as p50Ms.', resolve: (row) => percentileMs(row.latencyBuckets, 0.95) }),
    firstSeenAt: t.expose('firstSeenAt', { type: 'DateTime', description: 'The first request of the bucket.' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', description: 'The last request of the bucket.' }),
  }),
});

const DeprecatedCallerRef = builder.objectRef<CredentialCalls>('DeprecatedCaller').implement({
  description: 'A credential that called a deprecated field, route or tool.',
  fields: (t) => ({
    credential: t.field({
      type: UsageCredentialRef,
      resolve: (calls) => ({ kind: calls.credentialKind, id: calls.credentialId, name: calls.credentialName, prefix: calls.credentialPrefix }),
    }),
    userId: t.expose('userId', { type: 'UUID', description: "The credential's owner." }),
    calls: t.exposeInt('calls', { description: 'Its calls since its first one that is still kept (USAGE_DAILY_RETENTION).' }),
    lastCalledAt: t.expose('lastCalledAt', { type: 'DateTime' }),
    fronts: t.exposeStringList('fronts', { description: 'The fronts it called through.' }),
  }),
});

const DeprecatedUsageRef = builder.objectRef<DeprecatedSubjectCallers>('DeprecatedUsage').implement({
  description: 'A deprecated schema field, REST route or MCP tool, and who still calls it.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'field, route or tool.' }),
    name: t.exposeString('name', { description: "`Type.field`, `METHOD /path`, or the tool's name." }),
    reason: t.string({ description: 'What to use instead.', resolve: (subject) => subject.deprecation.reason }),
    since: t.field({ type: 'Date', description: 'When it was deprecated.', resolve: (subject) => subject.deprecation.since }),
    sunset: t.field({ type: 'Date', description: 'When it may stop working.', resolve: (subject) => subject.deprecation.sunset }),
    link: t.string({ description: 'Where the deprecation is documented.', resolve: (subject) => subject.deprecation.link ?? DEFAULT_DEPRECATION_LINK }),
    callers: t.field({
      type: [DeprecatedCallerRef],
      description: 'The credentials the viewer may see that called it in the last 30 days, the most recent first.',
      resolve: (subject) => subject.callers,
    }),
  }),
});

/** Whose usage the viewer sees: their own credentials', and as an admin (the admin role and scope) every member's of their organizations. */
export function usageReader(ctx: Pick<RequestContext, 'viewer' | 'credentialProblem'>): UsageReader {
  const viewer = ctx.viewer;
  if (!viewer) throw unauthenticatedError(ctx);
  return { userId: viewer.user.id, orgAdmin: viewer.user.role === 'admin' && grants(viewer.scopes, 'admin') };
}

function credentialOf(row: StoredUsageRow): CredentialRef {
  return { kind: row.credentialKind, id: row.credentialId, name: row.credentialName, prefix: row.credentialPrefix };
}

function usageCursor(row: StoredUsageRow): string {
  return encodeCursor({ at: row.bucketStart.toISOString(), kind: row.credentialKind, id: row.credentialId, front: row.front, operation: row.operation });
}

function readPosition(fields: Record<string, unknown>): UsagePosition | undefined {
  const { at, kind, id, front, operation } = fields;
  if (typeof at !== 'string' || typeof kind !== 'string' || typeof id !== 'string' || typeof front !== 'string' || typeof operation !== 'string')
    return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : { at: date, credentialKind: kind, credentialId: id, front, operation };
}

builder.queryFields((t) => ({
  usage: t.withAuth({ authenticated: true }).connection({
    type: UsageRecordRef,
    pageSize: PAGE_SIZES.usage,
    description:
      "Per-client usage, newest bucket first: the viewer's own credentials, and as an admin (the admin role and scope) those of every member of the viewer's organizations. Counts are written by each instance every USAGE_FLUSH_INTERVAL.",
    args: {
      credential: t.arg.string({ required: false, description: "Only this credential (its id: an API key's or access token's, an OAuth grant's)." }),
      operation: t.arg.string({ required: false, description: 'Only this operation.' }),
      front: t.arg({ type: UsageFrontEnum, required: false, description: 'Only this front.' }),
      since: t.arg({ type: 'DateTime', required: false, description: 'Only buckets that end after this time (the bucket holding it counts whole).' }),
      until: t.arg({ type: 'DateTime', required: false, description: 'Only buckets that start before this time.' }),
      granularity: t.arg({
        type: UsageGranularityEnum,
        required: false,
        defaultValue: 'hour',
        description: 'Hourly (kept 14 days by default) or daily (400 days) buckets.',
      }),
    },
    resolve: async (_parent, args, ctx, info) => {
      const { limit, cursor } = forwardPage(args, info);
      const after = cursor === null ? null : decodeCursor(cursor, readPosition, 'list');
      const filter = {
        granularity: args.granularity ?? 'hour',
        credentialId: args.credential ?? undefined,
        operation: args.operation ?? undefined,
        front: args.front ?? undefined,
        since: args.since ?? undefined,
        until: args.until ?? undefined,
      };
      const rows = await ctx.services.usage.list(usageReader(ctx), filter, limit, after);
      return toConnection(keysetPage(rows, limit, usageCursor), usageCursor);
    },
  }),
  deprecatedUsage: t.withAuth({ authenticated: true }).field({
    type: [DeprecatedUsageRef],
    description:
      'Every deprecated schema field, REST route and MCP tool, with the credentials (those the viewer may see, as for `usage`) that called it in the last 30 days.',
    resolve: (_parent, _args, ctx) => ctx.services.usage.deprecated(usageReader(ctx)),
  }),
}));
