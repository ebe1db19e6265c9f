/**
 * An OAuth app's credential events in the audit log: the token endpoint's code exchange and
 * refresh (as the grant, for its user), a refused refresh (UNAUTHENTICATED), the grant's first
 * use by an access token (once), and a revocation through RFC 7009's endpoint. The consent that
 * created the grant is the consent page's own event (test/audit/audit-log.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { auditEventsOf } from '../helpers/audit.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import type { AuditEvent } from '../../src/audit/types.ts';
import type { AuthorizationRequest } from '../../src/auth/oauth/authorization-request.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startTestServer({ AUDIT_FLUSH_INTERVAL: '20ms', OAUTH_REQUESTS_PER_MINUTE: '10000' });
  user = await createUser(server.services, { role: 'member', scopes: ['read:workspace'] });
}, 60_000);
afterAll(async () => server?.close());

/** What the consent page does when the user approves: a registered client and a code. */
async function approvedCode(): Promise<{ clientId: string; code: string; verifier: string }> {
  const { oauth } = server.services;
  const client = await oauth.register({ client_name: 'Audited host', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'] });
  const verifier = randomBytes(32).toString('base64url');
  const request: AuthorizationRequest = {
    client,
    redirectUri: REDIRECT_URI,
    scopes: ['read:workspace'],
    resource: `${server.url}/api/service`,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
  };
  const code = await oauth.approve(request, { id: user.userId, email: user.email, name: null, role: 'member' }, ['read:workspace']);
  return { clientId: client.client_id, code, verifier };
}

async function post(path: string, form: Record<string, string>, requestId: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const eventsOf = (requestId: string) => auditEventsOf(server.services, requestId);

it('records the exchange, the refresh, a refused refresh, the first use and the revocation', async () => {
  const { clientId, code, verifier } = await approvedCode();
  const exchanged = await post('/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier }, 'oauth-audit-1');
  expect(exchanged.status).toBe(200);
  const [exchange] = await eventsOf('oauth-audit-1');
  expect(exchange).toMatchObject({
    front: 'web',
    operation: 'oauth.token',
    outcome: 'ok',
    actorId: user.userId,
    credentialKind: 'oauth_app',
    targetType: 'OAuthGrant',
  });
  const grantId = exchange.credentialId;
  expect(exchange.credentialPrefix).toBe(clientId);
  expect(exchange.variables).toMatchObject({ grantType: 'authorization_code', clientId });
  expect(JSON.stringify(exchange)).not.toContain(code);
  expect(JSON.stringify(exchange)).not.toContain(exchanged.body.access_token);

  const refreshed = await post(
    '/oauth/token',
    { grant_type: 'refresh_token', client_id: clientId, refresh_token: exchanged.body.refresh_token },
    'oauth-audit-2',
  );
  expect(refreshed.status).toBe(200);
  expect(await eventsOf('oauth-audit-2')).toMatchObject([
    { operation: 'oauth.token', outcome: 'ok', credentialId: grantId, variables: { grantType: 'refresh_token' } },
  ]);

  // A refresh token the server never issued: refused, and recorded without a grant. (Replaying the
  // rotated one would end the grant, as reuse detection does.)
  const refused = await post(
    '/oauth/token',
    { grant_type: 'refresh_token', client_id: clientId, refresh_token: `${exchanged.body.refresh_token}x` },
    'oauth-audit-3',
  );
  expect(refused.status).toBe(400);
  expect(await eventsOf('oauth-audit-3')).toMatchObject([{ operation: 'oauth.token', outcome: 'UNAUTHENTICATED', actorId: null, credentialId: null }]);

  // Two calls with the new access token: one first-use event.
  for (const id of ['oauth-audit-4', 'oauth-audit-5']) {
    const call = await fetch(`${server.url}/api/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${refreshed.body.access_token}`, 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status).toBe(200);
  }
  await server.services.audit.flush();
  const firstUses = (
    await server.services.db.pool.query<AuditEvent>(`SELECT * FROM "AuditEvent" WHERE operation = 'credential.first-use' AND "credentialId" = $1`, [grantId])
  ).rows;
  expect(firstUses).toMatchObject([{ front: 'system', credentialKind: 'oauth_app', actorId: user.userId, targetType: 'OAuthGrant', targetId: grantId }]);

  const revoked = await post('/oauth/revoke', { client_id: clientId, token: refreshed.body.refresh_token }, 'oauth-audit-6');
  expect(revoked.status).toBe(200);
  expect(await eventsOf('oauth-audit-6')).toMatchObject([{ operation: 'oauth.revoke', outcome: 'ok', credentialId: grantId, variables: { ended: 'grant' } }]);
  // An unknown token is answered the same and recorded nowhere.
  expect((await post('/oauth/revoke', { client_id: clientId, token: 'nothing-known' }, 'oauth-audit-7')).status).toBe(200);
  expect(await eventsOf('oauth-audit-7')).toEqual([]);
});
