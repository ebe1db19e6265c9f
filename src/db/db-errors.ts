import { AppError } from '../errors.ts';

/**
 * What a database error means for the caller, whichever way it arrived: a `pg` DatabaseError,
 * a Prisma error wrapping the driver adapter's, or a socket error of a dropped connection.
 *
 * - `unavailable`: the connection or the server failed (terminated backend, server restarting,
 *   refused or reset connection, too many clients, deadlock or serialization failure). Not the
 *   caller's fault and worth retrying: the fronts answer 503 with Retry-After.
 * - `bad_input`: PostgreSQL refused a value (SQLSTATE class 22, data exception: a NUL byte in
 *   text, a timestamp or number out of range; 54000, a value too large to index). Validation
 *   should have caught it first; this is the net under it, so it is still a 400, never a 500.
 * - `other`: a real fault (a bug, a constraint we did not expect): a 500.
 */
export type DatabaseErrorKind = 'unavailable' | 'bad_input' | 'other';

/** Messages of `pg` and `pg-pool` for a connection that is gone or cannot be had. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection error',
  'Client has encountered a connection error',
  'timeout exceeded when trying to connect',
  'Connection ended unexpectedly',
];
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
/** Prisma's own codes for "cannot reach / lost the database server". */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

export function classifyDatabaseError(error: unknown): DatabaseErrorKind {
  const state = sqlState(error);
  if (state) {
    if (state.startsWith('08') || state.startsWith('57P') || state === '53300' || state === '40001' || state === '40P01') return 'unavailable';
    if (state.startsWith('22') || state === '54000') return 'bad_input';
  }
  if (!(error instanceof Error)) return 'other';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || PRISMA_UNAVAILABLE.has(code))) return 'unavailable';
  if (CONNECTION_MESSAGES.some((message) => error.message.includes(message))) return 'unavailable';
  return error.cause !== undefined && error.cause !== error ? classifyDatabaseError(error.cause) : 'other';
}

/** The five-character SQLSTATE of a PostgreSQL error, from `pg` or from Prisma's driver-adapter wrapper. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const direct = (error as { code?: unknown }).code;
  if (typeof direct === 'string' && /^[0-9A-Z]{5}$/.test(direct) && !direct.startsWith('P')) return direct;
  const adapter = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } } }).meta?.driverAdapterError?.cause;
  const wrapped = adapter?.originalCode ?? adapter?.code;
  return typeof wrapped === 'string' && /^[0-9A-Z]{5}$/.test(wrapped) ? wrapped : undefined;
}

/** Seconds a client is told to wait before retrying after the database failed under it. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * The AppError a database failure stands for, or undefined for a real fault (left to the
 * caller's 500). Input the database refused keeps PostgreSQL's own words, which name the
 * problem ("invalid byte sequence for encoding "UTF8": 0x00", "timestamp out of range").
 */
export function appErrorForDatabaseFailure(error: unknown): AppError | undefined {
  switch (classifyDatabaseError(error)) {
    case 'unavailable':
      return new AppError('SERVICE_UNAVAILABLE', 'The database is temporarily unavailable; retry shortly', { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
    case 'bad_input':
      return new AppError('BAD_USER_INPUT', `Invalid input: ${databaseMessage(error) ?? 'a value was refused by the database'}`);
    default:
      return undefined;
  }
}

function databaseMessage(error: unknown): string | undefined {
  const adapter = (error as { meta?: { driverAdapterError?: { cause?: { originalMessage?: unknown } } } }).meta?.driverAdapterError?.cause?.originalMessage;
  if (typeof adapter === 'string') return adapter;
  return sqlState(error) && error instanceof Error ? error.message : undefined;
}
