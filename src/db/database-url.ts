/**
 * What is wrong with DATABASE_URL, said in one line that names the variable and the fix: the
 * driver's own words ("no PostgreSQL user name specified in startup packet", "database "x" does not
 * exist") name neither. Checked when the configuration is read (the URL's form) and by the first
 * connection (the server's answer).
 */
import { sqlState } from './db-errors.ts';

export class DatabaseUrlError extends Error {}

/** The form of the URL: a PostgreSQL URL with a host and a database name. Null when it is fine. */
export function databaseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `DATABASE_URL: not a URL; expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE, e.g. postgresql://postgres@127.0.0.1:5432/gateway`;
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    return `DATABASE_URL: must start with postgresql:// (got "${url.protocol}"); expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE, e.g. postgresql://postgres@127.0.0.1:5432/gateway`;
  }
  if (!url.hostname) return 'DATABASE_URL: names no host; expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE';
  if (url.pathname.length <= 1)
    return `DATABASE_URL: names no database; add it after the host, e.g. postgresql://${url.host}/gateway (create it first: createdb -h ${url.hostname} gateway)`;
  return null;
}

/** The first connection's failure, as one line naming DATABASE_URL, what is wrong and the fix; undefined for other errors. */
export function databaseUrlError(value: string, error: unknown): DatabaseUrlError | undefined {
  const url = new URL(value);
  const where = `${url.hostname}:${url.port || 5432}`;
  const database = decodeURIComponent(url.pathname.slice(1));
  const user = decodeURIComponent(url.username) || process.env.PGUSER || 'your system user';
  const code = (error as { code?: unknown } | null)?.code;
  switch (sqlState(error) ?? code) {
    case '3D000':
      return new DatabaseUrlError(
        `DATABASE_URL: the database "${database}" does not exist on ${where}; create it first: createdb -h ${url.hostname} -p ${url.port || 5432} -U ${user} ${database}`,
      );
    case '28P01':
    case '28000':
      return new DatabaseUrlError(
        `DATABASE_URL: PostgreSQL at ${where} refused user "${user}" (${(error as Error).message}); check the user and password in the URL`,
      );
    case 'ECONNREFUSED':
      return new DatabaseUrlError(
        `DATABASE_URL: nothing accepts connections at ${where}; is PostgreSQL running there (pg_isready -h ${url.hostname} -p ${url.port || 5432})?`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new DatabaseUrlError(`DATABASE_URL: the host "${url.hostname}" cannot be resolved; check the host in the URL`);
    default:
      return undefined;
  }
}
