/**
 * A real load balancer for the fleet test and benchmark: the Debian package's haproxy, run in
 * the foreground (`-db`) as a child process of the test, with deploy/haproxy.cfg (the file
 * compose.yaml uses) in which only the `server` lines are replaced by the given instances.
 * Its stats CSV tells which servers haproxy currently sees as UP. `stop()` ends that child only.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT } from './child-service.ts';

export const HAPROXY_CONFIG = path.join(REPO_ROOT, 'deploy', 'haproxy.cfg');
const SERVERS_MARKER = /^\s*# --- servers/;

/** The haproxy binary, or undefined when it is not installed (`.ci/run` installs the Debian package). */
export function findHaproxy(): string | undefined {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy']) if (fs.existsSync(candidate)) return candidate;
  try {
    const found = execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim();
    return found || undefined;
  } catch {
    return undefined;
  }
}

export interface Backend {
  /** haproxy's server name, echoed in the X-Served-By response header */
  name: string;
  port: number;
  host?: string;
}

export interface LoadBalancer {
  url: string;
  port: number;
  statsUrl: string;
  pid: number;
  configFile: string;
  /** haproxy's status of each server (UP, DOWN, "UP 1/2", ...), by name */
  serverStates(): Promise<Record<string, string>>;
  /** waits until haproxy's health checks see exactly these servers as UP (the others not) */
  waitForUp(names: string[], timeoutMs?: number): Promise<void>;
  output: string[];
  stop(): Promise<void>;
}

/** deploy/haproxy.cfg with its `server` lines (after the marker comment) replaced. */
export function haproxyConfig(backends: Backend[]): string {
  const lines = fs.readFileSync(HAPROXY_CONFIG, 'utf8').split('\n');
  const marker = lines.findIndex((line) => SERVERS_MARKER.test(line));
  if (marker < 0) throw new Error(`${HAPROXY_CONFIG}: no "# --- servers" marker`);
  let end = marker + 1;
  while (end < lines.length && /^\s*server\s/.test(lines[end])) end++;
  const servers = backends.map((backend) => `    server ${backend.name} ${backend.host ?? '127.0.0.1'}:${backend.port}`);
  return [...lines.slice(0, marker + 1), ...servers, ...lines.slice(end)].join('\n');
}

export async function startHaproxy(backends: Backend[], binary = findHaproxy()): Promise<LoadBalancer> {
  if (!binary) throw new Error('haproxy is not installed (apt-get install -y --no-install-recommends haproxy)');
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'fleet-haproxy-'));
  const configFile = path.join(dir, 'haproxy.cfg');
  await fsp.writeFile(configFile, haproxyConfig(backends));
  const port = await freePort();
  const statsPort = await freePort();
  const env = { ...process.env, GATEWAY_BIND: `127.0.0.1:${port}`, STATS_BIND: `127.0.0.1:${statsPort}` };
  try {
    execFileSync(binary, ['-c', '-f', configFile], { env, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    await fsp.rm(dir, { recursive: true, force: true });
    throw new Error(`haproxy -c rejected ${configFile}:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
  const child: ChildProcess = spawn(binary, ['-db', '-f', configFile], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const statsUrl = `http://127.0.0.1:${statsPort}/stats`;

  const serverStates = async (): Promise<Record<string, string>> => {
    const csv = await (await fetch(`${statsUrl};csv`)).text();
    const states: Record<string, string> = {};
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = header.split(',');
    const [px, sv, status] = ['pxname', 'svname', 'status'].map((name) => columns.indexOf(name));
    for (const row of rows) {
      const cells = row.split(',');
      if (cells[px] === 'instances' && cells[sv] !== 'BACKEND') states[cells[sv]] = cells[status];
    }
    return states;
  };

  const balancer: LoadBalancer = {
    url: `http://127.0.0.1:${port}`,
    port,
    statsUrl,
    pid: child.pid!,
    configFile,
    output,
    serverStates,
    async waitForUp(names, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let last: Record<string, string> = {};
      for (;;) {
        try {
          last = await serverStates();
          const up = Object.entries(last)
            .filter(([, state]) => state === 'UP')
            .map(([name]) => name)
            .sort();
          if (JSON.stringify(up) === JSON.stringify([...names].sort())) return;
        } catch {
          /* not listening yet */
        }
        if (Date.now() > deadline) throw new Error(`haproxy: expected exactly ${names.join(', ')} UP, saw ${JSON.stringify(last)}\n${output.join('')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
  // listening once its stats page answers
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await serverStates();
      return balancer;
    } catch (error) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await balancer.stop();
        throw new Error(`haproxy did not start: ${String(error)}\n${output.join('')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
