/**
 * Which redirect URIs a client may register, and when a requested one matches (OAuth 2.1 §2.3.1,
 * RFC 8252 for native apps):
 * - `https:` anywhere;
 * - `http:` only on a loopback host (`localhost`, `127.0.0.1`, `[::1]`), where any port matches
 *   the registered one, since a native app listens on whatever port the system gives it;
 * - a private-use scheme of a native app (`com.example.app:/callback`, `cursor://...`);
 * never a scheme a browser runs or reads locally (`javascript:`, `data:`, `file:`, ...), and
 * never a URI with a fragment. Everything else matches only as the exact registered string.
 */
/** Host names of this machine, as URL.hostname writes them. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:', 'filesystem:']);
export const MAX_REDIRECT_URI_LENGTH = 2000;

/** Why a URI cannot be registered as a redirect URI, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (REFUSED_SCHEMES.has(url.protocol)) return `uses the ${url.protocol} scheme, which is not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'uses http: on a host other than localhost, 127.0.0.1 or [::1]; use https:';
  if (url.username || url.password) return 'must not carry credentials';
  return null;
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
  return req.protocol === reg.protocol && req.hostname === reg.hostname && req.pathname === reg.pathname && req.search === reg.search;
}
