/**
 * Introspection as the tools send it: the standard introspection query (graphql-js's, which
 * GraphiQL, GraphQL Code Generator, graphql-inspector, Rover and Postman send) passes the depth
 * limit, gql.tada's own CLI introspects the running service into an SDL, a deeper introspection is
 * refused, operations keep their limit, and GRAPHQL_INTROSPECTION=false turns it off.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';
import { INTROSPECTION_MAX_DEPTH } from '../../schema/pipeline/use-depth-limit.ts';

let server: TestServer;
let closed: TestServer;
let user: TestUser;

beforeAll(async () => {
  [server, closed] = await Promise.all([startTestServer({}), startTestServer({ GRAPHQL_INTROSPECTION: 'false' })]);
  user = await createUser(server.services, { scopes: ['read:workspace'] });
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), closed?.close()]);
});

/** `__type(name: "Query") { fields { type { ofType { ofType ... } } } }`, `levels` ofType deep. */
function nestedTypeQuery(levels: number): string {
  let inner = 'name';
  for (let i = 0; i < levels; i += 1) inner = `ofType { ${inner} }`;
  return `{ __type(name: "Query") { fields { type { ${inner} } } } }`;
}

describe('introspection', () => {
  it('the standard introspection query (every option on) passes, without a key too, and builds the schema', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const credentials: Record<string, string>[] = [{ 'x-api-key': user.key }, {}];
    for (const headers of credentials) {
      const response = await graphql(server.url, headers, query);
      expect(response.status).toBe(200);
      expect(response.body.errors).toBeUndefined();
      const schema = buildClientSchema(response.body.data as IntrospectionQuery);
      expect(Object.keys(schema.getQueryType()!.getFields())).toContain('returnComparison');
    }
  });

  it("gql.tada's CLI introspects the running service into an SDL", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'introspect-'));
    const output = path.join(dir, 'schema.graphql');
    const cli = path.resolve('node_modules/.bin/gql.tada');
    await promisify(execFile)(cli, ['generate', 'schema', `${server.url}/graphql`, '--output', output], { timeout: 60_000 });
    const sdl = await fs.readFile(output, 'utf8');
    expect(sdl).toContain('returnComparison');
    expect(sdl).toContain('type Subscription');
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('counts introspection on its own: the bound is INTROSPECTION_MAX_DEPTH, and operations keep GRAPHQL_MAX_DEPTH', async () => {
    // __type(1) fields(2) type(3) + n ofType + name: depth n + 4.
    const deepest = await graphql(server.url, { 'x-api-key': user.key }, nestedTypeQuery(INTROSPECTION_MAX_DEPTH - 4));
    expect(deepest.body.errors).toBeUndefined();
    const tooDeep = await graphql(server.url, { 'x-api-key': user.key }, nestedTypeQuery(INTROSPECTION_MAX_DEPTH - 3));
    expect(tooDeep.body.data).toBeUndefined();
    expect(tooDeep.body.errors![0].message).toBe(`Introspection depth ${INTROSPECTION_MAX_DEPTH + 1} exceeds the limit of ${INTROSPECTION_MAX_DEPTH}`);
    // Through a fragment, beside an ordinary field: the same bound.
    const viaFragment = await graphql(
      server.url,
      { 'x-api-key': user.key },
      `query { me { credential } ...Deep } fragment Deep on Query ${nestedTypeQuery(INTROSPECTION_MAX_DEPTH - 3)}`,
    );
    expect(viaFragment.body.data).toBeUndefined();
    expect(viaFragment.body.errors![0].message).toMatch(/^Introspection depth \d+ exceeds the limit of 20$/);
  });

  it('GRAPHQL_INTROSPECTION=false refuses __schema and __type, and serves everything else', async () => {
    const owner = await createUser(closed.services, { scopes: ['read:workspace'] });
    const refused = await graphql(closed.url, { 'x-api-key': owner.key }, getIntrospectionQuery());
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors![0].message).toMatch(/introspection/i);
    const oneType = await graphql(closed.url, { 'x-api-key': owner.key }, '{ __type(name: "Query") { name } }');
    expect(oneType.body.data).toBeUndefined();
    expect(oneType.body.errors![0].message).toMatch(/introspection/i);
    const served = await graphql(closed.url, { 'x-api-key': owner.key }, '{ __typename stickies(first: 1) { edges { node { id } } } }');
    expect(served.body.errors).toBeUndefined();
    expect(served.body.data.__typename).toBe('Query');
  });
});
