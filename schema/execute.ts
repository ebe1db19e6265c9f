import {
  createSourceEventStream,
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import { getSchema } from './index.ts';
import type { RequestContext } from '../src/context.ts';
import { AppError, HTTP_STATUS_BY_CODE, MESSAGES } from '../src/errors.ts';
import { checkOperationInputs } from './input-guards.ts';
import { appErrorForDatabaseFailure } from '../src/db/db-errors.ts';

const documents = new Map<string, DocumentNode>();

/** Parses and validates a document once; REST routes and JSON-RPC tools reuse theirs. */
export function prepareDocument(source: string): DocumentNode {
  let document = documents.get(source);
  if (!document) {
    document = parse(source);
    const errors = validate(getSchema(), document);
    if (errors.length > 0) throw new AggregateError(errors, `Invalid operation: ${errors.map((e) => e.message).join('; ')}`);
    documents.set(source, document);
  }
  return document;
}

/** Runs an operation in-process with the request's context: the path REST and JSON-RPC take. */
export async function executeOperation(
  ctx: RequestContext,
  source: string,
  variables: Record<string, unknown>,
  operationName?: string,
): Promise<ExecutionResult> {
  const document = prepareDocument(source);
  const refused = checkOperationInputs(document, variables);
  if (refused) return { errors: [refused] };
  const result = await execute({
    schema: getSchema(),
    document,
    variableValues: variables,
    operationName,
    contextValue: ctx,
  });
  return result.errors ? { ...result, errors: result.errors.map((error) => maskError(error, ctx)) } : result;
}

/**
 * Starts a subscription in-process with the request's context and returns its source stream:
 * the subscribe resolver runs (authorization, argument validation, ownership checks) and its
 * payloads come back as they are, for a caller that renders them itself (the REST event stream
 * writes each event once for all its followers instead of executing the selection per client).
 * A refusal comes back as a result with the (masked) errors.
 */
export async function subscribeSource(
  ctx: RequestContext,
  source: string,
  variables: Record<string, unknown>,
): Promise<AsyncIterableIterator<unknown> | ExecutionResult> {
  const document = prepareDocument(source);
  const refused = checkOperationInputs(document, variables);
  if (refused) return { errors: [refused] };
  const result = await createSourceEventStream({ schema: getSchema(), document, variableValues: variables, contextValue: ctx });
  if (Symbol.asyncIterator in result) return result as AsyncIterableIterator<unknown>;
  return result.errors ? { ...result, errors: result.errors.map((error) => maskError(error, ctx)) } : result;
}

/**
 * Errors we raised on purpose (AppError, and GraphQL's own validation and coercion errors) keep
 * their message; anything else is logged with the request id and replaced by a generic 500.
 */
export function maskError(error: unknown, ctx: Pick<RequestContext, 'log' | 'requestId'>): GraphQLError {
  const graphQLError = error instanceof GraphQLError ? error : new GraphQLError(String(error));
  const original = graphQLError.originalError;
  if (original instanceof AppError) {
    return new GraphQLError(original.message, { nodes: graphQLError.nodes, path: graphQLError.path, extensions: original.extensions });
  }
  if (!original || (original instanceof GraphQLError && !original.originalError)) {
    // A GraphQL validation or variable coercion error: the client's mistake.
    return new GraphQLError(graphQLError.message, {
      nodes: graphQLError.nodes,
      path: graphQLError.path,
      extensions: { ...graphQLError.extensions, code: knownCode(graphQLError.extensions.code) ?? 'BAD_USER_INPUT' },
    });
  }
  // The database failed under the request (503) or refused a value (400): not a bug of ours.
  const databaseFailure = appErrorForDatabaseFailure(original);
  if (databaseFailure) {
    ctx.log.warn({ err: original, path: graphQLError.path, code: databaseFailure.code }, 'database refused or failed the operation');
    return new GraphQLError(databaseFailure.message, { nodes: graphQLError.nodes, path: graphQLError.path, extensions: databaseFailure.extensions });
  }
  ctx.log.error({ err: original, path: graphQLError.path }, 'unexpected error while resolving');
  return new GraphQLError(MESSAGES.internal, { path: graphQLError.path, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: ctx.requestId } });
}

export type { GraphQLFormattedError };

function knownCode(code: unknown): string | undefined {
  return typeof code === 'string' && code in HTTP_STATUS_BY_CODE ? code : undefined;
}
