/** A problem with the command line itself: exit code 2. */
export class UsageError extends Error {}

/** A failed command with a message for the operator: exit code 1. */
export class CommandError extends Error {}

/** The message an operator reads on stderr. */
export function describe(error: unknown): string {
  if (error instanceof Error && error.constructor.name === 'EmbeddedDatabaseBusyError') {
    return `${error.message} (it started while the CLI was opening the database); run the command again`;
  }
  // AppError (domain validation), MigrationError, CommandError, UsageError: their message is for the operator.
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return `cannot connect to the database (${error.message})`;
    return error.message || error.name;
  }
  return String(error);
}
