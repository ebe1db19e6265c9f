// Writes schema/schema.graphql, the committed SDL of the Pothos schema (`npm run schema:emit`).
// test/schema/sdl.test.ts fails when the file is out of date.
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { sortedSchema } from '../schema/index.ts';

export const SDL_PATH = new URL('../schema/schema.graphql', import.meta.url);

writeFileSync(SDL_PATH, `${printSchema(sortedSchema())}\n`);
console.log(`wrote ${SDL_PATH.pathname}`);
