/**
 * Which redirect URIs a client may register, and when a requested one matches (OAuth 2.1 §2.3.1,
 * RFC 8252 for native apps). An allow-list, so a scheme nobody thought of is refused:
 * - `https:` anywhere;
 * - `http:` only on a loopback host (`localhost`, `127.0.0.1`, `[::1]`), where any port matches
 *   the registered one, since a native app listens on whatever port the system gives it;
 * - a native app's private-use scheme named after a domain it controls, reversed
 *   (`com.example.app:/callback`, RFC 8252 §7.1): the period is what tells it from the schemes
 *   a browser runs or reads itself (`javascript:`, `data:`, `view-source:`, `jar:`, `file:`,
 *   `blob:`, `about:`, ...), none of which has one.
 * - the one-word schemes of the MCP hosts that register one (`cursor:`, `vscode:`,
 *   `vscode-insiders:`), named one by one: a host's own app, not a scheme a browser interprets.
 * Never a URI with a fragment (the code would be appended before it) or with credentials.
 * Everything else matches only as the exact registered string.
 */
/** Host names of this machine, as URL.hostname writes them. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Room for any real callback, not for a blob of data (each one is stored with the client). */
export const MAX_REDIRECT_URI_LENGTH = 500;
/** `com.example.app:`: two or more dot-separated labels (URL.protocol is lower case). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+:$/;
/** MCP hosts whose OAuth callback uses a scheme without a period (Cursor: `cursor://anysphere.cursor-mcp/oauth/callback`). */
const MCP_HOST_SCHEMES: ReadonlySet<string> = new Set(['cursor:', 'vscode:', 'vscode-insiders:']);

/** Why a URI cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  return unsafeRedirectUriProblem(uri);
}

/**
 * Why a browser must not be sent to this URI with a code, or null. Checked again at every
 * authorization, so a client registered under older, looser rules is not redirected to a scheme
 * refused since (its length, a storage limit, is not checked again).
 */
export function unsafeRedirectUriProblem(uri: string): string | null {
  if (uri.includes('#')) return 'must not have a fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.username || url.password) return 'must not carry credentials';
  return schemeProblem(url);
}

function schemeProblem(url: URL): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? null : 'uses http: on a host other than localhost, 127.0.0.1 or [::1]; use https:';
  if (PRIVATE_USE_SCHEME.test(url.protocol) || MCP_HOST_SCHEMES.has(url.protocol)) return null;
  return `uses the ${url.protocol} scheme; allowed: https:, http: on a loopback host, a reverse domain name scheme such as com.example.app: (RFC 8252), or cursor:, vscode:, vscode-insiders:`;
}

/** Whether a requested redirect URI is one of the registered ones (loopback: any port). */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  let req: URL;
  let reg: URL;
  try {
    req = new URL(requested);
    reg = new URL(registered);
  } catch {
    return false;
  }
  if (req.protocol !== 'http:' || !LOOPBACK_HOSTS.has(req.hostname) || !LOOPBACK_HOSTS.has(reg.hostname)) return false;
  // Everything but the port: a fragment included, so `…/cb#x` is not `…/cb`.
  return req.protocol === reg.protocol && req.hostname === reg.hostname && req.pathname === reg.pathname && req.search === reg.search && req.hash === reg.hash;
}
