/**
 * A migrated embedded database, made once and copied into each test service's DATA_DIR: creating
 * a PGlite data directory (initdb, in a child process) and migrating it costs several seconds of
 * CPU, and the suite starts a service in almost every file. Vitest's global setup makes (or finds)
 * the template and names it in GATEWAY_TEST_PGDATA_TEMPLATE, which the workers inherit; the
 * server helpers (server.ts, child-service.ts) copy it. It is kept under .tmp/ by the hash of what
 * it is made of (the migrations, PGlite's version, the initialisation script), so a later run finds
 * it as long as none of those changed. Tests that need a database made from nothing (the migrator's,
 * the first start's) do not use the helpers' copy.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrator.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEMPLATE_ENV = 'GATEWAY_TEST_PGDATA_TEMPLATE';

/** The template's pgdata directory, made when missing. */
export async function ensureEmbeddedTemplate(): Promise<string> {
  const dir = path.join(ROOT, '.tmp', 'pgdata-template', templateKey());
  const pgdata = path.join(dir, 'pgdata');
  if (fs.existsSync(path.join(pgdata, 'PG_VERSION'))) return pgdata;
  // Made aside and renamed into place: a concurrent run never sees half a template.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const building = fs.mkdtempSync(`${dir}.building-`);
  const db = await openDatabase({ dataDir: building });
  try {
    await migrate(db.pool, { log: () => undefined });
  } finally {
    await db.close();
  }
  fs.rmSync(path.join(building, 'pglite.lock'), { force: true });
  try {
    fs.renameSync(building, dir);
  } catch {
    fs.rmSync(building, { recursive: true, force: true }); // another run placed it first
  }
  return pgdata;
}

/** Copies the template (when the run has one) into `dataDir`/pgdata; false when there is none. */
export function copyEmbeddedTemplate(dataDir: string): boolean {
  const template = process.env[TEMPLATE_ENV];
  if (!template || !fs.existsSync(template)) return false;
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  return true;
}

function templateKey(): string {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'prisma', 'migrations');
  for (const name of fs.readdirSync(migrations).sort()) {
    const file = path.join(migrations, name, 'migration.sql');
    if (fs.existsSync(file)) hash.update(name).update(fs.readFileSync(file));
  }
  hash.update(fs.readFileSync(path.join(ROOT, 'src', 'db', 'init-embedded.mjs')));
  hash.update(fs.readFileSync(path.join(ROOT, 'src', 'db', 'migrator.ts')));
  hash.update(JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}
