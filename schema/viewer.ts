import { z } from 'zod';
import { builder } from './builder.ts';
import { requireViewer, type RequestContext } from '../src/context.ts';
import { AppError } from '../src/errors.ts';
import { parseExpiry } from '../src/auth/api-keys.ts';
import type { ApiKey as ApiKeyModel } from '../src/generated/prisma/client.ts';

const Organization = builder.prismaObject('Organization', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('User', {
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    role: t.exposeString('role', { description: '`admin` or `member`.' }),
    organizations: t.field({
      type: [Organization],
      resolve: (user, _args, ctx) => ctx.services.organizations.listForUser(user.id),
    }),
  }),
});

const ApiKey = builder.prismaObject('ApiKey', {
  description: 'An API key. The secret is shown once, when created; only its hash is stored.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The visible start of the key, e.g. `sk_1a2b3c4d`.' }),
    scopes: t.exposeStringList('scopes'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    active: t.boolean({ resolve: (key) => !key.revokedAt && (!key.expiresAt || key.expiresAt > new Date()) }),
  }),
});

const Viewer = builder.simpleObject('Viewer', {
  description: 'Who the request is authenticated as.',
  fields: (t) => ({
    credential: t.string({ description: '`api_key`, `session` or `access_token`.' }),
    scopes: t.stringList(),
  }),
});

builder.objectField(Viewer, 'user', (t) =>
  t.prismaField({
    type: 'User',
    resolve: (query, _parent, _args, ctx) => ctx.services.prisma.user.findUniqueOrThrow({ ...query, where: { id: requireViewer(ctx).user.id } }),
  }),
);

builder.queryFields((t) => ({
  me: t.field({
    type: Viewer,
    authScopes: { authenticated: true },
    resolve: (_parent, _args, ctx) => {
      const viewer = requireViewer(ctx);
      return { credential: viewer.credential.kind, scopes: [...viewer.scopes] };
    },
  }),
  apiKeys: t.prismaField({
    type: [ApiKey],
    description: "The signed-in user's API keys, newest first.",
    authScopes: { authenticated: true },
    resolve: (query, _parent, _args, ctx) =>
      ctx.services.prisma.apiKey.findMany({ ...query, where: { userId: requireViewer(ctx).user.id }, orderBy: { createdAt: 'desc' } }),
  }),
}));

const CreatedApiKey = builder.objectRef<{ key: string; record: ApiKeyModel }>('CreatedApiKey').implement({
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The secret (`sk_` + 32 hex). Shown this once; store it now.' }),
    apiKey: t.field({ type: ApiKey, resolve: (parent) => parent.record }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true, validate: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters') }),
    scopes: t.stringList({
      required: true,
      description: 'Any of read:pnl, read:returns, write:upload, read:workspace, write:workspace, admin (admin only for admin users).',
      validate: z.array(z.string()).min(1, 'at least one scope is required').max(6, 'at most 6 scopes'),
    }),
    expiresIn: t.string({
      description: 'A duration (`30d`, `12h`, `2w`) or an ISO timestamp; omit for a key that does not expire.',
      validate: z.string().max(40, 'must be at most 40 characters'),
    }),
  }),
});

/** Keys are managed from a signed-in browser session: a key must not be able to mint keys. */
function requireSession(ctx: RequestContext) {
  const viewer = requireViewer(ctx);
  if (viewer.credential.kind !== 'session') throw new AppError('FORBIDDEN', 'API keys can only be managed from a signed-in session');
  return viewer;
}

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_parent, { input }, ctx) => {
      const viewer = requireSession(ctx);
      const expiresAt = input.expiresIn ? parseExpiry(input.expiresIn) : null;
      const { secret, record } = await ctx.services.apiKeys.create({ userId: viewer.user.id, name: input.name, scopes: input.scopes, expiresAt });
      return { key: secret, record };
    },
  }),
  revokeApiKey: t.prismaField({
    type: ApiKey,
    authScopes: { authenticated: true },
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_query, _parent, args, ctx) => ctx.services.apiKeys.revoke({ id: args.id, userId: requireSession(ctx).user.id }),
  }),
}));
