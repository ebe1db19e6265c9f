/**
 * The operator CLI as a child process (`node --import tsx src/cli/main.ts ...`), as operators run
 * it: its exit code and its whole stdout and stderr. The environment is the test's with the given
 * overrides (DATA_DIR, DATABASE_URL...), logging silenced and Redis off unless set.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The last non-empty line of a command's output (where `key:create` / `token:create` print the secret). */
export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
