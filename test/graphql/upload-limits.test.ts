/**
 * `uploadLimits` over real HTTP: what a client checks before sending a file (the dashboard refuses
 * a too-big file without uploading it). Any signed-in caller may read it, whatever its scopes;
 * without a credential it is UNAUTHENTICATED like every other non-public field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser } from '../helpers/fixtures.ts';
import { graphql } from '../helpers/returns-data.ts';

const LIMITS = `query Limits { uploadLimits { maxBytes uploadsPerMinute fileTypes formats { fileType requiredColumns optionalColumns } } }`;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_MAX_BYTES: '4096', RATE_LIMIT_UPLOAD_PER_MINUTE: '7' });
});
afterAll(async () => {
  await server?.close();
});

describe('uploadLimits', () => {
  it('reports the configured size limit, rate budget and accepted formats to a signed-in caller without upload scopes', async () => {
    const reader = await createUser(server.services, { scopes: ['read:workspace'], role: 'member' });
    const response = await graphql(server.url, { 'x-api-key': reader.key }, LIMITS);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.uploadLimits).toEqual({
      maxBytes: 4096,
      uploadsPerMinute: 7,
      fileTypes: ['pnl', 'performance', 'fx', 'benchmark'],
      formats: [
        {
          fileType: 'pnl',
          requiredColumns: ['account_code', 'entity_name', 'date', 'market_value', 'cash_flow'],
          optionalColumns: ['flow_timing', 'flow_type', 'currency', 'description'],
        },
        { fileType: 'performance', requiredColumns: ['account_code', 'entity_name', 'date', 'return', 'return_unit'], optionalColumns: [] },
        { fileType: 'fx', requiredColumns: ['date', 'base', 'quote', 'rate'], optionalColumns: [] },
        { fileType: 'benchmark', requiredColumns: ['date', 'benchmark', 'level'], optionalColumns: [] },
      ],
    });
  });

  it('is UNAUTHENTICATED without a credential or with a bad one', async () => {
    for (const headers of [{}, { 'x-api-key': 'not-a-key' }] as Record<string, string>[]) {
      const response = await graphql(server.url, headers, LIMITS);
      expect(response.body.data).toBeNull();
      expect(response.body.errors).toHaveLength(1);
      expect(response.body.errors![0]).toMatchObject({ path: ['uploadLimits'], extensions: { code: 'UNAUTHENTICATED' } });
    }
  });
});
