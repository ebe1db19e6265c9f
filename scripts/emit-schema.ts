// Writes the emitted artefacts (`npm run schema:emit`): schema/schema.graphql, the committed SDL of
// the Pothos schema, and README.md's table of each operation on the three fronts.
// test/schema/sdl.test.ts and test/schema/fronts-table.test.ts fail when they are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { sortedSchema } from '../schema/index.ts';
import { withFrontsTable } from '../rest-compat/fronts-table.ts';

export const SDL_PATH = new URL('../schema/schema.graphql', import.meta.url);
export const README_PATH = new URL('../README.md', import.meta.url);

writeFileSync(SDL_PATH, `${printSchema(sortedSchema())}\n`);
console.log(`wrote ${SDL_PATH.pathname}`);
writeFileSync(README_PATH, withFrontsTable(readFileSync(README_PATH, 'utf8')));
console.log(`wrote the fronts table in ${README_PATH.pathname}`);
