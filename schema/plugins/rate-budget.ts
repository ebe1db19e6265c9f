/**
 * `rateBudget: 'returns'` on a field: the fact is stated once, on the field, and every front
 * derives from it. Resolving the field charges one point of that budget (after authorization and
 * argument validation, so a refused request costs nothing); the field's description says so; and
 * `extensions.rateBudget` lets a front read it (an upload route reserves its budget before it
 * reads the body, and OpenAPI/MCP listings can show it). What a request pays, and the reservation
 * rule, are decided in one place: RequestBudgets (src/ratelimit/rate-limiter.ts).
 */
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import {
  getOperationAST,
  isNonNullType,
  Kind,
  locatedError,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Budget, RequestBudgets } from '../../src/ratelimit/rate-limiter.ts';
import type { ErrorCode } from '../../src/errors.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      rateBudget: RateBudgetPlugin<Types>;
    }
    export interface FieldOptions<Types extends SchemaTypes, ParentShape, Type, Nullable, Args, ResolveShape, ResolveReturnShape> {
      /** The rate budget one resolution of this field costs a point of. */
      rateBudget?: Budget;
    }
  }
}

/** The budget a schema field costs, if any (read from the extensions this plugin sets). */
export function rateBudgetOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'> | undefined): Budget | undefined {
  return (field?.extensions as { rateBudget?: Budget } | undefined)?.rateBudget;
}

/** Codes of a refused request (400, 401, 403): it costs no point. */
const REFUSED = new Set<string>(['BAD_USER_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN'] satisfies ErrorCode[]);

export class RateBudgetPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const budget = fieldConfig.pothosOptions.rateBudget;
    if (!budget) return fieldConfig;
    const said = `Rate budget: ${budget}.`;
    return {
      ...fieldConfig,
      description: fieldConfig.description ? `${fieldConfig.description} ${said}` : said,
      extensions: { ...fieldConfig.extensions, rateBudget: budget },
    };
  }

  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const budget = fieldConfig.pothosOptions.rateBudget;
    if (!budget) return resolver;
    return async (parent, args, context, info) => {
      const { budgets } = context as { budgets: RequestBudgets };
      await budgets.charge(budget);
      try {
        return await resolver(parent, args, context, info);
      } catch (error) {
        // A refusal only the resolver could make (a malformed cursor, a page size out of range,
        // an organization the viewer is not in) costs nothing, as a refusal before it would.
        if (REFUSED.has((error as { code?: unknown }).code as string)) await budgets.refundLastCharge(budget);
        throw error;
      }
    };
  }
}

const pluginName = 'rateBudget';
SchemaBuilder.registerPlugin(pluginName, RateBudgetPlugin);

export default pluginName;

/**
 * The budget an operation costs when it selects a single root field with one (REST routes and MCP
 * tools run such operations): what a front can charge before it reads a request body.
 */
export function operationBudget(schema: GraphQLSchema, document: DocumentNode): Budget | undefined {
  const operation = getOperationAST(document);
  if (!operation) return undefined;
  const rootType = schema.getRootType(operation.operation);
  const fields = operation.selectionSet.selections.filter((selection) => selection.kind === Kind.FIELD);
  const budgets = new Set(fields.map((field) => rateBudgetOf(rootType?.getFields()[field.name.value])).filter((budget) => budget !== undefined));
  return budgets.size === 1 ? [...budgets][0] : undefined;
}

/**
 * For an operation answered without running its resolvers (a cached read,
 * schema/pipeline/use-response-cache.ts): charges a point of each root field's rate budget (each
 * alias too), as the resolvers would.
 * When one is spent, gives back the points taken and returns the result the execution would have
 * had: the refusal at that field (a non-null field nulls the whole data, as graphql-js does).
 * Answering it here, not running the operation, keeps one refused charge per request.
 */
export async function chargeAsResolversWould(
  budgets: RequestBudgets,
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Promise<ExecutionResult | undefined> {
  const fields = schema.getQueryType()?.getFields() ?? {};
  const charged: Budget[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = fields[selection.name.value];
    const budget = rateBudgetOf(field);
    if (!budget) continue;
    try {
      await budgets.charge(budget);
      charged.push(budget);
    } catch (error) {
      for (const taken of charged.reverse()) await budgets.refundLastCharge(taken);
      const key = selection.alias?.value ?? selection.name.value;
      return {
        data: field && isNonNullType(field.type) ? null : { [key]: null },
        errors: [locatedError(error, [selection], [key])],
      };
    }
  }
  return undefined;
}
