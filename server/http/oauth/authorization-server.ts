import cors from 'cors';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Services } from '../../../src/services.ts';
import {
  AuthorizationRequestRefused,
  parseAuthorizationRequest,
  RedirectableRefusal,
  single,
  type AuthorizationRequest,
  type RawParams,
} from '../../../src/auth/oauth/authorization-request.ts';
import { OAuthError, oauthErrorStatus } from '../../../src/auth/oauth/oauth-error.ts';
import { isScope, SCOPES, scopesForRole } from '../../../src/auth/scopes.ts';
import { AppError } from '../../../src/errors.ts';
import type { ApiKeyOwner } from '../../../src/auth/api-keys.ts';
import { signInRedirect, sendPage } from '../auth-pages.ts';
import { sameOrigin } from '../csrf.ts';
import { contextFor, requestLog } from '../request-context.ts';
import { consentPage, faultPage, refusalPage } from './consent-page.ts';
import { MCP_PATH, mcpResource, oauthIssuer } from '../../../mcp/oauth-issuer.ts';
import { webEvent } from '../../../src/audit/direct-events.ts';

/**
 * The MCP endpoint's OAuth 2.1 authorization server, as the MCP authorization spec asks:
 * - discovery: RFC 9728 protected-resource metadata for /api/service and RFC 8414
 *   authorization-server metadata;
 * - POST /oauth/register: dynamic client registration (RFC 7591), public clients;
 * - GET /oauth/authorize: the authorization code flow with PKCE (S256 only); the user signs in
 *   with the existing sign-in page and chooses the scopes to grant on a consent page, whose
 *   POST /oauth/authorize answers the client at its redirect URI with `code`, `state` and `iss`
 *   (RFC 9207);
 * - POST /oauth/token: authorization_code and refresh_token (rotated) grants;
 * - POST /oauth/revoke: RFC 7009.
 * The endpoints a client calls from script (metadata, register, token, revoke) hold no ambient
 * credential, so any origin may call them (CORS `*`, no credentials); the authorize page is a
 * browser navigation and checks the Origin of its form itself.
 *
 * Registration is open, so a redirect URI proves nothing about who registered it: the authorize
 * endpoint sends a browser to a client's redirect URI only after the user signed in, and then
 * only with the user's own decision on the consent page, or with a fault of a client the user
 * approved before (RFC 9700 §4.11.2). Any other fault is shown on this server's own page.
 */
export function authorizationServer(services: Services): Router {
  const router = express.Router();
  const open = cors({ origin: '*', methods: ['GET', 'POST'], allowedHeaders: ['Content-Type', 'Authorization', 'Mcp-Protocol-Version'], maxAge: 600 });
  const withIssuer = requireIssuer(services);
  // Each endpoint also answers at the 2025-03-26 revision's default path (/register, /authorize,
  // /token), where hosts of that era go when they skip or miss the metadata.
  const at = (path: string) => [`/oauth${path}`, path];

  router.use(['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', ...at('/register'), ...at('/token'), '/oauth/revoke'], open);
  router.get(['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${MCP_PATH}`], withIssuer, (req, res) => {
    res.json(protectedResourceMetadata(issuerOf(res)));
  });
  router.get('/.well-known/oauth-authorization-server', withIssuer, (_req, res) => {
    res.json(authorizationServerMetadata(issuerOf(res)));
  });
  router.post(at('/register'), withIssuer, chargeAddress(services), express.json({ limit: '16kb', type: () => true }), async (req, res) => {
    const client = await services.oauth.register(req.body);
    requestLog(req).info({ clientId: client.client_id, clientName: client.client_name }, 'oauth client registered');
    res.status(201).setHeader('Cache-Control', 'no-store').json(client);
  });
  router.get(at('/authorize'), withIssuer, charge(services), (req, res) => authorize(services, req, res, req.query as RawParams));
  router.post(at('/authorize'), withIssuer, refuseCrossOrigin, readForm, charge(services), (req, res) => decide(services, req, res));
  router.post(at('/token'), withIssuer, charge(services), readForm, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const params = req.body as RawParams;
    const variables = {
      grantType: single(params, 'grant_type') ?? null,
      clientId: single(params, 'client_id') ?? null,
      scope: single(params, 'scope') ?? null,
    };
    const issued = await token(services, req, issuerOf(res)).catch(async (error: unknown) => {
      // A code or refresh token that is not accepted is a failed authentication of the app.
      if (error instanceof OAuthError && (error.code === 'invalid_grant' || error.code === 'invalid_client'))
        await recordTokenEvent(services, req, { operation: 'oauth.token', outcome: 'UNAUTHENTICATED', variables });
      throw error;
    });
    await recordTokenEvent(services, req, { operation: 'oauth.token', outcome: 'ok', grant: issued.grant, variables });
    res.json(issued.response);
  });
  router.post('/oauth/revoke', withIssuer, charge(services), readForm, async (req, res) => {
    const params = req.body as RawParams;
    const tokenValue = single(params, 'token');
    if (!tokenValue) throw new OAuthError('invalid_request', 'token is required');
    const revoked = await services.oauth.revoke(clientIdOf(req, params), tokenValue);
    // An unknown token is answered the same (RFC 7009) and changed nothing: no event.
    if (revoked) await recordTokenEvent(services, req, { operation: 'oauth.revoke', outcome: 'ok', grant: revoked.grant, variables: { ended: revoked.ended } });
    res.status(200).json({});
  });
  router.all([...at('/register'), ...at('/token'), '/oauth/revoke'], (_req, res) => {
    res.status(405).setHeader('Allow', 'POST').json(new OAuthError('invalid_request', 'Use POST').toBody());
  });
  router.use(['/oauth', '/register', '/authorize', '/token', '/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server'], oauthErrors);
  return router;
}

