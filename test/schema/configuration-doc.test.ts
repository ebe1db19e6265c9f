import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIGURATION_GROUPS, envSchema, loadConfig, parseDuration } from '../../src/config.ts';
import { configurationRows, formatDuration, variableRow, withConfigurationTable } from '../../server/configuration-table.ts';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

function row(name: string) {
  const found = configurationRows()
    .flatMap((group) => group.rows)
    .find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no row for ${name}`);
  return found;
}

describe('docs/configuration.md, generated from the configuration schema', () => {
  it('is current (run `npm run emit` after changing src/config.ts)', () => {
    expect(DOC).toBe(withConfigurationTable(DOC));
  });

  it('documents every variable the schema reads, each in exactly one group', () => {
    const grouped = CONFIGURATION_GROUPS.flatMap((group) => Object.keys(group.variables));
    expect(new Set(grouped).size, 'a variable in two groups').toBe(grouped.length);
    expect([...grouped].sort()).toEqual(Object.keys(envSchema.shape).sort());
    for (const name of grouped) expect(DOC, name).toContain(`| \`${name}\` |`);
  });

  it('gives every variable a description, a default and the values it takes', () => {
    for (const { rows } of configurationRows()) {
      for (const { name, default: shown, values, meaning } of rows) {
        expect(meaning.length, name).toBeGreaterThan(10);
        expect(shown, name).not.toBe('');
        expect(values, name).not.toBe('');
      }
    }
  });

  it('reads defaults and bounds from the schemas as a reader writes them', () => {
    expect(row('PORT')).toMatchObject({ default: '`4000`', values: 'an integer from 0 to 65535' });
    expect(row('SESSION_TTL')).toMatchObject({ default: '`12h`', values: expect.stringContaining('a duration') });
    expect(row('COOKIE_SECURE')).toMatchObject({ default: '`true`', values: expect.stringContaining('`true` or `false`') });
    expect(row('SEED_DEMO_DATA').default).toBe('unset');
    expect(row('DATABASE_URL')).toMatchObject({ default: 'unset', values: 'a URL' });
    expect(row('CORS_ORIGINS')).toMatchObject({ default: 'empty', values: expect.stringMatching(/^comma-separated: text matching/) });
    expect(row('UPLOAD_MAX_BYTES')).toMatchObject({ default: '`1073741824` (1 GiB)', values: 'a number of bytes ≥ 1' });
    expect(row('LOG_LEVEL').values).toBe('`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`');
    expect(row('RATE_LIMIT_RETURNS_PER_MINUTE').values).toBe('an integer ≥ 1');
    expect(row('BENCHMARK_FAST_MS').values).toBe('a number > 0');
    expect(row('SSO_JWT_SECRET').values).toBe('text, at least 32 characters');
    expect(row('METRICS_PORT')).toMatchObject({ default: 'unset', values: 'an integer from 0 to 65535' });
  });

  it('shows each default as the value the service starts with', () => {
    const config = loadConfig({});
    expect(parseDuration(row('SHUTDOWN_TIMEOUT').default.replaceAll('`', ''))).toBe(config.shutdownTimeoutMs);
    expect(row('GRAPHQL_MAX_BODY_BYTES').default).toContain(`\`${config.graphql.maxBodyBytes}\``);
    expect(row('STICKY_TRASH_RETENTION_DAYS').default).toBe(`\`${config.stickies.trashRetentionDays}\``);
  });

  it('writes durations that read back to the same milliseconds', () => {
    for (const ms of [0, 1, 999, 1000, 1500, 60_000, 90_000, 3_600_000, 43_200_000, 86_400_000, 2 * 86_400_000 + 1]) {
      expect(parseDuration(formatDuration(ms)), String(ms)).toBe(ms);
    }
    expect(formatDuration(25_000)).toBe('25s');
    expect(formatDuration(300_000)).toBe('5m');
  });

  it('refuses a variable without a description, and a schema it cannot describe', () => {
    expect(() => variableRow('UNDESCRIBED', z.string().default('x'))).toThrow(/UNDESCRIBED has no description/);
    expect(() => variableRow('A_DATE', z.date().describe('a date'))).toThrow(/no way to describe/);
  });
});
