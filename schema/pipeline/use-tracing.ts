/**
 * One span per GraphQL operation, whatever the front (/graphql, REST routes, MCP tools, uploads,
 * the REST event stream, WebSocket): `graphql.<type> <name>` with graphql.operation.name/type and
 * the front that ran it (gateway.front, from the request's span context). Execution runs in the
 * span's context, so database spans and log lines of the resolvers belong to it. First in the
 * pipeline, so operations another plugin refuses are spanned too. A no-op while tracing is off.
 */
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { frontOf, tracer, tracingActive } from '../../src/tracing/index.ts';

export function useTracing(): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!tracingActive()) return;
      const { span, end } = operationSpan(args.document, args.operationName);
      const ctx = trace.setSpan(context.active(), span);
      setExecuteFn((executeArgs) =>
        context.with(ctx, async () => {
          try {
            return await executeFn(executeArgs);
          } catch (error) {
            end(undefined, error);
            throw error;
          }
        }),
      );
      return { onExecuteDone: ({ result }) => end(result) };
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      if (!tracingActive()) return;
      // The span covers starting the subscription (authorization, arguments), not its lifetime.
      const { span, end } = operationSpan(args.document, args.operationName);
      const ctx = trace.setSpan(context.active(), span);
      setSubscribeFn((subscribeArgs) =>
        context.with(ctx, async () => {
          try {
            return await subscribeFn(subscribeArgs);
          } catch (error) {
            end(undefined, error);
            throw error;
          }
        }),
      );
      return { onSubscribeResult: ({ result }) => end(result) };
    },
  };
}

function operationSpan(document: DocumentNode, operationName: string | null | undefined): { span: Span; end(result?: unknown, error?: unknown): void } {
  const operation = getOperationAST(document, operationName);
  const type = operation?.operation ?? 'operation';
  const name = operation?.name?.value ?? operationName ?? undefined;
  const front = frontOf();
  const span = tracer().startSpan(`graphql.${type}${name ? ` ${name}` : ''}`, {
    kind: SpanKind.INTERNAL,
    attributes: {
      'graphql.operation.type': type,
      ...(name ? { 'graphql.operation.name': name } : {}),
      ...(front ? { 'gateway.front': front } : {}),
    },
  });
  let ended = false;
  return {
    span,
    end(result, error) {
      if (ended) return;
      ended = true;
      if (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      } else if (result && !isAsyncIterable(result)) {
        const errors = (result as ExecutionResult).errors ?? [];
        if (errors.length > 0) {
          const codes = [...new Set(errors.map((e) => e.extensions?.code).filter((code): code is string => typeof code === 'string'))];
          span.setAttribute('graphql.error.count', errors.length);
          if (codes.length > 0) span.setAttribute('graphql.error.codes', codes);
          span.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]!.message });
        }
      }
      span.end();
    },
  };
}
