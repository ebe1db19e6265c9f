/**
 * NODE_ENV defaults to production in the configuration; the entrypoint makes the libraries see
 * the same default (server/node-env.ts), so it must run before any of them loads.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

async function nodeEnvAfterImport(env: Record<string, string | undefined>): Promise<string> {
  const { NODE_ENV: _unset, ...inherited } = process.env;
  const script = "await import('./server/node-env.ts'); console.log(process.env.NODE_ENV)";
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...inherited, ...env } as NodeJS.ProcessEnv,
  });
  return stdout.trim();
}

describe('NODE_ENV at start', () => {
  it('is production when unset, and an explicit value is kept', async () => {
    expect(await nodeEnvAfterImport({})).toBe('production');
    expect(await nodeEnvAfterImport({ NODE_ENV: 'development' })).toBe('development');
  }, 60_000);

  it('is set by the entrypoint before anything else is imported', () => {
    const imports = readFileSync(new URL('../../server/main.ts', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('import '));
    expect(imports[0]).toBe("import './node-env.ts';");
  });
});
