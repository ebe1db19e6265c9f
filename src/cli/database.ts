/**
 * The database a command works on: `openDatabase({ mode: 'attach' })`. While the service runs on
 * the embedded database the CLI connects to its local socket (DATA_DIR/pglite.lock) and never
 * opens the data directory itself; when no service runs, the CLI owns the directory for the
 * duration of the command (a service started meanwhile refuses to start until it is done) and
 * applies pending migrations first. With DATABASE_URL it talks to PostgreSQL, and commands other
 * than db:migrate refuse to run on a database with unapplied migrations.
 */
import fs from 'node:fs';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { CommandError } from './errors.ts';
import { load } from './load.ts';

export async function openCliDatabase(config: Config, poolSize: number): Promise<Database> {
  const { openDatabase } = await load.database();
  return openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, pglitePort: config.pglitePort, mode: 'attach', poolSize });
}

/** Brings a database this process owns up to date, as the service would; refuses one behind the migrations otherwise. */
export async function prepareCliDatabase(db: Database, dataDir: string, warn: (message: string) => void): Promise<void> {
  if (await ownsEmbeddedDatabase(db, dataDir)) {
    const { applied } = await (await load.migrator()).migrate(db.pool);
    if (applied.length > 0) warn(`applied migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`);
  } else {
    await assertMigrated(db);
  }
}

/** The embedded database is ours (not a running service's) when the lock file names this process. */
async function ownsEmbeddedDatabase(db: Database, dataDir: string): Promise<boolean> {
  if (db.kind !== 'pglite') return false;
  const { lockFilePath } = await load.embedded();
  try {
    return (JSON.parse(fs.readFileSync(lockFilePath(dataDir), 'utf8')) as { pid?: number }).pid === process.pid;
  } catch {
    return false;
  }
}

/** Refuses to work on a database the service's migrations have not reached yet. */
async function assertMigrated(db: Database): Promise<void> {
  const migrations = await (await load.migrator()).readMigrations();
  let applied: Set<string>;
  try {
    const { rows } = await db.pool.query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01')
      applied = new Set(); // no _prisma_migrations table yet
    else throw error;
  }
  const pending = migrations.filter((migration) => !applied.has(migration.name));
  if (pending.length > 0) {
    throw new CommandError(
      `The database has ${pending.length} unapplied migration${pending.length === 1 ? '' : 's'} ` +
        `(${pending.map((m) => m.name).join(', ')}); run "npm run cli -- db:migrate" first`,
    );
  }
}
