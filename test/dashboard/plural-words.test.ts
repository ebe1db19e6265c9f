/**
 * The dashboard's counted words are correct English: "1 row error", "3 row errors", never
 * "1 row errors" or "(s)". Pure functions of dashboard/src: no browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plural } from '../../dashboard/src/components/format.ts';
import { finishedAnnouncement } from '../../dashboard/src/pages/files/status-words.ts';

describe('plural', () => {
  it.each([
    [0, 'row error', undefined, '0 row errors'],
    [1, 'row error', undefined, '1 row error'],
    [2, 'sentence', undefined, '2 sentences'],
    [1, 'sticky', 'stickies', '1 sticky'],
    [1234, 'job', undefined, '1,234 jobs'],
  ])('%i %s', (count, one, many, expected) => {
    expect(plural(count, one, many)).toBe(expected);
  });
});

describe('the file list announces a finished file in words', () => {
  const file = { fileName: 'pnl.csv', errorCount: 0, warningCount: 0 };
  it.each([
    [{ ...file, status: 'failed' as const, errorCount: 1 }, 'pnl.csv failed with 1 row error.'],
    [{ ...file, status: 'failed' as const, errorCount: 5 }, 'pnl.csv failed with 5 row errors.'],
    [{ ...file, status: 'failed' as const }, 'pnl.csv failed.'],
    [{ ...file, status: 'processed' as const, warningCount: 1 }, 'pnl.csv is processed with 1 warning.'],
    [{ ...file, status: 'processed' as const, warningCount: 2 }, 'pnl.csv is processed with 2 warnings.'],
    [{ ...file, status: 'processed' as const }, 'pnl.csv is processed.'],
  ])('%o', (input, expected) => {
    expect(finishedAnnouncement(input)).toBe(expected);
  });
});

it('no dashboard text counts with "(s)"', () => {
  const root = fileURLToPath(new URL('../../dashboard/src', import.meta.url));
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => /\.tsx?$/.test(name));
  const offenders = files.flatMap((name) =>
    fs
      .readFileSync(path.join(root, name), 'utf8')
      .split('\n')
      // a lower-case word right before "(s)" ("finding(s)"), not a call ("map((s) =>", "describe(s)") nor http(s)
      .filter((line) => /(?<=[\s>`'"])(?!https?\()[a-z]{2,}\(s\)(?!\s*=>)/.test(line) && !/^\s*(\/\/|\/\*|\*)/.test(line))
      .map((line) => `${name}: ${line.trim()}`),
  );
  expect(offenders).toEqual([]);
});
