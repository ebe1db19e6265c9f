/**
 * Deprecation that knows its callers (docs/usage-and-deprecation.md): a deprecated route row
 * answers with RFC 9745 / RFC 8594 headers and is marked in the OpenAPI document, the deprecated
 * field carries @deprecated in the SDL (a tool selecting it: deprecation-mcp.test.ts), and
 * GET /api/usage/deprecated names the credentials that called each deprecated thing, and no others.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, createUser, getJson, type ApiCallArgs, type TestUser } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { getSchema } from '../../schema/index.ts';
import { TOOLS } from '../../mcp/tools.ts';
import { deprecatedFieldsIn, deprecationHeaders } from '../../src/usage/deprecation.ts';
import { deprecationCatalog } from '../../src/usage/deprecation-catalog.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import type { RestRoute } from '../../rest-compat/route.ts';
import { announceDeprecation } from '../../rest-compat/deprecation.ts';
import { FILE_TYPES } from '../../src/ingest/csv-formats/index.ts';
import { openApiDocument } from '../../rest-compat/openapi/document.ts';

let server: TestServer;
let alice: TestUser; // admin of org A: calls both deprecated things
let bob: TestUser; // member of org A: calls only their replacements
let carol: TestUser; // admin of org C: calls both deprecated things
const call = (...args: ApiCallArgs) => callApi(server.url, ...args);

const FIELD_REASON = 'Deprecated since 2026-11-27, sunset 2027-05-31: Use formats { fileType }: the same types, with their columns.';

function graphql(user: TestUser, query: string) {
  return getJson(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': user.key },
    body: JSON.stringify({ query }),
  });
}

beforeAll(async () => {
  server = await startTestServer();
  alice = await createUser(server.services, { org: 'Deprecation Org A', role: 'admin' });
  bob = await createUser(server.services, { org: 'Deprecation Org A', role: 'member', scopes: ['read:workspace'] });
  carol = await createUser(server.services, { org: 'Deprecation Org C', role: 'admin' });
});

afterAll(() => server?.close());

/**
 * No route of the table is deprecated today (the paths the specs name never are; /api/health is an
 * alias the spec names). A deprecated row is served here by the product's own announceDeprecation
 * on a real HTTP server, and documented by the product's own OpenAPI builder.
 */
const OLD_HEALTH: RestRoute = {
  ...restRoutes.find((route) => route.method === 'GET' && route.path === '/health')!,
  path: '/legacy/health',
  deprecated: { reason: 'Use GET /health: the same answer.', since: '2026-11-27', sunset: '2027-11-30' },
};

describe('a deprecated REST route', () => {
  let legacy: http.Server;
  let legacyUrl: string;
  beforeAll(async () => {
    const document = parse(OLD_HEALTH.operation);
    legacy = http.createServer((req, res) => {
      announceDeprecation({ route: OLD_HEALTH, operation: { document } }, req, res, () => Promise.reject(new Error('no caller to record here')));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'healthy' }));
    });
    await new Promise<void>((resolve) => legacy.listen(0, '127.0.0.1', resolve));
    legacyUrl = `http://127.0.0.1:${(legacy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => legacy.close(() => resolve())));

  it('answers with Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the documentation', async () => {
    const response = await fetch(`${legacyUrl}/legacy/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('@1795737600'); // 2026-11-27T00:00:00Z
    expect(response.headers.get('sunset')).toBe('Tue, 30 Nov 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('</api-docs>; rel="deprecation"; type="text/html"');
  });

  it('the routes the specs name carry none (/api/health is their alias, never deprecated)', async () => {
    for (const path of ['/health', '/api/health']) {
      const response = await call(alice, 'GET', path);
      expect(response.status).toBe(200);
      expect(response.headers.get('deprecation')).toBeNull();
      expect(response.headers.get('sunset')).toBeNull();
    }
  });

  it('is marked deprecated in the OpenAPI document, with its reason and sunset; the served document marks nothing', async () => {
    const document = openApiDocument([...restRoutes, OLD_HEALTH], { version: 'test' }) as { paths: Record<string, Record<string, any>> };
    expect(document.paths['/legacy/health'].get.deprecated).toBe(true);
    expect(document.paths['/legacy/health'].get.description).toContain('Deprecated since 2026-11-27, sunset 2027-11-30: Use GET /health: the same answer.');
    expect(document.paths['/health'].get.deprecated).toBeUndefined();
    const { body } = await getJson(`${server.url}/openapi.json`);
    const deprecated = Object.entries(body.paths as Record<string, Record<string, { deprecated?: boolean }>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.deprecated)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(deprecated).toEqual([]);
  });

  it('derives the headers from a deprecated field its operation selects', () => {
    const document = parse('query Limits { uploadLimits { maxBytes fileTypes } }');
    expect(deprecatedFieldsIn(getSchema(), document).map((field) => field.coordinate)).toEqual(['UploadLimits.fileTypes']);
    const [field] = deprecatedFieldsIn(getSchema(), document);
    expect(deprecationHeaders(field)).toEqual({
      Deprecation: '@1795737600',
      Sunset: 'Mon, 31 May 2027 00:00:00 GMT',
      Link: '</api-docs>; rel="deprecation"; type="text/html"',
    });
    const catalog = deprecationCatalog(getSchema(), [{ method: 'GET', path: '/api/limits', operation: 'query Limits { uploadLimits { fileTypes } }' }], []);
    expect(catalog.find((subject) => subject.kind === 'route')).toMatchObject({
      name: 'GET /api/limits',
      deprecation: { since: '2026-11-27', sunset: '2027-05-31' },
      matches: [{ subjectKind: 'field', subject: 'UploadLimits.fileTypes', front: 'rest', operation: 'Limits' }],
    });
  });
});

