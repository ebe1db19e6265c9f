import { createRequire } from 'node:module';
import { stringify } from 'yaml';
import { restRoutes } from '../routes/index.ts';
import { openApiDocument } from './document.ts';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
let cached: Record<string, unknown> | undefined;
let json: string | undefined;
let yaml: string | undefined;

/** The REST layer's OpenAPI 3.1 document (built once, from the route table). */
export function openApi(): Record<string, unknown> {
  cached ??= openApiDocument(restRoutes, { version });
  return cached;
}

/** As written to openapi.json and served at /openapi.json (serialised once). */
export function openApiJson(): string {
  json ??= `${JSON.stringify(openApi(), null, 2)}\n`;
  return json;
}

/** As served at /openapi.yaml. */
export function openApiYaml(): string {
  yaml ??= stringify(openApi(), { aliasDuplicateObjects: false, lineWidth: 0 });
  return yaml;
}
