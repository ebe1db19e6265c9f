/**
 * The MCP front of contract:check: each tool's name, inputSchema and outputSchema as tools/list
 * answers them (mcp-tools.ts), against the baseline's. A tool removed, or what
 * json-schema-diff.ts calls breaking in its input (the arguments a client writes) or its output
 * (the structured result it reads), breaks; a tool added is info.
 */
import { breaking, change, info, type ContractChange } from './changes.ts';
import { diffSchemas, localRefResolver, type Direction } from './json-schema-diff.ts';

/** What the baseline keeps of each tool. */
export interface ToolContract {
  name: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export function diffMcpTools(before: readonly ToolContract[], after: readonly ToolContract[]): ContractChange[] {
  const now = new Map(after.map((tool) => [tool.name, tool]));
  const was = new Set(before.map((tool) => tool.name));
  const changes: ContractChange[] = [];
  for (const tool of before) {
    const current = now.get(tool.name);
    if (current === undefined) {
      changes.push(breaking('mcp', `tool ${tool.name}: removed`));
      continue;
    }
    changes.push(...schemaChanges(`tool ${tool.name} input`, tool.inputSchema, current.inputSchema, 'input'));
    if (tool.outputSchema !== undefined && current.outputSchema === undefined) changes.push(breaking('mcp', `tool ${tool.name}: output schema removed`));
    else if (tool.outputSchema === undefined && current.outputSchema !== undefined) changes.push(info('mcp', `tool ${tool.name}: output schema added`));
    else changes.push(...schemaChanges(`tool ${tool.name} output`, tool.outputSchema, current.outputSchema, 'output'));
  }
  for (const tool of after) {
    if (!was.has(tool.name)) changes.push(info('mcp', `tool ${tool.name}: added`));
  }
  return changes;
}

function schemaChanges(at: string, was: unknown, now: unknown, direction: Direction): ContractChange[] {
  if (was === undefined && now === undefined) return [];
  // A tool's schemas are documents of their own: their $refs (zod's $defs) point into themselves.
  return diffSchemas(was, now, direction, { resolveBefore: localRefResolver(was), resolveAfter: localRefResolver(now) }).map(({ level, path, what }) =>
    change('mcp', level, `${at}${path === '' ? '' : ` property ${path}`}: ${what}`),
  );
}
