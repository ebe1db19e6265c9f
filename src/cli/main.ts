/**
 * The operators' CLI: `npm run cli -- <command> [options]` (usage.ts; docs/cli.md). The command
 * table is commands/ (one module per group), one invocation is run.ts, the database it opens is
 * database.ts.
 *
 * Output: human-readable text on stdout, or with `--json` exactly one JSON object on stdout and
 * nothing else. `key:create` / `token:create` print the new secret alone on the last stdout line.
 */
import { runCli } from './run.ts';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stdin: readStdin,
  });
  process.exitCode = code;
  // Everything is closed by now; this only guards against a stray handle keeping the process alive.
  setTimeout(() => process.exit(code), 5_000).unref();
}

void main();
