/**
 * The layout says what the code is: domain services in src/ know nothing of the fronts; the
 * schema builds on src/; the fronts (REST, MCP) on the schema; the HTTP shell (server/) wires them.
 * No import circles, in the service or in the dashboard. Reads the sources: no server.
 */
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from './import-graph.ts';

/** Which top-level folders each folder may import from (its own included). */
const MAY_IMPORT: Record<string, string[]> = {
  src: ['src'],
  schema: ['schema', 'src'],
  'rest-compat': ['rest-compat', 'schema', 'src'],
  mcp: ['mcp', 'rest-compat', 'schema', 'src'],
  server: ['server', 'mcp', 'rest-compat', 'schema', 'src'],
  scripts: ['scripts', 'server', 'mcp', 'rest-compat', 'schema', 'src'],
};

const graph = importGraph();

describe('layout', () => {
  it('has no import circles', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('imports only downwards: src/ from nothing above it, the schema from src/, the fronts from the schema, the shell from all', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const folder = file.split('/')[0];
      for (const target of targets) {
        if (!MAY_IMPORT[folder]!.includes(target.split('/')[0]!)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import circles in the dashboard either', () => {
    const dashboard = importGraph(['dashboard/src']);
    expect(dashboard.size).toBeGreaterThan(30);
    expect(circles(dashboard)).toEqual([]);
  });

  it('finds the files it checks (the scan is not empty)', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect([...graph.keys()].some((file) => file.startsWith('server/'))).toBe(true);
  });
});
