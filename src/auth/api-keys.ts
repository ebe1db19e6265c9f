import { FreshCoalescer } from '../util/fresh-coalescer.ts';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKey, Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { SqlClient } from '../db/sql-client.ts';
import type { PrismaSelection } from '../db/prisma-selection.ts';
import { AppError } from '../errors.ts';
import { confirmCredentialCreation } from './reauthentication.ts';
import { grants, isScope, SCOPES, scopesForRole, type Scope } from './scopes.ts';

/**
 * API keys and personal access tokens: the same kind of credential (a random secret stored as a
 * SHA-256 hash, scopes, expiry, revocation, last use) for two uses, told apart by their prefix:
 * - `api_key`: `sk_` + 32 hex, sent in `x-api-key` (or as a bearer token by scripts);
 * - `access_token`: `pat_` + 32 hex, sent as `Authorization: Bearer` by programs and AI agents
 *   (the JSON-RPC tool endpoint), listed and revoked separately from the API keys.
 * 128 bits from the CSPRNG each. The visible prefix is the tag and the first 8 hex characters.
 */
export type CredentialSecretKind = 'api_key' | 'access_token';

const KINDS: Record<CredentialSecretKind, { tag: string; pattern: RegExp; label: string }> = {
  api_key: { tag: 'sk_', pattern: /^sk_[0-9a-f]{32}$/, label: 'API key' },
  access_token: { tag: 'pat_', pattern: /^pat_[0-9a-f]{32}$/, label: 'Access token' },
};
/** last_used_at is written at most once a minute per key, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Active keys, and active tokens, a user may hold by default (MAX_API_KEYS_PER_USER, MAX_ACCESS_TOKENS_PER_USER). */
export const DEFAULT_MAX_ACTIVE_CREDENTIALS: Record<CredentialSecretKind, number> = { api_key: 20, access_token: 20 };

/** The kind a secret claims by its form, or null when it is neither. */
export function secretKind(secret: string): CredentialSecretKind | null {
  if (KINDS.api_key.pattern.test(secret)) return 'api_key';
  if (KINDS.access_token.pattern.test(secret)) return 'access_token';
  return null;
}

/** A visible prefix (`sk_1a2b3c4d`, `pat_1a2b3c4d`) of the given kind. */
export function isKeyPrefix(prefix: string, kind: CredentialSecretKind): boolean {
  return new RegExp(`^${KINDS[kind].tag}[0-9a-f]{8}$`).test(prefix);
}

export interface ApiKeyOwner {
  id: string;
  email: string;
  name: string | null;
  role: 'admin' | 'member';
}

export interface VerifiedKey {
  keyId: string;
  kind: CredentialSecretKind;
  scopes: Scope[];
  owner: ApiKeyOwner;
  /** The owner's organizations, read with the key. */
  organizationIds: ReadonlySet<string>;
  /** The owner's and their organizations' data versions, read with the key (a scope never written is absent). */
  dataVersions: ReadonlyMap<string, string>;
}

export function generateKeySecret(kind: CredentialSecretKind = 'api_key'): string {
  return `${KINDS[kind].tag}${randomBytes(16).toString('hex')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function keyPrefix(secret: string): string {
  const kind = secretKind(secret) ?? 'api_key';
  return secret.slice(0, KINDS[kind].tag.length + 8);
}

export function parseScopes(requested: readonly string[], role: 'admin' | 'member'): Scope[] {
  if (requested.length === 0) throw AppError.badInput('scopes', `at least one of ${SCOPES.join(', ')} is required`);
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw AppError.badInput('scopes', `unknown scope ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  const allowed = new Set<string>(scopesForRole(role));
  const scopes = [...new Set(requested)] as Scope[];
  if (scopes.some((scope) => !grants(allowed, scope))) throw AppError.forbidden();
  return scopes;
}

/**
 * Key, user and memberships in one statement, the one every authenticated request runs. The
 * service sends it through the pg pool (`sql`) rather than Prisma: it is the hottest statement
 * there is, and a raw query through Prisma costs several times the driver's own work.
 */
