/**
 * A wrong DATABASE_URL is said in one line that names the variable, what is wrong and the fix
 * (issue 24, item 6), at start (the service exits 1 before doing anything else) rather than with
 * the driver's words ("no PostgreSQL user name specified in startup packet").
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { freePort, startChildService, type ChildService } from '../helpers/child-service.ts';

describe('DATABASE_URL of the wrong form', () => {
  it.each([
    ['localhost:5432/gateway', /must start with postgresql:\/\/ \(got "localhost:"\)/],
    ['mysql://root@127.0.0.1/gateway', /must start with postgresql:\/\/ \(got "mysql:"\)/],
    ['postgresql://127.0.0.1:5432', /names no database; add it after the host.*createdb -h 127\.0\.0\.1 gateway/],
  ])('%s is refused when the configuration is read, naming the variable and the expected form', (value, message) => {
    let thrown: unknown;
    try {
      loadConfig({ DATABASE_URL: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(/DATABASE_URL: /);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('DATABASE_URL naming a server or database that does not answer', () => {
  const children: ChildService[] = [];
  afterAll(async () => {
    for (const child of children) await child.cleanup();
  });

  async function startWith(databaseUrl: string): Promise<{ code: number | null; stderr: string }> {
    const child = await startChildService({ env: { DATABASE_URL: databaseUrl }, waitUntilReady: false });
    children.push(child);
    const exit = await child.exited;
    return { code: exit.code, stderr: child.stderr.join('\n') };
  }

  it('no server at the address: exit 1 and one line naming DATABASE_URL and pg_isready', async () => {
    const port = await freePort();
    const { code, stderr } = await startWith(`postgresql://postgres@127.0.0.1:${port}/gateway`);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `DATABASE_URL: nothing accepts connections at 127.0.0.1:${port}; is PostgreSQL running there (pg_isready -h 127.0.0.1 -p ${port})?`,
    );
  }, 60_000);

  it.skipIf(!process.env.DATABASE_URL)(
    'a database that does not exist: exit 1 and the createdb command to make it',
    async () => {
      const base = new URL(process.env.DATABASE_URL!);
      const missing = `gateway_missing_${randomBytes(4).toString('hex')}`;
      base.pathname = `/${missing}`;
      base.search = '';
      const { code, stderr } = await startWith(base.toString());
      expect(code).toBe(1);
      expect(stderr).toContain(
        `DATABASE_URL: the database "${missing}" does not exist on ${base.hostname}:${base.port || 5432}; create it first: createdb -h ${base.hostname}`,
      );
    },
    60_000,
  );
});
