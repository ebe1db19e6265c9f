import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

/**
 * Files that replace a module with vi.mock: they need a module graph of their own. Every other
 * file shares its worker's (isolate: false): the application's modules (graphql-yoga, the MCP SDK,
 * express, Prisma...) are loaded once per worker instead of once per file, which was a third of
 * the suite's time (docs/testing.md, "How long the suite takes"). Each file still starts its own
 * service, database and Redis prefix; what is shared is code, and the module-level state the code
 * keeps is per service instance (test/layout checks the one that was not: the self-test's URL).
 */
const OWN_MODULES = ['test/auth/sign-in-limits.test.ts', 'test/rest/event-stream-memory.test.ts'];

export default defineConfig({
  // One copy of graphql: some dependencies require() its CommonJS build while ESM imports
  // would get the .mjs one, and graphql refuses objects from "another module or realm".
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    globalSetup: ['test/helpers/build-dashboard.ts', 'test/helpers/openapi-report.ts', 'test/helpers/embedded-template-setup.ts'],
    // Every REST response a test receives is checked against openapi.json (the issue-15 proof).
    setupFiles: ['test/helpers/validate-rest-responses.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for a page or a worker to catch up; one second is too short on a loaded CI machine.
    expect: { poll: { timeout: 10_000 } },
    // Each file starts its own service and embedded database; two cores, so keep it modest.
    maxWorkers: 2,
    pool: 'forks',
    // Memory tests measure live memory after collecting garbage (global.gc), not what a loaded
    // machine has not collected yet.
    execArgv: ['--expose-gc'],
    projects: [
      { extends: true, test: { name: 'shared-modules', include: ['test/**/*.test.ts'], exclude: OWN_MODULES, isolate: false } },
      { extends: true, test: { name: 'own-modules', include: OWN_MODULES, isolate: true } },
    ],
  },
});
