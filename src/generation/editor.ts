/**
 * The editor: checks that a written summary covers each analyst's top findings and appends the
 * ones it misses under "## Also noted", numbering their references after the existing ones.
 * Pure and idempotent: a reviewed summary passes its own review unchanged.
 */
import { citedNumbers, formatReferenceLine, referenceKey, ReferenceNumbering } from './compose.ts';
import { markdownSafe, tokenize } from './extractive.ts';
import type { Analysis, Finding, SourceReference, SummaryLength } from './types.ts';

/** Top findings checked per analysis, by summary length. */
export const CHECKED_PER_LENGTH: Record<SummaryLength, number> = { short: 2, medium: 3, long: 4 };

export const ALSO_NOTED_HEADING = '## Also noted';

export interface CoverageReview {
  markdown: string;
  /** `[n]` is `references[n - 1]`: the input list, then any reference the appended findings added. */
  references: SourceReference[];
  covered: number;
  checked: number;
  missing: { agent: string; text: string }[];
}

const REFERENCES_LINE = /^##\s+References\s*$/i;
const ALSO_NOTED_LINE = /^##\s+Also noted\s*$/i;
/** A heading that closes a section (level 1 or 2). */
const SECTION_START = /^#{1,2}\s/;

/**
 * `references` numbers the markdown's `[n]` markers. A finding is covered when the summary (outside
 * its References section) cites one of its records or contains at least half of its content words.
 * When the markdown has a References section the new references are listed there too; otherwise
 * rendering the returned list is left to the caller.
 */
export function reviewCoverage(
  markdown: string,
  references: readonly SourceReference[],
  analyses: readonly Analysis[],
  options: { length: SummaryLength },
): CoverageReview {
  const lines = markdown.replace(/\s+$/, '').split('\n');
  const referencesAt = lines.findIndex((line) => REFERENCES_LINE.test(line));
  const body = (referencesAt >= 0 ? lines.slice(0, referencesAt) : lines).join('\n');
  const isCovered = coverageTest(body, references);

  let checked = 0;
  const missing: { agent: string; finding: Finding }[] = [];
  for (const analysis of analyses) {
    for (const finding of topFindings(analysis.findings, CHECKED_PER_LENGTH[options.length])) {
      checked += 1;
      if (!isCovered(finding)) missing.push({ agent: analysis.agent, finding });
    }
  }
  const result = { covered: checked - missing.length, checked, missing: missing.map((m) => ({ agent: m.agent, text: m.finding.text })) };
  if (missing.length === 0) return { markdown, references: [...references], ...result };

  const numbering = new ReferenceNumbering(references);
  const known = numbering.list.length;
  const bullets = missing.map(({ finding }) => `- ${markdownSafe(finding.text)}${numbering.markers(finding.references)}`);
  const added = numbering.list.slice(known);
  const revised = appendReferenceLines(lines, referencesAt, added, known);
  insertAlsoNoted(revised, bullets);
  return { markdown: `${revised.join('\n')}\n`, references: numbering.list, ...result };
}

/** The first `n` findings by weight (stable for equal weights). */
function topFindings(findings: readonly Finding[], n: number): Finding[] {
  return [...findings].sort((a, b) => b.weight - a.weight).slice(0, n);
}

function coverageTest(body: string, references: readonly SourceReference[]): (finding: Finding) => boolean {
  const cited = new Set(
    citedNumbers(body)
      .filter((n) => n >= 1 && n <= references.length)
      .map((n) => referenceKey(references[n - 1])),
  );
  const words = new Set(tokenize(body));
  const lowerBody = body.toLowerCase();
  return (finding) => {
    if (finding.references.some((reference) => cited.has(referenceKey(reference)))) return true;
    const own = new Set(tokenize(finding.text));
    if (own.size === 0) return lowerBody.includes(markdownSafe(finding.text).toLowerCase());
    const present = [...own].filter((word) => words.has(word)).length;
    return present * 2 >= own.size;
  };
}

/** Lists the new references at the end of the References section (if there is one); returns new lines. */
function appendReferenceLines(lines: string[], referencesAt: number, added: readonly SourceReference[], known: number): string[] {
  const revised = [...lines];
  if (referencesAt < 0 || added.length === 0) return revised;
  const end = sectionEnd(revised, referencesAt);
  revised.splice(end, 0, ...added.map((reference, i) => formatReferenceLine(known + i + 1, reference)));
  return revised;
}

/** Adds bullets to an existing "Also noted" section, or a new one before References (or at the end). */
function insertAlsoNoted(lines: string[], bullets: readonly string[]): void {
  const existing = lines.findIndex((line) => ALSO_NOTED_LINE.test(line));
  if (existing >= 0) {
    lines.splice(sectionEnd(lines, existing), 0, ...bullets);
    return;
  }
  const referencesAt = lines.findIndex((line) => REFERENCES_LINE.test(line));
  const section = [ALSO_NOTED_HEADING, '', ...bullets];
  if (referencesAt < 0) {
    lines.push('', ...section);
    return;
  }
  lines.splice(referencesAt, 0, ...section, '');
}

/** The index just after the last non-blank line of the section starting at `start`. */
function sectionEnd(lines: readonly string[], start: number): number {
  let next = lines.findIndex((line, i) => i > start && SECTION_START.test(line));
  if (next < 0) next = lines.length;
  let end = next;
  while (end > start + 1 && lines[end - 1].trim() === '') end -= 1;
  return end;
}
