/**
 * One CLI invocation, from the command line to the exit code. Errors go to stderr: exit code 1
 * for a failed command, 2 for a usage error. Secrets (passwords, keys) are never written to logs
 * or stderr.
 */
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { parseCommandLine } from './arguments.ts';
import { recordCliEvent } from './audit-event.ts';
import { COMMANDS, usageOutput } from './commands/index.ts';
import { openCliDatabase, prepareCliDatabase } from './database.ts';
import { CommandError, UsageError, describe } from './errors.ts';
import { load } from './load.ts';
import { print } from './output.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  stdin: () => Promise<string>;
}

/** Runs one CLI invocation; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const json = argv.includes('--json');
  let db: Database | undefined;
  try {
    const invocation = parseCommandLine(argv, COMMANDS);
    if (invocation.usage) return print(io.stdout, usageOutput(json));
    const config = await loadCliConfig(io.env);
    const warn = (message: string) => io.stderr(`${message}\n`);
    const result = await invocation.command.run({
      values: invocation.values,
      config,
      json,
      stdin: io.stdin,
      warn,
      async database(options) {
        if (db) return db;
        db = await openCliDatabase(config, options?.poolSize ?? 2);
        // db:migrate is the command that brings the database up to date: it opens it as it is.
        if (invocation.name !== 'db:migrate') await prepareCliDatabase(db, config.dataDir, warn);
        return db;
      },
    });
    const facts = invocation.command.audit?.(result.data);
    if (facts && db) await recordCliEvent(db, invocation.name, invocation.values, facts);
    return print(io.stdout, result);
  } catch (error) {
    const usage = error instanceof UsageError;
    io.stderr(`${usage ? 'usage error' : 'error'}: ${describe(error)}\n`);
    if (usage) io.stderr(`Run "npm run cli -- help" for the commands and their options.\n`);
    return usage ? 2 : 1;
  } finally {
    await db?.close().catch((error: unknown) => io.stderr(`error: closing the database: ${describe(error)}\n`));
  }
}

/** The service's configuration from the environment; a bad value fails the command (exit 1). */
async function loadCliConfig(env: NodeJS.ProcessEnv): Promise<Config> {
  const { ConfigError, loadConfig } = await load.config();
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandError(error.message);
    throw error;
  }
}
