/**
 * docs/developing.md stays true to the tree: every path it names in code spans exists (a
 * `<placeholder>` segment matches any entry of its folder), and every `npm run` script it names is
 * in package.json. Its links and anchors are checked with every page's by docs-links.test.ts.
 * Pure file reading: no server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/developing.md'), 'utf8');

/** The words of the inline code spans outside fenced blocks, and the lines inside them. */
function codeWords(markdown: string): string[] {
  const words: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const spans = fenced ? [line] : [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    for (const span of spans) words.push(...span.split(/\s+/).filter(Boolean));
  }
  return words;
}

/** A word that names a file or folder of the repository: `src/config.ts`, `docs/`, `package.json`. */
function isRepositoryPath(word: string): boolean {
  if (/^[\w.-]+\.(json|md|ts|mjs|yaml|toml)$/.test(word)) return true;
  return /^[\w.<>-]+\/[\w.<>/*-]*$/.test(word) && !word.startsWith('/');
}

/** True when the path exists; a segment holding `<…>` or `*` matches any entry of its folder by the rest of its letters. */
function exists(relative: string, base = ROOT): boolean {
  const [segment, ...rest] = relative.replace(/\/$/, '').split('/');
  if (segment === undefined) return true;
  const candidates = /[<*]/.test(segment)
    ? fs.existsSync(base) && fs.statSync(base).isDirectory()
      ? fs.readdirSync(base).filter((entry) => placeholderPattern(segment).test(entry))
      : []
    : [segment];
  return candidates.some((name) => {
    const full = path.join(base, name);
    return fs.existsSync(full) && (rest.length === 0 || exists(rest.join('/'), full));
  });
}

function placeholderPattern(segment: string): RegExp {
  const literal = segment.split(/<[^>]+>|\*/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('.+')}$`);
}

describe('docs/developing.md', () => {
  const paths = [...new Set(codeWords(DOC).filter(isRepositoryPath))];

  it('names paths (the scan is not empty)', () => {
    expect(paths.length).toBeGreaterThan(40);
    expect(paths).toContain('schema/stickies.ts');
    expect(paths).toContain('src/<area>/');
  });

  it('names only paths that exist', () => {
    expect(paths.filter((named) => !exists(named))).toEqual([]);
  });

  it('names only npm scripts that package.json has', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const named = [...DOC.matchAll(/npm run ([\w:.-]+)/g)].map((match) => match[1]!);
    expect(named).toContain('emit');
    expect(named.filter((script) => !(script in scripts))).toEqual([]);
  });

  it('matches a placeholder against the folder it names', () => {
    expect(exists('src/<area>/')).toBe(true);
    expect(exists('prisma/migrations/<timestamp>_<name>/migration.sql')).toBe(true);
    expect(exists('test/rest/<resource>.test.ts')).toBe(true);
    expect(exists('scripts/emit-*.ts')).toBe(true);
    expect(exists('schema/<nothing>.graphqls')).toBe(false);
    expect(exists('src/no-such-file.ts')).toBe(false);
  });
});
