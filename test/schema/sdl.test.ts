import { readFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { sortedSchema } from '../../schema/index.ts';
import { standaloneRunner } from '../../schema/pipeline/index.ts';
import { loadConfig } from '../../src/config.ts';
import { restRoutes } from '../../rest-compat/routes/index.ts';

describe('GraphQL schema', () => {
  it('matches the committed schema/schema.graphql (run `npm run schema:emit` after changing the schema)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(`${printSchema(sortedSchema())}\n`);
  });

  it('validates every REST route operation against the schema', () => {
    const operations = standaloneRunner(loadConfig({}).graphql);
    for (const route of restRoutes) {
      expect(() => operations.prepare(route.operation), `${route.method} ${route.path}`).not.toThrow();
    }
  });
});
