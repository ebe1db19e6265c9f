import fs from 'node:fs';
import { createRequire } from 'node:module';
import express, { type Response, type Router } from 'express';
import compression from 'compression';

/**
 * The REST layer's API reference: Redoc (npm `redoc`, its standalone browser bundle) rendering
 * /openapi.json at GET /api-docs. Public like the document itself. Everything the page needs
 * comes from this service: no CDN, no web fonts (the page uses the system's), so it works offline.
 */

/** Where the bundle and the page's stylesheet are served, with long caching (the version is in the path). */
const REDOC_VERSION = (createRequire(import.meta.url)('redoc/package.json') as { version: string }).version;
const ASSETS = `/api-docs/assets/${REDOC_VERSION}`;
const BUNDLE_PATH = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/**
 * Only our own scripts, fonts and images (and data: URLs) load; the spec is fetched from this
 * origin; the page cannot be framed. Inline styles stay allowed: Redoc styles itself with
 * styled-components, which writes <style> elements. Its search index runs in a Worker it makes
 * from a blob: URL.
 */
export const API_REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** System font stacks: Redoc's defaults name Roboto and Montserrat, which the demo page loads from Google. */
const THEME = {
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif' },
    code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace' },
  },
};

const PAGE_CSS = `
body { margin: 0; font-family: ${THEME.typography.fontFamily}; }
.api-docs-bar { display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; align-items: center; padding: 0.5rem 1rem; border-bottom: 1px solid #ddd; background: #f7f7f8; font-size: 0.9rem; }
.api-docs-bar strong { margin-right: auto; }
.api-docs-bar a { color: #1d4ed8; }
noscript p { padding: 1rem; }
`;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Redoc starts by itself on a <redoc spec-url> element, options as attributes: no inline script. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/api-reference.css">
</head>
<body>
<nav class="api-docs-bar" aria-label="API reference">
<strong>API reference</strong>
<a href="/">Dashboard</a>
<a href="/openapi.json">openapi.json</a>
<a href="/openapi.yaml">openapi.yaml</a>
</nav>
<noscript><p>The API reference needs JavaScript. The document itself is at <a href="/openapi.json">/openapi.json</a> and <a href="/openapi.yaml">/openapi.yaml</a>.</p></noscript>
<redoc spec-url="/openapi.json" hide-hostname="true" path-in-middle-panel="true" theme="${escapeAttribute(JSON.stringify(THEME))}"></redoc>
<script src="${ASSETS}/redoc.standalone.js"></script>
</body>
</html>
`;

/** 1×1 transparent GIF: the bundle's only remote resource, the Redocly logo in its sidebar footer, becomes this. */
const BLANK_IMAGE = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

let bundle: Buffer | undefined;
/**
 * The standalone bundle as served: its footer logo (always fetched from cdn.redoc.ly) replaced
 * by a blank data: image, and its source-map comment dropped (the map is not served).
 */
function redocBundle(): Buffer {
  if (!bundle) {
    const source = fs.readFileSync(BUNDLE_PATH, 'utf8');
    if (!source.includes(REDOCLY_LOGO))
      throw new Error(`redoc ${REDOC_VERSION}: the bundle no longer loads ${REDOCLY_LOGO}; check it for remote resources again`);
    bundle = Buffer.from(source.replaceAll(REDOCLY_LOGO, BLANK_IMAGE).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
  }
  return bundle;
}

function longCache(res: Response): Response {
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  return res;
}

export function apiReferenceRoutes(): Router {
  const router = express.Router();
  router.get(['/api-docs', '/api-docs/'], (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', API_REFERENCE_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.type('html').send(PAGE);
  });
  router.get(`${ASSETS}/redoc.standalone.js`, compression(), (_req, res) => {
    longCache(res).type('text/javascript').send(redocBundle());
  });
  router.get(`${ASSETS}/api-reference.css`, (_req, res) => {
    longCache(res).type('text/css').send(PAGE_CSS);
  });
  return router;
}
