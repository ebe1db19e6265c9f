/**
 * A revoked key is refused at once, even under load: credentials are verified by one statement per
 * request and never cached (docs/authentication.md), so the first request sent after the revocation
 * is committed gets 401. Clients keep several requests in flight on keep-alive connections while the
 * key is revoked (ApiKeyService.revoke, what the dashboard's revokeApiKey mutation and key:revoke call); every response is
 * classified by when its request was sent relative to the revocation's answer.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';

const CLIENTS = 8;
const INVALID_KEY = { error: 'Invalid or expired API key' };

let server: TestServer;
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_RETURNS_PER_MINUTE: '100000' });
  owner = await createUser(server.services, { scopes: ['read:workspace', 'read:returns'], role: 'member' });
});

afterAll(async () => {
  await server?.close();
});

/** GET on a keep-alive agent: status and parsed body. */
function get(url: string, headers: Record<string, string>, agent: http.Agent): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

interface Outcome {
  /** sent after the revocation had answered */
  sentAfterRevocation: boolean;
  status: number;
  body: unknown;
}

describe('revoking a key while it is in use', () => {
  it('refuses every request sent after the revocation answered, on connections already open', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const outcomes: Outcome[] = [];
    let revoked = false;
    let stop = false;
    let afterRevocation = 0;

    const client = async () => {
      while (!stop) {
        const sentAfterRevocation = revoked;
        const response = await get(`${server.url}/api/stickies?limit=5`, { 'x-api-key': owner.key }, agent);
        outcomes.push({ sentAfterRevocation, ...response });
        if (sentAfterRevocation && ++afterRevocation >= CLIENTS * 20) stop = true;
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);

    // let the load establish itself: successes on every connection first
    while (outcomes.filter((o) => o.status === 200).length < CLIENTS * 10) await new Promise((resolve) => setTimeout(resolve, 20));
    const keys = await server.services.apiKeys.list(owner.userId);
    await server.services.apiKeys.revoke({ id: keys[0].id, userId: owner.userId });
    revoked = true;
    await Promise.all(clients);
    agent.destroy();

    const before = outcomes.filter((o) => !o.sentAfterRevocation);
    const after = outcomes.filter((o) => o.sentAfterRevocation);
    expect(before.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(CLIENTS * 10);
    // in flight while it was revoked: either answer, never anything else
    expect(before.every((o) => o.status === 200 || (o.status === 401 && JSON.stringify(o.body) === JSON.stringify(INVALID_KEY)))).toBe(true);
    expect(after.length).toBeGreaterThanOrEqual(CLIENTS * 20);
    expect(after.map((o) => o.status)).toEqual(after.map(() => 401));
    for (const outcome of after) expect(outcome.body).toEqual(INVALID_KEY);
  }, 120_000);
});
