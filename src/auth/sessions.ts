import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../config.ts';
import { Prisma, type PrismaClient, type UserRole } from '../generated/prisma/client.ts';

export const SESSION_COOKIE = 'sso_token';

export interface SessionClaims {
  userId?: string;
  email?: string;
  /** SHA-256 (hex) of the token's signed part (header.payload): what sign-out records. */
  tokenHash: string;
  /** The token's `exp`; null for a token without one. */
  expiresAt: Date | null;
}

/**
 * The `sso_token` cookie is a signed JWT. The built-in sign-in page issues HS256 tokens with
 * SSO_JWT_SECRET (or a secret generated once and kept in DATA_DIR); an external identity
 * backend may instead sign with its own keys, published at SSO_JWKS_URL.
 */
export class SessionTokens {
  private readonly secret: Uint8Array;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly auth: Config['auth'],
    dataDir: string,
  ) {
    this.secret = new TextEncoder().encode(auth.jwtSecret ?? loadOrCreateSecret(dataDir));
    if (auth.jwksUrl) this.jwks = createRemoteJWKSet(new URL(auth.jwksUrl));
  }

  async issue(user: { id: string; email: string }): Promise<string> {
    let jwt = new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
      // Each sign-in its own token, even two in the same second: signing out one leaves the other.
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(Math.floor((Date.now() + this.auth.sessionTtlMs) / 1000));
    if (this.auth.jwtIssuer) jwt = jwt.setIssuer(this.auth.jwtIssuer);
    if (this.auth.jwtAudience) jwt = jwt.setAudience(this.auth.jwtAudience);
    return jwt.sign(this.secret);
  }

  /** Claims of a valid token, or null for an invalid, expired or foreign one. */
  async verify(token: string): Promise<SessionClaims | null> {
    const options = { issuer: this.auth.jwtIssuer, audience: this.auth.jwtAudience };
    try {
      const { payload } = this.jwks
        ? await jwtVerify(token, this.jwks, options).catch(() => jwtVerify(token, this.secret, options))
        : await jwtVerify(token, this.secret, { ...options, algorithms: ['HS256'] });
      return claimsOf(token, payload);
    } catch {
      return null;
    }
  }

  cookieAttributes(maxAgeMs = this.auth.sessionTtlMs) {
    return {
      httpOnly: true,
      secure: this.auth.cookieSecure,
      sameSite: 'lax' as const,
      domain: this.auth.ssoDomain,
      path: '/',
      maxAge: maxAgeMs,
    };
  }
}

function claimsOf(token: string, payload: JWTPayload): SessionClaims {
  // A NUL in a text parameter is an error in PostgreSQL: such an email matches no user.
  const email = typeof payload.email === 'string' && !hasControlCharacter(payload.email) ? payload.email : undefined;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return {
    userId: payload.sub && uuid.test(payload.sub) ? payload.sub : undefined,
    email,
    tokenHash: sessionTokenHash(token),
    expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null,
  };
}

/**
 * The key of a token in the revocation list: the SHA-256 of its signed part only. The
 * signature's encoding is malleable (base64url's unused trailing bits, ECDSA's (r, n-s)), so a
 * hash of the whole string could be dodged by re-encoding it; the signed part cannot change
 * without breaking the signature. Unique per token: ours carry a random `jti`.
 */
export function sessionTokenHash(token: string): string {
  const signedPart = token.slice(0, token.lastIndexOf('.'));
  return createHash('sha256').update(signedPart).digest('hex');
}

/** C0 controls and DEL (NUL included): never part of an email address. */
export function hasControlCharacter(text: string): boolean {
  return /[\u0000-\u001f\u007f]/.test(text);
}

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
}

/**
 * The user a verified session token names, or null when there is none or the token was signed
 * out. One indexed query: the user by id (or email) and the revocation list by primary key.
 */
export async function findSessionUser(prisma: PrismaClient, claims: SessionClaims): Promise<SessionUser | null> {
  const match = claims.userId ? Prisma.sql`u.id = ${claims.userId}::uuid` : claims.email ? Prisma.sql`u.email = ${claims.email.toLowerCase()}` : null;
  if (!match) return null;
  const rows = await prisma.$queryRaw<(SessionUser & { revoked: boolean })[]>`
    SELECT u.id, u.email, u.name, u.role::text AS role,
           EXISTS (SELECT 1 FROM "RevokedSession" r WHERE r."tokenHash" = ${claims.tokenHash}) AS revoked
    FROM "User" u WHERE ${match}`;
  const [row] = rows;
  if (!row || row.revoked) return null;
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

/**
 * Sign-out: records the token as revoked (shared by every instance through the database) and
 * drops the records of tokens that have expired meanwhile, which no one can use any more.
 */
export async function revokeSession(prisma: PrismaClient, claims: SessionClaims): Promise<void> {
  await prisma.revokedSession.createMany({ data: [{ tokenHash: claims.tokenHash, expiresAt: claims.expiresAt }], skipDuplicates: true });
  await prisma.revokedSession.deleteMany({ where: { expiresAt: { lt: new Date() } } });
}

function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('hex');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return fs.readFileSync(file, 'utf8').trim();
  }
}
