// Writes the emitted artefacts of the schema and the fronts (`npm run schema:emit`, and the first
// step of `npm run emit`): schema/schema.graphql, the committed SDL of the Pothos schema, README.md's
// table of each operation on the three fronts, and docs/limits.md's table.
// test/schema/sdl.test.ts, test/schema/fronts-table.test.ts and test/schema/limits-table.test.ts fail
// when they are out of date. Then dashboard/src/graphql-env.d.ts, the introspection of that SDL that
// types the dashboard's graphql() documents (gql.tada); test/dashboard/graphql-types.test.ts fails when it is stale.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { sortedSchema } from '../schema/index.ts';
import { withFrontsTable } from '../server/fronts-table.ts';
import { withLimitsTable } from '../server/limits-table.ts';
import { loadFromSDL, minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { isEntryPoint, writeEmitted } from './emitted-file.ts';

export const SDL_PATH = new URL('../schema/schema.graphql', import.meta.url);
export const README_PATH = new URL('../README.md', import.meta.url);
export const LIMITS_DOC_PATH = new URL('../docs/limits.md', import.meta.url);
export const DASHBOARD_INTROSPECTION_PATH = new URL('../dashboard/src/graphql-env.d.ts', import.meta.url);

export async function emitSchema(): Promise<void> {
  writeEmitted(SDL_PATH, `${printSchema(sortedSchema())}\n`);
  writeEmitted(README_PATH, withFrontsTable(readFileSync(README_PATH, 'utf8')));
  writeEmitted(LIMITS_DOC_PATH, withLimitsTable(readFileSync(LIMITS_DOC_PATH, 'utf8')));
  // What `gql.tada generate output --tsconfig dashboard/tsconfig.json` writes (the plugin entry there names both
  // files), from the SDL file just written.
  const { introspection } = await loadFromSDL({ file: fileURLToPath(SDL_PATH), assumeValid: true }).load();
  writeEmitted(DASHBOARD_INTROSPECTION_PATH, outputIntrospectionFile(minifyIntrospection(introspection), { fileType: '.d.ts', shouldPreprocess: true }));
}

if (isEntryPoint(import.meta.url)) await emitSchema();