function protectedResourceMetadata(issuer: string) {
  return {
    resource: mcpResource(issuer),
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Gateway MCP tools (JSON-RPC 2.0)',
  };
}

function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    authorization_response_iss_parameter_supported: true,
  };
}

/** GET /oauth/authorize: sign in first, then the consent page. */
async function authorize(services: Services, req: Request, res: Response, params: RawParams): Promise<void> {
  const checked = await checkRequest(services, req, res, params);
  if (!checked) return;
  const { request, user } = checked;
  const { offered, unavailable } = offer(request, user);
  if (offered.length === 0) {
    return answerFault(services, req, res, user, replyTargetOf(request), new OAuthError('invalid_scope', 'Your account has none of the permissions asked for'));
  }
  sendOAuthPage(res, 200, consentPage({ request, params, email: user.email, offered, unavailable }));
}

/** POST /oauth/authorize: the consent form's answer. */
async function decide(services: Services, req: Request, res: Response): Promise<void> {
  const params = req.body as RawParams;
  const checked = await checkRequest(services, req, res, params);
  if (!checked) return;
  const { request, user } = checked;
  if (params.decision !== 'allow') {
    // The user's own answer to a page that named the client and where it is sent: redirected,
    // whether or not the user approved this client before.
    requestLog(req).info({ clientId: request.client.client_id }, 'oauth consent denied');
    await recordConsent(services, req, user.id, request.client.client_id, 'access_denied', []);
    return redirectTo(res, replyTargetOf(request), { error: 'access_denied', error_description: 'The user denied the request' });
  }
  const chosen = [params.scope_choice ?? []]
    .flat()
    .filter((scope): scope is string => typeof scope === 'string')
    .filter(isScope);
  const { offered, unavailable } = offer(request, user);
  const granted = chosen.filter((scope) => offered.includes(scope));
  if (granted.length === 0) {
    return sendOAuthPage(res, 400, consentPage({ request, params, email: user.email, offered, unavailable, error: 'Tick at least one permission, or deny.' }));
  }
  const code = await services.oauth.approve(request, user, granted);
  requestLog(req).info({ clientId: request.client.client_id, scopes: granted }, 'oauth consent given');
  await recordConsent(services, req, user.id, request.client.client_id, 'ok', granted);
  redirectTo(res, replyTargetOf(request), { code });
}

/** The user's answer on the consent page (a grant created, or refused), in the audit log. */
async function recordConsent(services: Services, req: Request, userId: string, clientId: string, outcome: string, scopes: string[]): Promise<void> {
  const ctx = await contextFor(services, req);
  services.audit.record(
    webEvent(ctx, { operation: 'oauth.consent', outcome, actorId: userId, target: { type: 'OAuthClient', id: clientId }, variables: { clientId, scopes } }),
  );
}

/**
 * An app's call to the token or revocation endpoint, in the audit log: as the grant's credential,
 * acting for its user; a refused one (no grant known) without either.
 */
