/**
 * MCP tool outputs cannot drift from the operations they run: every tool's outputSchema, as
 * tools/list lists it (toolListing, the endpoint's own listing), is read here against the GraphQL
 * schema and the tool's selection, walked independently of the code that derives it: the same
 * keys, every property nullable exactly when its GraphQL field is, lists as arrays, enums with
 * their values. And a change of nullability in the schema changes the advertised schema with it.
 * (That a real call's structuredContent is valid against the listed schema: tools.test.ts.)
 */
import {
  buildSchema,
  getNamedType,
  getNullableType,
  GraphQLEnumType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  Kind,
  parse,
  printSchema,
  type FieldNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { loadConfig } from '../../src/config.ts';
import { prepareTools, toolListing } from '../../mcp/tool-catalog.ts';
import { toolOutputSchema } from '../../mcp/tool-results.ts';
import { TOOLS, type ToolDefinition } from '../../mcp/tools.ts';

type Json = Record<string, unknown>;

const listing = toolListing(prepareTools(standaloneRunner(loadConfig({}).graphql)));

function operationOf(tool: ToolDefinition): OperationDefinitionNode {
  return parse(tool.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
}

function selectedField(selection: SelectionSetNode | undefined, name: string): FieldNode {
  const field = selection?.selections.find((node): node is FieldNode => node.kind === Kind.FIELD && node.name.value === name);
  if (!field) throw new Error(`no ${name} selected`);
  return field;
}

function fieldType(parent: GraphQLOutputType, name: string): GraphQLOutputType {
  const named = getNamedType(parent);
  if (!(named instanceof GraphQLObjectType || named instanceof GraphQLInterfaceType)) throw new Error(`${named.name} has no fields`);
  return named.getFields()[name]!.type;
}

const types = (schema: Json): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []);
const acceptsNull = (schema: Json) => types(schema).includes('null') || ((schema.anyOf as Json[] | undefined) ?? []).some((option) => option.type === 'null');

const JSON_TYPE: Record<string, string> = { Int: 'integer', SafeInt: 'integer', Float: 'number', Boolean: 'boolean' };

/** What differs between a schema node and the GraphQL type it stands for, as selected. */
function mismatches(node: Json, type: GraphQLOutputType, selection: SelectionSetNode | undefined, where: string): string[] {
  const problems: string[] = [];
  const nullable = !(type instanceof GraphQLNonNull);
  if (acceptsNull(node) !== nullable) problems.push(`${where}: ${nullable ? 'nullable' : 'non-null'} in GraphQL (${String(type)}), not in outputSchema`);
  const inner = getNullableType(type);
  if (inner instanceof GraphQLList) {
    if (!types(node).includes('array')) return [...problems, `${where}: a list in GraphQL, not an array`];
    return [...problems, ...mismatches(node.items as Json, inner.ofType, selection, `${where}[]`)];
  }
  if (inner instanceof GraphQLEnumType) {
    const values = ((node.enum as unknown[] | undefined) ?? []).filter((value) => value !== null);
    if (
      JSON.stringify([...values].sort()) !==
      JSON.stringify(
        inner
          .getValues()
          .map((value) => value.name)
          .sort(),
      )
    )
      problems.push(`${where}: enum ${JSON.stringify(values)} is not ${inner.name}'s values`);
    return problems;
  }
  if (inner instanceof GraphQLScalarType) {
    const expected = JSON_TYPE[inner.name] ?? 'string';
    if (inner.name !== 'JSON' && !types(node).includes(expected))
      problems.push(`${where}: ${inner.name} should read as ${expected}, not ${JSON.stringify(node.type)}`);
    return problems;
  }
  const fields = (selection?.selections ?? []).filter((s): s is FieldNode => s.kind === Kind.FIELD);
  const properties = (node.properties as Record<string, Json> | undefined) ?? {};
  const keys = fields.map((field) => field.alias?.value ?? field.name.value);
  if (JSON.stringify(Object.keys(properties).sort()) !== JSON.stringify([...keys].sort()))
    problems.push(`${where}: properties ${Object.keys(properties).join(',')} are not the selection ${keys.join(',')}`);
  if (JSON.stringify([...((node.required as string[] | undefined) ?? [])].sort()) !== JSON.stringify([...keys].sort()))
    problems.push(`${where}: required is not every selected field`);
  for (const field of fields) {
    const key = field.alias?.value ?? field.name.value;
    if (properties[key]) problems.push(...mismatches(properties[key], fieldType(inner, field.name.value), field.selectionSet, `${where}.${key}`));
  }
  return problems;
}

/** The outputSchema of a tool read against its operation: the root field's value, a list as `items`, or a connection's nodes as `items`. */
function toolMismatches(tool: ToolDefinition, output: Json): string[] {
  const operation = operationOf(tool);
  const rootType = getSchema().getRootType(operation.operation)!;
  const root = selectedField(operation.selectionSet, tool.result.field);
  const rootFieldType = rootType.getFields()[root.name.value]!.type;
  if (tool.result.kind === 'value') return mismatches(output, rootFieldType, root.selectionSet, tool.name);
  if (tool.result.kind === 'items') {
    expect(output.required, tool.name).toEqual(['items']);
    return mismatches((output.properties as Record<string, Json>).items, rootFieldType, root.selectionSet, `${tool.name}.items`);
  }
  const edges = selectedField(root.selectionSet, 'edges');
  const node = selectedField(edges.selectionSet, 'node');
  const nodeType = fieldType(getNullableType(fieldType(rootFieldType, 'edges')), 'node');
  const { items, nextCursor } = output.properties as Record<string, Json>;
  expect(nextCursor, tool.name).toMatchObject({ type: ['string', 'null'] });
  expect(output.required, tool.name).toEqual(['items', 'nextCursor']);
  expect(items.type, tool.name).toBe('array');
  return mismatches(items.items as Json, nodeType, node.selectionSet, `${tool.name}.items[]`);
}

/** The SDL of the schema with one field's type replaced. */
function withFieldType(typeName: string, field: string, type: string): GraphQLSchema {
  const sdl = printSchema(getSchema());
  const start = sdl.indexOf(`type ${typeName} {`);
  const end = sdl.indexOf('\n}', start);
  const body = sdl.slice(start, end);
  // The field's line, its arguments kept: `  name(args): Type`.
  const changed = body.replace(new RegExp(`(\\n  ${field}(?:\\([^\\n]*\\))?): [^\\n]+`), `$1: ${type}`);
  expect(changed, `${typeName}.${field}`).not.toBe(body);
  return buildSchema(sdl.slice(0, start) + changed + sdl.slice(end));
}

describe("MCP tool outputs are the operations' selections", () => {
  it('lists every tool with an object outputSchema', () => {
    expect(listing.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    for (const tool of listing) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('every tool: the selected keys, each property nullable exactly when its GraphQL field is, lists as arrays, enums with their values', () => {
    const problems: string[] = [];
    let properties = 0;
    for (const tool of TOOLS) {
      const output = listing.find((listed) => listed.name === tool.name)!.outputSchema as Json;
      problems.push(...toolMismatches(tool, output));
      properties += JSON.stringify(output).split('"type"').length - 1;
    }
    expect(problems).toEqual([]);
    // The walk saw the schemas (not a vacuous pass): hundreds of typed nodes across the tools.
    expect(properties).toBeGreaterThan(200);
  });

  it('a field made non-null, or nullable, in the schema changes the advertised schema with it', () => {
    const tool = TOOLS.find((candidate) => candidate.name === 'list_stickies')!;
    const document = parse(tool.operation);
    const sticky = (schema: GraphQLSchema) =>
      ((toolOutputSchema(schema, document, tool.result).properties as Record<string, Json>).items.items as Json).properties as Record<string, Json>;

    expect(sticky(getSchema()).deletedAt.type).toEqual(['string', 'null']);
    expect(sticky(withFieldType('Sticky', 'deletedAt', 'DateTime!')).deletedAt.type).toBe('string');
    expect(sticky(getSchema()).content.type).toBe('string');
    expect(sticky(withFieldType('Sticky', 'content', 'String')).content.type).toEqual(['string', 'null']);
    expect(sticky(withFieldType('Sticky', 'tags', '[String]!')).tags).toMatchObject({ type: 'array', items: { type: ['string', 'null'] } });
  });

  it('a root field that could be null cannot be a tool result: the tool is refused when prepared', () => {
    const tool = TOOLS.find((candidate) => candidate.name === 'create_sticky')!;
    expect(() => toolOutputSchema(withFieldType('Mutation', 'createSticky', 'Sticky'), parse(tool.operation), tool.result)).toThrow(
      /createSticky is not a non-null object/,
    );
  });
});
