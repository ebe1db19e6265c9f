/**
 * The tools prepared once: each tool's operation parsed and validated through the pipeline, its
 * variables read with the same code REST uses (params.ts), and its inputSchema generated from
 * them (variables-schema.ts). A tool row states only its name, title, description, operation,
 * output and annotations; its input is the operation's.
 */
import { getSchema } from '../schema/index.ts';
import type { OperationRunner, PreparedOperation } from '../schema/pipeline/index.ts';
import { AppError } from '../src/errors.ts';
import { buildVariables, operationVariables, type VariableSpec } from '../rest-compat/params.ts';
import { variablesSchema } from '../rest-compat/variables-schema.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';

export interface PreparedTool {
  definition: ToolDefinition;
  operation: PreparedOperation;
  variables: VariableSpec[];
  inputSchema: { type: 'object'; [key: string]: unknown };
}

export type ToolCatalog = Map<string, PreparedTool>;

export function prepareTools(operations: OperationRunner, tools: readonly ToolDefinition[] = TOOLS): ToolCatalog {
  return new Map(
    tools.map((definition) => {
      const operation = operations.prepare(definition.operation);
      const variables = operationVariables(operation.document, `tool ${definition.name}`, (variable) => variable);
      return [definition.name, { definition, operation, variables, inputSchema: variablesSchema(getSchema(), operation.document, variables) }];
    }),
  );
}

/**
 * The tool's arguments as the operation's variables, checked by GraphQL's own coercion (as a REST
 * JSON body is): a problem is an AppError naming the argument.
 */
export function toolVariables(tool: PreparedTool, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new AppError('BAD_USER_INPUT', 'arguments must be an object');
  return buildVariables(tool.variables, [{ source: 'body', values: args as Record<string, unknown> }]);
}
