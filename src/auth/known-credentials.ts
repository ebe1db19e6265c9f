import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readCookie } from '../util/cookies.ts';
import { SESSION_COOKIE } from './sessions.ts';

/**
 * Which user a presented credential turned out to be, remembered by the credential's hash (never
 * the secret itself) once it was verified. Only ever used to refuse early, never to grant: a
 * client already at a cap of its user's (its open streams, its sockets) is told so before its
 * credential is looked up again, which is what lets a refusal cost next to nothing. A credential
 * revoked since is still refused; nothing here lets a request in.
 */
export class KnownCredentials {
  private readonly owners = new Map<string, { userId: string; credential: string }>();

  remember(headers: IncomingHttpHeaders, owner: { userId: string; credential: string }): void {
    const presented = presentedCredential(headers);
    if (presented === undefined) return;
    if (this.owners.size >= MAX_REMEMBERED && !this.owners.has(presented)) this.owners.clear();
    this.owners.set(presented, owner);
  }

  ownerOf(headers: IncomingHttpHeaders): { userId: string; credential: string } | undefined {
    const presented = presentedCredential(headers);
    return presented === undefined ? undefined : this.owners.get(presented);
  }
}

/** A bound on the memory (a forgotten credential is looked up again: one read). */
const MAX_REMEMBERED = 10_000;

/**
 * The credential a request presents, hashed, in the order authentication reads them (x-api-key,
 * Authorization, the session cookie); undefined without one. The same secret gives the same hash.
 */
export function presentedCredential(headers: IncomingHttpHeaders): string | undefined {
  const credential = headers['x-api-key'] ?? headers.authorization ?? readCookie(headers.cookie, SESSION_COOKIE);
  if (credential === undefined) return undefined;
  return createHash('sha256')
    .update(Array.isArray(credential) ? credential.join('\n') : credential)
    .digest('base64url');
}
