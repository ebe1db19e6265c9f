/** `key:*` (API keys) and `token:*` (personal access tokens): one set of commands for both kinds. */
import { SCOPES, scopesForRole } from '../../auth/scopes.ts';
import { findUser, type CliAuditFacts, type Command } from '../command.ts';
import { CommandError, UsageError } from '../errors.ts';
import { load } from '../load.ts';
import { output, table } from '../output.ts';

/** What differs between API keys (`key:*`) and personal access tokens (`token:*`). */
const CREDENTIAL_CLI = {
  api_key: { command: 'key', label: 'API key', plural: 'API keys', tag: 'sk_', usage: 'Send it in the x-api-key header:', scopesRequired: true },
  access_token: {
    command: 'token',
    label: 'access token',
    plural: 'access tokens',
    tag: 'pat_',
    usage: 'Send it as Authorization: Bearer <token> (e.g. to the JSON-RPC tool endpoint /api/service):',
    scopesRequired: false,
  },
} as const;

/** `<command>:create`, `<command>:revoke` and `<command>:list` for one kind of credential. */
export function credentialCommands(kind: 'api_key' | 'access_token'): Record<string, Command> {
  const { command, label, plural, tag, usage, scopesRequired } = CREDENTIAL_CLI[kind];
  return {
    [`${command}:create`]: {
      summary: `create an ${label}`,
      options: { email: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' } },
      required: scopesRequired ? ['email', 'scopes'] : ['email'],
      async run(ctx) {
        const { values } = ctx;
        const { ApiKeyService, parseExpiry } = await load.apiKeys();
        const expiresAt = typeof values['expires-in'] === 'string' ? parseExpiry(values['expires-in']) : null;
        const db = await ctx.database();
        const user = await findUser(db, String(values.email));
        const scopes =
          typeof values.scopes === 'string'
            ? values.scopes
                .split(',')
                .map((scope) => scope.trim())
                .filter((scope) => scope.length > 0)
            : scopesForRole(user.role).filter((scope) => scope !== 'admin');
        if (scopes.length === 0) throw new UsageError(`--scopes needs a comma-separated list of ${SCOPES.join(', ')}`);
        const name = typeof values.name === 'string' ? values.name : `cli ${new Date().toISOString().slice(0, 10)}`;
        const { secret, record } = await new ApiKeyService(db.prisma, ctx.config.auth.maxActiveCredentials).create({
          userId: user.id,
          name,
          scopes,
          expiresAt,
          kind,
        });
        return output(
          ctx.json,
          [
            `Created ${label} ${record.prefix} "${record.name}" for ${user.email}`,
            `scopes: ${record.scopes.join(', ')}; expires: ${record.expiresAt ? record.expiresAt.toISOString() : 'never'}`,
            `The ${kind === 'api_key' ? 'key' : 'token'} is shown only now (it is stored as a hash). ${usage}`,
            secret,
          ],
          {
            [kind === 'api_key' ? 'key' : 'token']: secret,
            id: record.id,
            prefix: record.prefix,
            name: record.name,
            scopes: record.scopes,
            expiresAt: record.expiresAt?.toISOString() ?? null,
            user: { id: user.id, email: user.email },
          },
        );
      },
      audit: credentialAudit,
    },

    [`${command}:revoke`]: {
      summary: `revoke an ${label}`,
      options: { prefix: { type: 'string' } },
      required: ['prefix'],
      async run(ctx) {
        const prefix = String(ctx.values.prefix).trim();
        const { ApiKeyService, isKeyPrefix } = await load.apiKeys();
        if (!isKeyPrefix(prefix, kind)) {
          throw new CommandError(`Invalid prefix: expected ${tag} followed by 8 hex characters, as ${command}:list shows it`);
        }
        const db = await ctx.database();
        const before = await db.prisma.apiKey.findFirst({ where: { prefix, kind }, include: { user: { select: { email: true } } } });
        if (!before) throw new CommandError(`${label === 'API key' ? 'API key' : 'Access token'} ${prefix} not found`);
        const key = await new ApiKeyService(db.prisma).revoke({ prefix, kind });
        const already = before.revokedAt !== null;
        return output(
          ctx.json,
          [`${already ? 'Already revoked' : 'Revoked'}: ${key.prefix} "${key.name}" of ${before.user.email} (at ${key.revokedAt?.toISOString()})`],
          {
            id: key.id,
            prefix: key.prefix,
            name: key.name,
            user: { id: key.userId, email: before.user.email },
            revokedAt: key.revokedAt?.toISOString() ?? null,
            alreadyRevoked: already,
          },
        );
      },
      // Revoking a revoked one changes nothing.
      audit: (data) => (data.alreadyRevoked ? null : credentialAudit(data)),
    },

    [`${command}:list`]: {
      summary: `list a user's ${plural}`,
      options: { email: { type: 'string' } },
      required: ['email'],
      async run(ctx) {
        const db = await ctx.database();
        const user = await findUser(db, String(ctx.values.email));
        const { ApiKeyService } = await load.apiKeys();
        const now = new Date();
        const keys = (await new ApiKeyService(db.prisma).list(user.id, kind)).map((key) => ({
          id: key.id,
          prefix: key.prefix,
          name: key.name,
          scopes: key.scopes,
          state: key.revokedAt ? 'revoked' : key.expiresAt && key.expiresAt <= now ? 'expired' : 'active',
          createdAt: key.createdAt.toISOString(),
          expiresAt: key.expiresAt?.toISOString() ?? null,
          revokedAt: key.revokedAt?.toISOString() ?? null,
          lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        }));
        const lines =
          keys.length === 0
            ? [`${user.email} has no ${plural}`]
            : table(
                ['PREFIX', 'NAME', 'SCOPES', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED'],
                keys.map((key) => [
                  key.prefix,
                  key.name,
                  key.scopes.join(','),
                  key.state,
                  key.createdAt.slice(0, 16).replace('T', ' '),
                  key.expiresAt ? key.expiresAt.slice(0, 16).replace('T', ' ') : 'never',
                  key.lastUsedAt ? key.lastUsedAt.slice(0, 16).replace('T', ' ') : '-',
                ]),
              );
        return output(ctx.json, lines, { user: { id: user.id, email: user.email }, [kind === 'api_key' ? 'keys' : 'tokens']: keys });
      },
    },
  };
}

/** A key or token created or revoked: the credential, about its user. */
function credentialAudit(data: Record<string, unknown>): CliAuditFacts {
  const user = data.user as { id: string };
  return { target: { type: 'ApiKey', id: String(data.id) }, subjectUserId: user.id };
}
