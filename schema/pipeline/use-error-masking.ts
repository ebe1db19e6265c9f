import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import { AppError, HTTP_STATUS_BY_CODE } from '../../src/errors.ts';
import { refusalFor } from '../../src/refusal.ts';
import { SourceEventsRoot } from './use-shared-execution.ts';

type LogContext = Pick<RequestContext, 'log' | 'requestId' | 'services'>;

/**
 * Error masking, once for every front: errors raised on purpose (AppError, GraphQL's own
 * validation and coercion errors) keep their message; a database that failed under the request
 * (503) or refused a value (400) says so; anything else is logged with the request id and
 * replaced by a generic internal error.
 */
export function useErrorMasking(): Plugin<LogContext> {
  const maskResult =
    (ctx: LogContext) =>
    ({ result, setResult }: { result: ExecutionResult; setResult: (result: ExecutionResult) => void }) => {
      if (result.errors?.length) setResult({ ...result, errors: result.errors.map((error) => maskError(error, ctx)) });
    };
  return {
    onExecute({ args }) {
      const mask = maskResult(args.contextValue);
      return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, mask) };
    },
    onSubscribe({ args }) {
      const mask = maskResult(args.contextValue);
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return mask({ result, setResult });
          // A front that asked for the source events gets the service's payloads, not results:
          // nothing to mask, and no wrapper per follower and event (thousands of REST streams).
          if (args.rootValue instanceof SourceEventsRoot) return;
          return { onNext: ({ result: next, setResult: replace }) => mask({ result: next, setResult: replace }) };
        },
        onSubscribeError({ error, setError }) {
          setError(maskError(error, args.contextValue));
        },
      };
    },
  };
}

export function maskError(error: unknown, ctx: LogContext): GraphQLError {
  const graphQLError = error instanceof GraphQLError ? error : new GraphQLError(String(error), { originalError: error instanceof Error ? error : undefined });
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
  // Anything else by the one rule (src/refusal.ts): a database that failed under the request
  // (503) or refused a value (400) says so; a fault is logged, with the field's path, and masked.
  const refusal = refusalFor(original, { log: ctx.log.child({ path: graphQLError.path }), databaseOutage: ctx.services.databaseOutage });
  const requestId = refusal.code === 'INTERNAL_SERVER_ERROR' ? { requestId: ctx.requestId } : {};
  const nodes = refusal.code === 'INTERNAL_SERVER_ERROR' ? undefined : graphQLError.nodes;
  return new GraphQLError(refusal.message, { nodes, path: graphQLError.path, extensions: { ...refusal.extensions, ...requestId } });
}

function knownCode(code: unknown): string | undefined {
  return typeof code === 'string' && code in HTTP_STATUS_BY_CODE ? code : undefined;
}
