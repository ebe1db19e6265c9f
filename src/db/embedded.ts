import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { SessionQueue } from './session-queue.ts';

/**
 * The embedded database: PGlite (PostgreSQL compiled to WASM) under DATA_DIR/pgdata.
 *
 * A PGlite data directory belongs to exactly one process. The process that opens it (the
 * service, or the CLI when no service is running) serves it over a local PostgreSQL socket and
 * records the address in DATA_DIR/pglite.lock; every client, including the owner itself, talks
 * to it through that socket. Another process (the CLI, psql) reads the lock file and connects
 * instead of opening the directory behind the owner's back.
 */
export interface EmbeddedServer {
  url: string;
  close(): Promise<void>;
}

interface LockInfo {
  pid: number;
  host: string;
  port: number;
  startedAt: string;
}

const HOST = '127.0.0.1';

export class EmbeddedDatabaseBusyError extends Error {
  constructor(readonly lock: LockInfo) {
    super(`The embedded database in this DATA_DIR is already served by process ${lock.pid} on ${lock.host}:${lock.port}`);
  }
}

export function lockFilePath(dataDir: string): string {
  return path.join(dataDir, 'pglite.lock');
}

export function urlFor(lock: Pick<LockInfo, 'host' | 'port'>): string {
  return `postgresql://postgres@${lock.host}:${lock.port}/postgres?sslmode=disable`;
}

/** The URL of a live owner's socket, or undefined when nobody serves this data directory. */
export function findRunningServer(dataDir: string): string | undefined {
  const lock = readLock(dataDir);
  return lock && isAlive(lock.pid) ? urlFor(lock) : undefined;
}

/**
 * PGlite keeps PostgreSQL's memory inside the process; its default 128 MB of shared buffers is
 * sized for a server, not for an embedded store next to a web service.
 */
export const DEFAULT_SHARED_BUFFERS = '32MB';

/** The embedded database's data directory under DATA_DIR. */
export function embeddedDataDirOf(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

export async function startEmbeddedServer(dataDir: string, port: number, sharedBuffers = DEFAULT_SHARED_BUFFERS): Promise<EmbeddedServer> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = lockFilePath(dataDir);
  takeLock(dataDir, lockPath);
  try {
    const pgdata = embeddedDataDirOf(dataDir);
    if (!fs.existsSync(path.join(pgdata, 'PG_VERSION'))) initializeInChildProcess(pgdata, sharedBuffers);
    const db = await PGlite.create({ dataDir: pgdata, postgresqlconf: [`shared_buffers=${sharedBuffers}`] });
    // Many connections are multiplexed onto the single PGlite session.
    const server = new PGLiteSocketServer({ db, host: HOST, port, maxConnections: 256 });
    // Replace the library's queue before any connection arrives: see SessionQueue for why.
    (server as unknown as { queryQueue: SessionQueue }).queryQueue = new SessionQueue(db);
    await server.start();
    const boundPort = Number(server.getServerConn().split(':').pop());
    const lock: LockInfo = { pid: process.pid, host: HOST, port: boundPort, startedAt: new Date().toISOString() };
    fs.writeFileSync(lockPath, JSON.stringify(lock));
    return {
      url: urlFor(lock),
      async close() {
        await server.stop();
        await db.close();
        releaseLock(lockPath);
      },
    };
  } catch (error) {
    releaseLock(lockPath);
    throw error;
  }
}

/** initdb in a separate process, so its memory peak never stays with the service (see init-embedded.mjs). */
function initializeInChildProcess(pgdata: string, sharedBuffers: string): void {
  const script = fileURLToPath(new URL('./init-embedded.mjs', import.meta.url));
  const result = spawnSync(process.execPath, [script, pgdata, sharedBuffers], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) {
    fs.rmSync(pgdata, { recursive: true, force: true });
    throw new Error(`Could not initialise the embedded database in ${pgdata}: ${result.stderr?.trim() || `exit ${result.status}`}`);
  }
}

function takeLock(dataDir: string, lockPath: string): void {
  try {
    fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host: HOST, port: 0 }), { flag: 'wx' });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const existing = readLock(dataDir);
  if (existing && existing.pid !== process.pid && isAlive(existing.pid)) throw new EmbeddedDatabaseBusyError(existing);
  // A stale lock from a process that died: take it over.
  fs.rmSync(lockPath, { force: true });
  fs.writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host: HOST, port: 0 }), { flag: 'wx' });
}

function releaseLock(lockPath: string): void {
  const lock = readLockFile(lockPath);
  if (!lock || lock.pid === process.pid) fs.rmSync(lockPath, { force: true });
}

function readLock(dataDir: string): LockInfo | undefined {
  return readLockFile(lockFilePath(dataDir));
}

function readLockFile(lockPath: string): LockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
