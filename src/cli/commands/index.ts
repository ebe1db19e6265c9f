/**
 * The command table: every command of the CLI, in the order of the usage text (usage.ts), which
 * `help --json` lists. Each group lives in its own module; `help` is here, as it lists the table.
 */
import type { Command } from '../command.ts';
import { output, type Output } from '../output.ts';
import { USAGE } from '../usage.ts';
import { credentialCommands } from './credentials.ts';
import { databaseCommands } from './database.ts';
import { demoCommands } from './demo.ts';
import { organizationCommands } from './organizations.ts';
import { returnsCommands } from './returns.ts';
import { transcriptCommands } from './transcripts.ts';
import { userCommands } from './users.ts';
import { auditCommands } from './audit.ts';

export const COMMANDS: Record<string, Command> = {
  ...userCommands,
  ...credentialCommands('api_key'),
  ...credentialCommands('access_token'),
  ...organizationCommands,
  ...returnsCommands,
  ...databaseCommands,
  ...demoCommands,
  ...transcriptCommands,
  ...auditCommands,
  help: {
    summary: 'show the usage',
    options: {},
    async run(ctx) {
      return usageOutput(ctx.json);
    },
  },
};

/** The usage text, and with --json the command names beside it. */
export function usageOutput(json: boolean): Output {
  return output(json, [USAGE], { usage: USAGE, commands: Object.keys(COMMANDS) });
}
