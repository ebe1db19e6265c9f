/**
 * Per-client usage (docs/usage-and-deprecation.md): the pipeline reports each operation once
 * (schema/pipeline/use-usage.ts), this instance aggregates in memory and flushes every
 * USAGE_FLUSH_INTERVAL and on close as additive upserts, so every instance of a fleet writes the
 * same tables without counting a request twice. A crash loses at most one interval of this
 * instance's counts. Retention: hourly rows USAGE_HOURLY_RETENTION, daily rows
 * USAGE_DAILY_RETENTION, purged by each instance at most once an hour.
 */
import type { Logger } from '../log.ts';
import type { SqlClient } from '../db/sql-client.ts';
import { UsageAggregate, type DeprecatedUse, type OperationUse } from './usage-aggregate.ts';
import { callersBySubject, type DeprecatedSubject, type DeprecatedSubjectCallers } from './deprecation-catalog.ts';
import { PartialWrite, UsageStore, type StoredUsageRow, type UsageFilter, type UsagePosition, type UsageReader } from './usage-store.ts';

export interface UsageSettings {
  enabled: boolean;
  flushIntervalMs: number;
  hourlyRetentionMs: number;
  dailyRetentionMs: number;
}

const DAY_MS = 86_400_000;
const PURGE_EVERY_MS = 3_600_000;
/** GET /api/usage/deprecated looks this far back. */
const DEPRECATED_CALLERS_WINDOW_MS = 30 * DAY_MS;

export class UsageService {
  private readonly aggregate = new UsageAggregate();
  private readonly store: UsageStore;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastPurge = 0;

  private subjects: DeprecatedSubject[] | undefined;

  /** `catalog`: everything deprecated (server/app.ts derives it from the schema, the route table and the tools). */
  constructor(
    sql: SqlClient,
    readonly settings: UsageSettings,
    private readonly log: Logger,
    private readonly catalog: () => DeprecatedSubject[] = () => [],
  ) {
    this.store = new UsageStore(sql);
  }

  /** An operation ended (the pipeline calls this once per operation). */
  recordOperation(use: OperationUse): void {
    if (this.settings.enabled) this.aggregate.addOperation(use);
  }

  /** A deprecated field or route was called. */
  recordDeprecated(use: DeprecatedUse): void {
    if (this.settings.enabled) this.aggregate.addDeprecated(use);
  }

  /** Flushes every interval until close(). */
  start(): void {
    if (!this.settings.enabled || this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.settings.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left (a clean shutdown loses nothing). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /**
   * Adds what this instance aggregated since the last flush to the tables. One flush at a time; a
   * failed write keeps its rows for the next one (logged, never thrown: usage never fails a request).
   */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeAndPurge()).catch((error: unknown) => this.log.warn({ err: error }, 'usage: flush failed'));
    return this.flushing;
  }

  private async writeAndPurge(): Promise<void> {
    if (this.aggregate.size > 0) {
      const { usage, deprecated } = this.aggregate.take();
      // Each statement adds and commits on its own: rows added are never written again, the rest wait for the next flush.
      try {
        await this.store.addUsage(usage);
      } catch (error) {
        return this.keep(error, { usage: unwritten(error, usage), deprecated });
      }
      try {
        await this.store.addDeprecated(deprecated);
      } catch (error) {
        return this.keep(error, { usage: [], deprecated: unwritten(error, deprecated) });
      }
    }
    await this.purgeHourly();
  }

  private keep(error: unknown, rows: ReturnType<UsageAggregate['take']>): void {
    this.aggregate.restore(rows);
    this.log.warn({ err: error, rows: rows.usage.length + rows.deprecated.length }, 'usage: flush failed; its rows wait for the next one');
  }

  private async purgeHourly(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    try {
      const deleted = await this.store.purge(new Date(now - this.settings.hourlyRetentionMs), new Date(now - this.settings.dailyRetentionMs));
      if (deleted > 0) this.log.info({ deleted }, 'usage: rows past their retention purged');
    } catch (error) {
      this.log.warn({ err: error }, 'usage: purge failed');
    }
  }

  list(reader: UsageReader, filter: UsageFilter, limit: number, after: UsagePosition | null): Promise<StoredUsageRow[]> {
    return this.store.list(reader, filter, limit, after);
  }

  /** Each deprecated field, route and tool with the credentials the reader may see that called it in the last 30 days. */
  async deprecated(reader: UsageReader, now = new Date()): Promise<DeprecatedSubjectCallers[]> {
    this.subjects ??= this.catalog();
    const calls = await this.store.deprecatedCallers(reader, new Date(now.getTime() - DEPRECATED_CALLERS_WINDOW_MS));
    return callersBySubject(this.subjects, calls);
  }
}

/** The rows a failed write did not add (all of them unless it says otherwise). */
function unwritten<T>(error: unknown, rows: T[]): T[] {
  return error instanceof PartialWrite ? (error.unwritten as T[]) : rows;
}
