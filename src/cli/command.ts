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

/**
 * What a command that changes data tells the audit log (src/cli/audit-event.ts records it), from
 * the JSON it answered: what it changed, about whom, in which organization. `null`: it changed
 * nothing this time (the demo existed already).
 */
export interface CliAuditFacts {
  target?: { type: string; id: string } | null;
  subjectUserId?: string | null;
  organizationId?: string | null;
}

export interface Command {
  summary: string;
  options: Options;
  required?: string[];
  run(ctx: CommandContext): Promise<Output>;
  /**
   * Every command that changes data declares it, and each of its successful runs is an event of
   * the audit log (front `cli`; test/cli/audit-events.test.ts holds the rule). A failed command
   * changed nothing and is not recorded.
   */
  audit?: (data: Record<string, unknown>) => CliAuditFacts | null;
}

/** The user with this email (any case), or a CommandError that says how to create one. */
export async function findUser(db: Database, emailText: string) {
  const email = emailText.trim().toLowerCase();
  const user = await db.prisma.user.findUnique({ where: { email } });
  if (!user) throw new CommandError(`No user with email ${email} (create one with user:create)`);
  return user;
}
