import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../config.ts';

export const SESSION_COOKIE = 'sso_token';

export interface SessionClaims {
  userId?: string;
  email?: string;
}

/**
 * The `sso_token` cookie is a signed JWT. The built-in sign-in page issues HS256 tokens with
 * SSO_JWT_SECRET (or a secret generated once and kept in DATA_DIR); an external identity
 * backend may instead sign with its own keys, published at SSO_JWKS_URL.
 */
export class SessionTokens {
  private readonly secret: Uint8Array;
  private readonly jwks?: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly auth: Config['auth'], dataDir: string) {
    this.secret = new TextEncoder().encode(auth.jwtSecret ?? loadOrCreateSecret(dataDir));
    if (auth.jwksUrl) this.jwks = createRemoteJWKSet(new URL(auth.jwksUrl));
  }

  async issue(user: { id: string; email: string }): Promise<string> {
    let jwt = new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user.id)
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
      return claimsOf(payload);
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

function claimsOf(payload: JWTPayload): SessionClaims {
  const email = typeof payload.email === 'string' ? payload.email : undefined;
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return { userId: payload.sub && uuid.test(payload.sub) ? payload.sub : undefined, email };
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
