import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { limitsTable, withLimitsTable } from '../../server/limits-table.ts';

const CONFIG_SOURCE = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');

describe('docs/limits.md, the table of every limit', () => {
  it('is current (run `npm run schema:emit` after changing a limit)', () => {
    const doc = readFileSync(new URL('../../docs/limits.md', import.meta.url), 'utf8');
    expect(doc).toBe(withLimitsTable(doc));
  });

  it('names only variables the configuration reads, and each of them is in docs/configuration.md', () => {
    const configuration = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const variables = [...limitsTable().matchAll(/\| `([A-Z][A-Z0-9_]+)` \|/g)].map((match) => match[1]);
    expect(variables.length).toBeGreaterThan(15);
    for (const variable of variables) {
      expect(CONFIG_SOURCE, variable).toContain(`${variable}:`);
      expect(configuration, variable).toContain(`\`${variable}\``);
    }
  });
});
