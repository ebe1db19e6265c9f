/**
 * MCP tool inputs cannot drift from the operations they run: every tool's inputSchema, as
 * tools/list shows it over HTTP, is read here independently from the tool's GraphQL operation and
 * the schema (variables, types, required, defaults, enum values, page limits), and the limits hold
 * when a tool is called.
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  parse,
  typeFromAST,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAccessToken, createUser } from '../helpers/fixtures.ts';
import { TOOLS } from '../../mcp/tools.ts';
import { getSchema } from '../../schema/index.ts';

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer({});
  const user = await createUser(server.services);
  token = await createAccessToken(server.services, user.userId);
}, 60_000);
afterAll(async () => server?.close());

type Json = Record<string, unknown>;

async function rpc(method: string, params: Json = {}): Promise<Json> {
  const response = await fetch(new URL('/api/service', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await response.text();
  const line = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6)
    : text;
  const message = JSON.parse(line) as { result?: Json; error?: Json };
  if (message.error) throw new Error(JSON.stringify(message.error));
  return message.result!;
}

async function listedTools(): Promise<Map<string, { inputSchema: Json; outputSchema: Json }>> {
  const tools = new Map<string, { inputSchema: Json; outputSchema: Json }>();
  let cursor: string | undefined;
  do {
    const page = (await rpc('tools/list', cursor ? { cursor } : {})) as {
      tools: { name: string; inputSchema: Json; outputSchema: Json }[];
      nextCursor?: string;
    };
    for (const tool of page.tools) tools.set(tool.name, tool);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The JSON type(s) a GraphQL input type must read as. */
function expectedShape(type: GraphQLInputType): Json {
  const inner = type instanceof GraphQLNonNull ? type.ofType : type;
  if (inner instanceof GraphQLList) return { type: 'array', items: expectedShape(inner.ofType) };
  if (inner instanceof GraphQLEnumType) return { type: 'string', enum: inner.getValues().map((v) => v.name) };
  if (inner instanceof GraphQLInputObjectType) {
    const fields = Object.values(inner.getFields());
    return {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f.name, expectedShape(f.type)])),
      required: fields.filter((f) => f.type instanceof GraphQLNonNull && f.defaultValue === undefined).map((f) => f.name),
    };
  }
  const scalar = inner as GraphQLScalarType;
  return { type: { Int: 'integer', SafeInt: 'integer', Float: 'number', Boolean: 'boolean' }[scalar.name] ?? (scalar.name === 'JSON' ? undefined : 'string') };
}

/** The listed schema reduced to what expectedShape states (type, items, enum, properties, required). */
function shapeOf(schema: Json): Json {
  const shape: Json = { type: schema.type };
  if (schema.items) shape.items = shapeOf(schema.items as Json);
  if (schema.enum) shape.enum = schema.enum;
  if (schema.properties) {
    shape.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Json>).map(([name, inner]) => [name, shapeOf(inner)]));
    shape.required = schema.required ?? [];
  }
  return shape;
}

describe("MCP tool inputs are the operations' variables", () => {
  it('every tool: the same variables, types, required, defaults and enum values', async () => {
    const listed = await listedTools();
    expect([...listed.keys()]).toEqual(TOOLS.map((tool) => tool.name));
    for (const tool of TOOLS) {
      const operation = parse(tool.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const input = listed.get(tool.name)!.inputSchema as { properties?: Record<string, Json>; required?: string[] };
      const variables = operation.variableDefinitions ?? [];
      expect(Object.keys(input.properties ?? {}).sort(), tool.name).toEqual(variables.map((v) => v.variable.name.value).sort());
      const required = variables.filter((v) => v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue).map((v) => v.variable.name.value);
      expect((input.required ?? []).sort(), `${tool.name} required`).toEqual(required.sort());
      for (const definition of variables) {
        const name = definition.variable.name.value;
        const type = typeFromAST(getSchema(), definition.type as never) as GraphQLInputType;
        const property = input.properties![name];
        expect(shapeOf(property), `${tool.name}.${name}`).toEqual(shapeOf(expectedShape(type) as Json));
      }
    }
  });

  it("every page size is the field's: `first` has the list's default and maximum", async () => {
    const listed = await listedTools();
    const paged = TOOLS.filter((tool) => /\$first: Int/.test(tool.operation));
    expect(paged.length).toBeGreaterThan(8);
    for (const tool of paged) {
      const operation = parse(tool.operation).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const rootField = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD)!;
      const field = getSchema().getRootType(operation.operation)!.getFields()[rootField.kind === Kind.FIELD ? rootField.name.value : ''];
      // The field's description states its page size; the tool's `first` must say the same.
      const [, first, max] = /Pages: first defaults to (\d+), at most (\d+)\./.exec(field.description ?? '') ?? [];
      expect(first, `${tool.name}: ${field.name} states its page size`).toBeDefined();
      const property = (listed.get(tool.name)!.inputSchema as { properties: Record<string, Json> }).properties.first;
      expect(property, tool.name).toMatchObject({ type: 'integer', minimum: 1, maximum: Number(max), default: Number(first) });
    }
  });

  it('the limits hold when called: first at the maximum is served, one more is refused, naming first', async () => {
    const listed = await listedTools();
    const max = (listed.get('list_stickies')!.inputSchema as { properties: Record<string, { maximum: number }> }).properties.first.maximum;
    const served = (await rpc('tools/call', { name: 'list_stickies', arguments: { first: max } })) as { isError?: boolean };
    expect(served.isError).toBeFalsy();
    const refused = (await rpc('tools/call', { name: 'list_stickies', arguments: { first: max + 1 } })) as { isError?: boolean; content: { text: string }[] };
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/first/);
    const unknown = (await rpc('tools/call', { name: 'list_stickies', arguments: { frist: 5 } })) as { isError?: boolean; content: { text: string }[] };
    expect(unknown).toMatchObject({ isError: true });
    expect(unknown.content[0].text).toContain('Invalid arguments for list_stickies: Unknown field: frist');
  });

  it('output schemas state nullable fields in the portable form (type: [T, "null"], never anyOf with null)', async () => {
    const listed = await listedTools();
    const anyOfWithNull: string[] = [];
    let nullable = 0;
    const visit = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}[${i}]`));
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      if (Array.isArray(schema.anyOf) && schema.anyOf.some((option) => (option as Json).type === 'null')) anyOfWithNull.push(where);
      if (Array.isArray(schema.type) && schema.type.includes('null')) nullable += 1;
      for (const [key, value] of Object.entries(schema)) visit(value, `${where}.${key}`);
    };
    for (const [name, tool] of listed) visit(tool.outputSchema, name);
    expect(anyOfWithNull).toEqual([]);
    expect(nullable).toBeGreaterThan(10);
  });
});
