/**
 * Reads the schema's sources as TypeScript syntax trees, for the rules that hold on resolvers
 * (tenancy.test.ts, authorization.test.ts): each rule is a visitor that reports the nodes it
 * refuses, and a finding names the file and line, so a failure says where to look.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './import-graph.ts';

export interface SourceFile {
  /** Relative to the repository, e.g. `schema/storage.ts`. */
  path: string;
  text: string;
}

/** A rule: the nodes of a file it refuses, each with why. */
export type Rule = (node: ts.Node, file: SourceFile) => string | undefined;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every TypeScript file under schema/. */
export function schemaSources(): SourceFile[] {
  return sources(join(ROOT, 'schema')).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
}

/** `file:line: why | the line`, for every node of the file that a rule refuses. */
export function findings(file: SourceFile, rules: Rule[]): string[] {
  const tree = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    for (const rule of rules) {
      const why = rule(node, file);
      if (why === undefined) continue;
      const { line } = tree.getLineAndCharacterOfPosition(node.getStart(tree));
      found.push(`${file.path}:${line + 1}: ${why} | ${file.text.split('\n')[line]!.trim()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

/** The name a property assignment, shorthand, binding element or property access uses, if plain. */
export function propertyName(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) return node.argumentExpression.text;
  if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node))
    return ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : undefined;
  if (ts.isBindingElement(node)) {
    const name = node.propertyName ?? node.name;
    return ts.isIdentifier(name) ? name.text : undefined;
  }
  return undefined;
}

/** The names of the properties written anywhere inside a node (object literals at any depth). */
export function propertiesWithin(node: ts.Node): string[] {
  const names: string[] = [];
  const visit = (child: ts.Node) => {
    if (ts.isPropertyAssignment(child) || ts.isShorthandPropertyAssignment(child)) {
      const name = propertyName(child);
      if (name !== undefined) names.push(name);
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

/** The property assignment a node is the value of, at any depth (e.g. `client` for `client: (ctx) => ctx.services.prisma`). */
export function enclosingProperty(node: ts.Node): string | undefined {
  for (let parent = node.parent; parent !== undefined; parent = parent.parent) {
    if (ts.isPropertyAssignment(parent)) return propertyName(parent);
  }
  return undefined;
}
