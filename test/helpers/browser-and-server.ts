/**
 * A browser test file's service and browser: the server (with its users, as
 * startServerWithUsers makes them) and the browser start side by side, and close in the
 * opposite order, either of them possibly never started.
 */
import type { Browser } from 'playwright-core';
import type { TestUser } from './fixtures.ts';
import { launchBrowser } from './browser.ts';
import type { TestServer } from './server.ts';
import { startServerWithUsers, type UserOptions } from './server-with-users.ts';

export async function startServerAndBrowser<K extends string>(
  users: Record<K, UserOptions>,
  env: Record<string, string> = {},
): Promise<{ server: TestServer; browser: Browser } & Record<K, TestUser>> {
  const [started, browser] = await Promise.all([startServerWithUsers(users, env), launchBrowser()]);
  return { ...started, browser };
}

export async function closeBrowserAndServer(browser: Browser | undefined, server: TestServer | undefined): Promise<void> {
  await browser?.close();
  await server?.close();
}
