import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { ApiKeyOwner } from '../api-keys.ts';
import { isScope, scopesForRole, type Scope } from '../scopes.ts';
import { deleteUnusedClients, findClient, registerClient, type RegisteredClient } from './client-registration.ts';
import { OAuthError } from './oauth-error.ts';
import { requestedScopes, type AuthorizationRequest } from './authorization-request.ts';

/**
 * The built-in OAuth 2.1 authorization server's state: grants (a user's consent to a client, with
 * the scopes chosen), and the codes and tokens issued under them, stored as SHA-256 hashes.
 * Codes and refresh tokens are single-use; presenting one twice revokes the whole grant (it was
 * copied). A request is checked in full before its code or refresh token is used up, so a refused
 * request changes nothing. Access tokens name the one resource they were issued for and are
 * refused elsewhere, and carry the scopes they were issued with (a refresh may narrow them).
 */
export const OAUTH_LIFETIMES = {
  authorizationCodeSeconds: 60,
  accessTokenSeconds: 3600,
  refreshTokenSeconds: 30 * 24 * 3600,
} as const;

const TOKEN_TAGS = { authorization_code: 'oac_', access_token: 'oat_', refresh_token: 'ort_' } as const;
type TokenType = keyof typeof TOKEN_TAGS;
const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** lastUsedAt is written at most once a minute per grant. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/** Tokens issued, with the grant they belong to (the caller records who got them: the audit log). */
export interface IssuedTokens {
  response: TokenResponse;
  grant: { id: string; userId: string };
}

/** What a revocation (RFC 7009) ended: the whole grant (a refresh token) or one access token. */
export interface Revoked {
  grant: { id: string; userId: string };
  ended: 'grant' | 'access_token';
}

export interface OAuthViewer {
  grantId: string;
  user: ApiKeyOwner;
  scopes: Scope[];
}

export interface ConnectedApp {
  id: string;
  clientName: string | null;
  clientUri: string | null;
  scopes: Scope[];
  resource: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function isOAuthAccessToken(token: string): boolean {
  return tokenBody(token, 'access_token') !== null;
}

export class OAuthService {
  /** Told once of each grant's first use by an access token (server/app.ts records it in the audit log). */
  onFirstUse?: (grant: { id: string; userId: string; clientId: string }) => void;

  constructor(private readonly prisma: PrismaClient) {}

  register(metadata: unknown): Promise<RegisteredClient> {
    return registerClient(this.prisma, metadata);
  }

  /** Registrations nobody approved within a day (run by the hourly maintenance). */
  deleteUnusedClients(now = new Date()): Promise<number> {
    return deleteUnusedClients(this.prisma, now);
  }

  /**
   * Whether the user approved this client before and has not revoked it since: only then may a
   * faulty authorization request be answered at the client's redirect URI (RFC 9700 §4.11.2).
   */
  async hasApproved(userId: string, clientId: string): Promise<boolean> {
    const grant = await this.prisma.oAuthGrant.findFirst({ where: { userId, clientId, revokedAt: null }, select: { id: true } });
    return grant !== null;
  }

  /**
   * The user approved `request` with `chosen` scopes: their grant for this client and resource
   * (the existing one, its scopes replaced, or a new one) and a code for the client.
   */
  async approve(request: AuthorizationRequest, user: ApiKeyOwner, chosen: readonly Scope[]): Promise<string> {
    const allowed = new Set<string>(scopesForRole(user.role));
    const scopes = [...new Set(chosen)].filter((scope) => allowed.has(scope) && request.scopes.includes(scope));
    if (scopes.length === 0) throw new OAuthError('invalid_scope', 'Choose at least one permission to grant');
    const where = { userId: user.id, clientId: request.client.client_id, resource: request.resource, revokedAt: null };
    const existing = await this.prisma.oAuthGrant.findFirst({ where, orderBy: { createdAt: 'desc' } });
    const grant = existing
      ? await this.prisma.oAuthGrant.update({ where: { id: existing.id }, data: { scopes } })
      : await this.prisma.oAuthGrant.create({ data: { userId: user.id, clientId: request.client.client_id, resource: request.resource, scopes } });
    await this.prisma.oAuthToken.deleteMany({ where: { grantId: grant.id, expiresAt: { lt: new Date() } } });
    return this.issue(grant.id, 'authorization_code', OAUTH_LIFETIMES.authorizationCodeSeconds, {
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
    });
  }

