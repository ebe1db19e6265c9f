/**
 * Checks a real REST response against the OpenAPI document (openapi.json): the path and method
 * must be described, the status listed for that operation, the content type one it declares,
 * its declared headers present where required, and the JSON body valid against the schema
 * (JSON Schema 2020-12, as OpenAPI 3.1 reads it). Returns the problems, empty when it matches.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
const DOCUMENT = JSON.parse(fs.readFileSync(fileURLToPath(new URL('../../openapi.json', import.meta.url)), 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema({ ...(DOCUMENT.components as Json), $id: 'openapi-components' }, 'components');

const paths = Object.entries(DOCUMENT.paths as Record<string, Json>).map(([template, item]) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  item,
}));

export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  /** The parsed JSON body, when the content type is JSON. */
  body?: unknown;
}

/** Whether the document describes this path at all (other paths are not REST routes). */
export function describedPath(path: string): boolean {
  return paths.some((entry) => entry.pattern.test(path));
}

export function responseProblems(observed: ObservedResponse): string[] {
  // A literal path (/api/links/folders) wins over a template (/api/links/{id}).
  const matches = paths.filter((entry) => entry.pattern.test(observed.path)).sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  // Express answers on the first route of the table that matches, and the table lists literal paths first.
  const operation = matches[0]?.item[observed.method.toLowerCase()] as Json | undefined;
  const label = `${observed.method} ${observed.path} -> ${observed.status}`;
  if (!operation) return [`${label}: the document describes no ${observed.method} for this path`];
  const responses = operation.responses as Record<string, Json>;
  const response = responses[String(observed.status)];
  if (!response) return [`${label}: status not documented (documented: ${Object.keys(responses).join(', ')})`];
  const problems: string[] = [];
  const content = response.content as Record<string, Json> | undefined;
  const contentType = (observed.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (!content) {
    if (contentType && observed.status !== 204) problems.push(`${label}: documented without a body, got ${contentType}`);
    return problems;
  }
  const media = content[contentType];
  if (!media) return [`${label}: content type ${contentType || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`];
  for (const name of Object.keys((response.headers as Json | undefined) ?? {})) {
    if (name === 'Retry-After' && observed.headers.get(name) === null) problems.push(`${label}: header ${name} missing`);
  }
  if (contentType === 'application/json' && media.schema) {
    const validate = validatorFor(media.schema as Json);
    if (!validate(observed.body)) problems.push(`${label}: body does not match: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 800)}`);
  }
  return problems;
}

/** One compiled validator per schema of the document (ajv compiles are far slower than checks). */
const validators = new WeakMap<Json, ValidateFunction>();
function validatorFor(schema: Json): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema) as Json);
    validators.set(schema, validate);
  }
  return validate;
}

/** `#/components/...` refs point into the components schema registered above. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace('#/components/', 'openapi-components#/') : rewriteRefs(inner),
    ]),
  );
}
