import { performance } from 'node:perf_hooks';
import type { Database, DatabaseKind } from '../db/database.ts';

/**
 * Liveness and detailed health. `basic()` never touches a dependency (it answers as long as the
 * process serves requests); `detailed()` probes the database, the blob storage and the job queue
 * in parallel, each bounded by a timeout, and reports `unhealthy` when any of them is down (the
 * HTTP layer turns that into 503).
 *
 * Error text is reduced to a short, fixed reason (`connection refused`, `timed out after 2000 ms`,
 * ...): driver messages can carry host names, user names or whole connection strings, and the
 * detailed health answer is readable by callers who must not learn them. The full error goes to
 * the log of whoever calls this (the HTTP layer logs it with the request id).
 */

export type QueueState = 'queued' | 'running' | 'completed' | 'failed';

export interface HealthDeps {
  db: Database;
  blobs: { stats(): Promise<{ path?: string; freeBytes?: number }> };
  queueDepths: () => Promise<Record<QueueState, number>>;
  startedAt: Date;
  version: string;
  /** Which rate-limit store is in use: `memory` or `redis`. */
  rateLimitKind: string;
  /** Which pub/sub backend carries live progress: `memory` or `redis`. */
  pubsubKind?: string;
  /** Timeout of each probe (default 2000 ms). */
  timeoutMs?: number;
}

export type ComponentStatus = 'up' | 'down';

export interface DatabaseHealth {
  status: ComponentStatus;
  kind: DatabaseKind;
  /** Round trip of `SELECT 1`, rounded to 0.1 ms; null when the database is down. */
  latencyMs: number | null;
  error?: string;
}

export interface StorageHealth {
  status: ComponentStatus;
  path?: string;
  freeBytes?: number;
  error?: string;
}

export interface JobQueueHealth {
  status: ComponentStatus;
  /** Job counts by state; null when the queue could not be read. */
  queued: number | null;
  running: number | null;
  failed: number | null;
  completed: number | null;
  error?: string;
}

export interface DetailedHealth {
  status: 'healthy' | 'unhealthy';
  version: string;
  uptimeSeconds: number;
  checkedAt: Date;
  /** Which adapters this instance runs on (informational, never makes the status unhealthy). */
  backends: { database: DatabaseKind; rateLimit: string; pubsub?: string };
  checks: { database: DatabaseHealth; storage: StorageHealth; jobQueue: JobQueueHealth };
}

export const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

export class HealthService {
  private readonly timeoutMs: number;

  constructor(private readonly deps: HealthDeps) {
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  }

  basic(): { status: 'healthy' } {
    return { status: 'healthy' };
  }

  async detailed(): Promise<DetailedHealth> {
    const [database, storage, jobQueue] = await Promise.all([this.checkDatabase(), this.checkStorage(), this.checkJobQueue()]);
    const down = [database, storage, jobQueue].some((c) => c.status === 'down');
    const checkedAt = new Date();
    return {
      status: down ? 'unhealthy' : 'healthy',
      version: this.deps.version,
      uptimeSeconds: Math.max(0, Math.floor((checkedAt.getTime() - this.deps.startedAt.getTime()) / 1000)),
      checkedAt,
      backends: {
        database: this.deps.db.kind,
        rateLimit: this.deps.rateLimitKind,
        ...(this.deps.pubsubKind !== undefined ? { pubsub: this.deps.pubsubKind } : {}),
      },
      checks: { database, storage, jobQueue },
    };
  }

  private async checkDatabase(): Promise<DatabaseHealth> {
    const kind = this.deps.db.kind;
    const started = performance.now();
    try {
      await withTimeout(this.deps.db.pool.query('SELECT 1'), this.timeoutMs);
      return { status: 'up', kind, latencyMs: round1(performance.now() - started) };
    } catch (error) {
      return { status: 'down', kind, latencyMs: null, error: shortReason(error) };
    }
  }

  private async checkStorage(): Promise<StorageHealth> {
    try {
      const stats = await withTimeout(this.deps.blobs.stats(), this.timeoutMs);
      return {
        status: 'up',
        ...(stats.path !== undefined ? { path: stats.path } : {}),
        ...(stats.freeBytes !== undefined ? { freeBytes: stats.freeBytes } : {}),
      };
    } catch (error) {
      return { status: 'down', error: shortReason(error) };
    }
  }

  private async checkJobQueue(): Promise<JobQueueHealth> {
    try {
      const depths = await withTimeout(this.deps.queueDepths(), this.timeoutMs);
      return {
        status: 'up',
        queued: depths.queued ?? 0,
        running: depths.running ?? 0,
        failed: depths.failed ?? 0,
        completed: depths.completed ?? 0,
      };
    } catch (error) {
      return {
        status: 'down',
        queued: null,
        running: null,
        failed: null,
        completed: null,
        error: shortReason(error),
      };
    }
  }
}

export class TimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** Rejects with a TimeoutError when `promise` has not settled within `ms`; the promise itself keeps running. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms)), ms);
    timer.unref?.();
  });
  // A late rejection of the abandoned promise must not become an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** SQLSTATE classes and codes worth naming; everything else is reported by its code alone. */
const SQLSTATE_REASONS: Record<string, string> = {
  '28000': 'authentication failed',
  '28P01': 'authentication failed',
  '3D000': 'database does not exist',
  '3F000': 'schema does not exist',
  '42P01': 'table does not exist',
  '53300': 'too many connections',
  '57P01': 'database is shutting down',
  '57P02': 'database is shutting down',
  '57P03': 'database is not accepting connections',
};

const ERRNO_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ENOENT: 'not found',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left',
  EROFS: 'read-only file system',
};

/**
 * A short reason for a failed dependency that never repeats the driver's message (which may hold
 * a connection string, a host or a user name): a fixed phrase chosen by error code.
 */
export function shortReason(error: unknown): string {
  if (error instanceof TimeoutError) return error.message;
  const seen = new Set<unknown>();
  let current: unknown = error;
  // AggregateError (several addresses tried) and `cause` chains: use the first known code.
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (ERRNO_REASONS[code]) return ERRNO_REASONS[code];
      if (SQLSTATE_REASONS[code]) return SQLSTATE_REASONS[code];
      if (/^[0-9A-Z]{5}$/.test(code)) return `database error ${code}`;
    }
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string') {
      if (/pool after calling end|Client was closed|Connection terminated|not queryable/i.test(message)) {
        return 'connection closed';
      }
      if (/timeout/i.test(message)) return 'connection timed out';
    }
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return 'unavailable';
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}
