/**
 * Writes openapi.json, the REST layer's OpenAPI 3.1 document generated from the route table
 * (rest-compat/openapi/), to the repository: `npm run openapi:emit` (a step of `npm run emit`).
 * A test fails while the committed file differs from what the code generates.
 */
import { openApiJson } from '../rest-compat/openapi/index.ts';
import { isEntryPoint, writeEmitted } from './emitted-file.ts';

const OPENAPI_PATH = new URL('../openapi.json', import.meta.url);

export function emitOpenApi(): void {
  writeEmitted(OPENAPI_PATH, openApiJson());
}

if (isEntryPoint(import.meta.url)) emitOpenApi();
