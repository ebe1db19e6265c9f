/**
 * Live streams end when the credential that opened them stops being valid.
 *
 * A follower is authorized when it subscribes; a stream can then last as long as a run. If its API
 * key or access token is revoked (or expires, or is deleted), or its OAuth grant is revoked, on
 * any instance, the stream ends within one check interval (GENERATION_HEARTBEAT): the client's
 * next subscription is refused as any request with that credential would be. One query per
 * credential kind per interval checks every watched credential of the process, however many
 * streams it has, and only while something is watched.
 *
 * Session credentials are not watched: a session is identified by its token, which the viewer
 * does not carry; a signed-out session's streams end when the session expires or the client
 * disconnects (docs/subscriptions.md#when-a-credential-is-revoked).
 */
import type pg from 'pg';
import type { Logger } from '../log.ts';

/** A request's credential, as the viewer names it (src/context.ts Viewer['credential'] is this type). */
export interface Credential {
  kind: 'api_key' | 'session' | 'access_token' | 'oauth_token';
  id: string;
}

/** The statement that returns which of the given ids are still valid, per watched credential kind. */
const STILL_VALID: Partial<Record<Credential['kind'], string>> = {
  api_key: `SELECT id::text FROM "ApiKey" WHERE id = ANY($1::uuid[]) AND "revokedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > now())`,
  access_token: `SELECT id::text FROM "ApiKey" WHERE id = ANY($1::uuid[]) AND "revokedAt" IS NULL AND ("expiresAt" IS NULL OR "expiresAt" > now())`,
  oauth_token: `SELECT id::text FROM "OAuthGrant" WHERE id = ANY($1::uuid[]) AND "revokedAt" IS NULL`,
};

export class CredentialWatch {
  /** Per credential kind, per id: what to call when it is no longer valid. */
  private readonly watched = new Map<Credential['kind'], Map<string, Set<() => void>>>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  /** Calls `onInvalid` once the credential is found revoked or expired; returns the function that stops watching. */
  watch(credential: Credential, onInvalid: () => void): () => void {
    if (!STILL_VALID[credential.kind]) return () => {};
    let byId = this.watched.get(credential.kind);
    if (!byId) {
      byId = new Map();
      this.watched.set(credential.kind, byId);
    }
    let callbacks = byId.get(credential.id);
    if (!callbacks) {
      callbacks = new Set();
      byId.set(credential.id, callbacks);
    }
    callbacks.add(onInvalid);
    this.timer ??= setInterval(() => void this.check(), this.intervalMs).unref();
    return () => this.unwatch(credential, onInvalid);
  }

  /** One statement per watched kind; the callbacks of every credential no longer valid are called. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const [kind, byId] of this.watched) {
        const ids = [...byId.keys()];
        if (ids.length === 0) continue;
        const { rows } = await this.pool.query<{ id: string }>(STILL_VALID[kind]!, [ids]);
        const valid = new Set(rows.map((row) => row.id));
        for (const id of ids) if (!valid.has(id)) this.invalidated(kind, id);
      }
    } catch (error) {
      // The next interval tries again; the streams stay open meanwhile (as they would without the watch).
      this.log.warn({ err: error }, 'could not check the credentials of open streams');
    } finally {
      this.checking = false;
    }
  }

  private invalidated(kind: Credential['kind'], id: string): void {
    const callbacks = this.watched.get(kind)?.get(id);
    this.watched.get(kind)?.delete(id);
    for (const callback of callbacks ?? []) callback();
    this.stopIfIdle();
  }

  private unwatch(credential: Credential, onInvalid: () => void): void {
    const byId = this.watched.get(credential.kind);
    const callbacks = byId?.get(credential.id);
    if (!byId || !callbacks) return;
    callbacks.delete(onInvalid);
    if (callbacks.size === 0) byId.delete(credential.id);
    this.stopIfIdle();
  }

  private stopIfIdle(): void {
    if (this.timer && [...this.watched.values()].every((byId) => byId.size === 0)) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
