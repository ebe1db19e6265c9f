import type { Request } from 'express';
import type { Services } from '../src/services.ts';
import { LOOPBACK_HOSTS } from '../src/auth/oauth/redirect-uris.ts';

/** The MCP endpoint, the one resource the built-in authorization server issues tokens for. */
export const MCP_PATH = '/api/service';

/**
 * The authorization server's issuer for a request: PUBLIC_URL's origin when set (behind a proxy
 * the Host header is not the public address); otherwise the request's own origin, but only on a
 * loopback host, where a client and this server on one machine agree on it. Elsewhere without
 * PUBLIC_URL there is no issuer a client could check, and OAuth is off (null).
 */
export function oauthIssuer(services: Services, req: Request): string | null {
  if (services.config.publicUrl) return new URL(services.config.publicUrl).origin;
  const host = req.headers.host;
  if (!host) return null;
  try {
    const url = new URL(`http://${host}`);
    return LOOPBACK_HOSTS.has(url.hostname) ? url.origin : null;
  } catch {
    return null;
  }
}

/** The canonical URI of the MCP endpoint (RFC 8707's resource, RFC 9728's `resource`). */
export function mcpResource(issuer: string): string {
  return `${issuer}${MCP_PATH}`;
}

/** Where the MCP endpoint's protected-resource metadata is (RFC 9728 §3.1). */
export function resourceMetadataUrl(issuer: string): string {
  return `${issuer}/.well-known/oauth-protected-resource${MCP_PATH}`;
}
