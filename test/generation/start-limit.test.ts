/**
 * The limit of runs in progress per user holds under concurrency: starts are serialised per user
 * in the database (an advisory lock in the start transaction), so simultaneous starts cannot all
 * pass the count.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createUser, type TestUser } from '../helpers/fixtures.ts';
import { GENERATION_LIMITS } from '../../src/generation/generation-service.ts';

let server: TestServer;
let user: TestUser;

beforeAll(async () => {
  // No worker: started runs stay queued, so they all count as in progress.
  server = await startTestServer({ WORKER_ENABLED: 'false', RATE_LIMIT_GENERATE_PER_MINUTE: '1000' });
  user = await createUser(server.services, { scopes: ['read:workspace', 'write:workspace'] });
}, 60_000);
afterAll(async () => server?.close());

it(`${GENERATION_LIMITS.activeRunsPerUser + 5} simultaneous starts: exactly ${GENERATION_LIMITS.activeRunsPerUser} runs, the rest CONFLICT`, async () => {
  const attempts = GENERATION_LIMITS.activeRunsPerUser + 5;
  const responses = await Promise.all(
    Array.from({ length: attempts }, () =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': user.key },
        body: JSON.stringify({ query: 'mutation { startGeneration(input: { sources: [stickies] }) { id state } }' }),
      }).then(
        (response) => response.json() as Promise<{ data: { startGeneration: { id: string } | null } | null; errors?: { extensions: { code: string } }[] }>,
      ),
    ),
  );
  const started = responses.filter((body) => body.data?.startGeneration);
  const refused = responses.filter((body) => body.errors?.[0]?.extensions.code === 'CONFLICT');
  expect(started).toHaveLength(GENERATION_LIMITS.activeRunsPerUser);
  expect(refused).toHaveLength(attempts - GENERATION_LIMITS.activeRunsPerUser);
  expect(await server.services.prisma.generationRun.count({ where: { userId: user.userId } })).toBe(GENERATION_LIMITS.activeRunsPerUser);
});
