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
import { getOperationAST, isNonNullType, Kind, locatedError, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { isAsyncIterable, type Plugin } from '@envelop/core';
import type { RequestContext } from '../../src/context.ts';
import { cacheKey, entityTag, noneMatchHits } from '../../src/cache/response-cache.ts';
import { organizationScope, userScope } from '../../src/cache/data-versions.ts';
import type { Budget } from '../../src/ratelimit/rate-limiter.ts';
import { rateBudgetOf } from '../plugins/rate-budget.ts';

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
      if (conditional) {
        conditional.etag = entityTag(key);
        if (noneMatchHits(conditional.ifNoneMatch, conditional.etag)) {
          const refused = await chargeRootBudgets(ctx, args.schema, operation);
          conditional.etag = refused ? undefined : conditional.etag;
          if (refused) return setResultAndStopExecution(refused);
          conditional.notModified = true;
          ctx.services.metrics.cachedRead('not_modified');
          setResultAndStopExecution({ data: null });
          return;
        }
      }
      const held = cache.get(key);
      if (held) {
        const refused = await chargeRootBudgets(ctx, args.schema, operation);
        if (refused) {
          if (conditional) conditional.etag = undefined;
          return setResultAndStopExecution(refused);
        }
        ctx.services.metrics.cachedRead('hit');
        setResultAndStopExecution({ data: held.data });
        return;
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

/**
 * Charges a point of each root field's rate budget (each alias too), as the resolvers would.
 * When one is spent, gives back the points taken and returns the result the execution would have
 * had: the refusal at that field (a non-null field nulls the whole data, as graphql-js does).
 * Answering it here, not running the operation, keeps one refused charge per request.
 */
async function chargeRootBudgets(ctx: RequestContext, schema: GraphQLSchema, operation: OperationDefinitionNode): Promise<ExecutionResult | undefined> {
  const fields = schema.getQueryType()?.getFields() ?? {};
  const charged: Budget[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = fields[selection.name.value];
    const budget = rateBudgetOf(field);
    if (!budget) continue;
    try {
      await ctx.budgets.charge(budget);
      charged.push(budget);
    } catch (error) {
      for (const taken of charged.reverse()) await ctx.budgets.refundLastCharge(taken);
      const key = selection.alias?.value ?? selection.name.value;
      return {
        data: field && isNonNullType(field.type) ? null : { [key]: null },
        errors: [locatedError(error, [selection], [key])],
      };
    }
  }
  return undefined;
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
