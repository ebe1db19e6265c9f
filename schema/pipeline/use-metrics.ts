/**
 * Operation metrics, once for every front: each query, mutation and subscription that runs
 * through the pipeline is counted by name, type, front (the request context's `front`: graphql,
 * rest, mcp) and outcome (`ok`, or `error` with the first error's `extensions.code`), and its
 * duration observed. Listed after the error masking, so it sees the codes clients get.
 *
 * A document refused before execution (a parse or validation error) runs nothing and is not
 * counted here; its HTTP request is (gateway_http_requests_total, status 400).
 */
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import type { Metrics, OperationLabels } from '../../src/metrics/metrics.ts';

type MetricsContext = Partial<Pick<RequestContext, 'services' | 'front'>>;

export function useMetrics(): Plugin<MetricsContext> {
  const start = (context: MetricsContext, document: DocumentNode, operationName?: string | null) => {
    const metrics: Metrics | undefined = context.services?.metrics;
    if (!metrics?.enabled) return undefined;
    const operation = getOperationAST(document, operationName);
    const labels: OperationLabels = { name: operation?.name?.value ?? 'anonymous', type: operation?.operation ?? 'unknown', front: context.front ?? 'graphql' };
    const started = performance.now();
    return (errorCode: string | undefined) => metrics.operation({ ...labels, errorCode }, (performance.now() - started) / 1000);
  };

  return {
    onExecute({ args }) {
      const done = start(args.contextValue, args.document, args.operationName);
      if (!done) return;
      return {
        onExecuteDone({ result }) {
          // Incremental delivery (@defer, @stream): the initial result's time.
          done(isAsyncIterable(result) ? undefined : firstCode(result.errors));
        },
      };
    },
    onSubscribe({ args }) {
      const done = start(args.contextValue, args.document, args.operationName);
      if (!done) return;
      return {
        onSubscribeResult({ result }) {
          done(isAsyncIterable(result) ? undefined : firstCode((result as ExecutionResult).errors));
        },
        onSubscribeError({ error }) {
          done(codeOf(error) ?? 'INTERNAL_SERVER_ERROR');
        },
      };
    },
  };
}

/** The first error's code (what the client got), or UNKNOWN; undefined without errors. */
export function firstCode(errors: readonly GraphQLError[] | undefined): string | undefined {
  if (!errors?.length) return undefined;
  return codeOf(errors[0]) ?? 'UNKNOWN';
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as { extensions?: { code?: unknown } } | null)?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}
