import { builder } from './builder.ts';
import { AppError } from '../src/errors.ts';
import type { ConnectedApp } from '../src/auth/oauth/oauth-service.ts';
import { requireSession } from './viewer.ts';

/**
 * Applications the user authorized through the MCP endpoint's OAuth server (src/auth/oauth): one
 * per client and resource, with the scopes the user chose. Listed and revoked from a browser
 * session, next to the personal access tokens; revoking ends every token issued to it at once.
 */
const ConnectedAppType = builder.objectRef<ConnectedApp>('ConnectedApp').implement({
  description: 'An application (an MCP host) the signed-in user authorized with OAuth to call the JSON-RPC tool endpoint.',
  fields: (t) => ({
    id: t.expose('id', { type: 'UUID' }),
    clientName: t.exposeString('clientName', { nullable: true, description: 'The name the application registered with (its own claim).' }),
    clientUri: t.exposeString('clientUri', { nullable: true, description: 'The website the application registered with (its own claim).' }),
    scopes: t.exposeStringList('scopes', { description: 'The scopes the user granted.' }),
    resource: t.exposeString('resource', { description: 'The endpoint its tokens are valid for.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'When one of its access tokens was last used (to the minute).' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    active: t.boolean({ resolve: (app) => app.revokedAt === null }),
  }),
});

builder.queryField('connectedApps', (t) =>
  t.withAuth({ authenticated: true }).field({
    type: [ConnectedAppType],
    description: 'The applications the signed-in user authorized with OAuth, newest first, revoked ones included (from a browser session only; at most 200).',
    resolve: (_parent, _args, ctx) => ctx.services.oauth.connectedApps(requireSession(ctx, 'connected app').user.id),
  }),
);

builder.mutationField('revokeConnectedApp', (t) =>
  t.withAuth({ authenticated: true }).field({
    type: ConnectedAppType,
    description:
      "Revokes one of the signed-in user's connected applications (from a browser session only): its access and refresh tokens stop working at once. Revoking twice is harmless.",
    args: { id: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_parent, { id }, ctx) => {
      const revoked = await ctx.services.oauth.revokeConnectedApp(requireSession(ctx, 'connected app').user.id, id);
      if (!revoked) throw AppError.notFound('Connected app');
      return revoked;
    },
  }),
);
