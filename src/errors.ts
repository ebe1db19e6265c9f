import { GraphQLError } from 'graphql';

/**
 * The one table of error codes. GraphQL clients see the code in `extensions.code`; the REST
 * layer turns it into the HTTP status here and a `{"error": message}` body, the JSON-RPC endpoint
 * into the answer of JSON_RPC_BY_CODE below, so the three fronts always agree on what went wrong.
 */
export const HTTP_STATUS_BY_CODE = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof HTTP_STATUS_BY_CODE;

/** How the JSON-RPC endpoint (MCP, mcp/) answers a failure with this code. */
export interface JsonRpcAnswer {
  /** The JSON-RPC error code. */
  code: number;
  /**
   * Inside a tool call: `error`, the JSON-RPC error above; `result`, the tool's result with
   * `isError: true` and the message (MCP's tool execution errors, which the model reads and can
   * act on). Outside a tool call (the request itself refused) it is always the error.
   */
  inTool: 'error' | 'result';
}

/**
 * The JSON-RPC side of the table above (a row per code, the compiler checks it): JSON-RPC's own
 * codes where one fits (-32602 Invalid params, also for a missing record as MCP's 2026-07-28
 * revision answers it; -32600 Invalid Request; -32603 Internal error), -32003 for a caller
 * refused, and -32000, the server-error code the MCP SDK answers its own HTTP-level refusals with
 * (405, 406, 415), for the rest. docs/mcp.md prints it (test/mcp/error-codes.test.ts).
 */
export const JSON_RPC_BY_CODE: Record<ErrorCode, JsonRpcAnswer> = {
  BAD_USER_INPUT: { code: -32602, inTool: 'result' },
  UNAUTHENTICATED: { code: -32003, inTool: 'error' },
  FORBIDDEN: { code: -32003, inTool: 'error' },
  NOT_FOUND: { code: -32602, inTool: 'result' },
  METHOD_NOT_ALLOWED: { code: -32000, inTool: 'result' },
  REQUEST_TIMEOUT: { code: -32000, inTool: 'result' },
  CONFLICT: { code: -32000, inTool: 'result' },
  PAYLOAD_TOO_LARGE: { code: -32600, inTool: 'result' },
  UNSUPPORTED_MEDIA_TYPE: { code: -32000, inTool: 'result' },
  RATE_LIMITED: { code: -32000, inTool: 'result' },
  INTERNAL_SERVER_ERROR: { code: -32603, inTool: 'error' },
  BAD_GATEWAY: { code: -32000, inTool: 'result' },
  SERVICE_UNAVAILABLE: { code: -32000, inTool: 'result' },
  GATEWAY_TIMEOUT: { code: -32000, inTool: 'result' },
};

/** Messages fixed by the data-service spec; clients match on them. */
export const MESSAGES = {
  invalidApiKey: 'Invalid or expired API key',
  invalidSession: 'Invalid or expired session',
  insufficientPermissions: 'Insufficient permissions',
  internal: 'Internal server error',
  notFound: 'Not found',
} as const;

export interface AppErrorExtensions {
  /** Name of the offending argument or field (camelCase, as in the GraphQL schema). */
  field?: string;
  /** What is wrong with `field`, without its name, so each front can name it its own way. */
  problem?: string;
  retryAfterSeconds?: number;
  [key: string]: unknown;
}

export class AppError extends GraphQLError {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, extensions: AppErrorExtensions = {}) {
    super(message, { extensions: { ...extensions, code } });
    this.code = code;
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }

  static badInput(field: string, problem: string): AppError {
    return new AppError('BAD_USER_INPUT', `Invalid ${field}: ${problem}`, { field, problem });
  }

  static notFound(what = 'Record'): AppError {
    return new AppError('NOT_FOUND', `${what} not found`);
  }

  static conflict(message: string): AppError {
    return new AppError('CONFLICT', message);
  }

  static forbidden(): AppError {
    return new AppError('FORBIDDEN', MESSAGES.insufficientPermissions);
  }
}

/**
 * Codes of GraphQL-over-HTTP protocols that clients match on, for requests refused before
 * execution, all the client's mistake: graphql-yoga's own, and those of persisted queries (Apollo's
 * APQ protocol and trusted documents).
 */
export const GRAPHQL_PROTOCOL_CODES: Record<string, ErrorCode> = {
  GRAPHQL_PARSE_FAILED: 'BAD_USER_INPUT',
  GRAPHQL_VALIDATION_FAILED: 'BAD_USER_INPUT',
  BAD_REQUEST: 'BAD_USER_INPUT',
  OPERATION_RESOLUTION_FAILURE: 'BAD_USER_INPUT',
  PERSISTED_QUERY_NOT_FOUND: 'BAD_USER_INPUT',
  PERSISTED_QUERY_NOT_SUPPORTED: 'BAD_USER_INPUT',
  PERSISTED_QUERY_NOT_IN_LIST: 'BAD_USER_INPUT',
  PERSISTED_QUERY_ID_REQUIRED: 'BAD_USER_INPUT',
  CANNOT_SEND_PQ_ID_AND_BODY: 'BAD_USER_INPUT',
  // A /graphql body over GRAPHQL_MAX_BODY_BYTES (yoga's maxRequestBodySize): 413.
  REQUEST_ENTITY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
};

export function statusForCode(code: unknown): number {
  if (typeof code !== 'string') return 500;
  if (code in HTTP_STATUS_BY_CODE) return HTTP_STATUS_BY_CODE[code as ErrorCode];
  return GRAPHQL_PROTOCOL_CODES[code] ? HTTP_STATUS_BY_CODE[GRAPHQL_PROTOCOL_CODES[code]] : 500;
}
