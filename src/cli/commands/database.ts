/** `db:migrate` and `db:url`: the database itself. */
import type { Command } from '../command.ts';
import { CommandError } from '../errors.ts';
import { load } from '../load.ts';
import { output } from '../output.ts';

export const databaseCommands: Record<string, Command> = {
  'db:migrate': {
    summary: 'apply pending migrations',
    options: {},
    async run(ctx) {
      const { migrate, readMigrations } = await load.migrator();
      const db = await ctx.database();
      const result = await migrate(db.pool, { log: (message) => (message.startsWith('another instance') ? ctx.warn(message) : undefined) });
      const total = (await readMigrations()).length;
      const lines =
        result.applied.length === 0
          ? [`Database schema is up to date (${total} migration${total === 1 ? '' : 's'})`]
          : [`Applied ${result.applied.length} migration${result.applied.length === 1 ? '' : 's'}:`, ...result.applied.map((name) => `  ${name}`)];
      return output(ctx.json, lines, { applied: result.applied, upToDate: result.applied.length === 0, migrations: total, database: db.kind });
    },
  },

  'db:url': {
    summary: 'print the database connection URL',
    options: {},
    async run(ctx) {
      const { config } = ctx;
      let url = config.databaseUrl;
      let kind = 'postgresql';
      if (!url) {
        kind = 'pglite';
        url = (await load.embedded()).findRunningServer(config.dataDir);
        if (!url) {
          throw new CommandError(
            `No service is serving the embedded database in ${config.dataDir}: its URL exists only while a process ` +
              'serves it. Start the service (npm start), then ask again.',
          );
        }
      }
      return output(ctx.json, [url], { url, kind });
    },
  },
};
