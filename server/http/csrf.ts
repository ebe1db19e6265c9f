import type { NextFunction, Request, Response } from 'express';
import { SESSION_COOKIE } from '../../src/auth/sessions.ts';
import { authenticatesWithSessionCookie } from '../../src/context.ts';

export { authenticatesWithSessionCookie };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-protection';

/**
 * Cookie-authenticated writes must prove they come from our own pages: a cross-site form can
 * neither set a custom header nor send `application/json` without a CORS preflight, which we
 * never grant. So an unsafe request that relies on the `sso_token` cookie needs the
 * `X-CSRF-Protection` header or a JSON body, and a cross-origin `Origin` is refused. Runs
 * before any body (multipart included) is read. Requests with an API key or bearer token carry
 * their own proof and are not affected.
 */
export function csrfProtection(corsOrigins: readonly string[] = []) {
  // Origins given CORS access (CORS_ORIGINS) are trusted like our own pages.
  const trusted = new Set(corsOrigins);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!csrfCheckApplies(req)) return next();
    if (!sameOrigin(req) && !trusted.has(req.headers.origin ?? '')) return refuse(res, 'CSRF check failed: cross-origin request');
    const json = /^application\/(.+\+)?json\b/i.test(req.headers['content-type'] ?? '');
    if (json || req.headers[CSRF_HEADER] !== undefined) return next();
    refuse(res, 'CSRF check failed: send the X-CSRF-Protection header with cookie-authenticated writes');
  };
}

/**
 * True when the request must pass the check: an unsafe method relying on the `sso_token` cookie.
 * The sign-in pages are plain forms; they check the Origin themselves.
 */
export function csrfCheckApplies(req: Pick<Request, 'method' | 'path' | 'headers'>): boolean {
  if (SAFE_METHODS.has(req.method)) return false;
  if (req.path === '/login' || req.path === '/logout') return false;
  return authenticatesWithSessionCookie(req);
}

export function sameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return origin === undefined;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

function refuse(res: Response, message: string): void {
  res.status(403).json({ error: message });
}