async function recordTokenEvent(
  services: Services,
  req: Request,
  event: { operation: string; outcome: string; grant?: { id: string; userId: string }; variables: Record<string, unknown> },
): Promise<void> {
  const ctx = await contextFor(services, req);
  const { grant } = event;
  services.audit.record(
    webEvent(ctx, {
      operation: event.operation,
      outcome: event.outcome,
      actorId: grant?.userId ?? null,
      credential: grant ? { kind: 'oauth_app', id: grant.id } : null,
      target: grant ? { type: 'OAuthGrant', id: grant.id } : null,
      variables: event.variables,
    }),
  );
}

/**
 * The request checked in its two stages, for a signed-in user; otherwise it is answered here and
 * null returned. An unknown client or redirect URI is shown to the user at once. A browser
 * without a session is sent to sign in before anything goes to the client (RFC 9700 §4.11.2: the
 * user is authenticated first), and any other fault is then answered by `answerFault`.
 */
async function checkRequest(
  services: Services,
  req: Request,
  res: Response,
  params: RawParams,
): Promise<{ request: AuthorizationRequest; user: ApiKeyOwner } | null> {
  let parsed: AuthorizationRequest | RedirectableRefusal;
  try {
    parsed = await parseOrFault(services, res, params);
  } catch (error) {
    if (!(error instanceof AuthorizationRequestRefused)) throw error;
    requestLog(req).info({ reason: error.message }, 'oauth authorization request refused');
    sendOAuthPage(res, 400, refusalPage(error.message));
    return null;
  }
  const ctx = await contextFor(services, req);
  if (ctx.viewer?.credential.kind !== 'session') {
    res.redirect(303, signInRedirect(services, req));
    return null;
  }
  if (parsed instanceof RedirectableRefusal) {
    await answerFault(services, req, res, ctx.viewer.user, parsed, parsed.error);
    return null;
  }
  return { request: parsed, user: ctx.viewer.user };
}

/** The request, or its stage-2 fault (answered once the user is known); a stage-1 failure is thrown. */
async function parseOrFault(services: Services, res: Response, params: RawParams): Promise<AuthorizationRequest | RedirectableRefusal> {
  try {
    return await parseAuthorizationRequest(services.prisma, params, mcpResource(issuerOf(res)));
  } catch (error) {
    if (error instanceof RedirectableRefusal) return error;
    throw error;
  }
}

/** Where an answer to an authorization request goes: a registered redirect URI of the client. */
interface ReplyTarget {
  clientId: string;
  redirectUri: string;
  state: string | undefined;
}

function replyTargetOf(request: AuthorizationRequest): ReplyTarget {
  return { clientId: request.client.client_id, redirectUri: request.redirectUri, state: request.state };
}

/**
 * A fault in a request whose client and redirect URI are known good (RFC 6749 §4.1.2.1). It is
 * sent to the client only if the signed-in user approved that client before: registration is
 * open, so anyone can register a redirect URI, and sending errors there for a client the user
 * never saw would make this server an open redirector (RFC 9700 §4.11.2). Otherwise the user
 * sees it here, and the client learns nothing (it is not waiting for a code it did not get).
 */
async function answerFault(services: Services, req: Request, res: Response, user: ApiKeyOwner, target: ReplyTarget, error: OAuthError): Promise<void> {
  if (await services.oauth.hasApproved(user.id, target.clientId)) return redirectTo(res, target, error.toBody());
  requestLog(req).info(
    { clientId: target.clientId, error: error.code, reason: error.description },
    'oauth authorization request refused (shown, not redirected: a client the user has not approved)',
  );
  sendOAuthPage(res, 400, faultPage(error));
}

function offer(request: AuthorizationRequest, user: ApiKeyOwner) {
  const allowed = new Set<string>(scopesForRole(user.role));
  return { offered: request.scopes.filter((scope) => allowed.has(scope)), unavailable: request.scopes.filter((scope) => !allowed.has(scope)) };
}

function redirectTo(res: Response, target: ReplyTarget, values: Record<string, string>): void {
  res.redirect(303, withParams(target.redirectUri, { ...values, state: target.state, iss: issuerOf(res) }));
}

