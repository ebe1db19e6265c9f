import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from './log.ts';
import type { Services } from './services.ts';
import { secretKind, type ApiKeyOwner, type VerifiedKey } from './auth/api-keys.ts';
import { isOAuthAccessToken } from './auth/oauth/oauth-service.ts';
import { grants, scopesForRole, type Scope } from './auth/scopes.ts';
import { RequestBudgets } from './ratelimit/rate-limiter.ts';
import { findSessionUser, SESSION_COOKIE } from './auth/sessions.ts';
import { AppError, MESSAGES } from './errors.ts';
import { readCookie } from './util/cookies.ts';
import type { Credential } from './auth/credential-watch.ts';

/** `oauth_token`: an access token of the built-in OAuth server, valid only at the resource it names (the MCP endpoint). */

export interface Viewer {
  user: ApiKeyOwner;
  scopes: ReadonlySet<Scope>;
  credential: Credential;
  /** For a session credential: when the session token expires (null: it has no expiry). */
  session?: { expiresAt: Date | null };
  /** The user's organizations, when the credential check read them already (API keys, access tokens). */
  organizationIds?: ReadonlySet<string>;
  /**
   * The data versions of the user and those organizations, when the credential check read them in
   * the same statement (API keys, access tokens): read after the request arrived and before any
   * of its operations, as a cached read needs them (src/cache/data-versions.ts).
   */
  dataVersions?: ReadonlyMap<string, string>;
}

/** What a request presented that did not authenticate it (decides the 401 message). */
export type CredentialProblem = 'invalid_api_key' | 'invalid_session' | null;

/** The front a request came in by (the operations' metrics are labelled with it). */
export type Front = 'graphql' | 'rest' | 'mcp';

/** Everything a resolver may use. Built once per HTTP request, shared by REST, GraphQL and JSON-RPC. */
export interface RequestContext {
  requestId: string;
  /** The front that serves the request: /graphql (any transport), a REST route, or the MCP endpoint. */
  front: Front;
  viewer: Viewer | null;
  credentialProblem: CredentialProblem;
  clientAddress: string;
  services: Services;
  log: Logger;
  budgets: RequestBudgets;
  /** Organization ids the viewer belongs to (loaded once per request). */
  organizationIds(): Promise<ReadonlySet<string>>;
  /**
   * A GET's conditional request (REST routes, GraphQL over GET): the client's If-None-Match in,
   * the answer's entity tag and whether it is unchanged out (schema/pipeline/use-response-cache.ts).
   */
  conditional?: ConditionalRequest;
}

export interface ConditionalRequest {
  ifNoneMatch?: string;
  /** Set when the operation is a cached read: the tag of its answer at the current data versions. */
  etag?: string;
  /** The client holds the current answer: the operation did not run, the front answers 304. */
  notModified?: boolean;
}

/**
 * The context of a resolver whose field requires a scope (schema/builder.ts `AuthContexts`): the
 * scope check has found a viewer, so the type says so and the resolver reads it without checking again.
 */
export type AuthenticatedContext = RequestContext & { viewer: Viewer };

export interface RequestInfo {
  requestId: string;
  headers: IncomingHttpHeaders;
  clientAddress: string;
  /** The request's logger, asked for only when something logs (making a pino child costs a few µs). */
  log: () => Logger;
  /**
   * The protected resource this request is addressed to (the MCP endpoint's URL), when it is
   * one: OAuth access tokens are accepted only where they were issued for.
   */
  resource?: string;
  /** Default `graphql`. */
  front?: Front;
}

export async function createContext(services: Services, request: RequestInfo): Promise<RequestContext> {
  const { viewer, problem } = await authenticate(services, request.headers, request.resource);
  if (viewer) services.knownCredentials.remember(request.headers, { userId: viewer.user.id, credential: `${viewer.credential.kind}:${viewer.credential.id}` });
  let memberships: Promise<ReadonlySet<string>> | undefined;
  let log: Logger | undefined;
  return {
    requestId: request.requestId,
    front: request.front ?? 'graphql',
    viewer,
    credentialProblem: problem,
    clientAddress: request.clientAddress,
    services,
    get log() {
      log ??= viewerLog(request.log(), viewer);
      return log;
    },
    budgets: new RequestBudgets(services.rateLimits, () => (viewer ? `${viewer.credential.kind}:${viewer.credential.id}` : `ip:${request.clientAddress}`)),
    organizationIds() {
      memberships ??= viewer
        ? viewer.organizationIds
          ? Promise.resolve(viewer.organizationIds)
          : services.organizations.membershipIds(viewer.user.id)
        : Promise.resolve(new Set<string>());
      return memberships;
    },
  };
}

