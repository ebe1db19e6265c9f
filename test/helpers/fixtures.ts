import type { Services } from '../../src/services.ts';
import { hashPassword } from '../../src/auth/passwords.ts';

export interface TestUser {
  userId: string;
  email: string;
  orgId: string;
  key: string;
  password: string;
}

let counter = 0;

/** A user in an organization (new unless named) with an API key of the given scopes. */
export async function createUser(
  services: Services,
  options: { scopes?: string[]; org?: string; role?: 'admin' | 'member'; expiresAt?: Date } = {},
): Promise<TestUser> {
  counter += 1;
  const email = `user${counter}-${Date.now()}@test.local`;
  const password = `password-${counter}`;
  const { user, org } = await services.organizations.ensureUser({
    email,
    orgName: options.org ?? `Org ${email}`,
    role: options.role ?? 'admin',
    passwordHash: await hashPassword(password),
  });
  const { secret } = await services.apiKeys.create({
    userId: user.id,
    name: 'test',
    scopes: options.scopes ?? ['admin'],
    expiresAt: options.expiresAt,
  });
  return { userId: user.id, email, orgId: org!.id, key: secret, password };
}

export async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

/** callApi's arguments after the base URL, for a file's own `call` bound to its server. */
export type ApiCallArgs = [user: TestUser | null, method: Method, path: string, body?: unknown, headers?: Record<string, string>];

/** A REST call as a script would make it: the user's API key, and a JSON body when one is given. */
export function callApi(baseUrl: string, user: TestUser | null, method: Method, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return getJson(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(user ? { 'x-api-key': user.key } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Signs in through the built-in /login form; returns `sso_token=...` for a Cookie header. */
export async function signInCookie(baseUrl: string, user: Pick<TestUser, 'email' | 'password'>): Promise<string> {
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
  });
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}, expected 303`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('sso_token='));
  if (!cookie) throw new Error('sign-in set no sso_token cookie');
  return cookie.split(';')[0];
}

/** A personal access token (the MCP endpoint's credential) for a user; returns its secret. */
export async function createAccessToken(services: Services, userId: string, scopes: string[] = ['read:workspace', 'write:workspace']): Promise<string> {
  return (await services.apiKeys.create({ userId, name: 'rpc', scopes, kind: 'access_token' })).secret;
}
