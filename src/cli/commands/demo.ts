/** `seed:demo` and `demo:credentials`: the demo organizations, users, key and data. */
import type { DemoCredentials } from '../../seed/demo-seed.ts';
import type { Command } from '../command.ts';
import { CommandError } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

export const demoCommands: Record<string, Command> = {
  'seed:demo': {
    summary: 'seed the demo organizations, users and data',
    options: {},
    async run(ctx) {
      const seed = await load.seed();
      const db = await ctx.database({ poolSize: 4 });
      const existing = await db.prisma.user.findUnique({ where: { email: seed.DEMO_ADMIN_EMAIL }, select: { id: true } });
      if (existing) {
        return output(ctx.json, [`The demo exists already (${seed.DEMO_ADMIN_EMAIL}); nothing was seeded. Its credentials were shown when it was seeded.`], {
          seeded: false,
          exists: true,
        });
      }
      const { buildServices, createBlobStore } = await load.app();
      const { createLogger } = await load.log();
      const services = buildServices(ctx.config, db, createLogger('silent'), { blobs: await createBlobStore(ctx.config, createLogger('silent')) });
      try {
        const lines: string[] = [];
        const print = (line: string) => lines.push(line);
        let credentials: DemoCredentials | undefined;
        const result = await seed
          .seedDemoData(services, {
            onlyIntoEmptyDatabase: false,
            onCredentials: (created) => {
              credentials = created;
              // Shown at once on stderr if the data load fails below: the users exist by then.
              if (!ctx.json)
                seed.printDemoCredentials(print, created, { dashboardUrl: seed.dashboardUrlHint(ctx.config), heading: seed.demoHeading(db.kind, 'seed:demo') });
            },
          })
          .catch((error: unknown) => {
            if (credentials) {
              const block: string[] = [];
              seed.printDemoCredentials((line) => block.push(line), credentials, {
                dashboardUrl: seed.dashboardUrlHint(ctx.config),
                heading: seed.demoHeading(db.kind, 'seed:demo'),
              });
              ctx.warn(`${block.join('\n')}\nThe users above were created, but loading the demo data failed.`);
            }
            throw error;
          });
        return output(ctx.json, [...lines, `Seeded ${result.files?.length ?? 0} files in ${Math.round((result.durationMs ?? 0) / 100) / 10} s.`], {
          seeded: true,
          dashboardUrl: seed.dashboardUrlHint(ctx.config),
          admin: { email: seed.DEMO_ADMIN_EMAIL, password: result.adminPassword },
          analyst: { email: seed.DEMO_ANALYST_EMAIL, password: result.analystPassword },
          apiKey: result.apiKey,
          organizations: result.organizations,
          files: result.files,
        });
      } finally {
        await services.progress.close().catch(() => {});
        await services.pubsub.close().catch(() => {});
      }
    },
    // One event for the whole demo, in the demo organization.
    audit: (data) => (data.seeded ? { organizationId: demoOrganization(data) } : null),
  },

  'demo:credentials': {
    summary: 'new passwords and a new API key for the demo',
    options: {},
    async run(ctx) {
      const seed = await load.seed();
      const { ApiKeyService } = await load.apiKeys();
      const db = await ctx.database();
      const credentials = await seed.reissueDemoCredentials({ prisma: db.prisma, apiKeys: new ApiKeyService(db.prisma, ctx.config.auth.maxActiveCredentials) });
      if (!credentials)
        throw new CommandError(
          `No demo here (${seed.DEMO_ADMIN_EMAIL} and ${seed.DEMO_ANALYST_EMAIL} in their organizations): npm run cli -- seed:demo seeds it`,
        );
      const lines: string[] = [];
      seed.printDemoCredentials((line) => lines.push(line), credentials, {
        dashboardUrl: seed.dashboardUrlHint(ctx.config),
        heading: seed.demoHeading(db.kind, 'demo:credentials'),
      });
      return output(ctx.json, lines, {
        admin: { email: seed.DEMO_ADMIN_EMAIL, password: credentials.adminPassword },
        analyst: { email: seed.DEMO_ANALYST_EMAIL, password: credentials.analystPassword },
        apiKey: credentials.apiKey,
        organizations: { demoCapital: credentials.demoOrgId, northwind: credentials.otherOrgId },
      });
    },
    audit: (data) => ({ organizationId: demoOrganization(data) }),
  },
};

/** The demo organization's id from a command's answer (null when it did not say). */
function demoOrganization(data: Record<string, unknown>): string | null {
  const organizations = data.organizations as { demoCapital?: string } | undefined;
  return organizations?.demoCapital ?? null;
}
