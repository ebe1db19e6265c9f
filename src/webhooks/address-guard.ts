/**
 * Where a webhook may be sent (issue 27, docs/webhooks.md#safety): the guard against a webhook
 * used to reach the service's own network (SSRF).
 *
 * - The scheme is `https:`, or `http:` outside production; the URL carries no user name or password.
 * - The host, a literal address or every address a name resolves to, must be a public unicast
 *   address. Refused: loopback, private (RFC 1918), link-local (169.254.0.0/16 with the cloud
 *   metadata address 169.254.169.254, fe80::/10), CGNAT (100.64.0.0/10, Alibaba's metadata
 *   100.100.100.200 among them), unique-local (fc00::/7, AWS's IPv6 metadata fd00:ec2::254 among
 *   them), multicast, broadcast, unspecified and the other reserved ranges. An IPv6 address that
 *   carries an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged
 *   by the IPv4 address inside. The ranges are ipaddr.js's: an allow-list ("unicast" only), so a
 *   range it learns later is refused until we look at it.
 * - A name is refused when ANY address it resolves to is refused: a name answering both a public
 *   and a private address could be steered to the private one.
 * - `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) lets every address through, for tests and private networks.
 *
 * `checkWebhookUrl` is the check at registration (and on a url change). The sender calls
 * `resolveWebhookTarget`, which always resolves and hands back the checked addresses: the
 * connection is made to one of those (src/webhooks/sender.ts pins it), so a name whose DNS answer
 * changes between the check and the connection (DNS rebinding) cannot reach a refused address.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.ts';

export interface AddressGuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE: every address allowed. */
  allowPrivate: boolean;
  /** NODE_ENV=production: `https:` only. */
  production: boolean;
}

/** An address the target's host resolved to, as node:net takes it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface WebhookTarget {
  url: URL;
  /** Every address of the host (one, for a literal address), each checked. */
  addresses: ResolvedAddress[];
}

/** Resolves a host to all its addresses (node's lookup, as a connection would). Replaceable in tests. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * The registration check: throws `AppError.badInput('url', …)` for a URL a webhook may not be
 * sent to; returns the parsed URL. Without `allowPrivate` a name is resolved and each address checked.
 */
export async function checkWebhookUrl(url: string, opts: AddressGuardOptions): Promise<URL> {
  const parsed = checkUrlShape(url, opts);
  if (!opts.allowPrivate) await resolveChecked(parsed);
  return parsed;
}

/**
 * The delivery check: the URL's shape as at registration, then the host resolved now and every
 * address checked (unless `allowPrivate`). The caller connects to one of `addresses` only.
 */
export async function resolveWebhookTarget(url: string, opts: AddressGuardOptions, resolver: HostResolver = systemResolver): Promise<WebhookTarget> {
  const parsed = checkUrlShape(url, opts);
  const addresses = await resolveChecked(parsed, opts.allowPrivate, resolver);
  return { url: parsed, addresses };
}

function checkUrlShape(url: string, opts: AddressGuardOptions): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw AppError.badInput('url', 'must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw AppError.badInput('url', 'must be an https: (or, outside production, http:) URL');
  if (parsed.protocol === 'http:' && opts.production) throw AppError.badInput('url', 'must be https: in production');
  if (parsed.username || parsed.password) throw AppError.badInput('url', 'must not carry a user name or password');
  if (!parsed.hostname) throw AppError.badInput('url', 'must name a host');
  return parsed;
}

/** The host's addresses, each checked (unless `allowPrivate`); a literal address is not looked up. */
async function resolveChecked(url: URL, allowPrivate = false, resolver: HostResolver = systemResolver): Promise<ResolvedAddress[]> {
  const host = bareHost(url.hostname);
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(host)) {
    const literal = ipaddr.parse(host);
    addresses = [{ address: literal.toString(), family: literal.kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
      throw AppError.badInput('url', `its host ${host} could not be resolved (${code})`);
    }
    if (addresses.length === 0) throw AppError.badInput('url', `its host ${host} has no address`);
  }
  if (allowPrivate) return addresses;
  for (const { address } of addresses) {
    const range = refusedRange(address);
    if (range) {
      const said = address === host ? address : `${host} (${address})`;
      throw AppError.badInput('url', `${said} is a ${range} address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE)`);
    }
  }
  return addresses;
}

/** An IPv6 literal's hostname keeps its brackets in a URL: `[::1]`. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** The name of the range that makes `address` refused, or null for a public unicast address. */
function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'unparsable';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return ipv4Refusal(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return ipv4Refusal(embedded);
  const range = v6.range();
  return range === 'unicast' ? null : range;
}

function ipv4Refusal(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

/** The IPv4 address an IPv6 address stands for: IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  const parts = address.parts;
  if (range === 'rfc6052') return ipv4FromWords(parts[6], parts[7]);
  if (range === '6to4') return ipv4FromWords(parts[1], parts[2]);
  return null;
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
