import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql: some dependencies require() its CommonJS build while ESM imports
  // would get the .mjs one, and graphql refuses objects from "another module or realm".
  resolve: { alias: { graphql: createRequire(import.meta.url).resolve('graphql') } },
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
