import { z } from 'zod';
import { builder } from './builder.ts';
import type { AuthenticatedContext, Viewer as ViewerShape } from '../src/context.ts';
import { AppError } from '../src/errors.ts';
import { parseExpiry, type CredentialSecretKind } from '../src/auth/api-keys.ts';
import { SCOPES } from '../src/auth/scopes.ts';
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

/** `me`: the request's viewer itself, so its fields read who it is from their parent. */
const Viewer = builder.objectRef<ViewerShape>('Viewer').implement({
  description: 'Who the request is authenticated as.',
  fields: (t) => ({
    credential: t.string({ description: '`api_key`, `session` or `access_token`.', resolve: (viewer) => viewer.credential.kind }),
    scopes: t.stringList({ resolve: (viewer) => [...viewer.scopes] }),
    user: t.prismaField({
      type: 'User',
      resolve: (query, viewer, _args, ctx) => ctx.services.organizations.user(viewer.user.id, query),
    }),
    passwordRequired: t.boolean({
      description:
        'Whether createApiKey and createAccessToken from this session need `currentPassword`: true for a session of a user with a password. ' +
        'A session of a user without one (an external identity provider) creates credentials that expire no later than the session. False for other credentials, which cannot create any.',
      resolve: (viewer, _args, ctx) => (viewer.credential.kind === 'session' ? ctx.services.apiKeys.sessionNeedsPassword(viewer.user.id) : false),
    }),
  }),
});

builder.queryFields((t) => ({
  me: t.withAuth({ authenticated: true }).field({
    type: Viewer,
    resolve: (_parent, _args, ctx) => ctx.viewer,
  }),
}));

/**
 * API keys and personal access tokens (src/auth/api-keys.ts): the same record, two kinds, each
 * with its own type, list, create and revoke operations. Both are managed from a signed-in
 * browser session (or the CLI): a key or token must not be able to mint more.
 */
interface CredentialNames {
  kind: CredentialSecretKind;
  type: 'ApiKey' | 'AccessToken';
  /** `apiKey` / `accessToken`, for the field names. */
  field: 'apiKey' | 'accessToken';
  label: string;
  /** `an API key`, `a personal access token`. */
  aLabel: string;
  secretForm: string;
  usage: string;
}

const CREDENTIALS: CredentialNames[] = [
  {
    kind: 'api_key',
    type: 'ApiKey',
    field: 'apiKey',
    label: 'API key',
    aLabel: 'an API key',
    secretForm: '`sk_` + 32 hex',
    usage: 'Send it in the `x-api-key` header.',
  },
  {
    kind: 'access_token',
    type: 'AccessToken',
    field: 'accessToken',
    label: 'personal access token',
    aLabel: 'a personal access token',
    secretForm: '`pat_` + 32 hex',
    usage: 'Send it as `Authorization: Bearer <token>` (the JSON-RPC tool endpoint /api/service, and any other endpoint).',
  },
];

/** Keys and tokens are managed from a signed-in browser session: a key must not be able to mint keys. */
export function requireSession(ctx: AuthenticatedContext, label: string) {
  if (ctx.viewer.credential.kind !== 'session') throw new AppError('FORBIDDEN', `${capitalise(label)}s can only be managed from a signed-in session`);
  return ctx.viewer;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

for (const names of CREDENTIALS) defineCredential(names);

function defineCredential({ kind, type, field, label, aLabel, secretForm, usage }: CredentialNames) {
  const Credential = builder.prismaObject('ApiKey', {
    variant: type,
    description: `${capitalise(aLabel)}. The secret is shown once, when created; only its hash is stored.`,
    fields: (t) => ({
      id: t.expose('id', { type: 'UUID' }),
      name: t.exposeString('name'),
      prefix: t.exposeString('prefix', { description: `The visible start of the secret, e.g. \`${kind === 'api_key' ? 'sk_' : 'pat_'}1a2b3c4d\`.` }),
      scopes: t.exposeStringList('scopes'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
      lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
      active: t.boolean({ resolve: (key) => !key.revokedAt && (!key.expiresAt || key.expiresAt > new Date()) }),
    }),
  });

  const Created = builder.objectRef<{ key: string; record: ApiKeyModel }>(`Created${type}`).implement({
    fields: (t) => ({
      key: t.exposeString('key', { description: `The secret (${secretForm}). Shown this once; store it now. ${usage}` }),
      [field]: t.field({ type: Credential, resolve: (parent) => parent.record }),
    }),
  });

  const CreateInput = builder.inputType(`Create${type}Input`, {
    fields: (t) => ({
      name: t.string({ required: true, validate: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters') }),
      scopes: t.stringList({
        required: true,
        description: `Any of ${SCOPES.join(', ')} (admin only for admin users).`,
        validate: z.array(z.string()).min(1, 'at least one scope is required').max(SCOPES.length, `at most ${SCOPES.length} scopes`),
      }),
      expiresIn: t.string({
        description: `A duration (\`30d\`, \`12h\`, \`2w\`) or an ISO timestamp; omit for ${aLabel} that does not expire.`,
        validate: z.string().max(40, 'must be at most 40 characters'),
      }),
    }),
  });

  builder.queryField(`${field}s`, (t) =>
    t.withAuth({ authenticated: true }).prismaField({
      type: [Credential],
      description: `The signed-in user's ${label}s, newest first (from a browser session only).`,
      resolve: (query, _parent, _args, ctx) => ctx.services.apiKeys.list(requireSession(ctx, label).user.id, kind, query),
    }),
  );

  builder.mutationField(`create${type}`, (t) =>
    t.withAuth({ authenticated: true }).field({
      type: Created,
      description:
        `Creates ${aLabel} for the signed-in user (from a browser session only). A user with a password confirms it in \`currentPassword\` ` +
        `(missing or wrong: FORBIDDEN; each check counts against the sign-in budget); for a user without one the ${label} expires no later than the session. ` +
        `A user holds at most MAX_${kind === 'api_key' ? 'API_KEYS' : 'ACCESS_TOKENS'}_PER_USER active ${label}s (more: CONFLICT).`,
      args: {
        input: t.arg({ type: CreateInput, required: true }),
        currentPassword: t.arg.string({ description: "The signed-in user's password: a session cannot mint a credential that outlives it without it." }),
      },
      resolve: async (_parent, { input, currentPassword }, ctx) => {
        const viewer = requireSession(ctx, label);
        const { secret, record } = await ctx.services.apiKeys.createFromSession(
          {
            budgets: ctx.budgets,
            userId: viewer.user.id,
            session: { expiresAt: viewer.session?.expiresAt ?? null, ttlMs: ctx.services.config.auth.sessionTtlMs },
            currentPassword,
            requestedExpiry: input.expiresIn ? parseExpiry(input.expiresIn) : null,
            aLabel,
          },
          { name: input.name, scopes: input.scopes, kind },
        );
        return { key: secret, record };
      },
    }),
  );

  builder.mutationField(`revoke${type}`, (t) =>
    t.withAuth({ authenticated: true }).prismaField({
      type: Credential,
      description: `Revokes one of the signed-in user's ${label}s (from a browser session only); revoking twice is harmless.`,
      args: { id: t.arg({ type: 'UUID', required: true }) },
      resolve: async (_query, _parent, args, ctx) => ctx.services.apiKeys.revoke({ id: args.id, userId: requireSession(ctx, label).user.id, kind }),
    }),
  );
}
