import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  Kind,
  coerceInputValue,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import { getSchema } from '../schema/index.ts';
import { AppError } from '../src/errors.ts';
import { snakeName } from '../src/util/snake-case.ts';
import { camelName, type RestRoute } from './route.ts';

export interface VariableSpec {
  variable: string;
  restName: string;
  type: GraphQLInputType;
  hasDefault: boolean;
}

/** The operation's variables, each with the REST name clients use for it. */
export function variableSpecs(route: RestRoute, document: DocumentNode): VariableSpec[] {
  const restNames = Object.fromEntries(Object.entries(route.params ?? {}).map(([rest, variable]) => [variable, rest]));
  return operationVariables(document, `${route.method} ${route.path}`, (variable) => restNames[variable] ?? snakeName(variable));
}

/**
 * The operation's variables with the names a front gives them (REST: snake_case; MCP tools: as
 * in GraphQL). The one reading of variable definitions every front shares.
 */
export function operationVariables(document: DocumentNode, label: string, nameOf: (variable: string) => string): VariableSpec[] {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`${label}: the document has no operation`);
  return (operation.variableDefinitions ?? []).map((definition) => {
    const variable = definition.variable.name.value;
    const type = typeFromAST(getSchema(), definition.type as never) as GraphQLInputType | undefined;
    if (!type) throw new Error(`${label}: unknown type for $${variable}`);
    return { variable, restName: nameOf(variable), type, hasDefault: definition.defaultValue !== undefined };
  });
}

export type InputSource = 'query' | 'path' | 'body' | 'form';

/**
 * Builds the variables from REST inputs. Text inputs (query, path, form) are parsed by the
 * variable's GraphQL type; every value is then coerced by GraphQL itself, and any problem becomes
 * a 400 naming the REST parameter. Unknown query parameters are ignored (caches and proxies add
 * them); unknown body or form fields are rejected.
 */
export function buildVariables(specs: VariableSpec[], inputs: { source: InputSource; values: Record<string, unknown> }[]): Record<string, unknown> {
  const byRestName = new Map(specs.map((spec) => [spec.restName, spec]));
  const variables: Record<string, unknown> = {};
  // A path parameter (`/api/stickies/:id`) is never also a body field: `{"id": ...}` in the body
  // must not redirect the request to another record.
  const fromPath = new Set<string>();
  for (const { source, values } of inputs) {
    for (const [name, raw] of Object.entries(values)) {
      const spec = byRestName.get(name) ?? byRestName.get(snakeName(name));
      if (source === 'path' && spec) fromPath.add(spec.variable);
      if (!spec || ((source === 'body' || source === 'form') && fromPath.has(spec.variable))) {
        if (source === 'body' || source === 'form') throw new AppError('BAD_USER_INPUT', `Unknown field: ${name}`, { field: name });
        continue;
      }
      if (raw === undefined) continue;
      const value = source === 'body' ? raw : parseText(spec, raw);
      variables[spec.variable] = coerce(spec, value);
    }
  }
  for (const spec of specs) {
    if (spec.type instanceof GraphQLNonNull && !spec.hasDefault && variables[spec.variable] === undefined) {
      throw new AppError('BAD_USER_INPUT', `Missing required parameter: ${spec.restName}`, { field: spec.restName, problem: 'is required' });
    }
  }
  return variables;
}

function parseText(spec: VariableSpec, raw: unknown): unknown {
  if (typeof raw !== 'string') {
    if (Array.isArray(raw)) throw invalid(spec, 'may be given only once');
    return raw;
  }
  const type = spec.type instanceof GraphQLNonNull ? spec.type.ofType : spec.type;
  if (type instanceof GraphQLList) {
    const itemType = type.ofType instanceof GraphQLNonNull ? type.ofType.ofType : type.ofType;
    return raw === '' ? [] : raw.split(',').map((item) => parseScalarText(spec, itemType, item.trim()));
  }
  return parseScalarText(spec, type, raw);
}

function parseScalarText(spec: VariableSpec, type: GraphQLInputType, raw: string): unknown {
  if (!(type instanceof GraphQLScalarType)) return raw;
  switch (type.name) {
    case 'Int':
      if (!/^-?\d{1,10}$/.test(raw)) throw invalid(spec, `must be an integer, got ${JSON.stringify(raw)}`);
      return Number(raw);
    case 'Float':
      if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw invalid(spec, `must be a number, got ${JSON.stringify(raw)}`);
      return Number(raw);
    case 'Boolean':
      if (['true', '1'].includes(raw.toLowerCase())) return true;
      if (['false', '0'].includes(raw.toLowerCase())) return false;
      throw invalid(spec, `must be true or false, got ${JSON.stringify(raw)}`);
    default:
      return raw;
  }
}

function coerce(spec: VariableSpec, value: unknown): unknown {
  const named = namedType(spec.type);
  if (named instanceof GraphQLEnumType) {
    // One value or a list of them (`sources=stickies,links`): name the allowed values, not GraphQL's internals.
    const unknown = (Array.isArray(value) ? value : [value]).find((item) => typeof item === 'string' && !named.getValue(item));
    if (unknown !== undefined)
      throw invalid(
        spec,
        `must be one of ${named
          .getValues()
          .map((v) => v.name)
          .join(', ')}, got ${JSON.stringify(unknown)}`,
      );
  }
  // Validate only: execution coerces the variables itself (coercing twice would, for example,
  // turn an Upload into its promise before the scalar sees it).
  let problem: string | undefined;
  coerceInputValue(value, spec.type, (path, _invalid, error: GraphQLError) => {
    problem ??= describeCoercionError(path, error);
  });
  if (problem !== undefined) throw invalid(spec, problem);
  return value;
}

function describeCoercionError(path: readonly (string | number)[], error: GraphQLError): string {
  const where = path.length > 0 ? `${path.map((p) => (typeof p === 'number' ? `[${p}]` : snakeName(p))).join('.')}: ` : '';
  return `${where}${error.message.replace(/^Expected type "?\w+"?\.?\s*/, '')}`;
}

function namedType(type: GraphQLInputType): GraphQLInputType {
  let current = type;
  while (current instanceof GraphQLNonNull || current instanceof GraphQLList) current = current.ofType;
  return current;
}

function invalid(spec: VariableSpec, problem: string): AppError {
  return new AppError('BAD_USER_INPUT', `Invalid ${spec.restName}: ${problem}`, { field: spec.restName, problem });
}

/** The REST name for a field an error names: from the route's table, else snake_case. */
export function restFieldName(specs: VariableSpec[], field: string): string {
  const last = field.split('.').at(-1) ?? field;
  return specs.find((spec) => spec.variable === last || spec.variable === camelName(last))?.restName ?? snakeName(last);
}
