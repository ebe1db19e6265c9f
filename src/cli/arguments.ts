/** The command line: a command name, then its options (node:util parseArgs, strict, no positionals). */
import { parseArgs } from 'node:util';
import type { Command, Values } from './command.ts';
import { UsageError } from './errors.ts';

/** What the command line asks for: the usage, or a command with its option values. */
export type Invocation = { usage: true } | { usage: false; name: string; command: Command; values: Values };

/** Reads the command line against the table; a UsageError (exit 2) says what is wrong with it. */
export function parseCommandLine(argv: readonly string[], commands: Record<string, Command>): Invocation {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || (name === '--json' && rest.length === 0)) return { usage: true };
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) throw new UsageError(name.startsWith('-') ? `expected a command before ${name}` : `unknown command ${name}`);
  const values = optionValues(command, rest);
  if (values.help) return { usage: true };
  for (const option of command.required ?? []) {
    const value = values[option];
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${name} needs --${option}`);
  }
  return { usage: false, name, command, values };
}

/** The command's own options and the ones every command takes (--json, --help). */
function optionValues(command: Command, args: string[]): Values {
  try {
    return parseArgs({
      args,
      options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values as Values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split('\n')[0] : String(error));
  }
}
