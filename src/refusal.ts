import { AppError, MESSAGES } from './errors.ts';
import { appErrorForDatabaseFailure } from './db/db-errors.ts';
import type { DatabaseOutageLog } from './db/outage-log.ts';
import type { Logger } from './log.ts';

export interface RefusalDeps {
  /** The request's logger (with its request id). */
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Told of each request that met an unavailable database (it logs once per outage). */
  databaseOutage: Pick<DatabaseOutageLog, 'failed'>;
}

/**
 * The one rule for a failure met before or around an operation (the request context, a body
 * parser, a front's own checks), whichever front met it: the AppError to answer with, and the one
 * log line it deserves. Each front only writes the answer its own way (REST `{"error"}`, a GraphQL
 * error with its HTTP status, a JSON-RPC error); the code table (src/errors.ts) gives the status.
 *
 * - an AppError is the answer itself, not logged (a refusal the code chose);
 * - a 4xx a parser raised about the request (a body over its limit, a malformed percent-encoding,
 *   an unsupported charset) is a client error with that status, logged at info;
 * - an unavailable database is 503 with Retry-After, logged once per outage; a value the database
 *   refused is a 400 with PostgreSQL's words, logged as a warning;
 * - anything else is a fault: a generic 500, its details only in the log.
 */
export function refusalFor(error: unknown, deps: RefusalDeps): AppError {
  if (error instanceof AppError) return error;
  const clientError = parserRefusal(error);
  if (clientError) {
    deps.log.info({ err: error, status: clientError.status }, 'request refused');
    return clientError;
  }
  const databaseFailure = appErrorForDatabaseFailure(error);
  if (databaseFailure) {
    if (databaseFailure.code === 'SERVICE_UNAVAILABLE') deps.databaseOutage.failed(error);
    else deps.log.warn({ err: error, code: databaseFailure.code }, 'the database refused a value');
    return databaseFailure;
  }
  deps.log.error({ err: error }, 'unhandled error');
  return new AppError('INTERNAL_SERVER_ERROR', MESSAGES.internal);
}

/**
 * An error express or a body parser raised about the request itself, by its `status` (or
 * `statusCode`) in 400-499: a 4xx with the parser's own status, never a 500.
 */
function parserRefusal(error: unknown): AppError | undefined {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new AppError('BAD_USER_INPUT', 'Malformed percent-encoding in the request path');
  const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_USER_INPUT';
  return new AppError(code, (error as Error).message || 'Bad request');
}