describe('a deprecated schema field', () => {
  it('carries @deprecated(reason:) in the SDL, with its sunset', () => {
    const sdl = fs.readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    const field = buildSchema(sdl).getType('UploadLimits');
    expect(field && 'getFields' in field ? field.getFields().fileTypes.deprecationReason : undefined).toBe(FIELD_REASON);
    expect(sdl).toContain(`fileTypes: [FileType!]! @deprecated(reason: "${FIELD_REASON}")`);
  });

  it('still works', async () => {
    const response = await graphql(carol, '{ uploadLimits { fileTypes } }');
    expect(response.body).toEqual({ data: { uploadLimits: { fileTypes: [...FILE_TYPES] } } });
  });
});

describe('GET /api/usage/deprecated', () => {
  it('lists each deprecated thing with the credentials that called it, and not the others', async () => {
    expect((await graphql(alice, 'query OldLimits { uploadLimits { fileTypes } }')).body.errors).toBeUndefined();
    expect((await call(bob, 'GET', '/health')).status).toBe(200);
    expect((await graphql(bob, 'query NewLimits { uploadLimits { formats { fileType } } }')).body.errors).toBeUndefined();
    expect((await graphql(carol, 'query OldLimits { uploadLimits { fileTypes } }')).body.errors).toBeUndefined();
    await server.services.usage.flush();

    const response = await call(alice, 'GET', '/api/usage/deprecated');
    expect(response.status).toBe(200);
    const byName = Object.fromEntries((response.body.data as Record<string, any>[]).map((subject) => [subject.name, subject]));
    const expectedNames = deprecationCatalog(getSchema(), restRoutes, TOOLS).map((subject) => subject.name);
    expect(Object.keys(byName).sort()).toEqual([...expectedNames].sort());
    expect(expectedNames).toEqual(expect.arrayContaining(['UploadLimits.fileTypes']));
    expect(expectedNames).not.toContain('GET /api/health');

    expect(byName['UploadLimits.fileTypes']).toMatchObject({ kind: 'field', sunset: '2027-05-31' });
    expect(byName['UploadLimits.fileTypes'].callers.map((caller: { user_id: string }) => caller.user_id)).toEqual([alice.userId]);
    const aliceKey = (await server.services.prisma.apiKey.findFirstOrThrow({ where: { userId: alice.userId } })).id;
    expect(byName['UploadLimits.fileTypes'].callers).toEqual([
      {
        credential: { kind: 'api_key', id: aliceKey, name: 'test', prefix: expect.stringMatching(/^sk_/) },
        user_id: alice.userId,
        calls: 1,
        last_called_at: expect.any(String),
        fronts: ['graphql'],
      },
    ]);

    // bob, a member who called only the replacements, sees only his own credentials: no caller.
    const bobs = await call(bob, 'GET', '/api/usage/deprecated');
    for (const subject of bobs.body.data as { callers: unknown[] }[]) expect(subject.callers).toEqual([]);

    // carol (another organization; she called it too) sees herself only.
    const carols = await call(carol, 'GET', '/api/usage/deprecated');
    const carolsByName = Object.fromEntries((carols.body.data as Record<string, any>[]).map((subject) => [subject.name, subject]));
    expect(carolsByName['UploadLimits.fileTypes'].callers.map((caller: { user_id: string }) => caller.user_id)).toEqual([carol.userId]);
  });
});
