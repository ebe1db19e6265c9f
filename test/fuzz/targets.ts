/**
 * What the fuzz test aims at, read from the product's own tables so that a new route, field or
 * tool is fuzzed without touching the test: the REST route table (variables from each route's
 * operation), the GraphQL schema's Query and Mutation fields, and the tools the JSON-RPC
 * endpoint lists (their input JSON Schemas).
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  getNamedType,
  isLeafType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import { getSchema } from '../../schema/index.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { variableSpecs } from '../../rest-compat/params.ts';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { RestRoute } from '../../rest-compat/route.ts';
import type { Field, Shape } from './values.ts';

// ---------------------------------------------------------------------------------------------
// Shapes from GraphQL input types and from JSON Schema

export function shapeOfGraphQL(type: GraphQLInputType): Shape {
  const inner = type instanceof GraphQLNonNull ? type.ofType : type;
  if (inner instanceof GraphQLList) return { kind: 'list', of: shapeOfGraphQL(inner.ofType) };
  if (inner instanceof GraphQLEnumType) return { kind: 'enum', values: inner.getValues().map((v) => v.name) };
  if (inner instanceof GraphQLInputObjectType) {
    return {
      kind: 'object',
      fields: Object.values(inner.getFields()).map((f) => ({
        name: f.name,
        shape: shapeOfGraphQL(f.type),
        required: f.type instanceof GraphQLNonNull && f.defaultValue === undefined,
      })),
    };
  }
  const scalar = inner as GraphQLScalarType;
  switch (scalar.name) {
    case 'Int':
    case 'SafeInt':
      return { kind: 'int' };
    case 'Float':
      return { kind: 'float' };
    case 'Boolean':
      return { kind: 'boolean' };
    case 'UUID':
    case 'ID':
      return { kind: 'text', format: scalar.name === 'UUID' ? 'uuid' : 'plain' };
    case 'Date':
      return { kind: 'text', format: 'date' };
    case 'DateTime':
      return { kind: 'text', format: 'datetime' };
    case 'Decimal':
      return { kind: 'text', format: 'decimal' };
    case 'Upload':
      return { kind: 'upload' };
    case 'JSON':
      return { kind: 'json' };
    default:
      return { kind: 'text', format: 'plain' };
  }
}

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export function shapeOfJsonSchema(schema: JsonSchema): Shape {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return shapeOfJsonSchema(alternatives.find((s) => s.type !== 'null') ?? alternatives[0]);
  if (schema.enum) return { kind: 'enum', values: schema.enum.map(String) };
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
      return { kind: 'int' };
    case 'number':
      return { kind: 'float' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return { kind: 'list', of: schema.items ? shapeOfJsonSchema(schema.items) : { kind: 'text', format: 'plain' } };
    case 'object':
      return { kind: 'object', fields: fieldsOfJsonSchema(schema) };
    default:
      if (schema.format === 'uuid') return { kind: 'text', format: 'uuid' };
      if (schema.format === 'date' || schema.pattern?.includes('\\d{4}-\\d{2}-\\d{2}')) return { kind: 'text', format: 'date' };
      if (schema.format === 'date-time' || /ISO 8601 timestamp/i.test(schema.description ?? '')) return { kind: 'text', format: 'datetime' };
      return { kind: 'text', format: 'plain' };
  }
}

export function fieldsOfJsonSchema(schema: JsonSchema): Field[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({ name, shape: shapeOfJsonSchema(property), required: required.has(name) }));
}

// ---------------------------------------------------------------------------------------------
// REST

export type RestSource = 'path' | 'query' | 'body' | 'form' | 'file';

export interface RestField extends Field {
  source: RestSource;
}

export interface RestTarget {
  name: string;
  route: RestRoute;
  fields: RestField[];
  /** reads are fuzzed before writes, so a write that stores a bad value shows up as a broken read in the read-back */
  kind: 'read' | 'write';
}

export function restTargets(): RestTarget[] {
  const operations = standaloneRunner(loadConfig({}).graphql);
  return restRoutes.map((route) => {
    const specs = variableSpecs(route, operations.prepare(route.operation).document);
    const fields: RestField[] = specs.map((spec) => {
      const shape = shapeOfGraphQL(spec.type);
      const source: RestSource = route.path.includes(`:${spec.restName}`)
        ? 'path'
        : route.body === 'json'
          ? 'body'
          : route.body === 'multipart'
            ? shape.kind === 'upload'
              ? 'file'
              : 'form'
            : 'query';
      return { name: spec.restName, shape, required: spec.type instanceof GraphQLNonNull && !spec.hasDefault, source };
    });
    // A stream route also reads the run to follow and the last event id from the query.
    if (route.stream) {
      fields.push({ name: route.stream.followParam, shape: { kind: 'text', format: 'uuid' }, required: false, source: 'query' });
      fields.push({ name: route.stream.lastEventParam, shape: { kind: 'int' }, required: false, source: 'query' });
    }
    const kind = route.method === 'GET' && !route.stream ? 'read' : 'write';
    return { name: `REST ${route.method} ${route.path}`, route, fields, kind };
  });
}

