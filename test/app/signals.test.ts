/**
 * SIGTERM stops the service however it was started (issue 24, item 3): `npm start` runs node
 * with `exec`, so the signal npm passes on reaches node itself (not a shell that would leave node
 * serving), and the Dockerfile's CMD starts node directly in exec form. Both are run here as
 * written, and after SIGTERM the process ends and the port is free.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../helpers/child-service.ts';

const started: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts `argv` in the repository with a service environment of its own; resolves once it listens. */
async function start(argv: string[]): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-signals-'));
  dirs.push(dataDir);
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? os.homedir(),
      PORT: String(port),
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: 'false',
      SELF_TEST_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"service listening"')) resolve();
    });
    child.stderr!.on('data', () => undefined);
    void exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${out.slice(-2000)}`)));
  });
  return { child, port, exited };
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('SIGTERM', () => {
  it('to `npm start` reaches node: the service stops and its port is free', async () => {
    const { child, port, exited } = await start(['npm', 'start']);
    expect(await portOpen(port)).toBe(true);
    child.kill('SIGTERM');
    await exited;
    // npm has exited; node, its grandchild, must be gone too.
    await expect.poll(() => portOpen(port), { timeout: 30_000 }).toBe(false);
  }, 240_000);

  it("to the Dockerfile's CMD (node in exec form, no shell): a graceful stop, exit code 0", async () => {
    const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const argv = JSON.parse(cmd ?? 'null') as string[];
    expect(argv[0], 'CMD starts node itself, in exec form').toBe('node');
    const { child, port, exited } = await start([process.execPath, ...argv.slice(1)]);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await portOpen(port)).toBe(false);
  }, 240_000);

  it('npm start and the Dockerfile run node with the same heap cap (chosen from bench/generation-sse.ts, docs/operations.md#memory)', () => {
    const cap = (text: string) => /--max-old-space-size=(\d+)/.exec(text)?.[1];
    const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(cap(packageJson.scripts.start)).toBe('1024');
    expect(cap(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'))).toBe(cap(packageJson.scripts.start));
  });
});
