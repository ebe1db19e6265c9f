/**
 * How each front names an operation in the audit log: a REST route by its template
 * (`POST /api/stickies`), an MCP tool by its name (`tool create_sticky`); GraphQL by operation and
 * field (the pipeline hook). The tables are read from the route and tool tables by the shell
 * (server/app.ts), which sees every front; the pipeline only looks names up.
 */

export interface OperationLabels {
  /** GraphQL operation name -> REST route template. */
  rest: ReadonlyMap<string, string>;
  /** GraphQL operation name -> `tool <name>`. */
  mcp: ReadonlyMap<string, string>;
}

export const NO_LABELS: OperationLabels = { rest: new Map(), mcp: new Map() };

export function operationLabels(
  routes: readonly { method: string; path: string; operation: string }[],
  tools: readonly { name: string; operation: string }[],
): OperationLabels {
  return {
    rest: new Map(routes.flatMap((route) => named(route.operation, `${route.method} ${route.path}`))),
    mcp: new Map(tools.flatMap((tool) => named(tool.operation, `tool ${tool.name}`))),
  };
}

function named(source: string, label: string): [string, string][] {
  const name = /^\s*(?:query|mutation|subscription)\s+(\w+)/.exec(source)?.[1];
  return name ? [[name, label]] : [];
}
