/**
 * The dead-code check (`npm run deadcode`, part of `npm run typecheck`): files, exports, types and
 * dependencies nothing uses. Entry points are the programs the project runs; the plugins add the
 * ones their configs name (vitest.config.ts's setup files, biome.json, prisma.config.ts).
 */
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  entry: [
    'scripts/*.{ts,mjs}',
    'bench/*.ts',
    'test/**/*.test.ts',
    // the dashboard: vite builds it from dashboard/index.html (scripts/build-dashboard.ts)
    'dashboard/src/main.tsx',
    'dashboard/vite.config.ts',
  ],
  // Dead code is an export nothing uses, not one its own file uses: those constants and types are
  // live, exported to name a module's facts (limits, headings, timeouts) for its readers.
  ignoreExportsUsedInFile: true,
  ignoreDependencies: [
    // served as files, not imported: Redoc's browser bundle (server/http/api-reference.ts) and axe's
    // script injected into the dashboard's pages (test/dashboard/accessibility.test.ts)
    'redoc',
    'axe-core',
    // the Prisma generator prisma/schema.prisma names (a program of @pothos/plugin-prisma), not a package
    'prisma-pothos-types',
  ],
  // a program of the machine, not a package: the Redis fault tests start one of their own (test/helpers/redis-process.ts)
  ignoreBinaries: ['redis-server'],
  project: ['{src,schema,rest-compat,mcp,server,scripts,bench,test}/**/*.{ts,mts,mjs}', 'dashboard/src/**/*.{ts,tsx}', '*.ts'],
};

export default config;
