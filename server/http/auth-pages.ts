import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Services } from '../../src/services.ts';
import { hasControlCharacter, revokeSession, SESSION_COOKIE } from '../../src/auth/sessions.ts';
import { dummyHash, verifyPasswordOrDummy } from '../../src/auth/passwords.ts';
import { accountSubject, addressSubject } from '../../src/auth/sign-in-budget.ts';
import { bearerToken } from '../../src/context.ts';
import { readCookie } from '../../src/util/cookies.ts';
import { AppError } from '../../src/errors.ts';
import type { RequestBudgets } from '../../src/ratelimit/rate-limiter.ts';
import { sameOrigin } from './csrf.ts';
import { contextFor, requestLog } from './request-context.ts';
import { webEvent } from '../../src/audit/direct-events.ts';

/**
 * The built-in identity: a sign-in page at /login that sets the `sso_token` cookie and returns
 * to the page asked for. With LOGIN_URL set, an external login host issues the cookie instead
 * and /login just sends the browser there.
 */
export function authPages(services: Services): Router {
  const router = express.Router();
  const { loginUrl } = services.config.auth;
  // Made now, so the first sign-in with an unknown email does not pay for it (a failure shows there).
  if (!loginUrl) dummyHash().catch(() => undefined);

  router.get('/login', (req, res) => {
    const next = safeNext(req.query.next);
    if (loginUrl) return res.redirect(303, externalLoginUrl(loginUrl, req, next, services.config.publicUrl));
    sendPage(res, 200, loginForm(next));
  });

  // The external-login and origin checks come first, so a refused post's body is never read.
  router.post('/login', refuseWhenExternal(loginUrl), refuseCrossOrigin, readLoginForm, async (req, res) => {
    const ctx = await contextFor(services, req);
    const { email, password, next } = loginFields(req.body);
    // An address with a control character (a NUL is an error in PostgreSQL) names no user.
    const account = isPlausibleEmail(email) ? email : undefined;
    const limited = await chargeSignIn(ctx.budgets, ctx.clientAddress, account);
    if (limited) {
      ctx.log.info({ email: account ?? '(malformed)', limitedBy: limited.subject }, 'sign-in refused: too many attempts');
      res.setHeader('Retry-After', String(limited.retryAfterSeconds));
      services.audit.record(webEvent(ctx, { operation: 'sign-in', outcome: 'RATE_LIMITED', variables: { email: account ?? null } }));
      return sendPage(res, 429, loginForm(next, account ?? '', 'Too many sign-in attempts. Wait a minute and try again.'));
    }
    const user = account === undefined ? null : await services.prisma.user.findUnique({ where: { email: account } });
    // One argon2 verification whether or not the user exists or has a password: equal cost.
    const valid = await verifyPasswordOrDummy(user?.passwordHash, password);
    if (!user || !valid) {
      ctx.log.info({ email: account ?? '(malformed)' }, 'sign-in refused');
      services.audit.record(
        webEvent(ctx, { operation: 'sign-in', outcome: 'UNAUTHENTICATED', subjectUserId: user?.id ?? null, variables: { email: account ?? null } }),
      );
      return sendPage(res, 401, loginForm(next, account ?? '', 'Wrong email or password.'));
    }
    res.cookie(SESSION_COOKIE, await services.sessions.issue(user), services.sessions.cookieAttributes());
    ctx.log.info({ userId: user.id }, 'signed in');
    services.audit.record(
      webEvent(ctx, {
        operation: 'sign-in',
        outcome: 'ok',
        actorId: user.id,
        credential: { kind: 'session', id: user.id },
        variables: { email: account ?? null },
      }),
    );
    res.redirect(303, next);
  });

  // Ends the session on every instance (the token is recorded as revoked in the shared
  // database), not only in this browser: a copy of the cookie taken earlier stops working too.
  router.post('/logout', refuseCrossOrigin, async (req, res) => {
    const ctx = await contextFor(services, req);
    res.clearCookie(SESSION_COOKIE, { ...services.sessions.cookieAttributes(), maxAge: undefined });
    const presented = [readCookie(req.headers.cookie, SESSION_COOKIE), bearerToken(req.headers)];
    for (const token of presented) {
      const claims = token === undefined ? null : await services.sessions.verify(token);
      if (!claims) continue;
      await revokeSession(services.prisma, claims);
      requestLog(req).info({ userId: claims.userId }, 'signed out');
      // Actor and credential: the session the request presented.
      services.audit.record(webEvent(ctx, { operation: 'sign-out', outcome: 'ok' }));
    }
    res.redirect(303, '/login');
  });

  return router;
}

