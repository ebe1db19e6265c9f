/**
 * Per-client usage, once for every front (src/usage, docs/usage-and-deprecation.md): each query,
 * mutation and subscription that runs is reported with the credential that ran it (the request
 * context's viewer), its front, its operation name, its outcome code and its duration, and each
 * deprecated field it selects with the same caller (GET /api/usage/deprecated). Listed after the
 * error masking, like the metrics, so it sees the codes clients get. Requests without a credential
 * belong to no client and are not counted here (the Prometheus metrics count them).
 */
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import { deprecatedFieldsIn } from '../../src/usage/deprecation.ts';
import type { UsageCaller } from '../../src/usage/usage-aggregate.ts';
import { codeOf, firstCode } from './use-metrics.ts';

type UsageContext = Partial<Pick<RequestContext, 'services' | 'front' | 'viewer'>>;

export function useUsage(): Plugin<UsageContext> {
  const start = (context: UsageContext, schema: GraphQLSchema, document: DocumentNode, operationName?: string | null) => {
    const usage = context.services?.usage;
    const viewer = context.viewer;
    if (!usage?.settings.enabled || !viewer) return undefined;
    const caller: UsageCaller = { credentialKind: viewer.credential.kind, credentialId: viewer.credential.id, userId: viewer.user.id };
    const front = context.front ?? 'graphql';
    const operation = getOperationAST(document, operationName)?.name?.value ?? 'anonymous';
    const started = performance.now();
    const at = new Date();
    for (const field of deprecatedFieldsIn(schema, document)) {
      usage.recordDeprecated({ ...caller, subjectKind: 'field', subject: field.coordinate, front, operation, at });
    }
    return (errorCode: string | undefined) => usage.recordOperation({ ...caller, front, operation, errorCode, durationMs: performance.now() - started, at });
  };

  return {
    onExecute({ args }) {
      const done = start(args.contextValue, args.schema, args.document, args.operationName);
      if (!done) return;
      return {
        onExecuteDone({ result }) {
          // Incremental delivery (@defer, @stream): the initial result's outcome and time.
          done(isAsyncIterable(result) ? undefined : firstCode(result.errors));
        },
      };
    },
    onSubscribe({ args }) {
      const done = start(args.contextValue, args.schema, args.document, args.operationName);
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
