import { Kind, type ASTNode, type DocumentNode, type ValueNode } from 'graphql';
import { AppError } from '../src/errors.ts';
import { TEXT_PROBLEMS, textProblem } from '../src/util/text.ts';

/**
 * Checks every front's input before an operation runs, in one place: the variables (REST
 * parameters, JSON-RPC tool arguments and GraphQL variables all arrive as variables) and the
 * string literals of the document.
 *
 * - Text the database cannot store (a NUL character, a lone UTF-16 surrogate: src/util/text.ts)
 *   would fail at the database after part of the work was done. Refused up front, naming the field.
 * - Nesting: no argument of this schema is deeper than a few levels; a value nested deeper than
 *   MAX_INPUT_DEPTH is refused before anything walks it recursively.
 */
export const MAX_INPUT_DEPTH = 32;

export function checkOperationInputs(document: DocumentNode, variables: unknown): AppError | undefined {
  return checkValue(variables, 'variables', 0) ?? checkLiterals(document);
}

function checkValue(value: unknown, field: string, depth: number): AppError | undefined {
  if (typeof value === 'string') return textError(value, field);
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= MAX_INPUT_DEPTH) return AppError.badInput(field, `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = checkValue(item, field, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    const keyProblem = textError(key, field);
    if (keyProblem) return keyProblem;
    const problem = checkValue(inner, key, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** Literal checks per document: REST routes and tools reuse prepared documents, so each is walked once. */
const literalProblems = new WeakMap<DocumentNode, AppError | null>();

function checkLiterals(document: DocumentNode): AppError | undefined {
  let problem = literalProblems.get(document);
  if (problem === undefined) {
    problem = null;
    for (const definition of document.definitions) {
      problem = checkNode(definition, 'query', 0) ?? null;
      if (problem) break;
    }
    literalProblems.set(document, problem);
  }
  return problem ?? undefined;
}

/** Walks arguments (and the values inside them) of a document's selections. */
function checkNode(node: ASTNode, field: string, depth: number): AppError | undefined {
  if (depth > 200) return undefined; // graphql's parser already bounds documents; this only guards the walk
  if (node.kind === Kind.FIELD && node.arguments) {
    for (const argument of node.arguments) {
      const problem = checkLiteral(argument.value, argument.name.value, 0);
      if (problem) return problem;
    }
  }
  if ('selectionSet' in node && node.selectionSet) {
    for (const selection of node.selectionSet.selections) {
      const problem = checkNode(selection, field, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

function checkLiteral(value: ValueNode, field: string, depth: number): AppError | undefined {
  if (depth >= MAX_INPUT_DEPTH) return AppError.badInput(field, `is nested more than ${MAX_INPUT_DEPTH} levels deep`);
  switch (value.kind) {
    case Kind.STRING:
      return textError(value.value, field);
    case Kind.LIST:
      for (const item of value.values) {
        const problem = checkLiteral(item, field, depth + 1);
        if (problem) return problem;
      }
      return undefined;
    case Kind.OBJECT:
      for (const inner of value.fields) {
        const problem = checkLiteral(inner.value, inner.name.value, depth + 1);
        if (problem) return problem;
      }
      return undefined;
    default:
      return undefined;
  }
}

function textError(text: string, field: string): AppError | undefined {
  const problem = textProblem(text);
  return problem ? AppError.badInput(field, TEXT_PROBLEMS[problem]) : undefined;
}
