/**
 * Writes openapi.json, the REST layer's OpenAPI 3.1 document generated from the route table
 * (rest-compat/openapi/), to the repository: `npm run openapi:emit`. A test fails while the
 * committed file differs from what the code generates.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiJson } from '../rest-compat/openapi/index.ts';

const target = fileURLToPath(new URL('../openapi.json', import.meta.url));
fs.writeFileSync(target, openApiJson());
console.log(`wrote ${target}`);
