/**
 * The OpenAPI document, proved from the client side: test/generated/openapi-types.ts is what
 * openapi-typescript makes of openapi.json (`npm run openapi:types`, committed and current, and
 * the same when generated from the served GET /openapi.json), and a client built from those types
 * with openapi-fetch runs the README's Quick start against a real server: health, status, returns
 * comparison, daily Modified Dietz returns, cash transactions, the upload of both sample CSVs
 * (multipart) and the processed file list, then a stickies lifecycle and the start of a
 * generation stream. Everything here typechecks against the generated types without `any` or
 * casts: a misspelt field is a compile error (the @ts-expect-error lines prove it), and refusals
 * are typed as the document's Error schema.
 */
import fs from 'node:fs';
import createClient, { type Client } from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { operations, paths } from '../generated/openapi-types.ts';
import { openApiTypes, TYPES_TARGET } from '../../scripts/emit-openapi-types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { sample } from '../helpers/upload.ts';

/** The scopes the Quick start needs: returns, P&L (cash transactions, file list), upload, workspace. */
const SCOPES = ['read:returns', 'read:pnl', 'write:upload', 'read:workspace', 'write:workspace'];

/** The data of a successful answer; a refusal fails the test with its status and error body. */
function ok<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): NonNullable<R['data']> {
  if (result.data === undefined || result.data === null) {
    throw new Error(`${result.response.status} ${result.response.url}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/**
 * An operation's JSON request body as the document types it. openapi-fetch infers `body` from the
 * call, so it flags missing fields but not extra (misspelt) ones (openapi-ts/openapi-typescript
 * issue 1769); a body declared with this type gets TypeScript's excess-property check.
 */
type JsonBody<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;

/** A client as the README snippet builds one, with the document's query style for arrays. */
function typedClient(baseUrl: string, key?: string): Client<paths> {
  return createClient<paths>({
    baseUrl,
    headers: key === undefined ? {} : { 'x-api-key': key },
    // The document's array parameters (tags, sources) are `style: form, explode: false`: a=x,y.
    querySerializer: { array: { style: 'form', explode: false } },
  });
}

describe('the generated contract', () => {
  it('is committed as generated (run `npm run openapi:types` after `npm run openapi:emit`)', async () => {
    expect(fs.readFileSync(TYPES_TARGET, 'utf8')).toBe(await openApiTypes());
  });
});

describe('README Quick start with a client typed by the document', () => {
  let server: TestServer;
  let user: TestUser;
  let client: Client<paths>;

  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.services, { scopes: SCOPES, role: 'member' });
    client = typedClient(server.url, user.key);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('the served document generates the same types as the committed one', async () => {
    const served = await fetch(`${server.url}/openapi.json`);
    expect(served.status).toBe(200);
    const fromServed = astToString(await openapiTS(await served.text(), { silent: true }));
    const fromCommitted = astToString(await openapiTS(fs.readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'), { silent: true }));
    expect(fromServed).toBe(fromCommitted);
  });

  it('health and status', async () => {
    const anonymous = typedClient(server.url);
    const health = ok(await anonymous.GET('/health'));
    expect(health).toEqual({ status: 'healthy' });
    expectTypeOf(health.status).toEqualTypeOf<string>();

    const detailed = ok(await client.GET('/health', { params: { query: { detailed: true } } }));
    expect(detailed.status).toBe('healthy');
    expect(detailed.checks?.database.status).toBe('up');
    expect(detailed.checks?.job_queue.status).toEqual(expect.any(String));
    // @ts-expect-error the REST shape is snake_case: jobQueue is job_queue
    expect(detailed.checks?.jobQueue).toBeUndefined();

    const status = ok(await client.GET('/status'));
    expect(status).toEqual(expect.any(Object));
  });

  it('a refusal is typed: 401 without a key, 403 without the scope, 400 for bad input', async () => {
    const anonymous = typedClient(server.url);
    const unauthorized = await anonymous.GET('/api/returns/comparison', { params: { query: { limit: 5 } } });
    expect(unauthorized.response.status).toBe(401);
    expect(unauthorized.data).toBeUndefined();
    if (!unauthorized.error) throw new Error('expected a refusal');
    expectTypeOf(unauthorized.error.error).toEqualTypeOf<string>();
    expect(unauthorized.error).toEqual({ error: 'Invalid or expired API key' });

    const readOnly = await createUser(server.services, { scopes: ['read:workspace'], role: 'member' });
    const forbidden = await typedClient(server.url, readOnly.key).POST('/api/stickies', { body: { content: 'not allowed' } });
    expect(forbidden.response.status).toBe(403);
    expect(forbidden.error?.error).toBe('Insufficient permissions');

    const invalid = await client.GET('/api/returns/comparison', { params: { query: { limit: 5000 } } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error?.error).toEqual(expect.stringMatching(/limit/i));

    // @ts-expect-error a required parameter left out is a compile error
    const missing = await client.GET('/api/returns/dietz-daily', { params: { query: { entity_name: 'Bayview Growth Fund LP' } } });
    expect(missing.response.status).toBe(400);
  });

  it('returns comparison and daily Modified Dietz before the upload: none for the sample accounts', async () => {
    const comparison = ok(await client.GET('/api/returns/comparison', { params: { query: { status: 'investigate', limit: 5 } } }));
    expect(comparison.data).toEqual([]);
    expect(comparison.pagination).toEqual({ has_more: false, next_cursor: null });

    const dietz = await client.GET('/api/returns/dietz-daily', {
      params: { query: { entity_name: 'Bayview Growth Fund LP', start_date: '2025-03-03', end_date: '2025-03-21' } },
    });
    expect(dietz.response.status).toBe(404);
    expect(dietz.error?.error).toEqual(expect.any(String));
  });

  it('uploads both sample CSVs (multipart), lists them processed, then compares and computes their returns', async () => {
    const uploaded: string[] = [];
    for (const [name, fileType] of [
      ['pnl-sample.csv', 'pnl'],
      ['performance-sample.csv', 'performance'],
    ] as const) {
      const bytes = await sample(name);
      const answer = ok(
        await client.POST('/api/storage/upload', {
          body: { file: new File([new Uint8Array(bytes)], name, { type: 'text/csv' }), org_id: user.orgId, file_type: fileType },
          bodySerializer(body) {
            const form = new FormData();
            form.append('file', body.file, name);
            form.append('org_id', body.org_id);
            if (body.file_type) form.append('file_type', body.file_type);
            return form;
          },
        }),
      );
      expect(answer.data).toMatchObject({ org_id: user.orgId, file_name: name, file_type: fileType, status: 'uploaded', size_bytes: bytes.length });
      expectTypeOf(answer.data.status).toEqualTypeOf<'uploaded' | 'processing' | 'processed' | 'failed'>();
      // @ts-expect-error the REST shape is snake_case: fileName is file_name
      expect(answer.data.fileName).toBeUndefined();
      uploaded.push(answer.data.id);
    }

    // The worker ingests in the background: poll the listing a bounded number of times.
    let processed: paths['/api/storage/files']['get']['responses'][200]['content']['application/json']['data'] = [];
    for (let attempt = 0; attempt < 300; attempt++) {
      const listing = ok(await client.GET('/api/storage/files', { params: { query: { org_id: user.orgId, status: 'processed' } } }));
      processed = listing.data;
      if (uploaded.every((id) => processed.some((file) => file.id === id))) break;
      const failed = ok(await client.GET('/api/storage/files', { params: { query: { org_id: user.orgId, status: 'failed' } } }));
      expect(failed.data.map((file) => `${file.file_name}: ${file.status_detail}`)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(processed.map((file) => file.id).sort()).toEqual([...uploaded].sort());
    for (const file of processed) {
      expect(file).toMatchObject({ status: 'processed', error_count: 0, row_errors: [] });
      expect(file.row_count).toBeGreaterThan(0);
      expect(file.processed_at).toEqual(expect.any(String));
    }

    const comparison = ok(await client.GET('/api/returns/comparison', { params: { query: { account_code: 'ACC-1001' } } }));
    expect(comparison.data.length).toBeGreaterThan(0);
    expect(new Set(comparison.data.map((row) => row.account_code))).toEqual(new Set(['ACC-1001']));
    const byDate = new Map(comparison.data.map((row) => [row.date, row]));
    expect(byDate.get('2025-03-12')?.status).toBe('review');
    expect(byDate.get('2025-03-18')?.status).toBe('investigate');
    expect(comparison.data.some((row) => row.status === 'match')).toBe(true);
    for (const row of comparison.data) {
      // decimals travel as strings
      expectTypeOf(row.difference_bps).toEqualTypeOf<string | null>();
      if (row.difference_bps !== null) expect(Number.isFinite(Number(row.difference_bps))).toBe(true);
    }
    const investigate = ok(await client.GET('/api/returns/comparison', { params: { query: { status: 'investigate', limit: 5 } } }));
    expect(investigate.data.map((row) => row.status)).toContain('investigate');
    expect(investigate.data.every((row) => row.status === 'investigate')).toBe(true);

    const dietz = ok(
      await client.GET('/api/returns/dietz-daily', {
        params: { query: { entity_name: 'Bayview Growth Fund LP', start_date: '2025-03-03', end_date: '2025-03-21' } },
      }),
    );
    expect(dietz.data).toMatchObject({ entity_name: 'Bayview Growth Fund LP', account_code: 'ACC-1001', start_date: '2025-03-03', end_date: '2025-03-21' });
    expect(dietz.data.days.length).toBeGreaterThan(0);
    expect(dietz.data.time_weighted_return.weighting).toBe('time-weighted');
    expect(dietz.data.modified_dietz_return.weighting).toBe('money-weighted');
    expect(Number.isFinite(Number(dietz.data.time_weighted_return.value))).toBe(true);
    const last = dietz.data.days[dietz.data.days.length - 1];
    expect(last.cumulative_return).toBe(dietz.data.time_weighted_return.value);
    // @ts-expect-error the REST shape is snake_case: timeWeightedReturn is time_weighted_return
    expect(dietz.data.timeWeightedReturn).toBeUndefined();

    const cash = ok(await client.GET('/api/returns/cash-transactions', { params: { query: { entity_name: 'Bayview Growth Fund LP', limit: 10 } } }));
    expect(cash.data.length).toBeLessThanOrEqual(10);
    expect(cash.pagination.has_more).toEqual(expect.any(Boolean));
  });

  it('a stickies lifecycle: create, get, update, list, delete, versions, restore', async () => {
    const note: JsonBody<'CreateSticky'> = { content: 'Typed client note', tags: ['OpenAPI', 'typed'] };
    const created = ok(await client.POST('/api/stickies', { body: note }));
    expect(created.data).toMatchObject({ content: 'Typed client note', tags: ['openapi', 'typed'], version: 1, deleted_at: null });
    const id = created.data.id;

    const fetched = ok(await client.GET('/api/stickies/{id}', { params: { path: { id } } }));
    expect(fetched.data).toEqual(created.data);

    // @ts-expect-error the update body has no field `text`
    const misspelt: JsonBody<'UpdateSticky'> = { text: 'nope' };
    // Inline, openapi-fetch lets the extra field through (issue 1769); the server refuses it (additionalProperties: false).
    const wrongBody = await client.PATCH('/api/stickies/{id}', { params: { path: { id } }, body: { text: 'nope' } });
    expect(wrongBody.response.status).toBe(400);
    expect(wrongBody.error?.error).toEqual(expect.any(String));
    expect(misspelt).toEqual({ text: 'nope' });

    const change: JsonBody<'UpdateSticky'> = { content: 'Typed client note, changed' };
    const updated = ok(await client.PATCH('/api/stickies/{id}', { params: { path: { id } }, body: change }));
    expect(updated.data).toMatchObject({ id, content: 'Typed client note, changed', version: 2 });

    // tags are `style: form, explode: false` in the document: sent as tags=openapi,typed
    const listed = ok(await client.GET('/api/stickies', { params: { query: { tags: ['openapi', 'typed'], limit: 20 } } }));
    expect(listed.data.map((sticky) => sticky.id)).toEqual([id]);
    const otherTag = ok(await client.GET('/api/stickies', { params: { query: { tags: ['openapi', 'elsewhere'] } } }));
    expect(otherTag.data).toEqual([]);

    const deleted = ok(await client.DELETE('/api/stickies/{id}', { params: { path: { id } } }));
    expect(deleted.data.deleted_at).toEqual(expect.any(String));
    expect(deleted.data.version).toBe(3);
    const again = await client.DELETE('/api/stickies/{id}', { params: { path: { id } } });
    expect(again.response.status).toBe(409);
    expect(again.error?.error).toEqual(expect.any(String));

    const active = ok(await client.GET('/api/stickies', { params: { query: { tags: ['typed'] } } }));
    expect(active.data).toEqual([]);
    const withTrash = ok(await client.GET('/api/stickies', { params: { query: { tags: ['typed'], includeDeleted: true } } }));
    expect(withTrash.data.map((sticky) => sticky.id)).toEqual([id]);

    const versions = ok(await client.GET('/api/stickies/{id}/versions', { params: { path: { id } } }));
    expect(versions.data.map((version) => [version.version, version.action])).toEqual([
      [3, 'delete'],
      [2, 'update'],
      [1, 'create'],
    ]);

    const restored = ok(await client.POST('/api/stickies/{id}/restore', { params: { path: { id } } }));
    expect(restored.data).toMatchObject({ id, deleted_at: null, version: 4, content: 'Typed client note, changed' });

    const missing = await client.GET('/api/stickies/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ error: expect.any(String) });
  });

  it('starts a generation and reads its stream up to the first event', async () => {
    const started = await client.GET('/api/generate', {
      params: { query: { days: 7, sources: ['stickies', 'tasks'], length: 'short' } },
      parseAs: 'stream',
    });
    expect(started.response.status).toBe(200);
    expect(started.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = ok(started);
    expectTypeOf(stream).toEqualTypeOf<NonNullable<Response['body']>>();

    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    let event: { id?: string; event?: string; data?: string } | undefined;
    // A bounded read: the retry hint and heartbeats may come first; stop at the first event.
    for (let chunk = 0; chunk < 100 && !event; chunk++) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value.replace(/\r\n?/g, '\n');
      let end: number;
      while (!event && (end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const fields: { id?: string; event?: string; data?: string } = {};
        for (const line of block.split('\n')) {
          const match = /^(id|event|data):\s?(.*)$/.exec(line);
          if (match) fields[match[1] === 'id' ? 'id' : match[1] === 'event' ? 'event' : 'data'] = match[2];
        }
        if (fields.event !== undefined && fields.data !== undefined) event = fields;
      }
    }
    await reader.cancel();

    expect(event?.id).toMatch(/^\d+$/);
    expect(['progress', 'run', 'done']).toContain(event?.event);
    const payload: unknown = JSON.parse(event?.data ?? 'null');
    // the document's x-event-payload
    expect(payload).toMatchObject({ agent: expect.any(String), status: expect.any(String) });
  });
});
