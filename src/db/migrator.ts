import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The service's own migrator for the hand-written SQL in `prisma/migrations` (the Prisma CLI's
 * schema engine cannot be downloaded here; see DESIGN.md). It keeps the books exactly as
 * `prisma migrate deploy` does — same `_prisma_migrations` table, same checksums, same advisory
 * lock key — so the official CLI on a connected machine sees the same state, and the two never
 * migrate at the same time.
 *
 * Differences from the CLI, on purpose: each migration runs inside one transaction (PostgreSQL
 * DDL is transactional), so a failing migration leaves nothing behind and is not recorded; and a
 * checksum mismatch or a failed migration recorded by someone else stops the service from
 * starting instead of being a warning.
 */

/** Anything that runs SQL: `pg.Pool`, `pg.Client`, a `pg.PoolClient`, an adapter over PGlite. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /**
   * Optional: run a multi-statement script (PGlite's `exec`). Without it the script is sent with
   * `query(sql)` and no parameters, which `pg` sends as a simple query (several statements allowed).
   */
  exec?(sql: string): Promise<unknown>;
}

/** A connection checked out of a pool. `release(err)` with an error destroys the connection. */
export interface PooledConnection extends Queryable {
  release(err?: Error | boolean): void;
}

/** A pool (`pg.Pool`): the migrator checks out one connection for the lock and the transactions. */
export interface ConnectionPool {
  connect(): Promise<PooledConnection>;
}

export type MigrationTarget = Queryable | ConnectionPool;

export interface MigrateOptions {
  /** Directory holding `<timestamp>_<name>/migration.sql`; defaults to the project's `prisma/migrations`. */
  migrationsDir?: string;
  log?: (msg: string, extra?: object) => void;
  /** How long to wait for another instance's migration lock before giving up (default 120 s). */
  lockTimeoutMs?: number;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when the database was up to date). */
  applied: string[];
}

/** The key `prisma migrate` itself locks on PostgreSQL, so the CLI and this migrator exclude each other. */
export const MIGRATION_ADVISORY_LOCK_KEY = 72707369;

export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

/** The DDL the Prisma CLI uses for its bookkeeping table on PostgreSQL. */
export const PRISMA_MIGRATIONS_TABLE_DDL = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export interface MigrationFile {
  name: string;
  script: string;
  checksum: string;
}

interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
  logs: string | null;
}

/** SHA-256 of the script as Prisma computes it: lowercase hex of the file's exact bytes. */
export function migrationChecksum(script: string): string {
  return createHash('sha256').update(script, 'utf8').digest('hex');
}

/** Prisma also accepts a checksum taken with the other line-ending convention (git may convert them). */
export function checksumMatches(script: string, checksum: string): boolean {
  const candidates = [script, script.replace(/\r\n/g, '\n'), script.replace(/\n/g, '\r\n')];
  return candidates.some((s) => migrationChecksum(s) === checksum);
}

/** The migration directories in name order, each with its script and checksum. */
export async function readMigrations(migrationsDir: string = DEFAULT_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(migrationsDir, { withFileTypes: true });
  } catch (error) {
    throw new MigrationError(`Cannot read the migrations directory ${migrationsDir}`, { cause: error });
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const file = path.join(migrationsDir, name, 'migration.sql');
    let script: string;
    try {
      script = await fs.readFile(file, 'utf8');
    } catch (error) {
      throw new MigrationError(`Migration ${name} has no readable migration.sql (${file})`, { cause: error });
    }
    migrations.push({ name, script, checksum: migrationChecksum(script) });
  }
  return migrations;
}

/**
 * Applies every migration in `migrationsDir` that the database has not applied yet, in name order,
 * each in its own transaction, under a PostgreSQL advisory lock. Throws (and applies nothing) when
 * an applied migration's file has changed or when a migration is recorded as failed.
 */
