/**
 * A list's page size is stated once, on its field (`pageSize: PAGE_SIZES.x`): the REST `limit`
 * parameter's default and maximum in openapi.json are read from it, and a route's operation cannot
 * state it again as a variable default (`$first: Int = 50`), which used to override it in the
 * document. The spec's documented defaults still hold.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kind, getOperationAST, parse, type DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { pageSizeOf } from '../../schema/plugins/page-size.ts';
import { operationVariables, variableSpecs } from '../../rest-compat/params.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { variablesSchema } from '../../rest-compat/variables-schema.ts';
import type { PageSize } from '../../src/pagination.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const openapi = JSON.parse(fs.readFileSync(`${ROOT}openapi.json`, 'utf8')) as {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: { default?: unknown; maximum?: unknown } }[] }>>;
};

/** The variable an operation passes as `first` to a root field with a page size, and that size. */
function pagedVariable(document: DocumentNode): { variable: string; size: PageSize } | undefined {
  const operation = getOperationAST(document);
  const fields = operation ? (getSchema().getRootType(operation.operation)?.getFields() ?? {}) : {};
  for (const selection of operation?.selectionSet.selections ?? []) {
    if (selection.kind !== Kind.FIELD) continue;
    const size = pageSizeOf(fields[selection.name.value]);
    const first = selection.arguments?.find((argument) => argument.name.value === 'first');
    if (size && first?.value.kind === Kind.VARIABLE) return { variable: first.value.name.value, size };
  }
  return undefined;
}

function queryParameter(method: string, path: string, name: string) {
  const operation = openapi.paths[path.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[method.toLowerCase()];
  return operation?.parameters?.find((parameter) => parameter.in === 'query' && parameter.name === name);
}

const pagedRoutes = restRoutes.flatMap((route) => {
  const document = parse(route.operation);
  const paged = pagedVariable(document);
  if (!paged) return [];
  const restName = variableSpecs(route, document).find((spec) => spec.variable === paged.variable)?.restName;
  return [{ label: `${route.method} ${route.path}`, route, document, restName, ...paged }];
});

describe('page sizes, stated once on the field', () => {
  it('finds the paged routes (the nine lists of the spec and the workspace, the audit log, usage, webhook endpoints and their deliveries)', () => {
    expect(pagedRoutes.map((paged) => paged.label)).toEqual(expect.arrayContaining(['GET /api/returns/comparison', 'GET /api/audit-events', 'GET /api/usage']));
    expect(pagedRoutes).toHaveLength(13);
  });

  it.each(pagedRoutes.map((paged) => [paged.label, paged] as const))('%s: limit defaults to the field page size, at most its max', (_label, paged) => {
    expect(paged.restName).toBe('limit');
    const definition = getOperationAST(paged.document)?.variableDefinitions?.find((node) => node.variable.name.value === paged.variable);
    expect(definition?.defaultValue, `$${paged.variable} restates the page size`).toBeUndefined();
    const limit = queryParameter(paged.route.method, paged.route.path, 'limit');
    expect(limit?.schema).toMatchObject({ default: paged.size.first, maximum: paged.size.max, minimum: 1 });
  });

  it("keeps the spec's documented defaults: comparison 50, transcripts 20", () => {
    expect(queryParameter('GET', '/api/returns/comparison', 'limit')?.schema.default).toBe(50);
    expect(queryParameter('GET', '/api/transcripts', 'limit')?.schema.default).toBe(20);
  });

  it('refuses an operation that restates the page size as a variable default', () => {
    const document = parse('query Restated($first: Int = 7) { stickies(first: $first) { edges { node { id } } } }');
    const specs = operationVariables(document, 'Restated', (variable) => variable);
    expect(() => variablesSchema(getSchema(), document, specs)).toThrow(/Restated: \$first has a default.*stickies.*drop the default/);
  });
});
