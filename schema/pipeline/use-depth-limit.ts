import { GraphQLError, Kind, NoSchemaIntrospectionCustomRule, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import type { Plugin } from '@envelop/core';

/**
 * Introspection (`__schema`, `__type`) is measured on its own, against this fixed bound: the
 * standard introspection query that GraphiQL, code generators, Rover, Postman and the like send
 * is 15 deep (its TypeRef fragment nests `ofType` seven times), more than an operation's limit, and
 * it must pass; a deeper one is no tool's and is refused.
 */
export const INTROSPECTION_MAX_DEPTH = 20;

/**
 * The depth limit, on the whole document before anything runs. The Pothos complexity plugin
 * measures from the root fields' resolvers and skips introspection
 * (`__schema { types { fields { type { ofType ...`), so the limit is enforced here too.
 */
export function useDepthLimit(maxDepth: number, options: { introspection?: boolean } = {}): Plugin {
  const rule = maxDepthRule(maxDepth);
  const introspection = options.introspection ?? true;
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
      // GRAPHQL_INTROSPECTION=false: a public endpoint that does not describe itself.
      if (!introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

/**
 * Refuses operations nested deeper than `maxDepth` fields (fragments expanded); an introspection
 * selection counts one toward that and is bounded by INTROSPECTION_MAX_DEPTH on its own.
 */
export function maxDepthRule(maxDepth: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const fragmentDepths = new Map<string, number>();
    let tooDeepIntrospection = 0;
    const depthOf = (selectionSet: SelectionSetNode, visiting: Set<string>): number => {
      let max = 0;
      for (const selection of selectionSet.selections) {
        let depth = 0;
        if (selection.kind === Kind.FIELD && INTROSPECTION_FIELDS.has(selection.name.value)) {
          const inner = 1 + (selection.selectionSet ? depthOf(selection.selectionSet, visiting) : 0);
          if (inner > INTROSPECTION_MAX_DEPTH) tooDeepIntrospection = Math.max(tooDeepIntrospection, inner);
          depth = 1;
        } else if (selection.kind === Kind.FIELD) depth = 1 + (selection.selectionSet ? depthOf(selection.selectionSet, visiting) : 0);
        else if (selection.kind === Kind.INLINE_FRAGMENT) depth = depthOf(selection.selectionSet, visiting);
        else {
          const name = selection.name.value;
          const fragment = fragments.get(name);
          if (fragment && !visiting.has(name)) {
            if (!fragmentDepths.has(name)) {
              visiting.add(name);
              fragmentDepths.set(name, depthOf(fragment.selectionSet, visiting));
              visiting.delete(name);
            }
            depth = fragmentDepths.get(name)!;
          }
        }
        max = Math.max(max, depth);
      }
      return max;
    };
    return {
      OperationDefinition(node) {
        tooDeepIntrospection = 0;
        const depth = depthOf(node.selectionSet, new Set());
        if (tooDeepIntrospection > 0) {
          context.reportError(
            new GraphQLError(`Introspection depth ${tooDeepIntrospection} exceeds the limit of ${INTROSPECTION_MAX_DEPTH}`, {
              nodes: [node],
              extensions: { code: 'BAD_USER_INPUT' },
            }),
          );
        }
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`Query depth ${depth} exceeds the limit of ${maxDepth}`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }),
          );
        }
      },
    };
  };
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);