// ---------------------------------------------------------------------------------------------
// GraphQL

export interface GraphqlTarget {
  name: string;
  operationType: 'query' | 'mutation';
  field: string;
  fields: Field[];
  /** The operation with every argument as a variable of its own type (selection to the depth that fits the complexity limit). */
  document: string;
  /** The same operation selecting `depth` levels of objects. */
  documentAt(depth: number): string;
  kind: 'read' | 'write';
  destructive: boolean;
  /** arguments of type Upload: sent as a GraphQL multipart request */
  uploadArgs: string[];
}

/** Deep enough for connection -> edges -> node -> node's objects; deeper selections exceed the complexity limit. */
const MAX_SELECTION_DEPTH = 3;

/** Every leaf field (and nested objects down to a depth) without required arguments: a read that serialises what was stored. */
export function selectionOf(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (named instanceof GraphQLUnionType) {
    const members = named.getTypes().map((member) => `... on ${member.name} { ${leafSelection(member)} }`);
    return `{ __typename ${members.join(' ')} }`;
  }
  const object = named as GraphQLObjectType | GraphQLInterfaceType;
  const parts: string[] = ['__typename'];
  for (const field of Object.values(object.getFields()) as GraphQLField<unknown, unknown>[]) {
    if (field.args.some((arg) => arg.type instanceof GraphQLNonNull && arg.defaultValue === undefined)) continue;
    const fieldNamed = getNamedType(field.type);
    if (isLeafType(fieldNamed)) parts.push(field.name);
    else if (depth < MAX_SELECTION_DEPTH) parts.push(`${field.name} ${selectionOf(field.type, depth + 1)}`);
  }
  return `{ ${parts.join(' ')} }`;
}

function leafSelection(type: GraphQLObjectType): string {
  const leaves = Object.values(type.getFields()).filter((f) => isLeafType(getNamedType(f.type)) && !f.args.some((a) => a.type instanceof GraphQLNonNull));
  return ['__typename', ...leaves.map((f) => f.name)].join(' ');
}

export function graphqlTargets(): GraphqlTarget[] {
  const schema = getSchema();
  const targets: GraphqlTarget[] = [];
  for (const [operationType, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      const fields: Field[] = field.args.map((arg) => ({
        name: arg.name,
        shape: shapeOfGraphQL(arg.type),
        required: arg.type instanceof GraphQLNonNull && arg.defaultValue === undefined,
      }));
      const variables = field.args.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
      const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const documentAt = (depth: number) =>
        `${operationType} Fuzz${variables ? `(${variables})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selectionOf(field.type, MAX_SELECTION_DEPTH - depth)} }`;
      targets.push({
        documentAt,
        document: documentAt(MAX_SELECTION_DEPTH),
        name: `GraphQL ${operationType === 'query' ? 'Query' : 'Mutation'}.${field.name}`,
        operationType,
        field: field.name,
        fields,
        kind: operationType === 'query' ? 'read' : 'write',
        destructive: /^(delete|revoke|cancel)/.test(field.name),
        uploadArgs: field.args.filter((arg) => getNamedType(arg.type).name === 'Upload').map((arg) => arg.name),
      });
    }
  }
  return targets;
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC tools (from the endpoint's own tools/list answer)

export interface ListedTool {
  name: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

export interface McpTarget {
  name: string;
  tool: string;
  fields: Field[];
  kind: 'read' | 'write';
  /** a tool that starts work in the open world and waits for it (the summary generation): allowed more time */
  longRunning: boolean;
}

export function mcpTargets(tools: ListedTool[]): McpTarget[] {
  return tools.map((tool) => ({
    name: `MCP ${tool.name}`,
    tool: tool.name,
    fields: fieldsOfJsonSchema(tool.inputSchema),
    kind: tool.annotations?.readOnlyHint && tool.name !== 'chat' ? 'read' : 'write',
    longRunning: Boolean(tool.annotations?.openWorldHint && !tool.annotations.readOnlyHint),
  }));
}
