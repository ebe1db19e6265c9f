/**
 * Texts a user reads (GraphQL descriptions, CLI help, the dashboard) point at the docs/ page that
 * documents a thing, not at "the README" (the reference moved to docs/), and every docs/ page they
 * name exists. Pure file reading: no server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|graphql)$/.test(entry.name) ? [full] : [];
  });
}

/** The lines that are not comments: a comment may well talk about the README. */
function textLines(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line));
}

const FILES = [...sourceFiles(path.join(ROOT, 'schema')), ...sourceFiles(path.join(ROOT, 'src/cli')), ...sourceFiles(path.join(ROOT, 'dashboard/src'))];

describe('user-facing texts', () => {
  it('say which docs/ page to read, never "the README"', () => {
    const offenders = FILES.flatMap((file) =>
      textLines(file)
        .filter((line) => /\bREADME\b/.test(line))
        .map((line) => `${path.relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it('name docs/ pages that exist', () => {
    const named = new Set(FILES.flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w-]+\.md)/g)].map((match) => match[1]!)));
    expect(named.size).toBeGreaterThan(0);
    for (const page of named) expect(fs.existsSync(path.join(ROOT, 'docs', page)), page).toBe(true);
  });

  it('the transcript JSON format they point at is documented there', () => {
    const workspace = fs.readFileSync(path.join(ROOT, 'docs/workspace.md'), 'utf8');
    expect(workspace).toMatch(/^### Import \(built-in provider\)$/m);
    expect(workspace).toMatch(/^- \*\*JSON\*\*/m);
    expect(fs.readFileSync(path.join(ROOT, 'schema/schema.graphql'), 'utf8')).toContain('the JSON format documented in docs/workspace.md');
  });
});