/** RFC 5321's limit on an address: anything longer names no user. */
const MAX_EMAIL_LENGTH = 320;

function loginFields(body: unknown): { email: string; password: string; next: string } {
  const fields = (body ?? {}) as Record<string, unknown>;
  return {
    email: typeof fields.email === 'string' ? fields.email.trim().toLowerCase() : '',
    password: typeof fields.password === 'string' ? fields.password : '',
    next: safeNext(fields.next),
  };
}

function isPlausibleEmail(email: string): boolean {
  return email.length > 0 && email.length <= MAX_EMAIL_LENGTH && !hasControlCharacter(email);
}

interface SignInLimited {
  /** Which budget is spent: the client's address, or the account the attempt names. */
  subject: 'address' | 'account';
  retryAfterSeconds: number;
}

/**
 * Charges a sign-in attempt, before any password is checked, to the client's address and then
 * to the account it names (every plausible email, with an account or not, so that a refusal does
 * not tell which exist). Both are named subjects, not the request's credential: a client cannot
 * buy fresh guesses by presenting its own API keys, tokens or sessions. A refused address does
 * not spend the account's budget. The account budget lets anyone lock an account's sign-in for
 * the rest of the minute; that is the price of capping guesses against it (docs/authentication.md).
 */
async function chargeSignIn(budgets: RequestBudgets, clientAddress: string, account: string | undefined): Promise<SignInLimited | undefined> {
  const charges: [SignInLimited['subject'], string][] = [['address', addressSubject(clientAddress)]];
  if (account !== undefined) charges.push(['account', accountSubject(account)]);
  for (const [subject, key] of charges) {
    try {
      await budgets.chargeTo('login', key);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'RATE_LIMITED')) throw error;
      return { subject, retryAfterSeconds: retryAfterOf(error) };
    }
  }
  return undefined;
}

/** The seconds until the refusing budget's window ends (a whole window if the refusal did not say). */
function retryAfterOf(error: AppError): number {
  const seconds = error.extensions.retryAfterSeconds;
  return typeof seconds === 'number' ? seconds : 60;
}

function refuseWhenExternal(loginUrl: string | undefined): RequestHandler {
  return (_req, res, next) => {
    if (loginUrl) return void res.status(404).json({ error: 'Sign-in is handled by the external login host' });
    next();
  };
}

const refuseCrossOrigin: RequestHandler = (req, res, next) => {
  if (!sameOrigin(req)) return void res.status(403).json({ error: 'CSRF check failed: cross-origin request' });
  next();
};

/** The sign-in form: an email and a password need no more. */
export const LOGIN_FORM_LIMIT = '16kb';
const parseLoginForm = express.urlencoded({ extended: false, limit: LOGIN_FORM_LIMIT, parameterLimit: 20 });

/**
 * Reads the sign-in form. A body the parser refuses is the client's mistake, answered here with
 * the sign-in page and the parser's status (413 too large, 415 not UTF-8 or an unknown
 * Content-Encoding, 400 unreadable such as broken gzip) instead of the generic error handler's 500.
 */
const readLoginForm: RequestHandler = (req, res, next) => {
  parseLoginForm(req, res, (error?: unknown) => {
    const refusal = error === undefined ? undefined : formRefusal(error);
    if (!refusal) return next(error);
    requestLog(req).info({ reason: (error as { type?: string }).type, status: refusal.status }, 'sign-in form refused');
    sendPage(res, refusal.status, loginForm('/', '', refusal.message));
  });
};

