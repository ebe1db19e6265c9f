/**
 * The operator CLI's commands run in this process against one open database, for benchmarks that
 * need thousands of users and keys: each command is parsed, run and recorded in the audit log as
 * `npm run cli -- <command>` does it (src/cli/run.ts), but the database is opened once for the
 * whole session instead of once per command (a process per command takes ~200 ms, this ~10 ms).
 *
 * `env` is the service's environment (DATA_DIR, DATABASE_URL...): with the embedded database the
 * session attaches to the running service's socket, as the CLI does.
 */
import { parseCommandLine } from '../src/cli/arguments.ts';
import { recordCliEvent } from '../src/cli/audit-event.ts';
import { COMMANDS } from '../src/cli/commands/index.ts';
import { openCliDatabase, prepareCliDatabase } from '../src/cli/database.ts';
import { print } from '../src/cli/output.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';

export interface CliSession {
  /** One command, e.g. ['user:create', '--email', e, '--json']: its stdout; throws with its error otherwise. */
  run(argv: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function openCliSession(env: Record<string, string>, poolSize = 4): Promise<CliSession> {
  const config = loadConfig(env);
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  const db: Database = await openCliDatabase(config, poolSize);
  try {
    await prepareCliDatabase(db, config.dataDir, warn);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    async run(argv) {
      const invocation = parseCommandLine(argv, COMMANDS);
      if (invocation.usage) throw new Error(`not a command: ${argv.join(' ')}`);
      const result = await invocation.command.run({
        values: invocation.values,
        config,
        json: argv.includes('--json'),
        stdin: async () => '',
        warn,
        database: async () => db,
      });
      const facts = invocation.command.audit?.(result.data);
      if (facts) await recordCliEvent(db, invocation.name, invocation.values, facts);
      let out = '';
      print((text) => (out += text), result);
      return out;
    },
    close: () => db.close(),
  };
}
