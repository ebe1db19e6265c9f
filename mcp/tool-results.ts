/**
 * How a tool's structured result is made from its operation's data, stated once per kind and
 * applied to both the data (at run time) and its JSON Schema (when the tools are prepared): the
 * output schema a tool advertises is its operation's selection (selection-schema.ts, the code
 * that writes the OpenAPI response schemas) reshaped exactly as its data is. A changed type or
 * nullability in the schema or the selection changes the advertised schema with it.
 */
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { operationDataSchema } from '../rest-compat/openapi/selection-schema.ts';
import { connectionPage } from '../rest-compat/route.ts';
import type { JsonSchema } from '../rest-compat/variables-schema.ts';

/**
 * - `value`: the root field's value (an object) is the result;
 * - `page`: the root field is a relay connection, answered as `{ items, nextCursor }`;
 * - `items`: the root field is a short list that never pages, answered as `{ items }`.
 */
export type ResultShape = { kind: 'value'; field: string } | { kind: 'page'; field: string } | { kind: 'items'; field: string };

export const value = (field: string): ResultShape => ({ kind: 'value', field });
export const page = (field: string): ResultShape => ({ kind: 'page', field });
export const items = (field: string): ResultShape => ({ kind: 'items', field });

/** MCP's outputSchema: a JSON Schema of an object. */
export type ObjectSchema = { type: 'object'; [key: string]: unknown };

/** The operation's data -> the tool's structured result. */
export function toolResult(shape: ResultShape, data: Record<string, unknown>): Record<string, unknown> {
  switch (shape.kind) {
    case 'value':
      return data[shape.field] as Record<string, unknown>;
    case 'page': {
      const { rows, nextCursor } = connectionPage(data, shape.field);
      return { items: rows, nextCursor };
    }
    case 'items':
      return { items: data[shape.field] as unknown[] };
  }
}

/** The JSON Schema of the tool's structured result: its operation's selection, shaped as toolResult shapes the data. */
export function toolOutputSchema(schema: GraphQLSchema, document: DocumentNode, shape: ResultShape): ObjectSchema {
  const root = propertyOf(operationDataSchema(schema, document), shape.field, 'data');
  switch (shape.kind) {
    case 'value':
      return objectSchema(root, shape.field);
    case 'page': {
      const edges = propertyOf(objectSchema(root, shape.field), 'edges', shape.field);
      const node = propertyOf(edges.items as JsonSchema, 'node', `${shape.field}.edges`);
      return {
        type: 'object',
        properties: {
          items: { type: 'array', items: node },
          nextCursor: { type: ['string', 'null'], description: 'pass as `after` for the next page; null on the last page' },
        },
        required: ['items', 'nextCursor'],
        additionalProperties: false,
      };
    }
    case 'items':
      if (root.type !== 'array') throw new Error(`${shape.field} is not a non-null list (${JSON.stringify(root.type)}): it cannot be a tool's items`);
      return { type: 'object', properties: { items: root }, required: ['items'], additionalProperties: false };
  }
}

function propertyOf(schema: JsonSchema, key: string, where: string): JsonSchema {
  const property = (schema.properties as Record<string, JsonSchema> | undefined)?.[key];
  if (!property) throw new Error(`${where} selects no ${key}`);
  return property;
}

/** A tool's result is an object (MCP's structuredContent): the root field must be a non-null object. */
function objectSchema(schema: JsonSchema, field: string): ObjectSchema {
  if (schema.type !== 'object') throw new Error(`${field} is not a non-null object (${JSON.stringify(schema.type)}): it cannot be a tool's result`);
  return { ...schema, type: 'object' };
}
