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
export async function createUser(services: Services, options: { scopes?: string[]; org?: string; role?: 'admin' | 'member'; expiresAt?: Date } = {}): Promise<TestUser> {
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
