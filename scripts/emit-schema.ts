// Writes the emitted artefacts (`npm run schema:emit`): schema/schema.graphql, the committed SDL of
// the Pothos schema, README.md's table of each operation on the three fronts, and docs/limits.md's table.
// test/schema/sdl.test.ts and test/schema/fronts-table.test.ts fail when they are out of date.
// Then dashboard/src/graphql-env.d.ts, the introspection of that SDL that types the dashboard's
// graphql() documents (gql.tada); test/dashboard/graphql-types.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { sortedSchema } from '../schema/index.ts';
import { withFrontsTable } from '../server/fronts-table.ts';
import { withLimitsTable } from '../server/limits-table.ts';
import { loadFromSDL, minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';

export const SDL_PATH = new URL('../schema/schema.graphql', import.meta.url);
export const README_PATH = new URL('../README.md', import.meta.url);

writeFileSync(SDL_PATH, `${printSchema(sortedSchema())}\n`);
console.log(`wrote ${SDL_PATH.pathname}`);
writeFileSync(README_PATH, withFrontsTable(readFileSync(README_PATH, 'utf8')));
console.log(`wrote the fronts table in ${README_PATH.pathname}`);
export const LIMITS_DOC_PATH = new URL('../docs/limits.md', import.meta.url);
writeFileSync(LIMITS_DOC_PATH, withLimitsTable(readFileSync(LIMITS_DOC_PATH, 'utf8')));
console.log(`wrote the limits table in ${LIMITS_DOC_PATH.pathname}`);
export const DASHBOARD_INTROSPECTION_PATH = new URL('../dashboard/src/graphql-env.d.ts', import.meta.url);
// What `gql.tada generate output --tsconfig dashboard/tsconfig.json` writes (the plugin entry there names both files).
const { introspection } = await loadFromSDL({ file: fileURLToPath(SDL_PATH), assumeValid: true }).load();
writeFileSync(DASHBOARD_INTROSPECTION_PATH, outputIntrospectionFile(minifyIntrospection(introspection), { fileType: '.d.ts', shouldPreprocess: true }));
console.log(`wrote ${DASHBOARD_INTROSPECTION_PATH.pathname}`);
