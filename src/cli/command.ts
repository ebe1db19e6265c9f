/** A CLI command as data: its options, the ones it requires, and what it runs. */
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { CommandError } from './errors.ts';
import type { Output } from './output.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface CommandContext {
  values: Values;
  config: Config;
  json: boolean;
  /** opens the database (attach mode), migrating first when this process owns it */
  database(options?: { poolSize?: number }): Promise<Database>;
  stdin(): Promise<string>;
  warn(message: string): void;
}

export interface Command {
  summary: string;
  options: Options;
  required?: string[];
  run(ctx: CommandContext): Promise<Output>;
}

/** The user with this email (any case), or a CommandError that says how to create one. */
export async function findUser(db: Database, emailText: string) {
  const email = emailText.trim().toLowerCase();
  const user = await db.prisma.user.findUnique({ where: { email } });
  if (!user) throw new CommandError(`No user with email ${email} (create one with user:create)`);
  return user;
}
