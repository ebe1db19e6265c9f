/** transcriptSource tells clients (the dashboard hides import and delete) whether transcripts are writable here. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, getJson } from '../helpers/fixtures.ts';

const QUERY = JSON.stringify({ query: '{ transcriptSource { provider writable } }' });

describe('transcriptSource', () => {
  let builtin: TestServer;
  let external: TestServer;

  beforeAll(async () => {
    [builtin, external] = await Promise.all([
      startTestServer(),
      // Never called by this query: the provider is only configured.
      startTestServer({ TRANSCRIPT_PROVIDER: 'http', TRANSCRIPT_API_URL: 'http://127.0.0.1:9/transcripts', TRANSCRIPT_API_KEY: 'unused' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([builtin?.close(), external?.close()]);
  });

  async function ask(server: TestServer, scopes: string[]) {
    const user = await createUser(server.services, { scopes });
    return getJson(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': user.key }, body: QUERY });
  }

  it('the built-in provider is writable, the http provider is not', async () => {
    expect((await ask(builtin, ['read:workspace'])).body).toEqual({ data: { transcriptSource: { provider: 'builtin', writable: true } } });
    expect((await ask(external, ['read:workspace'])).body).toEqual({ data: { transcriptSource: { provider: 'http', writable: false } } });
  });

  it('needs read:workspace', async () => {
    const response = await ask(builtin, ['read:returns']);
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