  /** The authorization_code grant (OAuth 2.1 §4.1.3), PKCE verified. */
  async exchangeCode(input: {
    clientId: string;
    code: string;
    codeVerifier: string | undefined;
    redirectUri: string | undefined;
    resource: string | undefined;
  }): Promise<IssuedTokens> {
    const client = await this.requireClient(input.clientId);
    if (!input.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    const row = await this.findUnused(input.code, 'authorization_code', client.client_id);
    if (!CODE_VERIFIER.test(input.codeVerifier) || !challengeMatches(input.codeVerifier, row.codeChallenge ?? '')) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    if (input.redirectUri !== undefined && input.redirectUri !== row.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
    if (input.resource !== undefined && input.resource !== row.grant.resource)
      throw new OAuthError('invalid_target', `The code was issued for ${row.grant.resource}`);
    await this.useUp(row);
    return { response: await this.tokensFor(row.grant, client, row.grant.scopes), grant: row.grant };
  }

  /**
   * The refresh_token grant (RFC 6749 §6): a new access token with the scopes asked for (any of
   * the grant's; all of them when `scope` is omitted) and a new refresh token (rotation), which
   * keeps the grant's scopes so that a later refresh may ask for more again, up to the grant's.
   */
  async refresh(input: { clientId: string; refreshToken: string; scope: string | undefined; resource: string | undefined }): Promise<IssuedTokens> {
    const client = await this.requireClient(input.clientId);
    if (!client.grant_types.includes('refresh_token')) throw new OAuthError('unauthorized_client', 'This client did not register the refresh_token grant');
    const row = await this.findUnused(input.refreshToken, 'refresh_token', client.client_id);
    if (input.resource !== undefined && input.resource !== row.grant.resource)
      throw new OAuthError('invalid_target', `The token was issued for ${row.grant.resource}`);
    const scopes = input.scope?.trim() ? narrowedScopes(input.scope, row.grant.scopes) : row.grant.scopes;
    await this.useUp(row);
    return { response: await this.tokensFor(row.grant, client, scopes), grant: row.grant };
  }

  /**
   * RFC 7009: revoking a refresh token ends its grant; an access token ends alone. A token that
   * is unknown, already revoked or another client's is ignored (the answer is the same): null.
   */
  async revoke(clientId: string, token: string): Promise<Revoked | null> {
    const type = tokenType(token);
    if (!type || type === 'authorization_code') return null;
    const row = await this.prisma.oAuthToken.findUnique({ where: { hash: hashToken(token) }, include: { grant: true } });
    if (!row || row.grant.clientId !== clientId) return null;
    if (type === 'refresh_token') await this.endGrant(row.grantId);
    else await this.prisma.oAuthToken.deleteMany({ where: { hash: row.hash } });
    return { grant: row.grant, ended: type === 'refresh_token' ? 'grant' : 'access_token' };
  }

  /** The user and scopes of a live access token issued for `resource`, or null. */
  async verifyAccessToken(token: string, resource: string, now = new Date()): Promise<OAuthViewer | null> {
    if (!isOAuthAccessToken(token)) return null;
    const row = await this.prisma.oAuthToken.findUnique({ where: { hash: hashToken(token) }, include: { grant: { include: { user: true } } } });
    if (!row || row.type !== 'access_token' || row.expiresAt <= now) return null;
    const { grant } = row;
    if (grant.revokedAt || grant.resource !== resource) return null;
    // The token's own scopes (a narrowing refresh), within what the grant still allows.
    const granted = new Set(grant.scopes);
    const carried = issuedScopes(row.scopes) ?? grant.scopes;
    if (!grant.lastUsedAt) {
      // The first use: the one request (of any instance) whose update finds it unused says so.
      const first = await this.prisma.oAuthGrant.updateMany({ where: { id: grant.id, lastUsedAt: null }, data: { lastUsedAt: now } });
      if (first.count === 1) this.onFirstUse?.({ id: grant.id, userId: grant.userId, clientId: grant.clientId });
    } else if (now.getTime() - grant.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.prisma.oAuthGrant.update({ where: { id: grant.id }, data: { lastUsedAt: now } });
    }
    // The role decides what a grant can still do: a user demoted since consenting loses admin.
    const allowed = new Set<string>(scopesForRole(grant.user.role));
    const { user } = grant;
    return {
      grantId: grant.id,
      user: { id: user.id, email: user.email, name: user.name, role: user.role },
      scopes: carried.filter((scope): scope is Scope => isScope(scope) && granted.has(scope) && allowed.has(scope)),
    };
  }

  /** The applications a user has authorized, newest first (revoked ones included, marked). */
  async connectedApps(userId: string): Promise<ConnectedApp[]> {
    const grants = await this.prisma.oAuthGrant.findMany({ where: { userId }, include: { client: true }, orderBy: { createdAt: 'desc' }, take: 200 });
    return grants.map((grant) => toConnectedApp(grant));
  }

  /** Ends one of the user's grants: every token issued under it stops working at once. */
  async revokeConnectedApp(userId: string, grantId: string): Promise<ConnectedApp | null> {
    const grant = await this.prisma.oAuthGrant.findFirst({ where: { id: grantId, userId } });
    if (!grant) return null;
    await this.endGrant(grant.id);
    const ended = await this.prisma.oAuthGrant.findUniqueOrThrow({ where: { id: grant.id }, include: { client: true } });
    return toConnectedApp(ended);
  }

  private async requireClient(clientId: string): Promise<RegisteredClient> {
    const client = await findClient(this.prisma, clientId);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client_id');
    return client;
  }

  /**
   * A live code or refresh token of this client, not yet used; nothing is changed, so the caller
   * can check the rest of the request before `useUp`. A token presented again after its use (a
   * replay, or a copy used by someone else) ends the grant, so whoever holds tokens from it loses
   * them too (OAuth 2.1 §4.1.2, §4.3.1).
   */
  private async findUnused(token: string, type: SingleUseType, clientId: string) {
    const invalid = invalidSingleUse(type);
    if (!tokenBody(token, type)) throw invalid;
    const row = await this.prisma.oAuthToken.findUnique({ where: { hash: hashToken(token) }, include: { grant: true } });
    if (!row || row.type !== type || row.grant.revokedAt) throw invalid;
    if (row.grant.clientId !== clientId) throw new OAuthError('invalid_grant', `The ${SINGLE_USE_LABELS[type]} was issued to another client`);
    if (row.usedAt !== null) {
      await this.endGrant(row.grantId);
      throw invalid;
    }
    if (row.expiresAt <= new Date()) throw invalid;
    return { ...row, type };
  }

  /** Marks a checked code or refresh token used; losing the race to a concurrent use is a replay. */
  private async useUp(row: { hash: string; grantId: string; type: SingleUseType }): Promise<void> {
    const claimed = await this.prisma.oAuthToken.updateMany({ where: { hash: row.hash, usedAt: null }, data: { usedAt: new Date() } });
    if (claimed.count === 0) {
      await this.endGrant(row.grantId);
      throw invalidSingleUse(row.type);
    }
  }

  private async tokensFor(grant: { id: string }, client: RegisteredClient, scopes: readonly string[]): Promise<TokenResponse> {
    const accessToken = await this.issue(grant.id, 'access_token', OAUTH_LIFETIMES.accessTokenSeconds, { scopes });
    const refreshToken = client.grant_types.includes('refresh_token')
      ? await this.issue(grant.id, 'refresh_token', OAUTH_LIFETIMES.refreshTokenSeconds)
      : undefined;
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: OAUTH_LIFETIMES.accessTokenSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: scopes.join(' '),
    };
  }

  private async issue(
    grantId: string,
    type: TokenType,
    lifetimeSeconds: number,
    details: { redirectUri?: string; codeChallenge?: string; scopes?: readonly string[] } = {},
  ): Promise<string> {
    const token = `${TOKEN_TAGS[type]}${randomBytes(32).toString('base64url')}`;
    await this.prisma.oAuthToken.create({
      data: {
        hash: hashToken(token),
        grantId,
        type,
        expiresAt: new Date(Date.now() + lifetimeSeconds * 1000),
        redirectUri: details.redirectUri,
        codeChallenge: details.codeChallenge,
        ...(details.scopes ? { scopes: [...details.scopes] } : {}),
      },
    });
    return token;
  }

  private async endGrant(grantId: string): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.oAuthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: new Date() } }),
      this.prisma.oAuthToken.deleteMany({ where: { grantId } }),
    ]);
  }
}