export const VERIFY_SQL = `
  SELECT k.id, k.kind::text AS kind, k."secretHash", k.scopes::text[] AS scopes, k."expiresAt", k."revokedAt", k."lastUsedAt",
         u.id AS "userId", u.email, u.name, u.role::text AS role,
         ARRAY(SELECT m."orgId"::text FROM "Membership" m WHERE m."userId" = u.id) AS "orgIds",
         ARRAY(SELECT d.scope || '=' || d.version FROM "DataVersion" d
                WHERE d.scope = 'u:' || u.id OR d.scope IN (SELECT 'o:' || m."orgId" FROM "Membership" m WHERE m."userId" = u.id)) AS "dataVersions"
    FROM "ApiKey" k JOIN "User" u ON u.id = k."userId"
   WHERE k.prefix = $1`;

/** What a session proves before it creates a credential (confirmCredentialCreation); the service brings the database. */
export type SessionProof = Omit<Parameters<typeof confirmCredentialCreation>[0], 'prisma'>;

export class ApiKeyService {
  /** Told once of each key's or token's first use (server/app.ts records it in the audit log). */
  onFirstUse?: (key: { id: string; kind: CredentialSecretKind; userId: string; prefix: string }) => void;

  constructor(
    private readonly prisma: PrismaClient,
    /** Rate-limit budgets are per key: the cap bounds how far one user can multiply them. */
    private readonly maxActive: Record<CredentialSecretKind, number> = DEFAULT_MAX_ACTIVE_CREDENTIALS,
    /** the pool for `verify` (Prisma when absent: the CLI) */
    private readonly sql?: SqlClient,
  ) {}

  /** Simultaneous verifications of one key share their read (see verify). */
  private readonly lookups = new FreshCoalescer<KeyRow | undefined>();

