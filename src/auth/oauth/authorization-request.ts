import type { PrismaClient } from '../../generated/prisma/client.ts';
import { isScope, SCOPES, type Scope } from '../scopes.ts';
import { findClient, type RegisteredClient } from './client-registration.ts';
import { OAuthError } from './oauth-error.ts';
import { redirectUriMatches, unsafeRedirectUriProblem } from './redirect-uris.ts';

/**
 * An authorization request (OAuth 2.1 §4.1.1 with PKCE, RFC 8707's `resource`), checked in the
 * two stages the protocol asks for:
 * 1. the client and its redirect URI: until both are known good, nothing may be sent to the
 *    redirect URI, so a failure here is shown to the user (`AuthorizationRequestRefused`);
 * 2. everything else: a failure may be sent back to the client at its redirect URI
 *    (`RedirectableRefusal`, carrying where to send it); the HTTP layer does so only for a client
 *    the signed-in user approved before (RFC 9700 §4.11.2), and shows it to the user otherwise.
 */
export interface AuthorizationRequest {
  client: RegisteredClient;
  redirectUri: string;
  state?: string;
  /** The scopes asked for (every non-admin scope when the request names none). */
  scopes: Scope[];
  resource: string;
  codeChallenge: string;
}

/** A stage-1 failure: shown to the user, never redirected. */
export class AuthorizationRequestRefused extends Error {}

/** A stage-2 failure: the client and redirect URI are known good, so it may be sent there. */
export class RedirectableRefusal extends Error {
  constructor(
    readonly error: OAuthError,
    readonly clientId: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error.description);
  }
}

/** Parameters as they come (query string or form): repeated or non-string values are refused. */
export type RawParams = Record<string, unknown>;

/** PKCE S256 challenge: base64url of a SHA-256 digest. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE_LENGTH = 2000;

export async function parseAuthorizationRequest(prisma: PrismaClient, params: RawParams, expectedResource: string): Promise<AuthorizationRequest> {
  const clientId = single(params, 'client_id');
  if (!clientId) throw new AuthorizationRequestRefused('The request names no client (client_id is missing).');
  const client = await findClient(prisma, clientId);
  if (!client) throw new AuthorizationRequestRefused('The application is not registered here (unknown client_id). Ask it to register again.');
  const redirectUri = chosenRedirectUri(client, single(params, 'redirect_uri'));

  const state = single(params, 'state');
  const refuse = (code: OAuthError['code'], description: string) =>
    new RedirectableRefusal(new OAuthError(code, description), client.client_id, redirectUri, state?.slice(0, MAX_STATE_LENGTH));
  try {
    if (state !== undefined && state.length > MAX_STATE_LENGTH) throw new OAuthError('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
    if (single(params, 'response_type') !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code');
    const codeChallenge = single(params, 'code_challenge');
    if (!codeChallenge) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE)');
    if (single(params, 'code_challenge_method') !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    if (!CODE_CHALLENGE.test(codeChallenge))
      throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
    const resource = single(params, 'resource') ?? expectedResource;
    if (resource !== expectedResource) throw new OAuthError('invalid_target', `This server issues tokens for one resource: ${expectedResource}`);
    return { client, redirectUri, state, scopes: requestedScopes(single(params, 'scope') ?? client.scope), resource, codeChallenge };
  } catch (error) {
    if (error instanceof OAuthError) throw refuse(error.code, error.description);
    throw error;
  }
}

/**
 * The redirect URI of the request: the one it names, which must be registered, or the only one
 * registered. It must also be safe by today's rules, which may be stricter than those the client
 * registered under.
 */
function chosenRedirectUri(client: RegisteredClient, requested: string | undefined): string {
  if (requested?.includes('#')) throw new AuthorizationRequestRefused('The redirect URI has a fragment (#...), which a redirect URI never has.');
  let redirectUri: string;
  if (requested !== undefined) {
    if (!client.redirect_uris.some((registered) => redirectUriMatches(requested, registered))) {
      throw new AuthorizationRequestRefused('The redirect URI is not one the application registered.');
    }
    redirectUri = requested;
  } else if (client.redirect_uris.length === 1) {
    redirectUri = client.redirect_uris[0];
  } else {
    throw new AuthorizationRequestRefused('The request must name its redirect URI (the application registered several).');
  }
  const problem = unsafeRedirectUriProblem(redirectUri);
  if (problem) throw new AuthorizationRequestRefused(`The application's redirect URI ${problem}. Ask it to register again.`);
  return redirectUri;
}

/** The scopes a `scope` parameter names; every non-admin scope when it names none. */
export function requestedScopes(scope: string | undefined): Scope[] {
  const names = (scope ?? '').split(' ').filter((name) => name.length > 0);
  if (names.length === 0) return SCOPES.filter((name) => name !== 'admin');
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `unknown scope ${unknown.slice(0, 5).join(', ')}; known: ${SCOPES.join(', ')}`);
  return [...new Set(names)] as Scope[];
}

/** One string parameter; a repeated parameter is refused (RFC 6749 §3.1). */
export function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `${name} must be given once`);
  return value;
}
