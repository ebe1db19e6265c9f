/**
 * JSON Schema of what an operation selects, read from the operation and the schema: the REST
 * response bodies are the operation's data reshaped (route.ts), so their schemas come from here,
 * with keys snake_cased as the REST layer writes them; the MCP tools' output schemas too, with the
 * keys as GraphQL names them (operationDataSchema).
 */
import {
  getNamedType,
  getOperationAST,
  GraphQLEnumType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  Kind,
  type FieldNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { snakeName } from '../route.ts';
import { SCALARS, type JsonSchema } from '../variables-schema.ts';

/** Output scalars as the REST layer writes them: as inputs, but a Decimal may come in exponent form. */
const OUTPUT_SCALARS: Record<string, JsonSchema> = {
  ...SCALARS,
  Decimal: { ...SCALARS.Decimal, pattern: '^[+-]?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?$' },
};

export type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

/** How a selected field's key (its alias or name) is written in the answer: snake_case for REST (the default). */
export type KeyName = (key: string) => string;

const asSelected: KeyName = (key) => key;

/**
 * The schema of an operation's `data` (its root fields as selected), keys as GraphQL writes them:
 * what a front that passes the data on unrenamed (the MCP tools) answers.
 */
export function operationDataSchema(schema: GraphQLSchema, document: DocumentNode): JsonSchema {
  const operation = getOperationAST(document);
  if (!operation) throw new Error('expected a document with one operation');
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`the schema has no ${operation.operation} type`);
  const fragments: Fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return selectedObject({ schema, fragments, keyName: asSelected }, root, operation.selectionSet);
}

/** What a walk of a selection reads with: the schema, the document's fragments, and how keys are written. */
interface Reading {
  schema: GraphQLSchema;
  fragments: Fragments;
  keyName: KeyName;
}

/** The schema of a field of `parent` as selected by `node` (its alias is the caller's key). */
export function fieldSchema(
  schema: GraphQLSchema,
  parent: GraphQLObjectType | GraphQLInterfaceType,
  node: FieldNode,
  fragments: Fragments = new Map(),
  keyName: KeyName = snakeName,
): JsonSchema {
  return selectedField({ schema, fragments, keyName }, parent, node);
}

function selectedField(reading: Reading, parent: GraphQLObjectType | GraphQLInterfaceType, node: FieldNode): JsonSchema {
  const name = node.name.value;
  if (name === '__typename') return { type: 'string' };
  const field = parent.getFields()[name];
  if (!field) throw new Error(`${parent.name} has no field ${name}`);
  const described = outputSchema(reading, field.type, node.selectionSet);
  return field.description ? { ...described, description: field.description } : described;
}

function outputSchema(reading: Reading, type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (type instanceof GraphQLNonNull) return nonNullSchema(reading, type.ofType, selection);
  return nullable(nonNullSchema(reading, type, selection));
}

function nonNullSchema(reading: Reading, type: GraphQLOutputType, selection: SelectionSetNode | undefined): JsonSchema {
  if (type instanceof GraphQLNonNull) return nonNullSchema(reading, type.ofType, selection);
  if (type instanceof GraphQLList) return { type: 'array', items: outputSchema(reading, type.ofType, selection) };
  if (type instanceof GraphQLScalarType) return { ...(OUTPUT_SCALARS[type.name] ?? { type: 'string' }) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  if (!selection) throw new Error(`${getNamedType(type).name} needs a selection`);
  return selectedObject(reading, type, selection);
}

function selectedObject(reading: Reading, type: GraphQLObjectType | GraphQLInterfaceType | GraphQLUnionType, selection: SelectionSetNode): JsonSchema {
  const { schema, fragments, keyName } = reading;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const conditional = new Set<string>();
  collect(type, selection, false);
  const always = required.filter((key) => !conditional.has(key));
  return { type: 'object', properties, required: [...new Set(always)], additionalProperties: false };

  function collect(on: GraphQLObjectType | GraphQLInterfaceType | GraphQLUnionType, set: SelectionSetNode, inFragment: boolean): void {
    for (const node of set.selections) {
      if (node.kind === Kind.FIELD) {
        if (on instanceof GraphQLUnionType && node.name.value !== '__typename')
          throw new Error(`select ${node.name.value} of ${on.name} in an inline fragment`);
        const key = keyName(node.alias?.value ?? node.name.value);
        properties[key] = on instanceof GraphQLUnionType ? { type: 'string' } : selectedField(reading, on, node);
        required.push(key);
        if (inFragment || conditionalNode(node)) conditional.add(key);
      } else if (node.kind === Kind.INLINE_FRAGMENT) {
        const target = node.typeCondition ? schema.getType(node.typeCondition.name.value) : on;
        if (!(target instanceof GraphQLObjectType || target instanceof GraphQLInterfaceType || target instanceof GraphQLUnionType))
          throw new Error('bad fragment');
        // Fields of a fragment on another type than the parent's are there only for that type,
        // and those of an @include / @skip fragment only when it applies.
        collect(target, node.selectionSet, inFragment || target !== on || conditionalNode(node));
      } else {
        const fragment = fragments.get(node.name.value);
        if (!fragment) throw new Error(`unknown fragment ${node.name.value}`);
        const target = schema.getType(fragment.typeCondition.name.value);
        if (!(target instanceof GraphQLObjectType || target instanceof GraphQLInterfaceType || target instanceof GraphQLUnionType))
          throw new Error('bad fragment');
        collect(target, fragment.selectionSet, inFragment || target !== on);
      }
    }
  }
}

/** `T` or null (JSON Schema 2020-12, as OpenAPI 3.1 reads it). */
export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    const withNull: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
    return withNull;
  }
  if (Object.keys(schema).length === 0) return schema;
  return { anyOf: [schema, { type: 'null' }] };
}

/** A selection under @include or @skip: present in some answers only. */
function conditionalNode(node: { directives?: readonly { name: { value: string } }[] }): boolean {
  return (node.directives ?? []).some((directive) => directive.name.value === 'include' || directive.name.value === 'skip');
}
