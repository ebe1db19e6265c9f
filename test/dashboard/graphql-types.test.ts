// The dashboard's GraphQL documents are typed from schema/schema.graphql (gql.tada): the committed
// introspection dashboard/src/graphql-env.d.ts must be current, or `npm run typecheck` would check
// the pages against an old schema. Regenerate it with `npm run schema:emit`. No browser needed.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFromSDL, minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const INTROSPECTION = path.join(root, 'dashboard/src/graphql-env.d.ts');
const SDL = path.join(root, 'schema/schema.graphql');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe("the dashboard's GraphQL types", () => {
  it('come from the current schema/schema.graphql (run `npm run schema:emit` after changing the schema)', async () => {
    const { introspection } = await loadFromSDL({ file: SDL, assumeValid: true }).load();
    const expected = outputIntrospectionFile(minifyIntrospection(introspection), { fileType: '.d.ts', shouldPreprocess: true });
    expect(readFileSync(INTROSPECTION, 'utf8') === expected, 'dashboard/src/graphql-env.d.ts is stale: run `npm run schema:emit`').toBe(true);
  });

  it('are configured for gql.tada and its checker in dashboard/tsconfig.json, on the same files', () => {
    const tsconfig = JSON.parse(readFileSync(path.join(root, 'dashboard/tsconfig.json'), 'utf8'));
    const plugin = tsconfig.compilerOptions.plugins.find((entry: { name: string }) => entry.name === 'gql.tada/ts-plugin');
    expect(path.resolve(root, 'dashboard', plugin.schema)).toBe(SDL);
    expect(path.resolve(root, 'dashboard', plugin.tadaOutputLocation)).toBe(INTROSPECTION);
  });

  it('cover every document: no page writes an untyped gql document', () => {
    // urql's gql takes any string and trusts hand-written result types; graphql() from api/graphql.ts checks them.
    const untyped = sourceFiles(path.join(root, 'dashboard/src')).filter((file) =>
      /\bgql\s*[<(`]|import\s*\{[^}]*\bgql\b[^}]*\}\s*from/.test(readFileSync(file, 'utf8')),
    );
    expect(untyped.map((file) => path.relative(root, file))).toEqual([]);
  });
});
