/**
 * Every relative link of README.md and docs/**\/*.md resolves: the file exists, and an anchor
 * (`docs/rest.md#errors-one-table-for-every-front`, `#graphql`) names a heading of that file, by
 * GitHub's rules (lower-case; punctuation other than hyphens and underscores removed; each space a
 * hyphen; a repeated heading gets `-1`, `-2`…). Every docs page opens with a table of contents that
 * lists its `##` and `###` headings. Pure file reading: no server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith('.md') ? [full] : [];
  });
}

const FILES = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs'))];

/** The lines outside fenced code blocks (``` or ~~~). */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker && (fence === null || fence === marker)) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence === null) lines.push(line);
  }
  return lines;
}

export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function headings(text: string): { level: number; text: string; anchor: string }[] {
  const seen = new Map<string, number>();
  return proseLines(text).flatMap((line) => {
    const match = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!match) return [];
    const base = slug(match[2]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return [{ level: match[1].length, text: match[2], anchor: count === 0 ? base : `${base}-${count}` }];
  });
}

/** Markdown links `[text](target)` in prose, without inline code spans. */
function links(text: string): string[] {
  return proseLines(text).flatMap((line) => [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]));
}

describe('documentation links', () => {
  it('finds the README and the docs pages', () => {
    expect(FILES.length).toBeGreaterThan(5);
  });

  it('computes GitHub anchors', () => {
    expect(slug('Errors: one table for every front')).toBe('errors-one-table-for-every-front');
    expect(slug('Summary generation (`GET /api/generate`, server-sent events)')).toBe('summary-generation-get-apigenerate-server-sent-events');
    expect(slug('The http provider (`TASK_PROVIDER=http`)')).toBe('the-http-provider-task_providerhttp');
    expect(headings('## GraphQL\n\n```\n# not a heading\n```\n### GraphQL\n').map((h) => h.anchor)).toEqual(['graphql', 'graphql-1']);
  });

  for (const file of FILES) {
    const name = path.relative(ROOT, file);
    it(`${name}: every relative link names an existing file and heading`, () => {
      const broken: string[] = [];
      for (const target of links(fs.readFileSync(file, 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
        if (!fs.existsSync(resolved)) {
          broken.push(`${target}: no file ${path.relative(ROOT, resolved)}`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!resolved.endsWith('.md')) {
          broken.push(`${target}: an anchor into a file that is not markdown`);
          continue;
        }
        const anchors = headings(fs.readFileSync(resolved, 'utf8')).map((h) => h.anchor);
        if (!anchors.includes(anchor)) broken.push(`${target}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`);
      }
      expect(broken).toEqual([]);
    });
  }

  const pages = FILES.filter((file) => path.dirname(file) === path.join(ROOT, 'docs'));
  for (const file of pages) {
    it(`${path.relative(ROOT, file)}: starts with a purpose line and a table of contents of its headings`, () => {
      const text = fs.readFileSync(file, 'utf8');
      const lines = text.split('\n');
      expect(lines[0]).toMatch(/^# \S/);
      expect(lines[2]?.trim().length, 'a one-line purpose under the title').toBeGreaterThan(0);
      const toc = new Set(lines.filter((line) => /^\s*- \[[^\]]+\]\(#[^)]+\)\s*$/.test(line)).map((line) => /\(#([^)]+)\)/.exec(line)![1]));
      const listed = headings(text).filter((h) => h.level === 2 || h.level === 3);
      expect(listed.length, 'at least one ## heading').toBeGreaterThan(0);
      expect(listed.filter((h) => !toc.has(h.anchor)).map((h) => h.text)).toEqual([]);
    });
  }
});
