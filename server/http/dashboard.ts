import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import compression from 'compression';
import express, { type Request, type Response, type Router } from 'express';
import type { Services } from '../../src/services.ts';
import { contextFor } from './request-context.ts';
import { signInRedirect } from './auth-pages.ts';
import { rootIndex } from './root-index.ts';

/** Where `npm start` (scripts/build-dashboard.ts) puts the Vite bundle. */
export const DASHBOARD_DIST = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/**
 * Only our own scripts run on the dashboard; it talks to this origin only and cannot be framed.
 * Inline styles stay allowed: React and the chart library set element styles.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/**
 * The web dashboard: its page at `/` for a signed-in browser (others go to sign in; an API
 * client without credentials gets the public JSON index of root-index.ts), its hashed assets at /assets with long
 * caching, both gzip-compressed for clients that accept it. The page itself is never cached, so a
 * new build is picked up on the next load.
 */
export function dashboardRoutes(services: Services, distDir = DASHBOARD_DIST): Router {
  const router = express.Router();
  // Compressed here only: the API's event streams must not pass through a compressing buffer.
  router.use('/assets', compression(), express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  router.get('/', compression(), async (req, res) => {
    const ctx = await contextFor(services, req);
    if (!ctx.viewer) {
      if (wantsHtml(req)) return res.redirect(303, signInRedirect(services, req));
      // curl and scripts without a key: a public index of the service, not a bare 401.
      return res.setHeader('Cache-Control', 'no-store').json(rootIndex(services.version));
    }
    sendIndex(res, distDir);
  });
  return router;
}

function sendIndex(res: Response, distDir: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  const index = path.join(distDir, 'index.html');
  if (!fs.existsSync(index)) {
    res
      .status(503)
      .type('html')
      .send(
        '<!doctype html><html lang="en"><title>Dashboard not built</title><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code> (or <code>npm start</code>, which builds it) and reload.</p></html>',
      );
    return;
  }
  res.type('html').sendFile(index);
}

/** A browser navigation: HTML preferred over JSON (a bare wildcard Accept, as curl and fetch send, is not). */
export function wantsHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}
