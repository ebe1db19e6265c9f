import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.ts';
import { embeddedDataDirOf, findRunningServer, startEmbeddedServer, type EmbeddedServer } from './embedded.ts';
import { databaseUrlError } from './database-url.ts';

export type { PrismaClient };

export type DatabaseKind = 'pglite' | 'postgresql';

/**
 * One database handle for the whole process: Prisma for domain code and a pg pool for the few
 * things Prisma does not express (migrations, advisory locks, SKIP LOCKED claims, bulk loads).
 * Both use the same PostgreSQL wire protocol whether the server is PostgreSQL or embedded PGlite.
 */
export interface Database {
  kind: DatabaseKind;
  url: string;
  prisma: PrismaClient;
  pool: pg.Pool;
  /**
   * The embedded database's data directory on this machine (DATA_DIR/pgdata): PGlite runs in this
   * process (or, attached, in another on the same machine) and reads files put there (the audit
   * writer's batches, src/audit/recorder.ts). Undefined on PostgreSQL.
   */
  embeddedDataDir?: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string;
  dataDir: string;
  pglitePort?: number;
  /** PostgreSQL `shared_buffers` of the embedded database. */
  pgliteSharedBuffers?: string;
  /** `attach` (the CLI): use a running service's embedded server when there is one. */
  mode?: 'own' | 'attach';
  poolSize?: number;
  /** Told about connections that failed outside a query (a terminated backend, a dropped socket). */
  onConnectionError?: (error: Error) => void;
}

// DATE columns come back as 'YYYY-MM-DD' strings rather than local-time Date objects.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export async function openDatabase(options: OpenOptions): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = options.databaseUrl;
  const kind: DatabaseKind = url ? 'postgresql' : 'pglite';
  if (!url && options.mode === 'attach') url = findRunningServer(options.dataDir);
  if (!url) {
    embedded = await startEmbeddedServer(options.dataDir, options.pglitePort ?? 0, options.pgliteSharedBuffers);
    url = embedded.url;
  }
  const { connectionString, schema } = splitSchema(url);
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, ...(schema ? { options: `-c search_path="${schema}"` } : {}) });
  // A configured PostgreSQL is asked once, so a wrong DATABASE_URL is said in words that name it.
  if (options.databaseUrl) await firstConnection(pool, options.databaseUrl);
  watchConnections(pool, options.onConnectionError);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, schema ? { schema } : undefined) });
  return {
    kind,
    url,
    prisma,
    pool,
    embeddedDataDir: kind === 'pglite' ? embeddedDataDirOf(options.dataDir) : undefined,
    async close() {
      await prisma.$disconnect();
      await pool.end();
      await embedded?.close();
    },
  };
}

async function firstConnection(pool: pg.Pool, databaseUrl: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw databaseUrlError(databaseUrl, error) ?? error;
  }
}

/**
 * `pg` emits 'error' on a client whose connection drops while no query is running on it; with
 * no listener that is an uncaught exception and the process exits. The pool listens on idle
 * clients only, so every client gets a listener of its own for the time it is checked out:
 * the error is reported, the broken client fails its next query (its holder rolls back and
 * releases it, and the pool discards it), and the process stays up.
 */
function watchConnections(pool: pg.Pool, report: (error: Error) => void = () => undefined): void {
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
}

/** Prisma's `?schema=name` convention: the schema goes to search_path and to Prisma, not to pg. */
export function splitSchema(url: string): { connectionString: string; schema?: string } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error('DATABASE_URL: schema must be a plain identifier');
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}
