import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

// argon2id, memory-hard: 19 MiB, 2 passes (OWASP's baseline recommendation).
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/**
 * Checks a sign-in's password against the user's hash, or, when there is no hash to check (no
 * such user, or a user who signs in elsewhere), against a dummy hash made with the same
 * parameters, and then answers false. Either way the attempt costs one argon2 verification, so
 * the time an answer takes does not tell which emails have an account.
 */
export async function verifyPasswordOrDummy(stored: string | null | undefined, password: string): Promise<boolean> {
  if (stored) return verifyPassword(stored, password);
  await verifyPassword(await dummyHash(), password);
  return false;
}

let dummy: Promise<string> | undefined;

/**
 * The dummy hash, made once per process from a random secret nobody knows. Call it ahead of the
 * first sign-in (when the page is set up) so that the first unknown email does not pay for
 * making it.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummy;
}