function toConnectedApp(grant: {
  id: string;
  scopes: string[];
  resource: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  client: { metadata: unknown };
}): ConnectedApp {
  const client = grant.client.metadata as RegisteredClient;
  return {
    id: grant.id,
    clientName: client.client_name ?? null,
    clientUri: client.client_uri ?? null,
    scopes: grant.scopes.filter(isScope),
    resource: grant.resource,
    createdAt: grant.createdAt,
    lastUsedAt: grant.lastUsedAt,
    revokedAt: grant.revokedAt,
  };
}

type SingleUseType = 'authorization_code' | 'refresh_token';
const SINGLE_USE_LABELS: Record<SingleUseType, string> = { authorization_code: 'code', refresh_token: 'refresh token' };

function invalidSingleUse(type: SingleUseType): OAuthError {
  return new OAuthError('invalid_grant', `The ${SINGLE_USE_LABELS[type]} is invalid, expired or already used`);
}

/** The scopes a refresh asks for, which must be among the grant's (RFC 6749 §6). */
function narrowedScopes(scope: string, granted: readonly string[]): Scope[] {
  const asked = requestedScopes(scope);
  const beyond = asked.filter((name) => !granted.includes(name));
  if (beyond.length > 0)
    throw new OAuthError('invalid_scope', `A refresh may only keep or narrow the granted scopes (${granted.join(' ')}); not granted: ${beyond.join(' ')}`);
  return asked;
}

/**
 * An access token's own scopes, or null when it has none of its own (issued before tokens carried
 * them): the column is NULL there, whichever way the client reads a NULL list.
 */
function issuedScopes(scopes: readonly string[] | null): readonly string[] | null {
  return scopes && scopes.length > 0 ? scopes : null;
}

function tokenType(token: string): TokenType | null {
  for (const type of Object.keys(TOKEN_TAGS) as TokenType[]) if (tokenBody(token, type)) return type;
  return null;
}

function tokenBody(token: string, type: TokenType): string | null {
  const tag = TOKEN_TAGS[type];
  return token.startsWith(tag) && TOKEN_BODY.test(token.slice(tag.length)) ? token.slice(tag.length) : null;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** PKCE S256 (RFC 7636 §4.6), compared in constant time. */
function challengeMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