function formRefusal(error: unknown): { status: number; message: string } | undefined {
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (status === 413) return { status, message: 'The sign-in form was too large. Enter your email and password again.' };
  if (status === 415) {
    const reason = type === 'charset.unsupported' ? 'It must be sent as UTF-8.' : 'Its content encoding is not supported.';
    return { status, message: `The sign-in form could not be read. ${reason}` };
  }
  return { status: 400, message: 'The sign-in form could not be read. Enter your email and password again.' };
}

/** Where a browser without a session goes: the external login host, or our own page. */
export function signInRedirect(services: Services, req: Request): string {
  const next = safeNext(req.originalUrl);
  const { loginUrl } = services.config.auth;
  return loginUrl ? externalLoginUrl(loginUrl, req, next, services.config.publicUrl) : `/login?next=${encodeURIComponent(next)}`;
}

function externalLoginUrl(loginUrl: string, req: Request, next: string, publicUrl?: string): string {
  const url = new URL(loginUrl);
  // Behind a proxy the Host header is not the public address: PUBLIC_URL says what is.
  const base = publicUrl ? publicUrl.replace(/\/$/, '') : `${req.protocol}://${req.get('host')}`;
  url.searchParams.set('return_to', `${base}${next}`);
  return url.toString();
}

/** Only same-site relative paths, so /login cannot be used as an open redirect. */
export function safeNext(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : '/';
}

/**
 * What the pages of htmlPage() may load: their inline style and data: icon, nothing else (no
 * scripts), and no page may frame them, so a sign-in or consent form cannot be overlaid and
 * clicked through by another site. The same policy as the OAuth consent page's. No form-action:
 * after signing in the browser may go on to an OAuth client's redirect URI, which some browsers
 * would block under form-action 'self'.
 */
const PAGE_CONTENT_SECURITY_POLICY = "frame-ancestors 'none'; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** Sends an htmlPage(): never cached, never framed. A policy the caller set already (the consent page's) is kept. */
export function sendPage(res: Response, status: number, html: string): void {
  if (!res.hasHeader('Content-Security-Policy')) res.setHeader('Content-Security-Policy', PAGE_CONTENT_SECURITY_POLICY);
  // For browsers that predate frame-ancestors.
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.status(status).type('html').setHeader('Cache-Control', 'no-store').send(html);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

function loginForm(next: string, email = '', error?: string): string {
  return htmlPage(
    'Sign in',
    `<form method="post" action="/login">
  <h1>Sign in</h1>
  ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
  <label>Email <input name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
  <input type="hidden" name="next" value="${escapeHtml(next)}">
  <button type="submit">Sign in</button>
</form>`,
  );
}

/** A small page in the sign-in page's look (sign-in, OAuth consent): `body` is trusted HTML. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%232450d6'/%3E%3Cpath d='M9 22l5-6 4 3 5-8' stroke='white' stroke-width='3' fill='none' stroke-linecap='round' stroke-linejoin='round'/%3E%3C/svg%3E">
<style>
  body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2433;display:grid;place-items:center;min-height:100vh;margin:0}
  form,main{box-sizing:border-box;background:#fff;padding:clamp(1.2rem,5vw,2rem);border-radius:12px;box-shadow:0 2px 12px #0001;width:min(30rem,90vw);display:grid;gap:.9rem;overflow-wrap:anywhere}
  h1{font-size:1.3rem;margin:0 0 .3rem} label{display:grid;gap:.3rem;font-size:.9rem}
  input{font:inherit;padding:.55rem .7rem;border:1px solid #b8bfcc;border-radius:8px}
  button{font:inherit;padding:.6rem;border:0;border-radius:8px;background:#2450d6;color:#fff;cursor:pointer}
  button.secondary{background:#fff;color:#1d2433;border:1px solid #b8bfcc}
  fieldset{border:1px solid #d5dae3;border-radius:8px;display:grid;gap:.5rem;padding:.8rem}
  label.choice{display:flex;gap:.5rem;align-items:flex-start} label.choice input{margin-top:.2rem}
  .hint{color:#4a5468;font-size:.85rem;margin:0} .actions{display:flex;gap:.6rem} .actions button{flex:1}
  .error{color:#a4161a;margin:0} button:focus-visible,input:focus-visible{outline:3px solid #7aa2ff}
</style></head><body>
${body}
</body></html>`;
}
