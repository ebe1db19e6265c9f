/**
 * What a start tells its operator about users: on a database without users either the demo is
 * seeded (SEED_DEMO_DATA, default on the embedded database) and its credentials are printed once
 * the service listens, with the address it really listens on; or one info line says that nobody
 * can sign in yet and gives the commands that create the first admin or load the demo.
 */
import type { AddressInfo } from 'node:net';
import type { Services } from '../services.ts';
import { dashboardUrlHint, demoHeading, printDemoCredentials, seedDemoData, type DemoCredentials } from './demo-seed.ts';

export const FIRST_ADMIN_COMMAND = 'npm run cli -- user:create --email you@example.com --name "Your Name" --org "Your Organization" --admin --password-stdin';
export const SEED_DEMO_COMMAND = 'npm run cli -- seed:demo';

/**
 * Before listening: seeds when configured. Returns what to say once the service listens at `url`
 * (the credentials block, the no-user hint, or nothing).
 */
export async function prepareFirstStart(
  services: Services,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<(url: string) => void> {
  const { config, log } = services;
  const heading = demoHeading(services.db.kind, 'first start');
  if (config.seedDemoData) {
    let credentials: DemoCredentials | undefined;
    try {
      await seedDemoData(services, { onCredentials: (created) => (credentials = created) });
    } catch (error) {
      // The users exist now and a later start will not seed again: do not lose their credentials.
      if (credentials) printDemoCredentials(print, credentials, { dashboardUrl: dashboardUrlHint(config), heading });
      throw error;
    }
    if (credentials) {
      const shown = credentials;
      return (url) => printDemoCredentials(print, shown, { dashboardUrl: config.publicUrl ? dashboardUrlHint(config) : `${url}/`, heading });
    }
    return () => {};
  }
  if ((await services.prisma.user.count()) > 0) return () => {};
  return () =>
    log.info(
      { firstAdmin: FIRST_ADMIN_COMMAND, demo: SEED_DEMO_COMMAND },
      `no user exists yet, so nobody can sign in: create the first admin with \`${FIRST_ADMIN_COMMAND}\`, ` +
        `or load the demo organizations, users and data with \`${SEED_DEMO_COMMAND}\``,
    );
}

/** The URL of the address a server listens on (loopback for an all-interfaces address). */
export function listeningUrl(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') return `http://127.0.0.1`;
  let host = address.address;
  if (host === '0.0.0.0') host = '127.0.0.1';
  else if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
