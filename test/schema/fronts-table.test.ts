import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { frontsTable, withFrontsTable } from '../../server/fronts-table.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { TOOLS } from '../../mcp/tools.ts';

describe("README's table of each operation on the three fronts", () => {
  it('is current (run `npm run schema:emit` after changing a route, a tool or a rate budget)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withFrontsTable(readme));
  });

  it('names every REST route and every MCP tool', () => {
    const table = frontsTable();
    for (const route of restRoutes) expect(table, `${route.method} ${route.path}`).toContain(`\`${route.method} ${route.path}\``);
    for (const tool of TOOLS) expect(table, tool.name).toContain(`\`${tool.name}\``);
  });
});