/** A request's logger with the viewer it authenticated (the request context's `log`). */
export function viewerLog(requestLog: Logger, viewer: { user: { id: string }; credential: Pick<Credential, 'kind'> } | null): Logger {
  return viewer ? requestLog.child({ userId: viewer.user.id, credential: viewer.credential.kind }) : requestLog;
}

/**
 * Credentials in order of precedence: `x-api-key` (an API key), then `Authorization: Bearer` (a
 * personal access token, an API key, an OAuth access token at the resource it was issued for,
 * or a session token), then the `sso_token` cookie. A credential that is present but invalid is never skipped in favour of
 * the next one: the request is unauthenticated and says why.
 */
export async function authenticate(
  services: Services,
  headers: IncomingHttpHeaders,
  resource?: string,
): Promise<{ viewer: Viewer | null; problem: CredentialProblem }> {
  const apiKey = single(headers['x-api-key']);
  if (apiKey !== undefined) {
    // Access tokens are bearer credentials: in x-api-key they are refused like any bad key (and
    // not looked up, so the refusal is not recorded as a use).
    if (secretKind(apiKey.trim()) !== 'api_key') return { viewer: null, problem: 'invalid_api_key' };
    const verified = await services.apiKeys.verify(apiKey.trim());
    if (!verified) return { viewer: null, problem: 'invalid_api_key' };
    return { viewer: keyViewer(verified), problem: null };
  }
  const bearer = bearerToken(headers);
  if (bearer !== undefined) {
    if (isOAuthAccessToken(bearer)) {
      const granted = resource === undefined ? null : await services.oauth.verifyAccessToken(bearer, resource);
      if (!granted) return { viewer: null, problem: 'invalid_api_key' };
      return { viewer: { user: granted.user, scopes: new Set(granted.scopes), credential: { kind: 'oauth_token', id: granted.grantId } }, problem: null };
    }
    // A personal access token, or an API key sent as a bearer token by a script.
    const verified = await services.apiKeys.verify(bearer);
    if (verified) return { viewer: keyViewer(verified), problem: null };
    const session = await sessionViewer(services, bearer);
    return session ? { viewer: session, problem: null } : { viewer: null, problem: 'invalid_api_key' };
  }
  const cookie = readCookie(headers.cookie, SESSION_COOKIE);
  if (cookie !== undefined) {
    const session = await sessionViewer(services, cookie);
    return session ? { viewer: session, problem: null } : { viewer: null, problem: 'invalid_session' };
  }
  return { viewer: null, problem: null };
}

function keyViewer(verified: VerifiedKey): Viewer {
  return {
    user: verified.owner,
    scopes: new Set(verified.scopes),
    credential: { kind: verified.kind, id: verified.keyId },
    organizationIds: verified.organizationIds,
    dataVersions: verified.dataVersions,
  };
}

/** A valid session token that has not been signed out, and a user it names. */
async function sessionViewer(services: Services, token: string): Promise<Viewer | null> {
  const claims = await services.sessions.verify(token);
  if (!claims) return null;
  const user = await findSessionUser(services.prisma, claims);
  if (!user) return null;
  return {
    user,
    scopes: new Set(scopesForRole(user.role)),
    credential: { kind: 'session', id: user.id },
    session: { expiresAt: claims.expiresAt },
  };
}

/** The token of `Authorization: Bearer <token>`, if the header has that form. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(single(headers.authorization) ?? '')?.[1];
}

export function unauthenticatedError(ctx: Pick<RequestContext, 'credentialProblem'>): AppError {
  return new AppError('UNAUTHENTICATED', ctx.credentialProblem === 'invalid_session' ? MESSAGES.invalidSession : MESSAGES.invalidApiKey);
}

/**
 * The viewer, or the right 401. For code that runs outside a field's scope check (the REST router);
 * resolvers declare their scope with t.withAuth and read ctx.viewer from the narrowed context.
 */
export function requireViewer(ctx: RequestContext): Viewer {
  if (!ctx.viewer) throw unauthenticatedError(ctx);
  return ctx.viewer;
}

export function viewerHasScope(ctx: RequestContext, scope: Scope): boolean {
  return ctx.viewer !== null && grants(ctx.viewer.scopes, scope);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The request relies on the `sso_token` cookie: no API key or bearer token of its own. */
export function authenticatesWithSessionCookie(req: { headers: IncomingHttpHeaders }): boolean {
  return readCookie(req.headers.cookie, SESSION_COOKIE) !== undefined && !req.headers['x-api-key'] && !req.headers.authorization;
}
