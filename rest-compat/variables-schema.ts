/**
 * JSON Schema of an operation's variables, generated from the schema: the MCP tools' inputSchema
 * (and any other front that describes its inputs), so a tool's input cannot drift from the
 * operation it runs. Types, required, defaults and descriptions come from the variable
 * definitions and the arguments they feed; a page size (`first`) from the field's pageSize alone
 * (an operation that restates it as a variable default is refused).
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  getOperationAST,
  valueFromAST,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { pageSizeOf } from '../schema/plugins/page-size.ts';
import type { PageSize } from '../src/pagination.ts';
import type { VariableSpec } from './params.ts';

export type JsonSchema = { [key: string]: unknown };

/** How each scalar reads in JSON Schema (the OpenAPI response schemas read it too). */
export const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  SafeInt: { type: 'integer' },
  UUID: { type: 'string', format: 'uuid' },
  Date: { type: 'string', format: 'date', description: 'YYYY-MM-DD' },
  DateTime: { type: 'string', format: 'date-time', description: 'ISO 8601 timestamp' },
  Decimal: { type: 'string', description: 'decimal number as a string' },
  JSON: {},
};

/** JSON Schema of a GraphQL input type (nullability is the caller's: see `required`). */
export function inputTypeSchema(type: GraphQLInputType): JsonSchema {
  if (type instanceof GraphQLNonNull) return inputTypeSchema(type.ofType);
  if (type instanceof GraphQLList) return { type: 'array', items: inputTypeSchema(type.ofType) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  if (type instanceof GraphQLInputObjectType) {
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((field) => [field.name, described(inputTypeSchema(field.type), field)])),
      required: fields.filter((field) => field.type instanceof GraphQLNonNull && field.defaultValue === undefined).map((field) => field.name),
      additionalProperties: false,
    };
  }
  if (type instanceof GraphQLScalarType) return { ...(SCALARS[type.name] ?? { type: 'string' }) };
  throw new Error(`no JSON Schema for ${String(type)}`);
}

/** The JSON Schema of an operation's variables, named as the specs name them. */
export function variablesSchema(schema: GraphQLSchema, document: DocumentNode, specs: VariableSpec[]): { type: 'object'; [key: string]: unknown } {
  const uses = variableUses(schema, document);
  const definitions = new Map((getOperationAST(document)?.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]));
  const properties: Record<string, JsonSchema> = {};
  for (const spec of specs) {
    const use = uses.get(spec.variable);
    let property = described(inputTypeSchema(spec.type), use?.target);
    const defaultNode = definitions.get(spec.variable)?.defaultValue;
    const pageSize = use?.argument === 'first' ? pageSizeOf(use.field) : undefined;
    if (use && pageSize) {
      if (defaultNode) throw new Error(restatedPageSize(document, spec.variable, use.field.name, pageSize.first));
      property = pageSizeProperty(property, pageSize);
    } else if (defaultNode) property = { ...property, default: valueFromAST(defaultNode, spec.type) };
    else if (use?.target.defaultValue !== undefined) property = { ...property, default: use.target.defaultValue };
    properties[spec.restName] = property;
  }
  const required = specs.filter((spec) => spec.type instanceof GraphQLNonNull && !spec.hasDefault).map((spec) => spec.restName);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** A page size variable: its bounds and default are the field's pageSize, the one place they are stated. */
function pageSizeProperty(property: JsonSchema, pageSize: PageSize): JsonSchema {
  return {
    ...property,
    minimum: 1,
    maximum: pageSize.max,
    default: pageSize.first,
    description: `page size, 1 to ${pageSize.max} (default ${pageSize.first})`,
  };
}

/**
 * A default on a page size variable (`$first: Int = 50`) would state the page size a second time,
 * and could disagree with the field's; an absent `first` already means the field's default.
 */
function restatedPageSize(document: DocumentNode, variable: string, field: string, first: number): string {
  const name = getOperationAST(document)?.name?.value ?? 'the operation';
  return `${name}: $${variable} has a default, but ${field}'s page size (pageSize, default ${first}) is the one statement of it: drop the default`;
}

interface VariableUse {
  field: GraphQLField<unknown, unknown>;
  argument: string;
  /** The argument, or the input field inside it, that the variable is given to. */
  target: GraphQLArgument | GraphQLInputField;
}

/** Where each variable is used among the root fields' arguments (directly, or inside an input object literal). */
function variableUses(schema: GraphQLSchema, document: DocumentNode): Map<string, VariableUse> {
  const operation = getOperationAST(document);
  const uses = new Map<string, VariableUse>();
  if (!operation) return uses;
  const rootFields = schema.getRootType(operation.operation)?.getFields() ?? {};
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = rootFields[selection.name.value];
    if (!field) continue;
    for (const node of selection.arguments ?? []) {
      const argument = field.args.find((arg) => arg.name === node.name.value);
      if (argument) collect(node, argument, field, uses);
    }
  }
  return uses;
}

function collect(node: ArgumentNode, argument: GraphQLArgument, field: GraphQLField<unknown, unknown>, uses: Map<string, VariableUse>): void {
  const visit = (value: ValueNode, target: GraphQLArgument | GraphQLInputField, type: GraphQLInputType) => {
    if (value.kind === Kind.VARIABLE) {
      uses.set(value.name.value, { field, argument: argument.name, target });
      return;
    }
    const named = type instanceof GraphQLNonNull ? type.ofType : type;
    if (value.kind === Kind.OBJECT && named instanceof GraphQLInputObjectType) {
      const fields = named.getFields();
      for (const entry of value.fields) {
        const inner = fields[entry.name.value];
        if (inner) visit(entry.value, inner, inner.type);
      }
    }
  };
  visit(node.value, argument, argument.type);
}

function described(schema: JsonSchema, source: { description?: string | null } | undefined): JsonSchema {
  return source?.description ? { ...schema, description: source.description } : schema;
}