function withParams(uri: string, values: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(values)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** The consent page and the refusals shown in its place. */
function sendOAuthPage(res: Response, status: number, html: string): void {
  // Never framed: a framed consent page could be clicked through by a page on top of it.
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'; default-src 'none'; style-src 'unsafe-inline'; img-src data:");
  sendPage(res, status, html);
}

/** POST /oauth/token. */
async function token(services: Services, req: Request, issuer: string) {
  const params = req.body as RawParams;
  const clientId = clientIdOf(req, params);
  const grantType = single(params, 'grant_type');
  const resource = single(params, 'resource');
  if (resource !== undefined && resource !== mcpResource(issuer))
    throw new OAuthError('invalid_target', `This server issues tokens for one resource: ${mcpResource(issuer)}`);
  if (grantType === 'authorization_code') {
    const code = single(params, 'code');
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    return services.oauth.exchangeCode({
      clientId,
      code,
      codeVerifier: single(params, 'code_verifier'),
      redirectUri: single(params, 'redirect_uri'),
      resource,
    });
  }
  if (grantType === 'refresh_token') {
    const refreshToken = single(params, 'refresh_token');
    if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
    return services.oauth.refresh({ clientId, refreshToken, scope: single(params, 'scope'), resource });
  }
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  throw new OAuthError('unsupported_grant_type', 'Supported grant types: authorization_code, refresh_token');
}

/** The client: `client_id` in the form (public clients), or the user name of HTTP Basic. */
function clientIdOf(req: Request, params: RawParams): string {
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const fromBasic = basic ? decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '') : undefined;
  const clientId = single(params, 'client_id') ?? fromBasic;
  if (!clientId) throw new OAuthError('invalid_client', 'client_id is required');
  return clientId;
}

function issuerOf(res: Response): string {
  return res.locals.oauthIssuer as string;
}

function requireIssuer(services: Services): RequestHandler {
  return (req, res, next) => {
    const issuer = oauthIssuer(services, req);
    if (!issuer) {
      return void res.status(404).json({ error: 'OAuth is available on a loopback address, or at PUBLIC_URL once it is set' });
    }
    res.locals.oauthIssuer = issuer;
    next();
  };
}

/**
 * The `oauth` budget, charged to the request's credential, or its address without one: a user's
 * consent pages count against that user, not against everyone behind the same address.
 */
function charge(services: Services): RequestHandler {
  return (req, _res, next) => {
    contextFor(services, req)
      .then((ctx) => ctx.budgets.charge('oauth'))
      .then(() => next(), next);
  };
}

/**
 * The `oauth` budget charged to the client's address whatever credential it sends: every
 * registration is stored, and each API key would otherwise bring a fresh budget of them.
 */
function chargeAddress(services: Services): RequestHandler {
  return (req, _res, next) => {
    contextFor(services, req)
      .then((ctx) => ctx.budgets.chargeTo('oauth', `ip:${ctx.clientAddress}`))
      .then(() => next(), next);
  };
}

const refuseCrossOrigin: RequestHandler = (req, res, next) => {
  if (!sameOrigin(req)) return void sendOAuthPage(res, 403, refusalPage('The consent form was sent from another site.'));
  next();
};

const parseForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 });

/** Form bodies only (RFC 6749 §3.2), at most 16 KB. */
const readForm: RequestHandler = (req, res, next) => {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  }
  parseForm(req, res, (error?: unknown) => (error ? next(new OAuthError('invalid_request', 'The form could not be read')) : next()));
};

/** OAuth errors as RFC 6749 §5.2 bodies; a spent budget as 429 with Retry-After. */
function oauthErrors(error: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(error);
  let refusal: OAuthError | undefined;
  if (error instanceof OAuthError) refusal = error;
  else if (error instanceof AppError && error.code === 'RATE_LIMITED') {
    const retryAfter = error.extensions.retryAfterSeconds;
    if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
    refusal = new OAuthError('too_many_requests', error.message);
  } else if (isClientError(error)) {
    refusal = new OAuthError(
      req.path === '/register' ? 'invalid_client_metadata' : 'invalid_request',
      'The body could not be read (malformed JSON, or over 16 KB)',
    );
  }
  if (!refusal) return next(error);
  if (refusal.code === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="oauth"');
  requestLog(req).info({ error: refusal.code, reason: refusal.description }, 'oauth request refused');
  res.status(oauthErrorStatus(refusal)).setHeader('Cache-Control', 'no-store').json(refusal.toBody());
}

/** A body parser's refusal (malformed JSON, over the limit, an unsupported charset). */
function isClientError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