  async create(input: { userId: string; name: string; scopes: readonly string[]; expiresAt?: Date | null; kind?: CredentialSecretKind }) {
    const kind = input.kind ?? 'api_key';
    const user = await this.prisma.user.findUnique({ where: { id: input.userId } });
    if (!user) throw AppError.notFound('User');
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) throw AppError.badInput('name', 'must be 1 to 100 characters');
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) throw AppError.badInput('expiresIn', 'must be in the future');
    const scopes = parseScopes(input.scopes, user.role);
    const secret = generateKeySecret(kind);
    // Count and insert under a per-user lock, so that concurrent creates cannot pass the cap together.
    const record = await this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('credential-create:' || ${user.id}))`;
      const active = await tx.apiKey.count({ where: activeWhere(user.id, kind, new Date()) });
      const limit = this.maxActive[kind];
      if (active >= limit) {
        const plural = kind === 'api_key' ? 'API keys' : 'access tokens';
        throw AppError.conflict(`You already have ${limit} active ${plural}, the most allowed; revoke one you no longer use, then create a new one`);
      }
      return tx.apiKey.create({
        data: { userId: user.id, kind, name, prefix: keyPrefix(secret), secretHash: hashSecret(secret), scopes, expiresAt: input.expiresAt ?? null },
      });
    });
    return { secret, record };
  }

  /**
   * A credential created from a signed-in session, which first proves it is still its user's
   * (confirmCredentialCreation: the current password, or an expiry no later than the session's).
   */
  async createFromSession(proof: SessionProof, credential: { name: string; scopes: readonly string[]; kind: CredentialSecretKind }) {
    const expiresAt = await confirmCredentialCreation({ ...proof, prisma: this.prisma });
    return this.create({ userId: proof.userId, name: credential.name, scopes: credential.scopes, expiresAt, kind: credential.kind });
  }

  /** Whether a session of this user proves itself with the password (a user who has one) when it creates a credential. */
  async sessionNeedsPassword(userId: string): Promise<boolean> {
    const user = await this.prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
    return Boolean(user?.passwordHash);
  }

  /** Revokes one of `userId`'s keys of `kind` (any user's when userId is undefined: operators). */
  async revoke(where: { id?: string; prefix?: string; userId?: string; kind?: CredentialSecretKind }) {
    const kind = where.kind ?? 'api_key';
    const key = await this.prisma.apiKey.findFirst({
      where: { id: where.id, prefix: where.prefix, userId: where.userId, kind },
    });
    if (!key) throw AppError.notFound(KINDS[kind].label);
    if (key.revokedAt) return key;
    return this.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
  }

  /** The key's row by its prefix (one statement: key, user and memberships). */
  private async readKey(prefix: string): Promise<KeyRow | undefined> {
    const rows = this.sql ? (await this.sql.query<KeyRow>(VERIFY_SQL, [prefix])).rows : await this.prisma.$queryRawUnsafe<KeyRow[]>(VERIFY_SQL, prefix);
    return rows[0];
  }

  /** The user's keys (or tokens), newest first; `selection`: what the caller's query loads of each. */
  list(userId: string, kind: CredentialSecretKind = 'api_key', selection: PrismaSelection<Prisma.ApiKeyFindUniqueArgs> = {}): Promise<ApiKey[]> {
    return this.prisma.apiKey.findMany({ ...selection, where: { userId, kind }, orderBy: { createdAt: 'desc' } });
  }

  /**
   * The key's owner, scopes and the owner's organizations, or null for a malformed, unknown,
   * revoked or expired key. One statement reads key, user and memberships (the request needs all
   * three); nothing is cached, so a revoked key is refused on its next request. Simultaneous
   * requests with one key share the statement (FreshCoalescer: each is answered by a read that
   * began after it arrived), so a burst of them costs two reads, not one each.
   */
  async verify(secret: string, now = new Date()): Promise<VerifiedKey | null> {
    const kind = secretKind(secret);
    if (!kind) return null;
    const prefix = keyPrefix(secret);
    const key = await this.lookups.run(prefix, () => this.readKey(prefix));
    if (!key || key.kind !== kind) return null;
    const presented = Buffer.from(hashSecret(secret), 'hex');
    const stored = Buffer.from(key.secretHash, 'hex');
    if (presented.length !== stored.length || !timingSafeEqual(presented, stored)) return null;
    if (key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return null;
    if (!key.lastUsedAt) {
      // The first use: the one request (of any instance) whose update finds it unused says so (the audit log).
      key.lastUsedAt = now;
      const first = await this.prisma.apiKey.updateMany({ where: { id: key.id, lastUsedAt: null }, data: { lastUsedAt: now } });
      if (first.count === 1) this.onFirstUse?.({ id: key.id, kind, userId: key.userId, prefix });
    } else if (now.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      // The row is shared by the requests its read answered: the first of them records the use.
      key.lastUsedAt = now;
      await this.prisma.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: now } });
    }
    return {
      keyId: key.id,
      kind,
      scopes: key.scopes.filter(isScope),
      owner: { id: key.userId, email: key.email, name: key.name, role: key.role },
      organizationIds: new Set(key.orgIds),
      dataVersions: new Map(key.dataVersions.map((entry) => [entry.slice(0, entry.lastIndexOf('=')), entry.slice(entry.lastIndexOf('=') + 1)])),
    };
  }
}

/** A row of VERIFY_SQL. */
export interface KeyRow {
  id: string;
  kind: string;
  secretHash: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  userId: string;
  email: string;
  name: string | null;
  role: 'admin' | 'member';
  orgIds: string[];
  /** `scope=version` of the user's and their organizations' data versions (src/cache/data-versions.ts). */
  dataVersions: string[];
}

/** A user's keys of one kind that still work: neither revoked nor expired. */
function activeWhere(userId: string, kind: CredentialSecretKind, now: Date): Prisma.ApiKeyWhereInput {
  return { userId, kind, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
}

/** Parses `30d`, `12h`, `90m` or an ISO timestamp into an expiry date. */
export function parseExpiry(text: string, now = new Date()): Date {
  const relative = /^(\d+)([mhdw])$/.exec(text.trim());
  let expiry: Date;
  if (relative) {
    const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[relative[2] as 'm' | 'h' | 'd' | 'w'];
    expiry = new Date(now.getTime() + Number(relative[1]) * unitMs);
  } else {
    expiry = new Date(text);
    if (Number.isNaN(expiry.getTime())) throw AppError.badInput('expiresIn', 'expected a duration like 30d, 12h, 90m, 2w or an ISO timestamp');
  }
  // Beyond what a timestamp column holds (or JavaScript can represent): not a real expiry.
  if (Number.isNaN(expiry.getTime()) || expiry.getTime() > LATEST_EXPIRY_MS) throw AppError.badInput('expiresIn', 'must be before the year 10000');
  return expiry;
}

const LATEST_EXPIRY_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
