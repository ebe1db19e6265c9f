/**
 * The tools prepared once: each tool's operation parsed and validated through the pipeline, its
 * variables read with the same code REST uses (params.ts), its inputSchema generated from them
 * (variables-schema.ts), and its outputSchema derived from the operation's selection, shaped as
 * the tool shapes its result (tool-results.ts). A tool row states only its name, title,
 * description, operation, result shape and annotations; its input and output are the operation's.
 */
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { getSchema } from '../schema/index.ts';
import type { OperationRunner, PreparedOperation } from '../schema/pipeline/index.ts';
import { AppError } from '../src/errors.ts';
import { buildVariables, operationVariables, type VariableSpec } from '../rest-compat/params.ts';
import { variablesSchema } from '../rest-compat/variables-schema.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';
import { toolOutputSchema, type ObjectSchema } from './tool-results.ts';
import { withDeprecationNote } from '../src/usage/deprecation.ts';

export interface PreparedTool {
  definition: ToolDefinition;
  operation: PreparedOperation;
  variables: VariableSpec[];
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  /** Checks a structured result against outputSchema: null when it matches, else what is wrong. */
  outputProblem: (result: unknown) => string | null;
}

export type ToolCatalog = Map<string, PreparedTool>;

/** The SDK's own JSON Schema validator (Ajv, draft 2020-12 with formats), the one its clients check results with. */
const validators = new AjvJsonSchemaValidator();

export function prepareTools(operations: OperationRunner, tools: readonly ToolDefinition[] = TOOLS): ToolCatalog {
  return new Map(tools.map((definition) => [definition.name, prepareTool(operations, definition)]));
}

function prepareTool(operations: OperationRunner, definition: ToolDefinition): PreparedTool {
  const operation = operations.prepare(definition.operation);
  const variables = operationVariables(operation.document, `tool ${definition.name}`, (variable) => variable);
  const outputSchema = toolOutputSchema(getSchema(), operation.document, definition.result);
  const validate = validators.getValidator(outputSchema);
  return {
    definition,
    operation,
    variables,
    inputSchema: variablesSchema(getSchema(), operation.document, variables),
    outputSchema,
    outputProblem: (result) => {
      const checked = validate(result);
      return checked.valid ? null : checked.errorMessage;
    },
  };
}

/** What tools/list shows, in the table's order. */
export type ToolListing = ReturnType<typeof toolListing>;

export function toolListing(catalog: ToolCatalog) {
  return [...catalog.values()].map(({ definition, operation, inputSchema, outputSchema }) => ({
    name: definition.name,
    title: definition.title,
    description: withDeprecationNote(definition.description, getSchema(), operation.document),
    inputSchema,
    outputSchema,
    annotations: definition.annotations,
  }));
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
