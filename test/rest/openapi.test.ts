/**
 * The OpenAPI 3.1 document of the REST layer (rest-compat/openapi/): committed and current,
 * valid OpenAPI 3.1, lint-clean under Redocly's recommended rules, served by the service, and
 * true: real responses of the routes (successes and refusals) match what it says.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiJson } from '../../rest-compat/openapi/index.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { responseProblems } from '../helpers/openapi-responses.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const committed = fs.readFileSync(`${ROOT}openapi.json`, 'utf8');

describe('the document', () => {
  it('is committed as generated (run `npm run openapi:emit` after changing a route)', () => {
    expect(committed).toBe(openApiJson());
  });

  it('is valid OpenAPI 3.1 (the official JSON Schema of the specification)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committed));
    expect(result.errors ?? []).toEqual([]);
    expect(validator.version).toBe('3.1');
  });

  it("lints clean with Redocly's recommended ruleset: no errors, no warnings", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [`${ROOT}node_modules/@redocly/cli/bin/cli.js`, 'lint', 'openapi.json', '--format=json'], {
      cwd: ROOT,
      maxBuffer: 20 * 1024 * 1024,
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { totals: { errors: number; warnings: number } };
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('describes every route of the table, and the JSON-RPC endpoint', () => {
    const paths = JSON.parse(committed).paths as Record<string, Record<string, unknown>>;
    for (const route of restRoutes)
      expect(paths[route.path.replace(/:([A-Za-z_]+)/g, '{$1}')]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    expect(paths['/api/service']?.post).toBeDefined();
  });
});

describe('served and true', () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.services, { scopes: ['read:returns', 'read:pnl', 'read:workspace', 'write:workspace'], role: 'member' });
  }, 60_000);
  afterAll(async () => server?.close());

  it('serves the same document at /openapi.json and /openapi.yaml, without a credential', async () => {
    const json = await fetch(`${server.url}/openapi.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json.text()).toBe(committed);
    const yaml = await fetch(`${server.url}/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parseYaml(await yaml.text())).toEqual(JSON.parse(committed));
  });

  it('matches real answers of the routes: successes, refusals and bad input', async () => {
    const call = async (method: string, path: string, init: { key?: string | null; body?: unknown } = {}) => {
      const headers: Record<string, string> = {};
      if (init.key !== null) headers['x-api-key'] = init.key ?? user.key;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${server.url}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
      const text = await response.text();
      const body = text && (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : undefined;
      return {
        problems: responseProblems({ method, path: new URL(path, server.url).pathname, status: response.status, headers: response.headers, body }),
        status: response.status,
        body,
      };
    };
    const observed = [
      await call('GET', '/health', { key: null }),
      await call('GET', '/health?detailed=true'),
      await call('GET', '/status'),
      await call('GET', '/api/returns/comparison?limit=5'),
      await call('GET', '/api/returns/comparison?limit=5000'),
      await call('GET', '/api/returns/comparison', { key: null }),
      await call('GET', `/api/storage/files?org_id=${user.orgId}`),
      await call('GET', '/api/stickies'),
    ];
    const created = await call('POST', '/api/stickies', { body: { content: 'checked against the document', tags: ['openapi'] } });
    observed.push(created);
    const id = (created.body as { data: { id: string } }).data.id;
    observed.push(
      await call('GET', `/api/stickies/${id}`),
      await call('PATCH', `/api/stickies/${id}`, { body: { content: 'changed' } }),
      await call('GET', `/api/stickies/${id}/versions`),
      await call('DELETE', `/api/stickies/${id}`),
      await call('DELETE', `/api/stickies/${id}`),
      await call('GET', '/api/stickies/00000000-0000-4000-8000-000000000000'),
      await call('POST', '/api/stickies', { body: { nope: 1 } }),
      await call('GET', '/api/links'),
      await call('GET', '/api/links/folders'),
      await call('GET', '/api/news/digest'),
      await call('GET', '/api/news'),
      await call('GET', '/test-scheduler'),
      await call('GET', '/test-scheduler/history'),
    );
    expect(observed.map((entry) => entry.status)).toContain(401);
    expect(observed.flatMap((entry) => entry.problems)).toEqual([]);
  });
});
