import { GraphQLError, Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationRule } from 'graphql';
import type { Plugin } from '@envelop/core';

/**
 * The depth limit, on the whole document before anything runs. The Pothos complexity plugin
 * measures from the root fields' resolvers and skips introspection
 * (`__schema { types { fields { type { ofType ...`), so the limit is enforced here too.
 */
export function useDepthLimit(maxDepth: number): Plugin {
  const rule = maxDepthRule(maxDepth);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}

/** Refuses operations nested deeper than `maxDepth` fields (fragments expanded, introspection included). */
export function maxDepthRule(maxDepth: number): ValidationRule {
  return (context) => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const fragmentDepths = new Map<string, number>();
    const depthOf = (selectionSet: SelectionSetNode, visiting: Set<string>): number => {
      let max = 0;
      for (const selection of selectionSet.selections) {
        let depth = 0;
        if (selection.kind === Kind.FIELD) depth = 1 + (selection.selectionSet ? depthOf(selection.selectionSet, visiting) : 0);
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
        const depth = depthOf(node.selectionSet, new Set());
        if (depth > maxDepth) {
          context.reportError(new GraphQLError(`Query depth ${depth} exceeds the limit of ${maxDepth}`, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
        }
      },
    };
  };
}