export async function migrate(db: MigrationTarget, opts: MigrateOptions = {}): Promise<MigrateResult> {
  const log = opts.log ?? (() => {});
  const migrationsDir = opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
  const migrations = await readMigrations(migrationsDir);

  const pooled = isPool(db) ? await db.connect() : undefined;
  const conn: Queryable = pooled ?? (db as Queryable);
  // After any error the pooled connection is destroyed rather than returned: it might still hold
  // the lock or sit in an aborted transaction.
  let broken: Error | undefined;
  try {
    await acquireLock(conn, opts.lockTimeoutMs ?? 120_000, log);
    try {
      return await migrateLocked(conn, migrations, log);
    } catch (error) {
      broken = asError(error);
      throw error;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_ADVISORY_LOCK_KEY]).catch((error: unknown) => {
        broken ??= asError(error);
      });
    }
  } catch (error) {
    broken ??= asError(error);
    throw error;
  } finally {
    pooled?.release(broken);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

async function migrateLocked(conn: Queryable, migrations: MigrationFile[], log: (msg: string, extra?: object) => void): Promise<MigrateResult> {
  await conn.query(PRISMA_MIGRATIONS_TABLE_DDL);
  const { rows } = await conn.query<MigrationRow>(
    `SELECT id, checksum, migration_name, finished_at, rolled_back_at, logs
       FROM _prisma_migrations ORDER BY started_at ASC`,
  );

  const failed = rows.filter((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed.length > 0) {
    const names = failed.map((r) => r.migration_name).join(', ');
    throw new MigrationError(
      `Refusing to migrate: migration ${names} is recorded as failed in _prisma_migrations ` +
        `(started, never finished, not rolled back). Fix the database by hand, then mark it with ` +
        `\`prisma migrate resolve --applied|--rolled-back <name>\` or set rolled_back_at on the row.` +
        (failed[0].logs ? `\nLogs: ${failed[0].logs}` : ''),
    );
  }

  const applied = new Map<string, MigrationRow>();
  for (const row of rows) {
    if (row.finished_at !== null && row.rolled_back_at === null) applied.set(row.migration_name, row);
  }

  const byName = new Map(migrations.map((m) => [m.name, m]));
  const changed = migrations.filter((m) => {
    const row = applied.get(m.name);
    return row !== undefined && !checksumMatches(m.script, row.checksum);
  });
  if (changed.length > 0) {
    const detail = changed.map((m) => `${m.name} (database ${applied.get(m.name)!.checksum}, file ${m.checksum})`).join('; ');
    throw new MigrationError(
      `Refusing to migrate: applied migration files were modified after being applied: ${detail}. ` + `Never edit an applied migration; add a new one instead.`,
    );
  }

  const missing = [...applied.keys()].filter((name) => !byName.has(name));
  if (missing.length > 0) {
    // A newer instance may have applied migrations this build does not ship (rolling deploy).
    log('database has migrations that are not in this build', { migrations: missing });
  }

  const pending = migrations.filter((m) => !applied.has(m.name));
  const done: string[] = [];
  for (const migration of pending) {
    const started = Date.now();
    await conn.query('BEGIN');
    try {
      // Re-check inside the transaction: connections multiplexed onto one PGlite session (the
      // embedded socket server) share the advisory lock, so another migrator may have got here first.
      const again = await conn.query(
        `SELECT 1 FROM _prisma_migrations
          WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        [migration.name],
      );
      if (again.rows.length > 0) {
        await conn.query('COMMIT');
        log(`migration ${migration.name} was applied concurrently by another migrator`, { migration: migration.name });
        continue;
      }
      const id = randomUUID();
      await conn.query(
        `INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name, applied_steps_count)
         VALUES ($1, $2, clock_timestamp(), $3, 0)`,
        [id, migration.checksum, migration.name],
      );
      if (conn.exec) await conn.exec(migration.script);
      else await conn.query(migration.script);
      await conn.query(
        `UPDATE _prisma_migrations
            SET finished_at = clock_timestamp(), applied_steps_count = applied_steps_count + 1
          WHERE id = $1`,
        [id],
      );
      await conn.query('COMMIT');
    } catch (error) {
      await conn.query('ROLLBACK').catch(() => {});
      const reason = error instanceof Error ? error.message : String(error);
      throw new MigrationError(`Migration ${migration.name} failed and was rolled back: ${reason}`, { cause: error });
    }
    done.push(migration.name);
    log(`applied migration ${migration.name}`, { migration: migration.name, durationMs: Date.now() - started });
  }

  if (done.length === 0) log('database schema is up to date', { migrations: migrations.length });
  return { applied: done };
}

async function acquireLock(conn: Queryable, timeoutMs: number, log: (msg: string, extra?: object) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let waiting = false;
  for (;;) {
    const { rows } = await conn.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_ADVISORY_LOCK_KEY]);
    if (rows[0]?.locked) return;
    if (Date.now() >= deadline) {
      throw new MigrationError(
        `Timed out after ${timeoutMs} ms waiting for the migration lock ` +
          `(pg_advisory_lock(${MIGRATION_ADVISORY_LOCK_KEY}) is held by another instance or a prisma migrate command)`,
      );
    }
    if (!waiting) {
      log('another instance is migrating; waiting for the migration lock', { key: MIGRATION_ADVISORY_LOCK_KEY });
      waiting = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A pool hands out connections. `pg.Client` also has `connect()` (it opens the client), and a
 * checked-out `pg.PoolClient` has `release()`: both are used as they are.
 */
function isPool(db: MigrationTarget): db is ConnectionPool {
  if (typeof (db as Partial<ConnectionPool>).connect !== 'function') return false;
  if (typeof (db as Partial<PooledConnection>).release === 'function') return false;
  if ('connectionParameters' in db) return false; // pg.Client
  return true;
}
