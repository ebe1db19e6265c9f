/**
 * The webhook address guard (issue 27, src/webhooks/address-guard.ts): every refused range as a
 * literal address (IPv4, IPv6, IPv4 inside IPv6), a name that resolves to loopback, a name whose
 * answer mixes a public and a private address, WEBHOOK_ALLOW_PRIVATE letting them through, and
 * `http:` refused in production. The resolver is the system's (`localhost`) or a test's own.
 */
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, resolveWebhookTarget, type HostResolver } from '../../src/webhooks/address-guard.ts';
import { AppError } from '../../src/errors.ts';

const strict = { allowPrivate: false, production: false };
const prod = { allowPrivate: false, production: true };
const open = { allowPrivate: true, production: false };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'expected a refusal').toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('BAD_USER_INPUT');
  expect(appError.message).toContain('url');
  return appError;
}

/** A resolver answering fixed addresses for every name. */
function answering(...addresses: string[]): HostResolver {
  return async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

const REFUSED_LITERALS: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.10.10', 'link-local'],
  ['169.254.169.254', 'metadata (link-local)'],
  ['100.64.0.1', 'CGNAT'],
  ['100.100.100.200', 'metadata (CGNAT)'],
  ['0.0.0.0', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['[::1]', 'IPv6 loopback'],
  ['[::]', 'IPv6 unspecified'],
  ['[fe80::1]', 'IPv6 link-local'],
  ['[fc00::1]', 'unique-local'],
  ['[fd12:3456::1]', 'unique-local'],
  ['[fd00:ec2::254]', 'AWS IPv6 metadata'],
  ['[ff02::1]', 'IPv6 multicast'],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
  ['[::ffff:10.0.0.1]', 'IPv4-mapped private'],
  ['[::ffff:169.254.169.254]', 'IPv4-mapped metadata'],
  ['[64:ff9b::7f00:1]', 'NAT64 of loopback'],
  ['[2002:a00:1::]', '6to4 of 10.0.0.1'],
  // The URL parser turns these spellings of 127.0.0.1 into 127.0.0.1 before the check.
  ['2130706433', 'decimal loopback'],
  ['0x7f.1', 'hex loopback'],
];

describe('checkWebhookUrl', () => {
  it.each(REFUSED_LITERALS)('refuses %s (%s)', async (host) => {
    const error = await refusal(checkWebhookUrl(`https://${host}:8443/hook`, strict));
    expect(error.message).toMatch(/address; webhooks go to public addresses only/);
  });

  it('accepts public literal addresses', async () => {
    for (const host of ['93.184.216.34', '8.8.8.8', '[2606:4700:4700::1111]', '[::ffff:8.8.8.8]']) {
      const url = await checkWebhookUrl(`https://${host}/hook?x=1`, strict);
      expect(url.href).toBe(new URL(`https://${host}/hook?x=1`).href);
    }
  });

  it('refuses a name that resolves to loopback (localhost)', async () => {
    const error = await refusal(checkWebhookUrl('http://localhost:9/hook', strict));
    expect(error.message).toContain('localhost (127.0.0.1) is a loopback address');
  });

  it('lets every refused address through with allowPrivate', async () => {
    for (const [host] of REFUSED_LITERALS) {
      await expect(checkWebhookUrl(`http://${host}/hook`, open)).resolves.toBeInstanceOf(URL);
    }
    await expect(checkWebhookUrl('http://localhost:9/hook', open)).resolves.toBeInstanceOf(URL);
  });

  it('refuses http: in production, whatever the address', async () => {
    const error = await refusal(checkWebhookUrl('http://93.184.216.34/hook', prod));
    expect(error.message).toContain('https: in production');
    await refusal(checkWebhookUrl('http://127.0.0.1/hook', { allowPrivate: true, production: true }));
    await expect(checkWebhookUrl('https://93.184.216.34/hook', prod)).resolves.toBeInstanceOf(URL);
  });

  it('refuses other schemes, credentials in the URL and what is not a URL', async () => {
    for (const url of ['ftp://93.184.216.34/x', 'file:///etc/passwd', 'gopher://93.184.216.34/', 'not a url', '/relative/path']) {
      await refusal(checkWebhookUrl(url, open));
    }
    const error = await refusal(checkWebhookUrl('https://user:secret@93.184.216.34/hook', open));
    expect(error.message).toContain('user name or password');
  });

  it('refuses a name that does not resolve', async () => {
    const error = await refusal(checkWebhookUrl('https://no-such-host.invalid/hook', strict));
    expect(error.message).toContain('could not be resolved');
  });
});

describe('resolveWebhookTarget (the check at delivery)', () => {
  it('refuses a name when any of its addresses is refused', async () => {
    const error = await refusal(resolveWebhookTarget('https://rebind.example/hook', strict, answering('93.184.216.34', '10.0.0.7')));
    expect(error.message).toContain('rebind.example (10.0.0.7) is a private address');
  });

  it('gives the checked addresses to connect to', async () => {
    const target = await resolveWebhookTarget('https://public.example/hook', strict, answering('93.184.216.34', '2606:4700::1'));
    expect(target.url.hostname).toBe('public.example');
    expect(target.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
  });

  it('resolves with allowPrivate too, without refusing', async () => {
    const target = await resolveWebhookTarget('http://localhost:9/hook', open);
    expect(target.addresses.map((a) => a.address)).toContain('127.0.0.1');
    const literal = await resolveWebhookTarget('http://[::ffff:127.0.0.1]:9/hook', open);
    expect(literal.addresses).toEqual([{ address: '::ffff:7f00:1', family: 6 }]);
  });
});
