/**
 * The import graph of the service's own TypeScript (relative imports, type-only ones included:
 * a circle of types still couples the modules), and its circles (strongly connected components).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '../..');
export const SOURCE_FOLDERS = ['src', 'schema', 'rest-compat', 'mcp', 'server', 'scripts'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' || name === 'node_modules' ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** file (relative to the root) -> the files it imports. */
export function importGraph(folders: string[] = SOURCE_FOLDERS): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sources(join(ROOT, folder)))) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/g)].map((match) => relative(ROOT, resolve(dirname(file), match[1])));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** The circles: every strongly connected component of more than one file (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}
