import type { Logger } from '../log.ts';
import { TimeoutError, withTimeout } from './health-service.ts';

/**
 * Readiness: may a load balancer send this instance new requests? (`GET /readyz`,
 * server/http/probes.ts.) Liveness (`GET /livez`) is a different question and checks nothing.
 *
 * Ready = not shutting down AND migrations done AND the database answers AND Redis answers (when
 * REDIS_URL is set) AND the blob store answers. Each dependency check is bounded by
 * READINESS_CHECK_TIMEOUT_MS, the checks run in parallel, and one result is reused for
 * READINESS_CACHE_MS (concurrent probes share the check in flight), so a probe storm costs the
 * database at most one `SELECT 1` per second per instance. Shutting down is not cached: the
 * first probe after SIGTERM already answers 503.
 *
 * The answer names each check with a fixed word (`ok`, `unreachable`, `timeout`, ...), never a
 * driver message: the probe is unauthenticated. Changes of state are logged (with the error).
 */

/** Bound of each dependency check (database, Redis, blob store) of one readiness probe. */
export const READINESS_CHECK_TIMEOUT_MS = 1_000;
/** How long one readiness result is reused: probes more often than this cost no dependency a query. */
export const READINESS_CACHE_MS = 1_000;
export type DependencyState = 'ok' | 'unreachable' | 'timeout';

export interface ReadinessChecks {
  /** `running` until the migrations have been applied. */
  migrations: 'ok' | 'running';
  database?: DependencyState;
  /** Present only when Redis is configured. */
  redis?: DependencyState;
  storage?: DependencyState;
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessChecks;
  /** Why not ready: `shutting down`, `migrations running`, `database unreachable`, ... */
  reason?: string;
}

export interface ReadinessDeps {
  db: { pool: { query(sql: string): Promise<unknown> } };
  /** The service's Redis client when REDIS_URL is set (ioredis: `status` is `ready` while connected). */
  redis?: { readonly status: string; ping(): Promise<string> };
  /** The blob store: `stats()` is its cheapest round trip (a HeadBucket on S3; locally the directory is created if need be and statfs'd). */
  blobs: { stats(): Promise<unknown> };
  /** True from the moment shutdown begins (SIGTERM or `stop()`). */
  shuttingDown: () => boolean;
  log?: Logger;
  timeoutMs?: number;
  cacheMs?: number;
  now?: () => number;
}

export class Readiness {
  private migrated = false;
  private cached: { at: number; report: ReadinessReport } | undefined;
  private inFlight: Promise<ReadinessReport> | undefined;
  private lastReady: boolean | undefined;
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(private readonly deps: ReadinessDeps) {
    this.timeoutMs = deps.timeoutMs ?? READINESS_CHECK_TIMEOUT_MS;
    this.cacheMs = deps.cacheMs ?? READINESS_CACHE_MS;
    this.now = deps.now ?? Date.now;
  }

  /** Called once the migrations have been applied (the service migrates before it listens). */
  markMigrated(): void {
    this.migrated = true;
  }

  async check(): Promise<ReadinessReport> {
    if (this.deps.shuttingDown()) return this.settle({ ready: false, checks: { migrations: this.migrated ? 'ok' : 'running' }, reason: 'shutting down' });
    if (!this.migrated) return this.settle({ ready: false, checks: { migrations: 'running' }, reason: 'migrations running' });
    const cached = this.cached;
    if (cached && this.now() - cached.at < this.cacheMs) return cached.report;
    this.inFlight ??= this.checkDependencies().finally(() => (this.inFlight = undefined));
    const report = await this.inFlight;
    // Shutdown may have begun while the dependencies were being checked.
    return this.deps.shuttingDown() ? this.check() : report;
  }

  private async checkDependencies(): Promise<ReadinessReport> {
    const { db, redis, blobs } = this.deps;
    const [database, redisState, storage] = await Promise.all([
      this.probe('database', () => db.pool.query('SELECT 1')),
      redis ? this.probe('redis', () => (redis.status === 'ready' ? redis.ping() : Promise.reject(new Error(`Redis connection ${redis.status}`)))) : undefined,
      this.probe('storage', () => blobs.stats()),
    ]);
    const checks: ReadinessChecks = { migrations: 'ok', database, ...(redisState ? { redis: redisState } : {}), storage };
    const failed = (['database', 'redis', 'storage'] as const).filter((name) => checks[name] !== undefined && checks[name] !== 'ok');
    const report: ReadinessReport =
      failed.length === 0 ? { ready: true, checks } : { ready: false, checks, reason: failed.map((name) => `${name} ${checks[name]}`).join(', ') };
    this.cached = { at: this.now(), report };
    return this.settle(report);
  }

  private async probe(name: string, run: () => Promise<unknown>): Promise<DependencyState> {
    try {
      await withTimeout(run(), this.timeoutMs);
      return 'ok';
    } catch (error) {
      if (this.lastReady !== false) this.deps.log?.warn({ check: name, err: error }, 'readiness check failed');
      return error instanceof TimeoutError ? 'timeout' : 'unreachable';
    }
  }

  /** Logs a change of state (ready -> not ready and back), not every probe. */
  private settle(report: ReadinessReport): ReadinessReport {
    if (report.ready !== this.lastReady) {
      if (report.ready) this.deps.log?.info({ checks: report.checks }, 'ready: /readyz answers 200');
      else this.deps.log?.warn({ checks: report.checks, reason: report.reason }, 'not ready: /readyz answers 503');
      this.lastReady = report.ready;
    }
    return report;
  }
}
