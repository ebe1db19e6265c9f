/**
 * A test server and the users a test file talks to it as, created in the order given (each a
 * new organization unless its options name one), so a file's setup is one call naming its users.
 */
import { createUser, type TestUser } from './fixtures.ts';
import { startTestServer, type TestServer } from './server.ts';

export type UserOptions = NonNullable<Parameters<typeof createUser>[1]>;

/** every scope (an admin key) */
export const EVERY_SCOPE: UserOptions = {};
/** read:workspace + write:workspace as a member */
export const WORKSPACE_MEMBER: UserOptions = { scopes: ['read:workspace', 'write:workspace'], role: 'member' };
/** read:workspace only */
export const WORKSPACE_READER: UserOptions = { scopes: ['read:workspace'] };

export async function startServerWithUsers<K extends string>(
  users: Record<K, UserOptions>,
  env: Record<string, string> = {},
): Promise<{ server: TestServer } & Record<K, TestUser>> {
  const server = await startTestServer(env);
  const created = {} as Record<K, TestUser>;
  for (const name of Object.keys(users) as K[]) created[name] = await createUser(server.services, users[name]);
  return { server, ...created };
}
