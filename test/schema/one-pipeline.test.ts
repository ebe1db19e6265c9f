/**
 * One pipeline: every front runs operations through the envelop plugins of schema/pipeline, so
 * graphql-js's executors are called from one module and each policy is applied in one place.
 * A scan of the sources of every layer that can run an operation (the fronts in mcp/, rest-compat/
 * and server/, the schema, the services), so a new front that calls graphql-js directly fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const FOLDERS = ['schema', 'src', 'rest-compat', 'mcp', 'server'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = FOLDERS.flatMap((folder) => sources(join(ROOT, folder))).map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

/** Names imported from the 'graphql' package by a file. */
function graphqlImports(text: string): string[] {
  return [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'graphql'/g)].flatMap((match) =>
    match[1]
      .split(',')
      .map(
        (name) =>
          name
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0],
      )
      .filter(Boolean),
  );
}

function filesUsing(predicate: (file: { path: string; text: string }) => boolean): string[] {
  return files
    .filter(predicate)
    .map((file) => file.path)
    .sort();
}

describe('one operation pipeline', () => {
  it('scans every layer that can run an operation', () => {
    const scanned = new Set(files.map((file) => file.path.split('/')[0]));
    expect([...scanned].sort()).toEqual([...FOLDERS].sort());
    expect(files.map((file) => file.path)).toEqual(expect.arrayContaining(['mcp/tools.ts', 'server/app.ts', 'server/http/graphql-ws.ts']));
  });

  it("graphql-js's execute, subscribe and createSourceEventStream are called from one module", () => {
    const executors = ['execute', 'subscribe', 'createSourceEventStream', 'experimentalExecuteIncrementally'];
    expect(filesUsing((file) => graphqlImports(file.text).some((name) => executors.includes(name)))).toEqual(['schema/pipeline/use-shared-execution.ts']);
  });

  it('error masking and the depth rule are each applied in one place', () => {
    expect(filesUsing((file) => /\bmaskError\(/.test(file.text))).toEqual(['schema/pipeline/use-error-masking.ts']);
    expect(filesUsing((file) => /\bmaxDepthRule\(/.test(file.text))).toEqual(['schema/pipeline/use-depth-limit.ts']);
    expect(filesUsing((file) => /\bcheckOperationInputs\(/.test(file.text))).toEqual(['schema/input-guards.ts', 'schema/pipeline/use-input-guards.ts']);
  });

  it('rate budgets are charged by the rateBudget field option, not by hand in resolvers', () => {
    expect(filesUsing((file) => file.path.startsWith('schema/') && /budgets\.charge\(/.test(file.text))).toEqual(['schema/plugins/rate-budget.ts']);
  });
});
