/**
 * Cached reads and conditional requests on the one pipeline (docs/caching.md), for every front:
 * a query whose every root field is marked a cached read (`extensions: CACHED_READ`, its answer a
 * function of the viewer's own data and their organizations' only) is keyed by the operation, its
 * variables, the viewer and the data versions of the viewer's scopes (src/cache). Then:
 * - the client already holds that answer (If-None-Match on a REST or GraphQL GET): the operation
 *   does not run, and the front answers 304 (ctx.conditional.notModified);
 * - this instance holds it: the operation does not run, the held answer is the result;
 * - else it runs, and an answer without errors is kept.
 * Authentication comes before (the context), so a revoked credential is refused as ever; the
 * scope checks run in the resolvers, so a held answer skips them: it was made for the same user
 * with the same scopes and organizations, which decide the outcome. The rate budgets are the
 * specs' request counts, so a held answer or a 304 charges each root field's budget as its
 * resolver would, and a spent budget refuses it as the resolver would.
 */
import { getOperationAST, Kind, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import { cacheKey, entityTag, noneMatchHits } from '../../src/cache/response-cache.ts';
import { organizationScope, userScope } from '../../src/cache/data-versions.ts';
import { chargeAsResolversWould } from '../plugins/rate-budget.ts';

export function useResponseCache(): Plugin<Partial<RequestContext>> {
  const cachedOperations = new WeakMap<OperationDefinitionNode, boolean>();
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as RequestContext;
      const cache = ctx.services?.responseCache;
      if (!cache || !ctx.viewer) return;
      const conditional = ctx.conditional;
      if (!cache.enabled && !conditional) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      let cached = cachedOperations.get(operation);
      if (cached === undefined) {
        cached = isCachedRead(args.schema, operation);
        cachedOperations.set(operation, cached);
      }
      if (!cached) return;
      const organizationIds = await ctx.organizationIds();
      const scopes = [userScope(ctx.viewer.user.id), ...[...organizationIds].sort().map(organizationScope)];
      const versions = await ctx.services.dataVersions.read(scopes, ctx.viewer.dataVersions);
      const key = cacheKey({
        document: args.document,
        operationName: args.operationName,
        variables: args.variableValues ?? {},
        userId: ctx.viewer.user.id,
        scopes: ctx.viewer.scopes,
        organizationIds,
        versions,
      });
      if (conditional) conditional.etag = entityTag(key);
      // Answered without running: the client holds the current answer (304), or this instance does.
      const notModified = conditional !== undefined && noneMatchHits(conditional.ifNoneMatch, conditional.etag!);
      const held = notModified ? undefined : cache.get(key);
      if (notModified || held) {
        const refused = await chargeAsResolversWould(ctx.budgets, args.schema, operation);
        if (refused) {
          if (conditional) conditional.etag = undefined;
          return setResultAndStopExecution(refused);
        }
        if (conditional && notModified) conditional.notModified = true;
        ctx.services.metrics.cachedRead(notModified ? 'not_modified' : 'hit');
        return setResultAndStopExecution({ data: held ? held.data : null });
      }
      ctx.services.metrics.cachedRead('miss');
      return {
        onExecuteDone({ result }: { result: ExecutionResult | AsyncIterable<unknown> }) {
          if (isAsyncIterable(result)) return;
          // An answer with errors is neither kept nor tagged: the next request runs it again.
          if (result.errors?.length) {
            if (conditional) conditional.etag = undefined;
            return;
          }
          cache.set(key, result);
        },
      };
    },
  };
}

/** A query whose every root selection is a field marked CACHED_READ (`__typename` aside). */
function isCachedRead(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== 'query') return false;
  const fields = schema.getQueryType()?.getFields() ?? {};
  let any = false;
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) return false;
    if (selection.name.value === '__typename') continue;
    if (fields[selection.name.value]?.extensions?.cachedRead !== true) return false;
    any = true;
  }
  return any;
}
