import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.ts';
import { OAuthError } from './oauth-error.ts';
import { redirectUriProblem } from './redirect-uris.ts';

/**
 * Dynamic client registration (RFC 7591). Registration is open, as MCP hosts expect: a host
 * registers itself the first time it meets the server. Every client is registered as a public
 * client (`token_endpoint_auth_method: "none"`): a secret handed to anyone who asks would prove
 * nothing, and PKCE binds each code to the client that asked for it. Fields we do not use are
 * not kept.
 *
 * Since anyone may register, what one registration may store is bounded (each field, and the
 * whole record: `MAX_CLIENT_METADATA_BYTES`), and a registration that no user ever approved is
 * deleted after `UNUSED_CLIENT_LIFETIME_MS` (`deleteUnusedClients`, run by the hourly maintenance).
 */
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME_LENGTH = 100;
/** The metadata kept for a client, as JSON (UTF-8): room for every field a real host sends. */
export const MAX_CLIENT_METADATA_BYTES = 4096;
/** A registration without a grant after this long was never used (a flow takes minutes). */
export const UNUSED_CLIENT_LIFETIME_MS = 24 * 3_600_000;
const text = (max: number) => z.string().trim().min(1).max(max, `at most ${max} characters`);

const ClientMetadata = z.object({
  redirect_uris: z.array(z.string()).min(1, 'at least one redirect URI is required').max(MAX_REDIRECT_URIS, `at most ${MAX_REDIRECT_URIS} redirect URIs`),
  client_name: text(MAX_CLIENT_NAME_LENGTH).optional(),
  client_uri: z
    .url({ protocol: /^https?$/ })
    .max(500, 'at most 500 characters')
    .optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: text(500).optional(),
  software_id: text(200).optional(),
  software_version: text(100).optional(),
});

const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ['code'];
  token_endpoint_auth_method: 'none';
  scope?: string;
  software_id?: string;
  software_version?: string;
}

export async function registerClient(prisma: PrismaClient, body: unknown): Promise<RegisteredClient> {
  const parsed = ClientMetadata.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError('invalid_client_metadata', `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
  }
  const grantTypes = metadata.grant_types ?? [...SUPPORTED_GRANT_TYPES];
  const unsupported = grantTypes.filter((type) => !(SUPPORTED_GRANT_TYPES as readonly string[]).includes(type));
  if (unsupported.length > 0 || !grantTypes.includes('authorization_code')) {
    throw new OAuthError(
      'invalid_client_metadata',
      `grant_types must include authorization_code and may include refresh_token; not supported: ${unsupported.join(', ') || '(authorization_code missing)'}`,
    );
  }
  if (metadata.response_types && metadata.response_types.some((type) => type !== 'code')) {
    throw new OAuthError('invalid_client_metadata', 'response_types may only be ["code"]');
  }
  const client: RegisteredClient = {
    client_id: `mcp_${randomBytes(16).toString('hex')}`,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    ...(metadata.client_name ? { client_name: metadata.client_name } : {}),
    ...(metadata.client_uri ? { client_uri: metadata.client_uri } : {}),
    redirect_uris: [...new Set(metadata.redirect_uris)],
    grant_types: [...new Set(grantTypes)],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(metadata.scope ? { scope: metadata.scope } : {}),
    ...(metadata.software_id ? { software_id: metadata.software_id } : {}),
    ...(metadata.software_version ? { software_version: metadata.software_version } : {}),
  };
  const size = Buffer.byteLength(JSON.stringify(client));
  if (size > MAX_CLIENT_METADATA_BYTES) {
    throw new OAuthError(
      'invalid_client_metadata',
      `the metadata to register takes ${size} bytes, more than ${MAX_CLIENT_METADATA_BYTES}: shorten the redirect URIs, client_name, client_uri or scope`,
    );
  }
  await prisma.oAuthClient.create({
    data: { id: client.client_id, name: client.client_name ?? null, redirectUris: client.redirect_uris, metadata: client as unknown as Prisma.InputJsonValue },
  });
  return client;
}

/**
 * Deletes the registrations older than `UNUSED_CLIENT_LIFETIME_MS` that no user approved (no
 * grant, not even a revoked one, which Connected apps still lists). Returns how many.
 */
export async function deleteUnusedClients(prisma: PrismaClient, now = new Date()): Promise<number> {
  const registeredBefore = new Date(now.getTime() - UNUSED_CLIENT_LIFETIME_MS);
  const { count } = await prisma.oAuthClient.deleteMany({ where: { createdAt: { lt: registeredBefore }, grants: { none: {} } } });
  return count;
}

/** A registered client, or null for an unknown (or malformed) client id. */
export async function findClient(prisma: PrismaClient, clientId: string): Promise<RegisteredClient | null> {
  if (!/^mcp_[0-9a-f]{32}$/.test(clientId)) return null;
  const row = await prisma.oAuthClient.findUnique({ where: { id: clientId } });
  return row ? (row.metadata as unknown as RegisteredClient) : null;
}
