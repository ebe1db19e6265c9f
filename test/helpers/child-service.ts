/**
 * The service as a separate process, as operators run it (`node --import tsx server/main.ts`, which
 * is what `npx tsx server/main.ts` runs, without the npx and tsx wrapper processes in between, so
 * that signals, exit codes and the memory measured are the service's own).
 *
 * Its own DATA_DIR and TMPDIR (temp directories), a fixed free port, JSON logs captured line by
 * line. With DATABASE_URL set, its own PostgreSQL schema. `cli()` runs the operator CLI against
 * the same database (the embedded one through the running service's socket).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyEmbeddedTemplate } from './embedded-template.ts';
import { createSchema, dropSchema } from './postgres-schema.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A port nobody listens on right now (the OS picks it; we close it again at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface ChildService {
  process: ChildProcess;
  pid: number;
  port: number;
  url: string;
  dataDir: string;
  tmpDir: string;
  env: Record<string, string>;
  /** stdout, one entry per line */
  stdout: string[];
  stderr: string[];
  /** resolves when the process has exited */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** resolves with the first stdout line matching, or rejects after `timeoutMs` */
  waitForLine(predicate: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** runs `npm run cli -- <args>` (as `node --import tsx src/cli/main.ts`) against this service's database */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** SIGKILL if still running, drop the schema, remove the directories */
  cleanup(): Promise<void>;
}

export interface ChildOptions {
  env?: Record<string, string>;
  /** variables of the helper's defaults to leave unset (the service's own defaults apply), e.g. NODE_ENV */
  unsetEnv?: string[];
  /** reuse the directories (and schema) of an earlier child: a restart */
  reuse?: Pick<ChildService, 'dataDir' | 'tmpDir' | 'env'>;
  /** resolve only once /health answers (default true) */
  waitUntilReady?: boolean;
  startTimeoutMs?: number;
  /** Extra node flags before the script (e.g. --cpu-prof, which NODE_OPTIONS does not accept). */
  nodeArgs?: string[];
  /** true: an empty DATA_DIR, the embedded database made from nothing (default: the run's migrated template) */
  freshDatabase?: boolean;
}

/** The free port picked for a child was taken before it listened (another connection got it first). */
class PortTaken extends Error {}

export async function startChildService(options: ChildOptions = {}): Promise<ChildService> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startChildOnce(options);
    } catch (error) {
      // freePort() closes its probe before the child listens: under load another test's connection
      // can take the port meanwhile. The child refuses at once (port-check.ts); pick another port.
      if (!(error instanceof PortTaken) || attempt >= 3) throw error;
    }
  }
}

async function startChildOnce(options: ChildOptions): Promise<ChildService> {
  const dataDir = options.reuse?.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-child-data-')));
  const tmpDir = options.reuse?.tmpDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-child-tmp-')));
  let databaseEnv: Record<string, string> = {};
  let schema: string | undefined;
  const baseUrl = process.env.DATABASE_URL?.trim();
  if (options.reuse) {
    databaseEnv = options.reuse.env.DATABASE_URL ? { DATABASE_URL: options.reuse.env.DATABASE_URL } : {};
  } else if (baseUrl) {
    const created = await createSchema(baseUrl);
    schema = created.schema;
    databaseEnv = { DATABASE_URL: created.url };
  } else if (!options.freshDatabase && !options.env?.DATABASE_URL) {
    copyEmbeddedTemplate(dataDir);
  }
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? os.homedir(),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    TMPDIR: tmpDir,
    SEED_DEMO_DATA: 'false',
    SELF_TEST_ENABLED: 'false',
    LOG_LEVEL: 'info',
    WORKER_POLL_INTERVAL: '200ms',
    ...databaseEnv,
    ...options.env,
  };
  for (const name of options.unsetEnv ?? []) delete env[name];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'server/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const listeners = new Set<() => void>();
  let exitedAlready = false;
  const collect = (into: string[]) => {
    let partial = '';
    return (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      into.push(...lines.filter((line) => line.length > 0));
      for (const listener of listeners) listener();
    };
  };
  child.stdout!.on('data', collect(stdout));
  child.stderr!.on('data', collect(stderr));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      // Set before the listeners run, so a waiter sees the exit instead of waiting out its timeout.
      exitedAlready = true;
      for (const listener of listeners) listener();
      resolve({ code, signal });
    });
  });

  const waitForLine = (predicate: (line: string) => boolean, timeoutMs = 30_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = stdout.find(predicate);
        if (found !== undefined) {
          done();
          resolve(found);
        } else if (exitedAlready) {
          done();
          reject(new Error(`the service exited before the expected log line\nstdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching log line within ${timeoutMs} ms\nstdout:\n${stdout.join('\n')}\nstderr:\n${stderr.join('\n')}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  const service: ChildService = {
    process: child,
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    tmpDir,
    env,
    stdout,
    stderr,
    exited,
    waitForLine,
    cli: (args) =>
      new Promise((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: REPO_ROOT, env, timeout: 60_000 }, (error, out, err) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(out), stderr: String(err) });
        });
      }),
    async cleanup() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      if (schema && baseUrl) await dropSchema(baseUrl, schema);
      await fs.rm(dataDir, { recursive: true, force: true });
      await fs.rm(tmpDir, { recursive: true, force: true });
    },
  };
  if (options.waitUntilReady ?? true) {
    try {
      await waitForLine((line) => line.includes('"service listening"'), options.startTimeoutMs ?? 60_000);
    } catch (error) {
      const portTaken = !options.env?.PORT && stderr.some((line) => line.includes(`Port ${port} on 127.0.0.1 is already in use`));
      if (portTaken && options.reuse) {
        // A restart: the directories and schema are the earlier child's; only this process goes.
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      } else {
        await service.cleanup();
      }
      throw portTaken ? new PortTaken(error instanceof Error ? error.message : String(error)) : error;
    }
  }
  return service;
}

/** Creates a user in a new organization and an API key for it through the CLI; returns the ids and the key. */
export async function createUserWithCli(service: ChildService, scopes: string[]): Promise<{ userId: string; orgId: string; key: string }> {
  const email = `child-${randomBytes(4).toString('hex')}@test.local`;
  const user = await service.cli(['user:create', '--email', email, '--org', `Child ${email}`, '--json']);
  if (user.code !== 0) throw new Error(`user:create failed (${user.code}): ${user.stderr}`);
  const created = JSON.parse(user.stdout) as { user: { id: string }; organization: { id: string } };
  const key = await service.cli(['key:create', '--email', email, '--scopes', scopes.join(','), '--json']);
  if (key.code !== 0) throw new Error(`key:create failed (${key.code}): ${key.stderr}`);
  return { userId: created.user.id, orgId: created.organization.id, key: (JSON.parse(key.stdout) as { key: string }).key };
}
