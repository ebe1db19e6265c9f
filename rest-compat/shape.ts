/**
 * REST bodies are the operation's data with snake_case keys. The keys a route's data can have are
 * fixed by its operation's selection set, so each route compiles, once, a shaper per place in
 * its data (`returnComparison.edges.node`): a list of [response key, snake_case key, shaper of
 * the value], with no per-row key lookups or regular expressions. A field without a selection
 * (a scalar) is copied as it is, except a JSON value, whose object keys are snake_cased as before.
 */
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { snakeKeys, snakeName } from '../src/util/snake-case.ts';

export type Shaper = (value: unknown) => unknown;
/** The shaper for the value at a dotted path of response keys under `data` (lists are stepped through). */
export type ShapeAt = (path: string) => Shaper;

interface FieldShape {
  key: string;
  snake: string;
  selections: SelectionSetNode[];
}

export function compileShapes(document: DocumentNode): ShapeAt {
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  const cache = new Map<string, Shaper>();

  /** The fields of selection sets in the order GraphQL writes them (fragments in place, repeated keys merged). */
  const fieldsOf = (sets: readonly SelectionSetNode[]): FieldShape[] => {
    const fields = new Map<string, FieldShape>();
    const visit = (set: SelectionSetNode): void => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          const field = fields.get(key) ?? { key, snake: snakeName(key), selections: [] };
          if (selection.selectionSet) field.selections.push(selection.selectionSet);
          fields.set(key, field);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          visit(selection.selectionSet);
        } else {
          const fragment = fragments.get(selection.name.value);
          if (fragment) visit(fragment.selectionSet);
        }
      }
    };
    sets.forEach(visit);
    return [...fields.values()];
  };

  const compile = (sets: readonly SelectionSetNode[]): Shaper => {
    if (sets.length === 0) return snakeKeys; // a scalar: a JSON value's keys are snake_cased too
    const fields = fieldsOf(sets).map((field) => ({ ...field, shape: compile(field.selections) }));
    const shapeObject = (value: unknown): unknown => {
      if (value === null || typeof value !== 'object') return value;
      if (Array.isArray(value)) return value.map(shapeObject);
      const source = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      for (const field of fields) {
        const fieldValue = source[field.key];
        // Absent: skipped (@include/@skip) or of another type's fragment, as GraphQL leaves it out.
        if (fieldValue !== undefined) result[field.snake] = field.shape(fieldValue);
      }
      return result;
    };
    return shapeObject;
  };

  return (path) => {
    let shaper = cache.get(path);
    if (!shaper) {
      let sets: SelectionSetNode[] = operation ? [operation.selectionSet] : [];
      for (const key of path.split('.')) sets = fieldsOf(sets).find((field) => field.key === key)?.selections ?? [];
      shaper = compile(sets);
      cache.set(path, shaper);
    }
    return shaper;
  };
}
